#!/usr/bin/env bash
# Installs what the platform needs when it is missing and starts Postgres and Redis when they are
# not running. Safe to run again: it does nothing when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] %s\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    die "need root for: $* (run as root or install sudo)"; fi
}

# --- Node ---------------------------------------------------------------------------------------
command -v node >/dev/null || die "Node.js 20 is missing: install it (https://nodejs.org) and run again."
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || die "Node.js $(node --version) is too old: the platform needs Node 20 or newer."

# --- where Postgres and Redis are expected --------------------------------------------------------
database_url=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/nida}
redis_url=${REDIS_URL:-redis://127.0.0.1:6379}
hostport() { # URL -> "host port"
  node -e 'const u = new URL(process.argv[1]); console.log(u.hostname.replace(/^\[|\]$/g, "") || "127.0.0.1", u.port || process.argv[2])' "$1" "$2"
}
read -r pg_host pg_port < <(hostport "$database_url" 5432)
read -r redis_host redis_port < <(hostport "$redis_url" 6379)
is_local() { case "$1" in 127.0.0.1|localhost|::1) return 0 ;; *) return 1 ;; esac; }
reachable() { timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; }

# --- Debian packages ------------------------------------------------------------------------------
packages=()
installed_postgres=false
if is_local "$pg_host" && ! reachable "$pg_host" "$pg_port" && ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
  packages+=(postgresql); installed_postgres=true
fi
if is_local "$redis_host" && ! reachable "$redis_host" "$redis_port" && ! command -v redis-server >/dev/null; then
  packages+=(redis-server)
fi
# The failover test runs its own Redis servers and Sentinels (`redis-server --sentinel`).
if ! command -v redis-server >/dev/null && [[ " ${packages[*]} " != *" redis-server "* ]]; then
  packages+=(redis-server)
fi
# The replica tests put two of every process behind a real load balancer.
if ! command -v haproxy >/dev/null; then
  packages+=(haproxy)
fi
# The backup drill dumps and restores the database with PostgreSQL's own tools.
if ! command -v pg_dump >/dev/null || ! command -v pg_restore >/dev/null; then
  packages+=(postgresql-client)
fi
# `docker compose config` is part of the tests wherever a docker client is installed.
if command -v docker >/dev/null && ! docker compose version >/dev/null 2>&1 && ! command -v docker-compose >/dev/null; then
  packages+=(docker-compose)
fi
# The ticket page's tests (and the CV renderer) drive Debian's Chromium; Puppeteer never downloads one.
if [ -z "${CHROMIUM_PATH:-}" ] && ! [ -x /usr/bin/chromium ]; then
  packages+=(chromium)
fi
# The renderer's tests read the PDFs back with poppler (pdftotext, pdffonts, pdftoppm, pdfinfo).
if ! command -v pdftotext >/dev/null || ! command -v pdffonts >/dev/null; then
  packages+=(poppler-utils)
fi
if [ ${#packages[@]} -gt 0 ]; then
  command -v apt-get >/dev/null || die "missing ${packages[*]} and no apt-get to install them with"
  say "installing ${packages[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi

# --- Postgres -----------------------------------------------------------------------------------
if is_local "$pg_host" && ! reachable "$pg_host" "$pg_port"; then
  for dir in /etc/postgresql/*/main; do
    [ -d "$dir" ] || die "no local PostgreSQL cluster found; set DATABASE_URL to a running server"
    version=$(basename "$(dirname "$dir")")
    if $installed_postgres; then
      # A fresh Debian cluster asks for passwords on TCP; the platform's default URL uses trust auth.
      hba="$dir/pg_hba.conf"
      as_root sed -i -E 's/^(host\s+all\s+all\s+(127\.0\.0\.1\/32|::1\/128)\s+)\S+/\1trust/' "$hba"
    fi
    say "starting PostgreSQL $version"
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  done
fi
if ! reachable "$pg_host" "$pg_port"; then
  for _ in $(seq 1 60); do reachable "$pg_host" "$pg_port" && break; sleep 0.5; done
  reachable "$pg_host" "$pg_port" || die "PostgreSQL is not reachable at $pg_host:$pg_port (DATABASE_URL)."
fi

# --- Redis --------------------------------------------------------------------------------------
if is_local "$redis_host" && ! reachable "$redis_host" "$redis_port"; then
  say "starting Redis on port $redis_port"
  as_root redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$redis_port" --save '' --appendonly no \
    --dir /tmp --logfile ''
fi
if ! reachable "$redis_host" "$redis_port"; then
  for _ in $(seq 1 40); do reachable "$redis_host" "$redis_port" && break; sleep 0.5; done
  reachable "$redis_host" "$redis_port" || die "Redis is not reachable at $redis_host:$redis_port (REDIS_URL)."
fi

# --- npm packages -------------------------------------------------------------------------------
# Puppeteer must use the system Chromium; it can never download its own here.
export PUPPETEER_SKIP_DOWNLOAD=true
lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.installed-lock-hash
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_hash" ]; then
  say "installing npm packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_hash" > "$stamp"
fi
say "ready: PostgreSQL at $pg_host:$pg_port, Redis at $redis_host:$redis_port, npm packages installed"
