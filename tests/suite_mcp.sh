#!/usr/bin/env bash
# shcard's MCP client through the real agent (tests/mcp_cases.py prints "N passed, N failed"):
# the model backend against the fake OpenAI-compatible server, tiny Python stdio MCP servers.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
if [ ! -x "$BUILD/shcard" ]; then
  echo "FAIL: $BUILD/shcard not built"; echo "0 passed, 1 failed"; exit 1
fi
BUILD=$BUILD exec timeout 600 python3 tests/mcp_cases.py
