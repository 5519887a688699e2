#!/usr/bin/env bash
# The option oracle (tests/option_oracle.py): every allowlisted tool x option shape (clusters,
# values, repeats, prefixes, --no-, --, -, -NUM, options after operands, dangerous values) is
# classified; a fixed-seed sample of the commands labelled read/search/list runs for real through
# the sandboxed oracle and must stay clean.  `make fuzz-safety` runs a far larger sample.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
runs=${OPTION_ORACLE_RUNS:-60}
out=$("$PY" tests/option_oracle.py --shcard "$SHCARD" --seed 1 --runs "$runs" --timeout 10 \
      ${ORACLE_FINDINGS:+--findings "$ORACLE_FINDINGS"} 2>&1)
rc=$?
echo "$out" | tail -n 80
last=$(echo "$out" | grep '^option-oracle:' | tail -n1)
gen=$(echo "$last" | sed -nE 's/^option-oracle: ([0-9]+) generated.*/\1/p')
acc=$(echo "$last" | sed -nE 's/.* ([0-9]+) accepted, .*/\1/p')
run=$(echo "$last" | sed -nE 's/.* ([0-9]+) run, .*/\1/p')
v=$(echo "$last" | sed -nE 's/.* ([0-9]+) violations$/\1/p')
if [ "${gen:-0}" -ge 20000 ]; then ok; else fail "only ${gen:-0} commands generated"; fi
if [ "${acc:-0}" -ge 1000 ]; then ok; else fail "only ${acc:-0} generated commands accepted"; fi
expect_eq "option-oracle runs" "${run:-missing}" "$runs"
expect_eq "option-oracle violations" "${v:-missing}" "0"
expect_eq "option-oracle exit" "$rc" "0"
finish
