#!/usr/bin/env bash
# The dynamic safety oracle (tests/oracle.py): every corpus command the classifier labels read,
# search or list is run for real in a bubblewrap sandbox under strace -f, with stdin an open pipe
# and then on a silent pseudo-terminal; none may write, create, delete, execute an unnamed
# program, read stdin or the terminal, open a device, FIFO or process file, touch the network,
# or hang.  Negative controls (tests/oracle/controls.jsonl, run whatever their label) prove that
# each detector sees its kind of violation; clean controls (tests/oracle/clean.jsonl) prove that
# ordinary reads among the hostile fixtures are not flagged.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
for t in bwrap strace rg fdfind batcat tree ag ack git dash zsh /usr/bin/python3; do
  if command -v "$t" >/dev/null 2>&1; then ok; else fail "missing $t (make deps installs it)"; fi
done
runner="$BUILD/tests/helpers/run_corpus"

# 1. negative controls: every one must be flagged, by the detector it names
out=$("$PY" tests/oracle.py --shcard "$SHCARD" --force-run --expect-violations --timeout 5 \
      tests/oracle/controls.jsonl 2>&1)
echo "$out" | tail -n 30
n=$(grep -c . tests/oracle/controls.jsonl)
expect_eq "controls" "$(echo "$out" | tail -n1)" "oracle: $n run, 0 not flagged, 0 skipped"
for kind in write exec stdin tty device fifo proc net block timeout; do
  if grep -q "\"detects\": \"$kind\"" tests/oracle/controls.jsonl; then ok; else fail "no control for $kind"; fi
done

# 2. clean controls: ordinary commands among the fixtures, in all three modes, are not flagged
out=$("$PY" tests/oracle.py --shcard "$SHCARD" --force-run --modes pipe,tty,exec --timeout 10 \
      tests/oracle/clean.jsonl 2>&1)
echo "$out" | grep -v '^oracle:' | head -n 30
echo "$out" | tail -n1
expect_eq "clean controls" "$(echo "$out" | tail -n1 | sed -nE 's/^oracle: [0-9]+ run, ([0-9]+) violations.*/\1/p')" "0"

# 3. every accepted corpus command (the red-team section included) runs clean
acc=$(mktemp)
"$runner" --accepted corpus/*.jsonl > "$acc"
nacc=$(grep -c . "$acc")
if [ "$nacc" -ge 200 ]; then ok; else fail "only $nacc accepted corpus commands"; fi
out=$("$PY" tests/oracle.py --shcard "$SHCARD" --timeout 10 ${ORACLE_FINDINGS:+--findings "$ORACLE_FINDINGS"} \
      "$acc" 2>&1)
echo "$out" | grep -v '^oracle:' | head -n 120
echo "$out" | tail -n1
v=$(echo "$out" | tail -n1 | sed -nE 's/^oracle: ([0-9]+) run, ([0-9]+) violations.*/\2/p')
r=$(echo "$out" | tail -n1 | sed -nE 's/^oracle: ([0-9]+) run, .*/\1/p')
expect_eq "oracle violations" "${v:-missing}" "0"
if [ "${r:-0}" -ge 150 ]; then ok; else fail "oracle ran only ${r:-0} commands"; fi
rm -f "$acc"
finish
