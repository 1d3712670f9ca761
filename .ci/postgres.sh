#!/usr/bin/env bash
# Sourced by .ci/run: a real PostgreSQL 15 with pgvector 0.8.6 for the server-backed suites.
# Installs Debian's packages and builds pgvector from ../shared/vendor when they are missing
# (quick when already there), starts a throwaway cluster on 127.0.0.1 and exports its URL as
# MEMSCOPE_TEST_POSTGRES_URL (tests/helpers/test-database.ts gives each suite a fresh database
# on it). The cluster is stopped and removed when the calling shell exits.

PG_BIN=/usr/lib/postgresql/15/bin
PGVECTOR_VERSION=0.8.6
APP_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# CI has ../shared beside the clone; a git worktree one level deeper finds it one level up.
PGVECTOR_TAR="$APP_ROOT/../shared/vendor/pgvector-${PGVECTOR_VERSION}.tar.gz"
[ -f "$PGVECTOR_TAR" ] || PGVECTOR_TAR="$APP_ROOT/../../shared/vendor/pgvector-${PGVECTOR_VERSION}.tar.gz"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# Test for the headers, not pg_config: some machines have the server without them.
if [ ! -x "$PG_BIN/postgres" ] || [ ! -f /usr/include/postgresql/15/server/postgres.h ] || ! command -v make >/dev/null || ! command -v gcc >/dev/null; then
  echo "> installing postgresql-15, postgresql-server-dev-15, build-essential"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  as_root apt-get install -y -qq postgresql-15 postgresql-server-dev-15 build-essential >/dev/null
fi

if [ ! -f "/usr/share/postgresql/15/extension/vector--${PGVECTOR_VERSION}.sql" ] || [ ! -f /usr/lib/postgresql/15/lib/vector.so ]; then
  echo "> building pgvector ${PGVECTOR_VERSION}"
  build_dir="$(mktemp -d)"
  tar xzf "$PGVECTOR_TAR" -C "$build_dir"
  # OPTFLAGS="": no -march=native, which would tie the build to this CPU.
  make -s -C "$build_dir/pgvector-${PGVECTOR_VERSION}" PG_CONFIG="$PG_BIN/pg_config" OPTFLAGS="" >/dev/null
  as_root make -s -C "$build_dir/pgvector-${PGVECTOR_VERSION}" PG_CONFIG="$PG_BIN/pg_config" install >/dev/null
  rm -rf "$build_dir"
fi

# PostgreSQL refuses to run as root: the cluster belongs to the postgres user then.
PG_USER="$(id -un)"
[ "$(id -u)" = 0 ] && PG_USER=postgres
as_pg() { if [ "$(id -un)" = "$PG_USER" ]; then "$@"; else su "$PG_USER" -s /bin/bash -c "$(printf '%q ' "$@")"; fi; }

PG_CLUSTER_DIR="$(mktemp -d /tmp/memscope-ci-pg.XXXXXX)"
chown "$PG_USER" "$PG_CLUSTER_DIR"
PG_PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
as_pg "$PG_BIN/initdb" -D "$PG_CLUSTER_DIR/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
# A throwaway cluster: durability settings off, enough connections for two app servers per suite.
as_pg "$PG_BIN/pg_ctl" -D "$PG_CLUSTER_DIR/data" -l "$PG_CLUSTER_DIR/log" -w start \
  -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -k $PG_CLUSTER_DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" >/dev/null
stop_ci_postgres() { as_pg "$PG_BIN/pg_ctl" -D "$PG_CLUSTER_DIR/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$PG_CLUSTER_DIR"; }
trap stop_ci_postgres EXIT
export MEMSCOPE_TEST_POSTGRES_URL="postgresql://postgres@127.0.0.1:${PG_PORT}/postgres"
echo "> PostgreSQL 15 + pgvector ${PGVECTOR_VERSION} on 127.0.0.1:${PG_PORT} (throwaway cluster)"
