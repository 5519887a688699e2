#!/usr/bin/env bash
# Model-mode sessions across restarts of `shcard acp` against the fake OpenAI-compatible server:
# the conversation after a load, kill -9 repair, usage_update, context-window trimming, the model
# selector, embedded context and images (tests/e2e/model_sessions.test.mjs prints the count).
set -u
cd "$(dirname "$0")/.."
if [ ! -d tests/e2e/node_modules/@agentclientprotocol/sdk ]; then
  echo "FAIL: tests/e2e/node_modules missing (make npm-deps)"; echo "0 passed, 1 failed"; exit 1
fi
SHCARD=${SHCARD:-$PWD/shcard} exec node tests/e2e/model_sessions.test.mjs
