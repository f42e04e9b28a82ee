#!/usr/bin/env bash
# Every existing benchmark on two built checkouts, in turn, in one run: this one and another
# (e.g. a worktree at the commit before a change, built with `npm run build`). The machine's speed
# moves ±30% between runs, so a change is judged against the other build measured beside it,
# never against a figure from another day. Each benchmark alternates the two builds `ROUNDS` times,
# the order swapped every round; each run's output is kept under `OUT` for reading.
#
#   bash bench/beside.sh /path/to/other/checkout [out-dir]
#
# ROUNDS (default 1), BENCHES (default "tickets limits events boards cv render", the ones to run)
# and each benchmark's arguments can be set through the environment (TICKETS_ARGS, LIMITS_ARGS,
# EVENTS_ARGS, BOARDS_ARGS, CV_ARGS, RENDER_ARGS, PEERS_ARGS; peers runs only when BENCHES names it).
set -euo pipefail
other=$(cd "${1:?usage: bash bench/beside.sh <other-checkout> [out-dir]}" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-/tmp/nida-beside}
rounds=${ROUNDS:-1}
mkdir -p "$out"
for checkout in "$here" "$other"; do
  [[ -f "$checkout/dist/bench/tickets.bench.js" ]] || { echo "beside: $checkout is not built (npm run build)" >&2; exit 2; }
done
declare -A args=(
  [tickets]="${TICKETS_ARGS:---seconds 5}"
  [limits]="${LIMITS_ARGS:---rounds 6 --slice 1.5}"
  [events]="${EVENTS_ARGS:---rounds 5}"
  [boards]="${BOARDS_ARGS:---rounds 20 --displays 50 --boards 50}"
  [cv]="${CV_ARGS:---seconds 5}"
  [render]="${RENDER_ARGS:---exports 200}"
  [peers]="${PEERS_ARGS:---rounds 3 --seconds 5}"
)
# One benchmark on one checkout, from a fresh database and no Redis keys of a run before, so
# neither build reads the other's rows.
run_once() {
  local checkout=$1 bench=$2 log=$3
  psql -h 127.0.0.1 -U postgres -qc 'drop database if exists nida_bench with (force)' >/dev/null 2>&1 || true
  redis-cli -h 127.0.0.1 --scan --pattern 'bench:*' 2>/dev/null | xargs -r redis-cli -h 127.0.0.1 del >/dev/null 2>&1 || true
  # shellcheck disable=SC2086
  (cd "$checkout" && node "dist/bench/$bench.bench.js" ${args[$bench]}) >"$log" 2>&1
}
# shellcheck disable=SC2206
benches=(${BENCHES:-tickets limits events boards cv render})
for bench in "${benches[@]}"; do
  [[ -n "${args[$bench]+set}" ]] || { echo "beside: no benchmark named $bench" >&2; exit 2; }
  for round in $(seq 1 "$rounds"); do
    order=("$here" "$other")
    (( round % 2 == 0 )) && order=("$other" "$here")
    for checkout in "${order[@]}"; do
      label=$([[ "$checkout" == "$here" ]] && echo head || echo other)
      log="$out/$bench-$label-$round.txt"
      echo "beside: $bench on $label ($checkout), round $round → $log" >&2
      # A stack whose ports or children from the benchmark before are still closing can miss its
      # start-up deadline; such a run is tried once more after they are gone, and says so.
      if ! run_once "$checkout" "$bench" "$log"; then
        echo "beside: $bench on $label failed (kept in $log.failed); trying it once more" >&2
        mv "$log" "$log.failed"
        sleep 10
        run_once "$checkout" "$bench" "$log" || echo "beside: $bench on $label failed again (see $log)" >&2
      fi
    done
  done
done
echo "beside: outputs in $out" >&2
