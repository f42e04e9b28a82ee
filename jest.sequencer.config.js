/**
 * The order `npm test` runs its files in (jest.config.js `testSequencer`): the ones known to take
 * longest first, so none of them starts late and runs on alone while the other workers have nothing
 * left. Jest orders by the previous run's durations when its cache holds them, but a fresh clone has
 * none, and then it goes by file size, which puts a slow, short file (the fuzz suite) near the end.
 * The rest keep jest's own order.
 */
const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/**
 * Longest first, from a full `npm test` with three workers on two busy cores (`jest --ci --json`), in
 * seconds: replicas 290, secret rotation 220, Redis failover 125, fuzz 115, the 200,000-row export
 * 105, live revocation 85, the previous build 60, then 35–45 each (about a third of that on idle
 * cores). The staff board's and the ticket page's browser files (75 s and 50 s) are left out on
 * purpose: they time a page's update to the second, so they start once this first wave thins out
 * (jest's order by size brings them soon after) rather than beside its heaviest files. Refresh the
 * list when a file's time changes by much.
 */
const FIRST = [
  'test/e2e/replicas.e2e.spec.ts',
  'test/e2e/secret-rotation.e2e.spec.ts',
  'test/e2e/redis-failover.e2e.spec.ts',
  'test/fuzz/fuzz.e2e.spec.ts',
  'test/e2e/ticket-export-memory.e2e.spec.ts',
  'test/e2e/live-revocation.e2e.spec.ts',
  'test/e2e/migrate-while-serving.e2e.spec.ts',
  'test/e2e/public-edge-telemetry.e2e.spec.ts',
  'test/e2e/metrics.e2e.spec.ts',
  'test/e2e/tracing.e2e.spec.ts',
  'test/e2e/faults.e2e.spec.ts',
  'test/e2e/inflight-fetches.e2e.spec.ts',
  'subgraphs/cv/render/templates.browser.spec.ts',
  'test/e2e/cv-openapi.e2e.spec.ts',
];

class LongestFirst extends Sequencer {
  sort(tests) {
    const rank = (test) =>
      FIRST.indexOf(relative(test.context.config.rootDir, test.path).split('\\').join('/'));
    const known = tests.filter((test) => rank(test) >= 0);
    const rest = tests.filter((test) => rank(test) < 0);
    return [...known.sort((a, b) => rank(a) - rank(b)), ...super.sort(rest)];
  }
}

module.exports = LongestFirst;
