import { trials } from '../support/soak';
import { startFuzzStack, type FuzzStack } from './fuzz-stack';
import { formatReport, graphErrorProblem, restShapeProblem, runFuzz } from './fuzz-engine';
import { changedTables, tableFingerprint } from './table-fingerprint';

/**
 * `npm test` replays the same cases every run (CI sets CI=true; the seed is fixed either way): the
 * first 600 of the seed, each an independent trial, about 12 s on two idle cores and two to four
 * times that beside the rest of the test command's files; `npm run soak` replays all 2,000 (a busy
 * machine sent only 1,078 of them within the bound beside the rest). The bound, there to end a run
 * gone wrong, is three minutes. `npm run fuzz` sets FUZZ_SEED and FUZZ_MINUTES for longer runs with
 * other seeds.
 */
const FIXED_SEED = 20261123;
const FIXED_CASES = trials({ test: 600, soak: 2_000 });
const FIXED_BUDGET_MS = 180_000;

const seed = process.env.FUZZ_SEED === undefined ? FIXED_SEED : Number(process.env.FUZZ_SEED);
const minutes = process.env.FUZZ_MINUTES === undefined ? undefined : Number(process.env.FUZZ_MINUTES);
const budgetMs = minutes === undefined ? FIXED_BUDGET_MS : minutes * 60_000;

describe('the fuzz checks', () => {
  it('flag what the documents do not allow', () => {
    expect(restShapeProblem('tickets', 404, { message: 'Ticket not found.' })).toBeUndefined();
    expect(restShapeProblem('tickets', 422, { message: 'x', errors: {} })).toBe('a 422 names no field');
    expect(restShapeProblem('cv', 404, { message: 'CV not found.' })).toBe('a CV error body has no errors');
    expect(restShapeProblem('cv', 422, { message: 'x', errors: { request: ['x'] } })).toBe(
      'a 422 from the database floor names no field',
    );
    expect(restShapeProblem('tickets', 400, 'Bad Request')).toBe('the error body is not a JSON object');
    expect(graphErrorProblem([{ message: 'x', extensions: { code: 'NOT_FOUND' } }])).toBeUndefined();
    expect(
      graphErrorProblem([{ message: 'Server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }]),
    ).toBe('INTERNAL_SERVER_ERROR');
    expect(graphErrorProblem([{ message: 'x', extensions: { code: 'UNAVAILABLE' } }])).toBe('UNAVAILABLE');
    expect(graphErrorProblem([{ message: 'x' }])).toBe('an error without extensions.code');
  });
});

describe('fuzzing both REST documents and every mutation of the graph', () => {
  let stack: FuzzStack;

  beforeAll(async () => {
    stack = await startFuzzStack();
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('sees a committed write in the tables’ fingerprint, and nothing else', async () => {
    const fingerprint = await tableFingerprint(stack.target.database);
    const before = await fingerprint.take();
    expect(changedTables(before, await fingerprint.take())).toEqual([]);
    const response = await fetch(`${stack.target.restUrl}/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.target.ticketKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'fingerprint' }),
    });
    expect(response.status).toBe(201);
    expect(changedTables(before, await fingerprint.take())).toEqual([
      'tickets.branches',
      // The creation's hour and day in the venue insights' rollups.
      'tickets.insight_buckets',
      'tickets.outbox',
      'tickets.tickets',
    ]);
  });

  it(
    'answers every generated request below 500, in its document’s error shape, writing nothing it refused',
    async () => {
      const report = await runFuzz(stack.target, {
        seed,
        maxCases: minutes === undefined ? FIXED_CASES : Number.POSITIVE_INFINITY,
        deadline: Date.now() + budgetMs,
        progress:
          minutes === undefined
            ? undefined
            : (cases, failures) =>
                process.stdout.write(`fuzz: ${cases} cases, ${failures} kinds of failure\n`),
      });
      process.stdout.write(formatReport(report));
      expect(report.cases).toBeGreaterThan(0);
      expect(report.failures).toEqual([]);
    },
    budgetMs + 120_000,
  );
});
