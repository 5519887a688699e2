#!/usr/bin/env bash
# Replays every fuzz target over its committed seeds (fuzz/seeds/<target>/) under
# AddressSanitizer + UndefinedBehaviorSanitizer: no crash, leak, undefined behaviour or failed
# invariant.  One result per target.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
for f in fuzz/fuzz_*.c; do
  t=$(basename "$f" .c)
  [ -d "fuzz/seeds/$t" ] || { fail "$t: no seeds in fuzz/seeds/$t"; continue; }
  if ! make -s SAN=address,undefined "build-san/fuzz/$t-replay" >/tmp/fuzz-build-$$.log 2>&1; then
    cat /tmp/fuzz-build-$$.log; fail "$t: build"; continue
  fi
  if out=$(ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 "build-san/fuzz/$t-replay" "fuzz/seeds/$t" 2>&1); then
    echo "$t: $out"; ok
  else
    echo "$out" | tail -30; fail "$t: replay"
  fi
done
rm -f /tmp/fuzz-build-$$.log
finish
