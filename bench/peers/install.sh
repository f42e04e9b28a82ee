#!/usr/bin/env bash
# Installs Hive Gateway's runtime for bench/peers/hive-peer.ts when it is missing or its lock
# changed. It is the benchmark's peer, not a part of the platform, so the platform's `npm ci` (and
# with it every test run) does not pay for its ~150 packages. Its peer dependencies (graphql, ws,
# ioredis, pino) are not installed here (.npmrc): they resolve to the platform's own, so the peer's
# schema and the graphql-ws server it is served with share one graphql.
set -euo pipefail
cd "$(dirname "$0")"
lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.installed-lock-hash
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_hash" ]; then
  echo "[bench:peers] installing Hive Gateway's runtime (npm ci in bench/peers)" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$lock_hash" > "$stamp"
fi
