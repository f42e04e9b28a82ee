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
 * Longest first, from a full `npm test` with three workers on two cores (`jest --ci --json`, 2026-12-07),
 * in seconds: replicas 118, secret rotation 117, Redis failover 60, fuzz 52, WhatsApp about 50, the 200,000-row export
 * 51, the previous build 39, live revocation 30, then 20–27 each (a busier machine has taken twice
 * that). The browser files of the staff board, its outage and the ticket page are left out on
 * purpose: they time a page's update to the second, so they start once this first wave thins out
 * (jest's order by size brings them soon after) rather than beside its heaviest files. Refresh the
 * list when a file's time changes by much.
 */
const FIRST = [
  'test/e2e/replicas.e2e.spec.ts',
  'test/e2e/secret-rotation.e2e.spec.ts',
  'test/e2e/redis-failover.e2e.spec.ts',
  'test/fuzz/fuzz.e2e.spec.ts',
  'test/e2e/whatsapp.e2e.spec.ts',
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
