/**
 * Four tiers, each runnable apart (`npm run test:unit`, `test:db`, `test:e2e`, `test:browser`);
 * `npm test` runs them all. A spec's tier is in its name:
 *   - `*.spec.ts`          unit: no Postgres, no Redis, no process of the platform; seconds.
 *   - `*.db.spec.ts`       db: real Postgres and Redis, code called in process.
 *   - `*.e2e.spec.ts`      e2e: the platform's processes over HTTP and WebSocket (test/e2e, test/fuzz).
 *   - `*.browser.spec.ts`  browser: Chromium drives a page or renders a PDF.
 * Tiers that need Postgres share one migrated template database (test/global-setup.ts).
 */
const base = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }] },
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
  setupFiles: ['reflect-metadata'],
};
const withDatabase = {
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
};
const ignored = ['/node_modules/', '/dist/'];

module.exports = {
  // Three files at once on two cores: most end-to-end and browser files spend their time waiting
  // on processes, sockets, timers and Postgres, not computing (a third of the e2e tier took 114 s
  // with three workers where it took 199 s with two).
  maxWorkers: 3,
  // The longest files first, whether or not jest's cache knows their durations (a fresh clone).
  testSequencer: '<rootDir>/jest.sequencer.config.js',
  testTimeout: 60000,
  projects: [
    {
      ...base,
      displayName: 'unit',
      testMatch: ['<rootDir>/**/*.spec.ts'],
      testPathIgnorePatterns: [...ignored, '\\.(db|e2e|browser)\\.spec\\.ts$'],
    },
    {
      ...base,
      ...withDatabase,
      displayName: 'db',
      testMatch: ['<rootDir>/**/*.db.spec.ts'],
      testPathIgnorePatterns: ignored,
    },
    {
      ...base,
      ...withDatabase,
      displayName: 'e2e',
      testMatch: ['<rootDir>/**/*.e2e.spec.ts'],
      testPathIgnorePatterns: ignored,
    },
    {
      ...base,
      ...withDatabase,
      displayName: 'browser',
      testMatch: ['<rootDir>/**/*.browser.spec.ts'],
      testPathIgnorePatterns: ignored,
    },
  ],
};
