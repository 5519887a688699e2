#!/usr/bin/env bash
# End-to-end: sessions that survive restarts of `shcard acp` (load, list, resume, close, delete,
# modes, a hostile client and store), driven by the pinned @agentclientprotocol/sdk client
# (tests/e2e/sessions.test.mjs prints "N passed, N failed").
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
if [ ! -d tests/e2e/node_modules/@agentclientprotocol/sdk ]; then
  fail "tests/e2e/node_modules is missing: run make npm-deps"
  finish
  exit 1
fi
[ -x "$SHCARD" ] || { fail "no shcard binary at $SHCARD"; finish; exit 1; }
SHCARD="$SHCARD" exec node tests/e2e/sessions.test.mjs
