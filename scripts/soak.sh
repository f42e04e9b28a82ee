#!/usr/bin/env bash
# npm run soak -- [jest options]: the specs that `npm test` runs shortened (they read
# test/support/soak.ts) at full length: every trial of their loops of independent trials, and the
# replica test's faults one kind after another. Builds first, as they start the compiled processes.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t specs < <(grep -rl --include='*.spec.ts' --exclude-dir=node_modules --exclude-dir=dist \
  "support/soak'" . | sed 's|^\./||' | sort)
[ ${#specs[@]} -gt 0 ] || { echo "soak: no spec reads test/support/soak.ts" >&2; exit 2; }
echo "soak: ${specs[*]}"
npm run -s build
SOAK=1 exec npx jest --ci --runTestsByPath "${specs[@]}" "$@"
