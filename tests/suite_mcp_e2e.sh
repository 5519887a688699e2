#!/usr/bin/env bash
# End-to-end: MCP servers from the editor as the model's tools (tests/e2e/mcp.test.mjs): the
# real server-everything and server-filesystem from npm, the hostile servers of
# tests/mcp/hostile_mcp.py over stdio and streamable HTTP (garbage, silence, crashes, 10 MB
# results, cancellation, paging, list_changed, a 1 MB schema, awkward names), ask mode, approval
# that a re-listing server cannot take over or redirect (collide, toctou, resume approval), safe
# titles, replay after a restart, no server left after session/close or kill -9 of the agent,
# shell mode.
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
# first the fixtures against the reference MCP client (so a failure below is the agent's), then
# the agent; the two counts are added into the suite's one closing line
total_p=0
total_f=0
for t in mcp_fixtures:240 mcp:540; do
  limit=${t#*:}
  t=${t%%:*}
  out=$(SHCARD="$SHCARD" timeout --kill-after=10 "$limit" node "tests/e2e/$t.test.mjs" 2>&1)
  rc=$?
  printf '%s\n' "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed$'
  last=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1)
  if [ -z "$last" ]; then
    echo "FAIL: $t.test.mjs printed no count (exit $rc)"
    total_f=$((total_f + 1))
    continue
  fi
  p=${last%% passed*}
  f=${last#*, }
  f=${f%% failed}
  total_p=$((total_p + p))
  total_f=$((total_f + f))
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "FAIL: $t.test.mjs exited $rc"
    total_f=$((total_f + 1))
  fi
done
echo "$total_p passed, $total_f failed"
[ "$total_f" -eq 0 ]
