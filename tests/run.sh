#!/usr/bin/env bash
# Runs every test suite and prints one closing line "N passed, N failed" over all of them.
#   - $BUILD/tests/test_*     cmocka binaries (one per module)
#   - tests/suite_*.sh        script suites; each ends with its own "N passed, N failed" line
# SUITES="test_lexer suite_e2e" runs only those. Each suite has a time limit (SUITE_TIMEOUT, s).
set -u
BUILD=${BUILD:-build}
export BUILD
export SHCARD=${SHCARD:-$PWD/shcard}
# A developer's model key or settings file must not turn shell-mode tests into model sessions:
# the model suites set what they need themselves.
unset DEEPSEEK_API_KEY OPENAI_API_KEY SHCARD_CONFIG
XDG_CONFIG_HOME=$(mktemp -d); export XDG_CONFIG_HOME
# ... nor may the suites' sessions land in the developer's session store.
XDG_STATE_HOME=$(mktemp -d); export XDG_STATE_HOME
# Each suite runs with its own empty temp dir (TMPDIR): whatever it leaves there is a failure
# of that suite ("left in the temp dir"), then removed.  The logs live outside it.
RUN_DIR=$(mktemp -d); LOGS=$RUN_DIR/logs; mkdir "$LOGS"
trap 'rm -rf "$XDG_CONFIG_HOME" "$XDG_STATE_HOME" "$RUN_DIR"' EXIT
limit=${SUITE_TIMEOUT:-900}
total_pass=0
total_fail=0
failed_suites=()
want() { [ -z "${SUITES:-}" ] && return 0; case " $SUITES " in *" $1 "*) return 0 ;; esac; return 1; }

run_suite() { # name, command...
  local name=$1; shift
  local log=$LOGS/$name.log
  local tmp=$RUN_DIR/tmp-$name; mkdir "$tmp"
  local t0; t0=$(date +%s)
  TMPDIR=$tmp timeout --kill-after=10 "$limit" "$@" >"$log" 2>&1
  local rc=$?
  sleep 0.2  # processes the suite started may still be removing their directories
  local left; left=$(cd "$tmp" && ls -A | head -n 5 | tr '\n' ' ')
  local p=0 f=0 line
  # cmocka's closing lines, or a script suite's own "N passed, N failed"
  line=$(grep -E '^\[  PASSED  \] [0-9]+ test' "$log" | tail -n1)
  [ -n "$line" ] && p=$(echo "$line" | grep -oE '[0-9]+' | head -n1)
  line=$(grep -E '^\[  FAILED  \] [0-9]+ test' "$log" | tail -n1)
  [ -n "$line" ] && f=$(echo "$line" | grep -oE '[0-9]+' | head -n1)
  line=$(grep -E '^([A-Za-z_-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1)
  if [ -n "$line" ]; then
    p=$(echo "$line" | sed -E 's/^([A-Za-z_-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/')
    f=$(echo "$line" | sed -E 's/^([A-Za-z_-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/')
  fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi   # crashed, timed out or failed silently
  if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; echo "$name: ran no test" >>"$log"; fi
  if [ -n "$left" ]; then f=$((f + 1)); echo "$name: left in the temp dir: $left" >>"$log"; fi
  rm -rf "$tmp"
  local dt=$(( $(date +%s) - t0 ))
  if [ "$f" -ne 0 ]; then
    echo "---- $name: FAILED (rc=$rc) ----"
    tail -n 60 "$log"
    failed_suites+=("$name")
  fi
  printf '%-28s %5d passed %4d failed  %4ds\n' "$name" "$p" "$f" "$dt"
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
  rm -f "$log"
}

for t in "$BUILD"/tests/test_*; do
  [ -x "$t" ] || continue
  n=$(basename "$t"); want "$n" || continue
  run_suite "$n" "$t"
done
for s in tests/suite_*.sh; do
  [ -f "$s" ] || continue
  n=$(basename "$s" .sh); want "$n" || continue
  run_suite "$n" bash "$s"
done
[ ${#failed_suites[@]} -gt 0 ] && echo "failed suites: ${failed_suites[*]}"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
