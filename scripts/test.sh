#!/usr/bin/env bash
# README command two: install what is missing, then run every check and test. `npm test` is the
# same command: it runs scripts/setup.sh first, which does nothing when everything is there.
set -euo pipefail
cd "$(dirname "$0")/.."
exec npm test
