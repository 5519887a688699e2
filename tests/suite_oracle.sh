#!/usr/bin/env bash
# The dynamic safety oracle (tests/oracle.py): every corpus command the classifier labels read,
# search or list is run for real in a bubblewrap sandbox under strace -f; none may write, create,
# delete, rename, execute an unnamed program or hang.  Negative controls (tests/oracle/
# controls.jsonl, run whatever their label) prove that the oracle sees each kind of violation.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
for t in bwrap strace rg fdfind batcat tree ag ack git; do
  if command -v "$t" >/dev/null 2>&1; then ok; else fail "missing $t (make deps installs it)"; fi
done
runner="$BUILD/tests/helpers/run_corpus"

# 1. negative controls: every one must be flagged
out=$("$PY" tests/oracle.py --shcard "$SHCARD" --force-run --expect-violations --timeout 3 \
      tests/oracle/controls.jsonl 2>&1)
echo "$out" | tail -n 30
n=$(grep -c . tests/oracle/controls.jsonl)
expect_eq "controls" "$(echo "$out" | tail -n1)" "oracle: $n run, 0 not flagged, 0 skipped"

# 2. every accepted corpus command runs clean
acc=$(mktemp)
"$runner" --accepted corpus/*.jsonl > "$acc"
nacc=$(grep -c . "$acc")
if [ "$nacc" -ge 200 ]; then ok; else fail "only $nacc accepted corpus commands"; fi
out=$("$PY" tests/oracle.py --shcard "$SHCARD" --timeout 10 "$acc" 2>&1)
echo "$out" | grep -v '^oracle:' | head -n 60
echo "$out" | tail -n1
v=$(echo "$out" | tail -n1 | sed -nE 's/^oracle: ([0-9]+) run, ([0-9]+) violations.*/\2/p')
r=$(echo "$out" | tail -n1 | sed -nE 's/^oracle: ([0-9]+) run, .*/\1/p')
expect_eq "oracle violations" "${v:-missing}" "0"
if [ "${r:-0}" -ge 200 ]; then ok; else fail "oracle ran only ${r:-0} commands"; fi
rm -f "$acc"
finish
