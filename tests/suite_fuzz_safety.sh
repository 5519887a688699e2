#!/usr/bin/env bash
# Short fixed-seed pass of `make fuzz-safety`: corpus mutants with dangerous pieces; every
# mutant not labelled terminal runs through the sandboxed oracle and must stay clean.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
out=$(bash tests/fuzz-safety.sh 2>&1)
rc=$?
echo "$out" | tail -n 40
last=$(echo "$out" | grep '^fuzz-safety:' | tail -n1)
v=$(echo "$last" | sed -nE 's/.* ([0-9]+) violations$/\1/p')
acc=$(echo "$last" | sed -nE 's/.* ([0-9]+) accepted, .*/\1/p')
run=$(echo "$last" | sed -nE 's/.* ([0-9]+) run, .*/\1/p')
expect_eq "fuzz-safety exit" "$rc" "0"
expect_eq "fuzz-safety violations" "${v:-missing}" "0"
if [ "${run:-0}" -ge 20 ]; then ok; else fail "only ${run:-0} mutants reached the oracle (accepted ${acc:-?})"; fi
finish
