import { parseFlags, UsageError, type CommandSpec } from './cli';

const spec: CommandSpec = {
  noun: 'key',
  verb: 'create',
  summary: 'spec',
  flags: {
    branch: { description: 'branch id', type: 'integer', required: true },
    name: { description: 'label', type: 'string' },
    premium: { description: 'switch', type: 'boolean' },
    plan: { description: 'plan', type: 'string', choices: ['free', 'pro'] },
  },
  run: () => Promise.resolve(null),
};

describe('parseFlags', () => {
  it('reads --flag value, --flag=value and bare boolean flags', () => {
    expect(parseFlags(spec, ['--branch', '7', '--name=Front counter', '--premium'])).toEqual({
      branch: 7,
      name: 'Front counter',
      premium: true,
    });
  });

  it.each([
    [['--name', 'x'], 'key create: missing --branch'],
    [['--branch', 'seven'], '--branch must be a positive whole number (got "seven")'],
    [['--branch', '0'], '--branch must be a positive whole number (got "0")'],
    [['--branch', '1', '--plan', 'gold'], '--plan must be one of free, pro (got "gold")'],
    [['--branch', '1', '--name'], '--name needs a value'],
    [['--branch', '1', '--name', '--premium'], '--name needs a value'],
    [['--branch', '1', '--premium=yes'], '--premium takes no value'],
    [['--branch', '1', '--branch', '2'], '--branch given twice'],
    [['--branch', '1', 'extra'], 'unexpected argument "extra"'],
  ])('refuses %j naming what was wrong', (args, message) => {
    expect(() => parseFlags(spec, args)).toThrow(UsageError);
    expect(() => parseFlags(spec, args)).toThrow(message);
  });
});
