#!/usr/bin/env bash
# End-to-end: ACP v2 sessions on the durable store across a real restart of `shcard acp` (list,
# resume with replayFrom start, prompt again, close, delete, a v1 client loading a v2 session),
# every v2 frame checked against the SDK's v2 JSON schema.  The node script prints "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
if [ ! -d tests/e2e/node_modules/ajv ] || [ ! -d tests/e2e/node_modules/@agentclientprotocol/sdk ]; then
  fail "tests/e2e/node_modules is missing or old: run make npm-deps"
  finish
  exit 1
fi
[ -x "$SHCARD" ] || { fail "no shcard binary at $SHCARD"; finish; exit 1; }
SHCARD="$SHCARD" exec node tests/e2e/v2_sessions.test.mjs
