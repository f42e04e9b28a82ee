#!/usr/bin/env bash
# npm run soak -- [jest options]: the specs whose loops of independent trials `npm test` runs a share
# of (they read test/support/soak.ts), at their full count. Needs the build, as `npm test` makes it.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t specs < <(grep -rl --include='*.spec.ts' --exclude-dir=node_modules --exclude-dir=dist "support/soak'" . | sed 's|^./||' | sort)
[ ${#specs[@]} -gt 0 ] || { echo "soak: no spec reads test/support/soak.ts" >&2; exit 2; }
echo "soak: ${specs[*]}"
npm run -s build
SOAK=1 exec npx jest --ci --runTestsByPath "${specs[@]}" "$@"
