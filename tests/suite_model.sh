#!/usr/bin/env bash
# The model backend through the seam harness against the fake OpenAI-compatible server
# (tests/model_cases.py prints the "N passed, N failed" line).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
if [ ! -x "$BUILD/tests/helpers/model_host" ]; then
  echo "FAIL: $BUILD/tests/helpers/model_host not built"; echo "0 passed, 1 failed"; exit 1
fi
BUILD=$BUILD exec python3 tests/model_cases.py
