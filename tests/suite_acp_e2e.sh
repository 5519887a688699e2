#!/usr/bin/env bash
# End-to-end: `shcard acp` driven by a real @agentclientprotocol/sdk client (tests/e2e, pinned in
# package-lock.json and installed by `make npm-deps`).  The node script prints "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
if [ ! -d tests/e2e/node_modules/@agentclientprotocol/sdk ]; then
  fail "tests/e2e/node_modules is missing: run make npm-deps"
  finish
  exit 1
fi
[ -x "$SHCARD" ] || { fail "no shcard binary at $SHCARD"; finish; exit 1; }
SHCARD="$SHCARD" exec node tests/e2e/acp_sdk.test.mjs
