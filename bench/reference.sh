#!/usr/bin/env bash
# Every benchmark docs/PERFORMANCE.md cites, one after another, with the arguments its tables cite,
# on this checkout built at its HEAD: the whole page measured again at one commit by one command.
#
#   bash bench/reference.sh [out-dir]          (default /tmp/nida-reference)
#
# It builds first (SKIP_BUILD=1 to use dist/ as it is). Each benchmark's stdout is kept as
# <name>.out (its JSON, then its table and checks), the JSON alone as <name>.json when it prints
# one (observability prints a table only), its stderr as <name>.log; commit.txt says what was
# measured. Each runs from a fresh bench database and no Redis keys of a run before; one that fails
# (a stack missing its start-up deadline while the previous one's ports are still closing) is run
# once more after 10 s, the failed output kept beside as .failed.
#
# The observability benchmark compares with the build before metrics and traces: a checkout at
# 18ecaca built at $BASELINE (default /tmp/nida-baseline), made here as a git worktree with this
# checkout's node_modules linked when it is not there yet. PEERS_RUNS (default 1) whole peers runs,
# kept as peers-1, peers-2…; the page's peers table shows three.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/tmp/nida-reference}
baseline=${BASELINE:-/tmp/nida-baseline}
peers_runs=${PEERS_RUNS:-1}
started=$(date +%s)
mkdir -p "$out"
cd "$here"

say() { echo "reference: $*" >&2; }

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  say "building $(git rev-parse --short HEAD)"
  npm run -s build
fi
{
  echo "commit $(git rev-parse HEAD)"
  git status --porcelain --untracked-files=no | sed 's/^/dirty /'
  echo "started $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$out/commit.txt"

if [[ ! -f "$baseline/dist/tools/start.js" ]]; then
  say "making the observability baseline: 18ecaca at $baseline"
  [[ -e "$baseline" ]] || git worktree add --detach "$baseline" 18ecaca
  [[ -e "$baseline/node_modules" ]] || ln -s "$here/node_modules" "$baseline/node_modules"
  (cd "$baseline" && npm run -s build)
fi

# Each benchmark and its arguments, in the order the page gives them.
benches=(plans tickets limits cv render events boards board-use board-sync observability footprint)
declare -A args=(
  [plans]="--seconds 8 --concurrency 16"
  [tickets]="--seconds 5"
  [limits]="--rounds 6 --slice 1.5"
  [cv]="--seconds 5"
  [render]="--jobs 300 --baseline 20 --exports 1000"
  [events]="--rounds 7"
  [boards]="--rounds 20 --displays 50 --boards 50"
  [board-use]="--seconds 120 --pause 1000"
  [board-sync]="--runs 5"
  [observability]="--baseline $baseline --rounds 6 --slice 1.5"
  [footprint]="--seconds 20"
  [peers]="--rounds 3 --seconds 4"
  [insights]="--tickets 2000000 --runs 20"
)
for run in $(seq 1 "$peers_runs"); do benches+=("peers-$run"); done
benches+=(insights)

fresh() {
  for database in nida_bench nida_bench_off nida_bench_metrics nida_bench_traced; do
    psql -h 127.0.0.1 -U postgres -qc "drop database if exists $database with (force)" >/dev/null 2>&1 || true
  done
  redis-cli -h 127.0.0.1 --scan --pattern 'bench*' 2>/dev/null | xargs -r redis-cli -h 127.0.0.1 del >/dev/null 2>&1 || true
}

# One benchmark: its stdout, its stderr, and the JSON its stdout opens with (up to the first line
# that is a lone closing brace, as JSON.stringify(…, null, 2) ends).
run_once() {
  local name=$1 bench=${1%-[0-9]*}
  fresh
  # shellcheck disable=SC2086
  node "dist/bench/$bench.bench.js" ${args[$bench]} >"$out/$name.out" 2>"$out/$name.log" || return 1
  if [[ $(head -c1 "$out/$name.out") == "{" ]]; then
    awk '{ print } /^}$/ { exit }' "$out/$name.out" >"$out/$name.json"
  fi
}

for name in "${benches[@]}"; do
  bench_started=$(date +%s)
  say "$name (${args[${name%-[0-9]*}]}) → $out/$name.out"
  if ! run_once "$name"; then
    say "$name failed (kept as $name.out.failed); trying it once more"
    mv "$out/$name.out" "$out/$name.out.failed"
    mv "$out/$name.log" "$out/$name.log.failed"
    sleep 10
    run_once "$name" || say "$name failed again (see $out/$name.log)"
  fi
  say "$name took $(($(date +%s) - bench_started)) s"
done
fresh

elapsed=$(($(date +%s) - started))
echo "finished $(date -u +%Y-%m-%dT%H:%M:%SZ), $elapsed s" >>"$out/commit.txt"
say "outputs in $out; $((elapsed / 60)) min $((elapsed % 60)) s in all"
