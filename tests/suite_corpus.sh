#!/usr/bin/env bash
# The labelled corpus (corpus/*.jsonl) through the classifier, plus the safety gate (reported on
# its own line by run_corpus): no case labelled terminal without an alternative may come out as
# anything else.  Also checks that the committed corpus matches its generator.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
runner="$BUILD/tests/helpers/run_corpus"
[ -x "$runner" ] || { echo "missing $runner (make build-tests)"; echo "0 passed, 1 failed"; exit 1; }

out=$("$runner" corpus/*.jsonl)
rc=$?
echo "$out" | grep -v '^corpus: ' 
p=$(echo "$out" | sed -nE 's/^corpus: ([0-9]+) passed, ([0-9]+) failed$/\1/p')
f=$(echo "$out" | sed -nE 's/^corpus: ([0-9]+) passed, ([0-9]+) failed$/\2/p')
_pass=$((_pass + ${p:-0})); _fail=$((_fail + ${f:-0}))
[ "$rc" -eq 0 ] || [ "${f:-0}" -gt 0 ] || fail "run_corpus exited $rc"

gate=$(echo "$out" | sed -nE 's/^safety gate: ([0-9]+) terminal-only cases, ([0-9]+) labelled otherwise$/\2/p')
expect_eq "safety gate leaks" "${gate:-missing}" "0"
total=$(cat corpus/*.jsonl | grep -c .)
if [ "$total" -ge 600 ]; then ok; else fail "corpus has $total cases, want >= 600"; fi

# the committed corpus is what the generator writes
tmp=$(mktemp -d)
cp -r corpus "$tmp/"
if python3 "$tmp/corpus/make_corpus.py" >/dev/null && diff -r corpus "$tmp/corpus" >/dev/null; then
  ok
else
  fail "corpus/*.jsonl differ from corpus/make_corpus.py output (run python3 corpus/make_corpus.py)"
fi
rm -rf "$tmp"
finish
