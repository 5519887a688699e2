#!/usr/bin/env bash
# Reads of uninitialised memory, which AddressSanitizer does not see: valgrind's memcheck over
# `explain --batch` and `parse --batch` on the corpus, in every mode the CLI has (no cwd, a real
# repository as cwd, the bridge context, no unwrapping), plus inputs that take the rare paths:
# paths too long to judge after a command that fills the stack, commands past the parse
# arena's first 4 KiB, NUL and control bytes.  (A red-team round found a reason printed from an
# uninitialised buffer: text an earlier command had left on the stack.)
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
S=$SHCARD
if [ -n "${SAN:-}" ]; then # valgrind cannot run a sanitizer build: check a plain one
  if make --no-print-directory -s SAN= BUILD=build build/shcard >/tmp/memcheck-build-$$.log 2>&1; then
    S=$PWD/build/shcard
  else
    fail "plain build for memcheck"; cat /tmp/memcheck-build-$$.log; finish; exit 1
  fi
  rm -f /tmp/memcheck-build-$$.log
fi
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
command -v valgrind >/dev/null || { fail "valgrind is not installed (make deps)"; finish; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# the corpus's commands, then the rare paths
cat corpus/*.jsonl | "$PY" -c '
import json, sys
for line in sys.stdin:
    try:
        c = json.loads(line).get("cmd")
    except ValueError:
        continue
    if isinstance(c, str):
        print(json.dumps({"cmd": c}))
secret = "S3CR3T/" * 600
for tool in ("grep -r x", "rg x", "ls", "git grep x", "bat", "fd x", "tree"):
    print(json.dumps({"cmd": "sed -f a=/tok-" + secret + "c f"}))
    print(json.dumps({"cmd": tool + " /" + "a" * 4090}))
    print(json.dumps({"cmd": tool + " /" + "ab/" * 1400 + "c"}))
for n in (4000, 4100, 9000, 70000):
    print(json.dumps({"cmd": "cat " + " ".join(["f"] * (n // 2))}))
    print(json.dumps({"cmd": "cat \x27" + "x" * n + "\x27 \"$HOME\" a\\ b"}))
print(json.dumps({"cmd": "cat a\u0000b"}))
print(json.dumps({"cmd": "cat \u0001 \u007f \u00e9 \ud83d\ude00"}))
' > "$tmp/in.jsonl"
check "inputs written" test "$(wc -l < "$tmp/in.jsonl")" -gt 3000

mc() { # NAME ARGS...: memcheck of shcard ARGS < in.jsonl; 99 is valgrind's, not shcard's
  local name=$1; shift
  valgrind -q --error-exitcode=99 --track-origins=yes "$S" "$@" < "$tmp/in.jsonl" \
    > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  if [ "$rc" -ne 99 ] && [ "$rc" -le 1 ]; then ok; else
    fail "$name: memcheck exit $rc"; head -n 30 "$tmp/err"
  fi
  expect_eq "$name: one answer a line" "$(wc -l < "$tmp/out")" "$(wc -l < "$tmp/in.jsonl")"
}
mc "explain" explain --batch
mc "explain --cwd repository" explain --batch --cwd "$PWD"
mc "explain --cwd /tmp, bridge" explain --batch --cwd /tmp --context bridge
mc "explain --no-unwrap" explain --batch --no-unwrap
mc "parse" parse --batch
finish
