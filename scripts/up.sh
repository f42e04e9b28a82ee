#!/usr/bin/env bash
# README command one: install what is missing, build, then run the whole stack with demo data.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
npm run -s build
exec node dist/tools/start.js
