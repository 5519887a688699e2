#!/usr/bin/env bash
# End-to-end authentication with the real @agentclientprotocol/sdk client (tests/e2e/auth.test.mjs):
# authMethods, authenticate, and a setup picked up by a running agent's next session.  The node
# script prints "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
if [ ! -d tests/e2e/node_modules/@agentclientprotocol/sdk ]; then
  fail "tests/e2e/node_modules is missing: run make npm-deps"
  finish
  exit 1
fi
[ -x "$SHCARD" ] || { fail "no shcard binary at $SHCARD"; finish; exit 1; }
SHCARD="$SHCARD" exec timeout 120 node tests/e2e/auth.test.mjs
