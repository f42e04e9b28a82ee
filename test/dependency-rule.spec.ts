import { ESLint } from 'eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';
import { projectRoot } from '../common/paths';

// eslint.config.mjs takes its zones from this file; the test lints against the very same rule.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { BOUNDARY_ZONES, SPEC_BOUNDARY_ZONES } = require('../eslint.boundaries.cjs') as Record<
  'BOUNDARY_ZONES' | 'SPEC_BOUNDARY_ZONES',
  unknown[]
>;

const eslint = new ESLint({
  cwd: projectRoot(),
  overrideConfigFile: true,
  overrideConfig: [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { 'import-x': importX as unknown as ESLint.Plugin },
      settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'] })] },
      rules: { 'import-x/no-restricted-paths': ['error', { zones: BOUNDARY_ZONES }] },
    },
    {
      files: ['**/*.spec.ts'],
      rules: { 'import-x/no-restricted-paths': ['error', { zones: SPEC_BOUNDARY_ZONES }] },
    },
  ],
});

/** The boundary messages lint gives a file at `path` that imports `from` (a type of it, if `typeOnly`). */
async function verdict(path: string, from: string, typeOnly = false): Promise<string[]> {
  const probe = typeOnly
    ? `import type { Probe } from '${from}';\nexport type { Probe };\n`
    : `import * as probe from '${from}';\nexport { probe };\n`;
  const [result] = await eslint.lintText(probe, { filePath: `${projectRoot()}/${path}` });
  return (result?.messages ?? []).map((message) => message.message);
}

describe('the dependency rule, as lint enforces it', () => {
  it.each([
    [
      'a door importing a domain',
      'rest-adapter/tickets/probe.ts',
      '../../subgraphs/tickets/tickets/ticket.entity',
    ],
    ['the gateway importing a domain', 'gateway/probe.ts', '../subgraphs/tickets/access/access-cache'],
    ['a domain importing a door', 'subgraphs/tickets/probe.ts', '../../rest-adapter/http-errors'],
    ['a domain importing another', 'subgraphs/cv/probe.ts', '../billing/subscription.service'],
    ['a domain importing tools', 'subgraphs/billing/probe.ts', '../../tools/stack'],
    ['contracts importing a domain', 'contracts/cv/probe.ts', '../../subgraphs/cv/photo'],
    ['common importing contracts', 'common/probe.ts', '../contracts/tickets/ticket.limits'],
    ['code outside tests importing test/', 'tools/probe.ts', '../test/support/wait'],
    [
      'a subgraph folder importing a sibling folder’s internals',
      'subgraphs/tickets/events/probe.ts',
      '../tickets/ticket.entity',
    ],
    ['a subgraph folder importing a folder above it', 'subgraphs/tickets/venues/probe.ts', '../access'],
    [
      'a subgraph folder importing the root module',
      'subgraphs/tickets/tickets/probe.ts',
      '../tickets.subgraph',
    ],
    ['a spec inside a folder importing the root module', 'subgraphs/tickets/events/probe.spec.ts', '../main'],
    ['a gateway folder importing a folder above it', 'gateway/limits/probe.ts', '../fetch'],
    ['the gateway’s context importing any folder of the gateway', 'gateway/context/probe.ts', '../limits'],
    ['a gateway folder importing a sibling’s internals', 'gateway/door/probe.ts', '../limits/rate-limit'],
    ['a gateway folder importing the root module', 'gateway/door/probe.ts', '../gateway'],
    ['a gateway folder importing the process entry', 'gateway/live/probe.ts', '../main'],
    ['a spec inside a gateway folder importing a folder above it', 'gateway/fetch/probe.spec.ts', '../door'],
  ])('refuses %s', async (_case, path, from) => {
    const messages = await verdict(path, from);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/restricted zone/);
  });

  it.each([
    ['a gateway folder taking a type from a folder above it', 'gateway/limits/probe.ts', '../live'],
    [
      'a gateway folder taking a type from a sibling’s internals',
      'gateway/live/probe.ts',
      '../context/gateway-context',
    ],
  ])('refuses %s', async (_case, path, from) => {
    const messages = await verdict(path, from, true);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/restricted zone/);
  });

  it.each([
    [
      'a door importing a contract',
      'rest-adapter/tickets/probe.ts',
      '../../contracts/tickets/ticket.resource',
    ],
    ['a domain importing a contract', 'subgraphs/tickets/probe.ts', '../../contracts/tickets/live-event'],
    ['a domain importing its own files', 'subgraphs/cv/probe.ts', './cv.service'],
    ['a subgraph folder importing its own files', 'subgraphs/tickets/tickets/probe.ts', './ticket.entity'],
    ['a subgraph folder importing a lower folder’s index', 'subgraphs/tickets/events/probe.ts', '../tickets'],
    ['the root module importing a folder', 'subgraphs/tickets/probe.ts', './venues'],
    ['a gateway folder importing a lower folder’s index', 'gateway/door/probe.ts', '../limits'],
    ['a gateway folder importing its own files', 'gateway/fetch/probe.ts', './inflight-fetches'],
    ['the gateway’s root module importing a folder', 'gateway/probe.ts', './door'],
    ['tools importing a gateway folder’s internals', 'tools/probe.ts', '../gateway/explorer/explorer-bundle'],
    ['contracts importing common', 'contracts/cv/probe.ts', '../../common/patterns'],
    ['tools importing a domain', 'tools/probe.ts', '../subgraphs/cv/cv.service'],
    [
      'tools importing a subgraph folder’s internals',
      'tools/probe.ts',
      '../subgraphs/tickets/venues/venue.entity',
    ],
    ['a spec beside the code using test helpers', 'subgraphs/cv/probe.spec.ts', '../../test/support/wait'],
  ])('lets %s through', async (_case, path, from) => {
    expect(await verdict(path, from)).toEqual([]);
  });
});
