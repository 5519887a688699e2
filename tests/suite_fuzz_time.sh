#!/usr/bin/env bash
# Time-boxed fuzzing: every libFuzzer target (fuzz/fuzz_*.c, clang, ASan + UBSan) runs for
# FUZZ_SECONDS (default 10) from its committed seeds, not only over them.  New inputs go to a
# scratch corpus (removed); a crash, leak or sanitizer report fails the target, and the input
# that caused it is kept in build/fuzz-crashes/TARGET/ (after the fix, `make
# fuzz-keep-crashers` makes it a seed that suite_fuzz_replay replays for good).
# One result per target.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
secs=${FUZZ_SECONDS:-10}
# the libFuzzer builds carry their own sanitizers: always in build/fuzz-lf, whatever $BUILD is
dir=build/fuzz-lf
log=$(mktemp)
if ! make -s -j2 BUILD=build SAN= fuzz-time-build >"$log" 2>&1; then
  tail -30 "$log"; rm -f "$log"; fail "fuzz targets: clang build"; finish; exit 1
fi
rm -f "$log"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for f in fuzz/fuzz_*.c; do
  t=$(basename "$f" .c)
  [ -d "fuzz/seeds/$t" ] || { fail "$t: no seeds in fuzz/seeds/$t"; continue; }
  mkdir -p "$scratch/$t" "$scratch/art-$t"
  dict=""; [ -f "fuzz/$t.dict" ] && dict="-dict=fuzz/$t.dict"
  out=$(ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        timeout $((secs + 60)) "$dir/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$scratch/art-$t/" $dict \
        "$scratch/$t" "fuzz/seeds/$t" 2>&1)
  rc=$?
  runs=$(echo "$out" | sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' | tail -n1)
  if [ "$rc" -eq 0 ] && [ "${runs:-0}" -gt 0 ]; then
    echo "$t: ${runs} inputs in ${secs} s, $(ls "$scratch/$t" | wc -l) new"; ok
  else
    echo "$out" | tail -40
    mkdir -p "build/fuzz-crashes/$t"
    cp "$scratch/art-$t/"* "build/fuzz-crashes/$t/" 2>/dev/null
    fail "$t: rc $rc after ${runs:-0} inputs; kept: $(ls "build/fuzz-crashes/$t" | tr '\n' ' ')"
  fi
done
finish
