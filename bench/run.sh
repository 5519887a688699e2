#!/usr/bin/env bash
# make bench: runs every bench/bench_*.sh in turn.  Each measures its subject and an anchor in
# the same run and prints ratios (these machines are shared and noisy: no absolute gates).
set -u
cd "$(dirname "$0")/.."
export BUILD=${BUILD:-build}
rc=0
for b in bench/bench_*.sh; do
  [ -f "$b" ] || continue
  echo "== $(basename "$b" .sh)"
  bash "$b" || rc=1
done
exit $rc
