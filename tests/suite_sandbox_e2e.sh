#!/usr/bin/env bash
# End-to-end: the sandbox through `shcard acp` and a real @agentclientprotocol/sdk client
# (tests/e2e/sandbox.test.mjs): defaults, the sandbox and network config options, _meta.sandbox,
# --sandbox, a kernel without Landlock (refused, or the unsandboxed fallback), and in ask mode the
# offer to run a blocked command again without the sandbox (allow once, always, reject, cancel).
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
if [ ! -d tests/e2e/node_modules/@agentclientprotocol/sdk ]; then
  fail "tests/e2e/node_modules is missing: run make npm-deps"
  finish
  exit 1
fi
[ -x "$SHCARD" ] || { fail "no shcard binary at $SHCARD"; finish; exit 1; }
# the fake model server is started as `python3`: the system's, not a version manager's shim
# (seconds a call on a loaded machine)
if [ -x /usr/bin/python3 ]; then
  PYBIN=$(mktemp -d)
  trap 'rm -rf "$PYBIN"' EXIT
  ln -s /usr/bin/python3 "$PYBIN/python3"
  export PATH="$PYBIN:$PATH"
fi
SHCARD="$SHCARD" node tests/e2e/sandbox.test.mjs
