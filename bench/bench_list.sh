#!/usr/bin/env bash
# session/list at 100,000 sessions (bench/list_bench.py): the cold first list (the index file
# is built), then a restarted agent's start-up, first page (from the index file) and later
# pages, against a readdir of the same store and a 1,000-session store measured in the same
# run.  LIST_N, LIST_PAGES change the sizes.
set -u
cd "$(dirname "$0")/.."
SHCARD=${SHCARD:-$PWD/shcard} exec python3 bench/list_bench.py
