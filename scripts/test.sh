#!/usr/bin/env bash
# README command two: install what is missing, then run every check and test (`npm test`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec npm test
