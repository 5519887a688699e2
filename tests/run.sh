#!/usr/bin/env bash
# Runs every test suite and prints one closing line "N passed, N failed" over all of them.
#   - $BUILD/tests/test_*     cmocka binaries (one per module)
#   - tests/suite_*.sh        script suites; each ends with its own "N passed, N failed" line
# SUITES="test_lexer suite_e2e" runs only those. Each suite has a time limit (SUITE_TIMEOUT, s).
# TEST_JOBS=2 (the default) runs the suites listed in PAIRED below two at a time, each with its
# output buffered and printed whole when it ends; then every other suite runs alone.  TEST_JOBS=1 runs
# everything in sequence, in the order of the listing.
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

# Suites that may run beside another one: none of them asserts a latency, uses a short timeout
# or a pseudo-terminal, or listens on a port.  The oracles' per-command limits (10 s) are far
# above what a command takes under strace.  Every suite not named here runs alone: the PTY,
# reliability, kill ladder, confinement, verify, sandbox and end-to-end suites, whose timings
# (short timeouts, latencies, stalls) a busy neighbour could upset, and any new suite.
# suite_verify_strace stays alone: its probes tell a hang by the clock (a benign FIFO read seen
# as 'slow' on a busy machine).
# The number is the suite's rough length in seconds: the longest start first.
PAIRED="suite_bash_diff:150 suite_fuzz_time:136 suite_oracle_options:85
  suite_fuzz_replay:49 suite_library:45 suite_mutants:30
  suite_fuzz_safety:29 suite_memcheck:27 suite_batch:19 suite_oracle_conditions:16 test_repo:16
  suite_man:13 suite_word_oracle:11 suite_model:10 suite_demo:8 suite_parse_cli:6 suite_abi:4
  suite_explain:4 suite_golden_bash:4 suite_docs:2 suite_golden:2 suite_layout:2 suite_corpus:1
  suite_tables:1"
# Paired suites that run make on the shared build directories: never two of them at once.
BUILDERS=" suite_fuzz_time suite_fuzz_replay suite_memcheck suite_library suite_mutants "
JOBS=${TEST_JOBS:-2}
case "$JOBS" in ''|*[!0-9]*|0) JOBS=1 ;; esac

# run_suite NAME COMMAND...: runs one suite with its own temp dir and log; leaves its report
# (a failure's tail and the table row) in $RUN_DIR/out-NAME and "PASSED FAILED" in
# $RUN_DIR/res-NAME, written last.
child_cpu() { # NAME: the CPU milliseconds (user + system) of this shell's waited-for children
  local f=$RUN_DIR/times-$1 sh u s
  times >"$f"   # in this shell: a command substitution would count its own children only
  { read -r sh; read -r u s; } <"$f"; rm -f "$f"
  ms() { local m=${1%%m*} r=${1#*m}; r=${r%s}; echo $(( m * 60000 + 10#${r%.*} * 1000 + 10#${r#*.} )); }
  echo $(( $(ms "$u") + $(ms "$s") )) >"$f.ms"
}

run_suite() {
  local name=$1; shift
  local log=$LOGS/$name.log
  local tmp=$RUN_DIR/tmp-$name; mkdir "$tmp"
  local out=$RUN_DIR/out-$name
  local t0; t0=$(date +%s)
  child_cpu "$name"; local c0; c0=$(cat "$RUN_DIR/times-$name.ms")
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
  child_cpu "$name"; local cpu=$(( ($(cat "$RUN_DIR/times-$name.ms") - c0) / 1000 ))
  rm -f "$RUN_DIR/times-$name.ms"
  {
    if [ "$f" -ne 0 ]; then
      echo "---- $name: FAILED (rc=$rc) ----"
      tail -n 60 "$log"
    fi
    printf '%-28s %5d passed %4d failed  %4ds  (cpu %ds)\n' "$name" "$p" "$f" "$dt" "$cpu"
  } >"$out"
  rm -f "$log"
  echo "$p $f" >"$RUN_DIR/res-$name.part" && mv "$RUN_DIR/res-$name.part" "$RUN_DIR/res-$name"
}

# report NAME: prints a finished suite's report whole and adds its counts to the totals.
report() {
  local name=$1 p f
  read -r p f <"$RUN_DIR/res-$name"
  cat "$RUN_DIR/out-$name"
  [ "$f" -ne 0 ] && failed_suites+=("$name")
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
  rm -f "$RUN_DIR/out-$name" "$RUN_DIR/res-$name"
}

names=(); cmds=()
for t in "$BUILD"/tests/test_*; do
  [ -x "$t" ] || continue
  n=$(basename "$t"); want "$n" || continue
  names+=("$n"); cmds+=("$t")
done
for s in tests/suite_*.sh; do
  [ -f "$s" ] || continue
  n=$(basename "$s" .sh); want "$n" || continue
  names+=("$n"); cmds+=("$s")
done
start() { # index: runs that suite (a script suite through bash)
  local c=${cmds[$1]}
  case "$c" in *.sh) run_suite "${names[$1]}" bash "$c" ;; *) run_suite "${names[$1]}" "$c" ;; esac
}
weight() { # NAME: its length from PAIRED, or nothing when it runs alone
  local e
  for e in $PAIRED; do [ "${e%%:*}" = "$1" ] && { echo "${e#*:}"; return; }; done
}

if [ "$JOBS" -le 1 ]; then
  for i in "${!names[@]}"; do start "$i"; report "${names[$i]}"; done
else
  solo=(); paired=()
  for i in "${!names[@]}"; do
    w=$(weight "${names[$i]}")
    if [ -n "$w" ]; then paired+=("$w $i"); else solo+=("$i"); fi
  done
  # the paired suites, two at a time, longest first; then the ones that run alone, in order
  order=()   # (an empty list must stay empty: one blank line would run suite 0 twice)
  [ ${#paired[@]} -gt 0 ] &&
    mapfile -t order < <(printf '%s\n' "${paired[@]}" | sort -k1,1nr -k2,2n | cut -d' ' -f2)
  running=()   # names of the suites under way
  reap() {     # reports every suite that has ended; keeps the rest in running
    local n still=()
    for n in "${running[@]}"; do
      if [ -e "$RUN_DIR/res-$n" ]; then wait "${pid[$n]}" 2>/dev/null; report "$n"
      else still+=("$n"); fi
    done
    running=("${still[@]}")
  }
  builder_running() {
    local n
    for n in "${running[@]}"; do case "$BUILDERS" in *" $n "*) return 0 ;; esac; done
    return 1
  }
  declare -A pid
  queue=("${order[@]}")
  while [ ${#queue[@]} -gt 0 ] || [ ${#running[@]} -gt 0 ]; do
    reap
    # the first waiting suite that may start now: a free slot, and no second builder
    pick=-1
    if [ ${#running[@]} -lt "$JOBS" ]; then
      for k in "${!queue[@]}"; do
        n=${names[${queue[$k]}]}
        case "$BUILDERS" in *" $n "*) builder_running && continue ;; esac
        pick=$k; break
      done
    fi
    if [ "$pick" -ge 0 ]; then
      i=${queue[$pick]}; n=${names[$i]}
      unset 'queue[pick]'; queue=("${queue[@]}")
      start "$i" &
      pid[$n]=$!; running+=("$n")
      continue
    fi
    sleep 0.3  # polls: a suite that ends is reported within this
  done
  for i in "${solo[@]}"; do start "$i"; report "${names[$i]}"; done
fi
[ ${#failed_suites[@]} -gt 0 ] && echo "failed suites: ${failed_suites[*]}"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
