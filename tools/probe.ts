/** Container health check: exits 0 when the URL answers 2xx within 3 seconds. */
const url = process.argv[2];
if (url === undefined) {
  process.stderr.write('usage: node dist/tools/probe.js URL\n');
  process.exit(2);
}
fetch(url, { signal: AbortSignal.timeout(3_000) }).then(
  (response) => process.exit(response.ok ? 0 : 1),
  () => process.exit(1),
);
