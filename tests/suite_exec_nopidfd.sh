#!/usr/bin/env bash
# The executor's fallback for kernels without pidfd (SIGCHLD through the loop plus a safety poll),
# forced with SHC_EXEC_NO_PIDFD=1: the whole test_pty and test_pty_stream suites must still pass.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
for t in test_pty test_pty_stream; do
  bin="$BUILD/tests/$t"
  if [ ! -x "$bin" ]; then fail "$t: $bin not built"; continue; fi
  log=$(SHC_EXEC_NO_PIDFD=1 "$bin" 2>&1); rc=$?
  n=$(echo "$log" | grep -cE '^\[       OK \]')
  bad=$(echo "$log" | grep -cE '^\[  FAILED  \] test_')
  for _ in $(seq "$n"); do ok; done
  if [ "$rc" -ne 0 ] || [ "$bad" -ne 0 ]; then
    echo "$log" | grep -E 'ERROR|FAILED|LINE' | head -20
    fail "$t without pidfd (rc=$rc)"
  fi
done
finish
