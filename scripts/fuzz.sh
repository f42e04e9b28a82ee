#!/usr/bin/env bash
# npm run fuzz -- [--minutes N] [--seed S]: the fuzz suite of `npm test`, for longer and with any seed.
# Prints the cases run and every kind of failure found; exits non-zero when there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=5
seed=$(( $(date +%s) % 1000000007 ))
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="${2:?--minutes needs a number}"; shift 2 ;;
    --seed) seed="${2:?--seed needs a number}"; shift 2 ;;
    *) echo "unknown option $1 (use --minutes N --seed S)" >&2; exit 2 ;;
  esac
done
[[ "$minutes" =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "--minutes must be a number, not $minutes" >&2; exit 2; }
[[ "$seed" =~ ^-?[0-9]+$ ]] || { echo "--seed must be an integer, not $seed" >&2; exit 2; }
echo "fuzz: seed $seed for $minutes minutes (replay with: npm run fuzz -- --minutes $minutes --seed $seed)"
FUZZ_SEED="$seed" FUZZ_MINUTES="$minutes" exec npx jest --ci --runTestsByPath test/fuzz/fuzz.e2e.spec.ts \
  --testNamePattern 'fuzzing'
