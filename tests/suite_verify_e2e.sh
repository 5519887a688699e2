#!/usr/bin/env bash
# End-to-end: verified cards through `shcard acp` and a real @agentclientprotocol/sdk client
# (tests/e2e/verify.test.mjs): flips, notices, findings, replay after a restart, no watch.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
if [ ! -d tests/e2e/node_modules/@agentclientprotocol/sdk ]; then
  fail "tests/e2e/node_modules is missing: run make npm-deps"
  finish
  exit 1
fi
[ -x "$SHCARD" ] || { fail "no shcard binary at $SHCARD"; finish; exit 1; }
SHCARD="$SHCARD" exec node tests/e2e/verify.test.mjs
