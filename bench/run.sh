#!/usr/bin/env bash
# make bench: runs every bench/bench_*.sh in turn.  Each measures its subject and an anchor in
# the same run and prints ratios (these machines are shared and noisy: no absolute gates).
set -u
cd "$(dirname "$0")/.."
export BUILD=${BUILD:-build}
# the bridge's session store goes to a scratch directory (it is measured, but not kept)
XDG_STATE_HOME=$(mktemp -d); export XDG_STATE_HOME
trap 'rm -rf "$XDG_STATE_HOME"' EXIT
rc=0
for b in bench/bench_*.sh; do
  [ -f "$b" ] || continue
  echo "== $(basename "$b" .sh)"
  bash "$b" || rc=1
done
exit $rc
