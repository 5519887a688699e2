#!/usr/bin/env bash
# `explain --batch` and `parse --batch`: the fast path (a request reader without a JSON tree,
# one-pass writers, buffered output) gives the same bytes and exit status as the reference path
# (tests/helpers/batch_ref: jansson for every line and answer, a flush per line) over every
# corpus command in several JSON spellings and over hostile lines (tests/batch_lines.py); the
# same when the input arrives in small pieces; and an interactive client gets each answer
# before it sends the next line.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
S=$SHCARD
REF=$BUILD/tests/helpers/batch_ref
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 tests/batch_lines.py "$tmp/lines" || { fail "batch_lines.py"; finish; exit 1; }
cwd=$(realpath .)

compare() { # name, shcard args..., -- ref args...
  local name=$1; shift
  local a=() b=()
  while [ "$1" != -- ]; do a+=("$1"); shift; done; shift
  b=("$@")
  "$S" "${a[@]}" <"$tmp/lines" >"$tmp/fast"; local rf=$?
  "$REF" "${b[@]}" <"$tmp/lines" >"$tmp/ref"; local rr=$?
  if cmp -s "$tmp/fast" "$tmp/ref"; then ok; else fail "$name: output differs: $(cmp "$tmp/fast" "$tmp/ref" | head -1)"; fi
  expect_eq "$name: exit status" "$rf" "$rr"
}
compare "explain" explain --batch -- explain
compare "explain --no-unwrap" explain --batch --no-unwrap -- explain --no-unwrap
compare "explain --cwd" explain --batch --cwd "$cwd" -- explain --cwd "$cwd"
compare "explain --context bridge" explain --batch --context bridge -- explain --context bridge
compare "parse" parse --batch -- parse
compare "parse --no-unwrap" parse --batch --no-unwrap -- parse --no-unwrap
expect_eq "one answer per non-blank line" "$(wc -l <"$tmp/fast")" \
  "$(python3 -c 'import sys; print(sum(1 for l in open(sys.argv[1],"rb").read().split(b"\n") if l.rstrip(b"\r")))' "$tmp/lines")"
expect_eq "hostile lines answered with errors" "$(grep -c '^{"error":{"kind":"json"' "$tmp/fast")" \
  "$(grep -c '^{"error":{"kind":"json"' "$tmp/ref")"

# input in small pieces (lines split across reads), from a pipe
python3 - "$tmp/lines" "$S" "$tmp/pieces" <<'PY' || fail "pieces: driver"
import subprocess, sys
data = open(sys.argv[1], "rb").read()[:300000]
p = subprocess.Popen([sys.argv[2], "explain", "--batch"], stdin=subprocess.PIPE, stdout=open(sys.argv[3], "wb"))
for i in range(0, len(data), 997):
    p.stdin.write(data[i:i + 997]); p.stdin.flush()
p.stdin.close(); p.wait()
open(sys.argv[3] + ".in", "wb").write(data)
PY
"$REF" explain <"$tmp/pieces.in" >"$tmp/pieces.ref"
if cmp -s "$tmp/pieces" "$tmp/pieces.ref"; then ok; else fail "pieces: output differs"; fi

# interactive: each answer arrives while the client waits, before stdin ends
for mode in explain parse; do
python3 - "$S" "$mode" <<'PY'; check "interactive $mode: an answer per line at once" test $? -eq 0
import json, select, subprocess, sys
p = subprocess.Popen([sys.argv[1], sys.argv[2], "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
for cmd in ["ls -la", "rg -n foo src", "not json", "cat README.md"]:
    p.stdin.write((json.dumps({"cmd": cmd}) if cmd != "not json" else cmd).encode() + b"\n")
    p.stdin.flush()
    r, _, _ = select.select([p.stdout], [], [], 10)
    if not r:
        print("no answer within 10 s for", cmd); sys.exit(1)
    line = p.stdout.readline()
    d = json.loads(line)
    if cmd != "not json" and d.get("cmd") != cmd:
        print("wrong answer", line); sys.exit(1)
p.stdin.close()
sys.exit(0 if p.wait() == 1 else 1)  # the bad line makes the exit status 1
PY
done
finish
