#!/usr/bin/env bash
# shcard acp with the model backend, driven by the @agentclientprotocol/sdk client against the
# fake OpenAI-compatible server (tests/e2e/model.test.mjs prints "N passed, N failed").
set -u
cd "$(dirname "$0")/.."
if [ ! -d tests/e2e/node_modules/@agentclientprotocol/sdk ]; then
  echo "FAIL: tests/e2e/node_modules missing (make npm-deps)"; echo "0 passed, 1 failed"; exit 1
fi
SHCARD=${SHCARD:-$PWD/shcard} exec node tests/e2e/model.test.mjs
