import type { RateDecision, RatePolicy } from '../../common/rate-budget';
import { MAX_AHEAD_PER_CREDENTIAL, RunAhead } from './run-ahead';

const tickets: RatePolicy = { name: 'tickets', quota: 120, windowSeconds: 60 };
const people: RatePolicy = { name: 'people', quota: 300, windowSeconds: 60 };

const allowed = (remaining: number, resetSeconds = 30, policy = tickets): RateDecision => ({
  policy,
  allowed: true,
  remaining,
  resetSeconds,
});

describe('RunAhead: which queries may go to their subgraphs before their count settles', () => {
  let now = 1_000_000;
  let runAhead: RunAhead;

  beforeEach(() => {
    now = 1_000_000;
    runAhead = new RunAhead(() => now);
  });

  it('lets nothing of a credential run ahead before one of its counts has settled', () => {
    expect(runAhead.take('key A')).toBeUndefined();
    runAhead.counting('key A')([allowed(50)]);
    expect(runAhead.take('key A')).toBeDefined();
    expect(runAhead.take('key B')).toBeUndefined();
  });

  it(`lets at most ${MAX_AHEAD_PER_CREDENTIAL} query of a credential run ahead at once, and the next once it is let go`, () => {
    runAhead.counting('key A')([allowed(50)]);
    const ahead = Array.from({ length: MAX_AHEAD_PER_CREDENTIAL }, () => runAhead.take('key A'));
    expect(ahead.every((ticket) => ticket !== undefined)).toBe(true);
    expect(runAhead.take('key A')).toBeUndefined();
    // Letting one go twice frees one place, not two.
    ahead[0]!();
    ahead[0]!();
    const next = runAhead.take('key A');
    expect(next).toBeDefined();
    expect(runAhead.take('key A')).toBeUndefined();
  });

  it('lets nothing run ahead once a count has refused or left nothing, nor past that window before a new count', () => {
    runAhead.counting('key A')([{ policy: tickets, allowed: false, remaining: 0, resetSeconds: 20 }]);
    expect(runAhead.take('key A')).toBeUndefined();
    runAhead.counting('key B')([allowed(0, 20)]);
    expect(runAhead.take('key B')).toBeUndefined();
    now += 20_000;
    expect(runAhead.take('key A')).toBeUndefined();
  });

  it('judges a request of two credentials by the one with less left, and the sooner reset', () => {
    runAhead.counting('two')([allowed(40, 50), allowed(0, 10, people)]);
    expect(runAhead.take('two')).toBeUndefined();
    runAhead.counting('two')([allowed(40, 50), allowed(5, 10, people)]);
    const ticket = runAhead.take('two');
    expect(ticket).toBeDefined();
    ticket!();
    // What was learnt holds only until the sooner window resets: after it, what is left is unknown.
    now += 10_000;
    expect(runAhead.take('two')).toBeUndefined();
  });

  it('forgets a credential whose count Redis did not answer, and one counted with no budget at all', () => {
    runAhead.counting('key A')([allowed(50)]);
    runAhead.counting('key A')([{ policy: tickets, allowed: true }]);
    expect(runAhead.take('key A')).toBeUndefined();
    runAhead.counting('key B')([allowed(50)]);
    runAhead.counting('key B')([]);
    expect(runAhead.take('key B')).toBeUndefined();
  });

  it('lets a query wait while a count of its credential other than its own is on its way', () => {
    runAhead.counting('key A')([allowed(50)]);
    const own = runAhead.counting('key A');
    const other = runAhead.counting('key A');
    expect(runAhead.take('key A')).toBeUndefined();
    other([allowed(49)]);
    const ticket = runAhead.take('key A');
    expect(ticket).toBeDefined();
    own([allowed(48)]);
    ticket!();
    // Once its own count has settled too, nothing is on its way: a query then has nothing to wait for.
    expect(runAhead.take('key A')).toBeDefined();
  });

  it('keeps a query running ahead counted when a later count of its credential is learnt', () => {
    runAhead.counting('key A')([allowed(50)]);
    const ticket = runAhead.take('key A');
    runAhead.counting('key A')([allowed(49)]);
    expect(runAhead.take('key A')).toBeUndefined();
    ticket!();
    expect(runAhead.take('key A')).toBeDefined();
  });
});
