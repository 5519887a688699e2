#!/usr/bin/env bash
# session/list at 100,000 sessions (bench/list_bench.py): start-up, the first page (one scan of
# the store builds the index) and later pages (cursor over the index), against a 1,000-session
# store measured in the same run.  LIST_N, LIST_PAGES change the sizes.
set -u
cd "$(dirname "$0")/.."
SHCARD=${SHCARD:-$PWD/shcard} exec python3 bench/list_bench.py
