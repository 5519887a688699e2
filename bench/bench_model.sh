#!/usr/bin/env bash
# Model backend: first-SSE-byte -> first agent_message_chunk latency, and bridge CPU per MB of
# streamed model text, each against the curl CLI on the same fake-server stream (ratios only).
set -u
cd "$(dirname "$0")/.."
command -v curl >/dev/null || { echo "bench_model: curl (the CLI) is needed for the anchor"; exit 1; }
exec python3 bench/bench_model.py
