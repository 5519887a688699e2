#!/usr/bin/env bash
# shcard acp soak (issue 11): SOAK_S seconds (default 600 = 10 minutes) of random prompts,
# cancels, floods, escaping children (also ones that drop every marker), guardian stops,
# terminal-input waits and client stalls across 4 sessions
# (bench/soak.py).  Prints the agent's RSS at start / peak / end, its fds at start and end, and
# the processes left; fails when a prompt goes unanswered, an fd leaks, a process is left, or
# the peak RSS reaches 64 MiB.
set -u
cd "$(dirname "$0")/.."
SHCARD=${SHCARD:-$PWD/shcard} exec python3 bench/soak.py
