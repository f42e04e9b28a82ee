#!/usr/bin/env bash
# What `npm test` runs before jest: type checking, lint (ESLint with zero warnings, Prettier) and the
# build the e2e tests start processes from. They are independent of each other, so they run side
# by side: on two cores that is about a minute instead of a minute and a half, one after another.
# Each one's output is printed whole, in this order, once all have ended; any failure fails the
# whole.
set -uo pipefail
cd "$(dirname "$0")/.."

names=(typecheck eslint prettier build)
commands=(
  'npm run -s typecheck'
  'npm run -s lint:code'
  'npm run -s lint:format'
  'npm run -s build'
)

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
pids=()
for i in "${!names[@]}"; do
  bash -c "${commands[$i]}" > "$out/${names[$i]}" 2>&1 &
  pids+=("$!")
done

failed=()
for i in "${!names[@]}"; do
  if ! wait "${pids[$i]}"; then failed+=("${names[$i]}"); fi
done
for i in "${!names[@]}"; do
  if [ -s "$out/${names[$i]}" ]; then cat "$out/${names[$i]}"; fi
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "[checks] failed: ${failed[*]} (each one's output is above)" >&2
  exit 1
fi
