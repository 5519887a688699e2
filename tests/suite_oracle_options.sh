#!/usr/bin/env bash
# The option oracle (tests/option_oracle.py): every entry of the compiled option tables (printed
# by the tabledump helper) x option shapes (clusters, values, repeats, prefixes, --no-, --, -,
# -NUM, options after operands, dangerous values) is classified; the commands labelled
# read/search/list are sampled so that every (tool, shape) group and every dangerous entry some
# accepted command exercises runs for real through the sandboxed oracle, which must stay clean.
# Three results: every table entry has a generated case; the sample covers every group and
# dangerous entry; no violation.  `make oracle-full` runs every accepted command.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
out=$("$PY" tests/option_oracle.py --shcard "$SHCARD" --seed 1 --runs "${OPTION_ORACLE_RUNS:-0}" \
      --timeout 10 ${ORACLE_FINDINGS:+--findings "$ORACLE_FINDINGS"} 2>&1)
rc=$?
echo "$out" | tail -n 80
ent=$(echo "$out" | grep -E '^option-oracle: [0-9]+ table entries .* every one with a generated case$')
if [ -n "$ent" ]; then ok; else fail "some table entry has no generated case"; fi
cov=$(echo "$out" | sed -nE 's/^option-oracle: ([0-9]+) of ([0-9]+) \(tool, shape\) groups run, ([0-9]+) of ([0-9]+) dangerous.*/\1 \2 \3 \4/p')
read -r g gt d dt <<<"${cov:-0 1 0 1}"
if [ "$g" = "$gt" ] && [ "$d" = "$dt" ] && [ "$gt" -ge 100 ]; then ok
else fail "sample: $g of $gt groups, $d of $dt dangerous entries"; fi
last=$(echo "$out" | grep '^option-oracle: .* generated' | tail -n1)
run=$(echo "$last" | sed -nE 's/.* ([0-9]+) run, .*/\1/p')
v=$(echo "$last" | sed -nE 's/.* ([0-9]+) violations$/\1/p')
if [ "$rc" -eq 0 ] && [ "${v:-x}" = 0 ] && [ "${run:-0}" -ge "$gt" ]; then ok
else fail "option oracle: ${run:-?} run, ${v:-?} violations, exit $rc"; fi
finish
