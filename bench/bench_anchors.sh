#!/usr/bin/env bash
# shcard against the parsers a harness author would pick instead (issue 15), on the same 100,000
# generated agent commands as bench_parse, in the same run (`make bench-anchors` installs them):
#   - in process: tree-sitter-bash parse + walk (the npm package's C parser on Debian's
#     libtree-sitter) against shcard's parse and parse + classify, taking turns block by block
#     (1,000 commands), best of 3 passes per command (bench/anchors/ts_inproc.c); goal >= 50x
#   - in process: mvdan/sh syntax.NewParser().Parse (Go, Debian's golang-mvdan-sh-dev) against
#     shcard's parse from the pass just before (bench/anchors/mvdan_sh.go)
#   - whole process: tree-sitter-bash over the JSON-lines file (bench/anchors/ts_batch.c) against
#     `shcard explain --batch` and `shcard parse --batch`, interleaved rounds, medians of wall and
#     CPU time (bench/anchors/whole.py); target >= 10x
# Ratios, not gates: these machines are shared and noisy.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SHCARD=${SHCARD:-$PWD/shcard}
A=$BUILD/bench/anchors
for b in ts_inproc ts_batch mvdan_sh; do
  [ -x "$A/$b" ] || { echo "bench_anchors: $A/$b is missing: run make bench-anchors"; exit 1; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
get() { sed -n "s/.*\b$1=\([0-9.]*\).*/\1/p"; }

echo "-- in process (per command, best of 3 passes, interleaved by blocks of 1,000 commands)"
ts=$("$A/ts_inproc" "$tmp/cmds.txt") || exit 1
echo "$ts" | grep -v '_ns='
awk -v p="$(get shc_parse_mean_ns <<<"$ts")" -v c="$(get shc_classify_mean_ns <<<"$ts")" \
    -v t="$(get ts_mean_ns <<<"$ts")" -v p5="$(get shc_parse_p50_ns <<<"$ts")" \
    -v c5="$(get shc_classify_p50_ns <<<"$ts")" -v t5="$(get ts_p50_ns <<<"$ts")" 'BEGIN {
  printf "ratio: tree-sitter-bash parse + walk / shcard parse = %.1fx (mean), %.1fx (p50) (goal >= 50x)\n", t / p, t5 / p5
  printf "ratio: tree-sitter-bash parse + walk / shcard parse + classify = %.1fx (mean), %.1fx (p50) (goal >= 50x)\n", t / c, t5 / c5 }'
mv=$("$A/mvdan_sh" "$tmp/cmds.txt") || exit 1
echo "$mv" | grep -v '_ns='
awk -v p="$(get shc_parse_mean_ns <<<"$ts")" -v m="$(get mvdan_mean_ns <<<"$mv")" \
    -v p5="$(get shc_parse_p50_ns <<<"$ts")" -v m5="$(get mvdan_p50_ns <<<"$mv")" 'BEGIN {
  printf "ratio: mvdan/sh Parse / shcard parse = %.1fx (mean), %.1fx (p50)\n", m / p, m5 / p5 }'

echo "-- whole process over the same commands as JSON lines (medians of ${BENCH_ROUNDS:-5} interleaved rounds)"
python3 -c '
import json, sys
with open(sys.argv[2], "w") as o:
    for l in open(sys.argv[1]).read().splitlines():
        o.write(json.dumps({"cmd": l}) + "\n")' "$tmp/cmds.txt" "$tmp/cmds.jsonl"
# the jansson path that --batch used before issue 15 (a tree per line and per answer, a flush
# per line), kept as tests/helpers/batch_ref: the same answers, for the before/after figure
ref=(); [ -x "$BUILD/tests/helpers/batch_ref" ] && ref=("explain, jansson path=$BUILD/tests/helpers/batch_ref explain")
# --cwd: with the real directory (this checkout, a git repository): every path resolved, the
# repository's files and what the tools read from their directory judged (BENCH_CWD to change)
python3 bench/anchors/whole.py "${BENCH_ROUNDS:-5}" "$tmp/cmds.jsonl" \
  "tree-sitter-bash=$A/ts_batch" "explain --batch=$SHCARD explain --batch" \
  "explain --batch --cwd=$SHCARD explain --batch --cwd ${BENCH_CWD:-$PWD}" \
  "parse --batch=$SHCARD parse --batch" "${ref[@]}" |
  sed '/jansson path/!s/^ratio: \(.*\)$/ratio: \1 (target >= 10x)/'

# one command per process, as a harness that runs `shcard explain` for each command would: the
# process start is then nearly all of the cost (libcurl is loaded only by the model backend)
echo "-- one command per process (medians of ${BENCH_ONE_ROUNDS:-200} interleaved rounds)"
head -n 1 "$tmp/cmds.jsonl" > "$tmp/one.jsonl"
python3 bench/anchors/whole.py "${BENCH_ONE_ROUNDS:-200}" "$tmp/one.jsonl" \
  "tree-sitter-bash=$A/ts_batch" "explain --batch=$SHCARD explain --batch"
