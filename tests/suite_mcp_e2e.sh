#!/usr/bin/env bash
# End-to-end: MCP servers from the editor as the model's tools (tests/e2e/mcp.test.mjs): the
# real server-everything and server-filesystem from npm, the hostile servers of
# tests/mcp/hostile_mcp.py over stdio and streamable HTTP (garbage, silence, crashes, 10 MB
# results, cancellation, paging, list_changed, a 1 MB schema, awkward names), ask mode, replay
# after a restart, no server left after session/close or kill -9 of the agent, shell mode.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
if [ ! -d tests/e2e/node_modules/@modelcontextprotocol/server-everything ] ||
   [ ! -d tests/e2e/node_modules/@agentclientprotocol/sdk ]; then
  fail "tests/e2e/node_modules is missing the pinned packages: run make npm-deps"
  finish
  exit 1
fi
[ -x "$SHCARD" ] || { fail "no shcard binary at $SHCARD"; finish; exit 1; }
# the fake model server is started as `python3`: the system's, not a version manager's shim
if [ -x /usr/bin/python3 ]; then
  PYBIN=$(mktemp -d)
  trap 'rm -rf "$PYBIN"' EXIT
  ln -s /usr/bin/python3 "$PYBIN/python3"
  export PATH="$PYBIN:$PATH"
fi
SHCARD="$SHCARD" timeout --kill-after=10 600 node tests/e2e/mcp.test.mjs
