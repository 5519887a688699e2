#!/usr/bin/env bash
# End-to-end: `shcard acp` speaking ACP v2 to the v2 client of the pinned SDK and to raw NDJSON
# clients, every frame checked against the SDK's v2 JSON schema (ajv, pinned in tests/e2e), and
# v1 clients that ask for _meta.terminal_output_delta.  The node script prints "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
if [ ! -d tests/e2e/node_modules/ajv ] || [ ! -d tests/e2e/node_modules/@agentclientprotocol/sdk ]; then
  fail "tests/e2e/node_modules is missing or old: run make npm-deps"
  finish
  exit 1
fi
[ -x "$SHCARD" ] || { fail "no shcard binary at $SHCARD"; finish; exit 1; }
SHCARD="$SHCARD" exec node tests/e2e/acp_v2.test.mjs
