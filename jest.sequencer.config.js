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
 * Seconds each took in a full `npm test` on two busy cores (`jest --ci --json`), rounded: only the
 * order matters. Refresh it when a file's time changes by much. The staff board's and the ticket
 * page's browser files (60 s and 40 s) are left out on purpose: they time a page's update to the
 * second, so they start after this first wave of heavy files, by their size, rather than beside it.
 */
const LONGEST = {
  'test/e2e/replicas.e2e.spec.ts': 150,
  'test/e2e/secret-rotation.e2e.spec.ts': 70,
  'test/fuzz/fuzz.e2e.spec.ts': 55,
  'test/e2e/redis-failover.e2e.spec.ts': 45,
  'test/e2e/migrate-while-serving.e2e.spec.ts': 40,
  'test/e2e/ticket-export-memory.e2e.spec.ts': 40,
  'test/e2e/metrics.e2e.spec.ts': 35,
  'subgraphs/cv/render/templates.browser.spec.ts': 30,
  'test/e2e/tracing.e2e.spec.ts': 30,
  'test/e2e/cv-openapi.e2e.spec.ts': 25,
  'test/e2e/live-revocation.e2e.spec.ts': 25,
  'test/e2e/public-edge-telemetry.e2e.spec.ts': 25,
  'test/e2e/inflight-fetches.e2e.spec.ts': 25,
  'test/e2e/faults.e2e.spec.ts': 25,
};

class LongestFirst extends Sequencer {
  sort(tests) {
    const seconds = (test) => LONGEST[relative(test.context.config.rootDir, test.path).split('\\').join('/')];
    const known = tests.filter((test) => seconds(test) !== undefined);
    const rest = tests.filter((test) => seconds(test) === undefined);
    return [...known.sort((a, b) => seconds(b) - seconds(a)), ...super.sort(rest)];
  }
}

module.exports = LongestFirst;
