#!/usr/bin/env bash
# Parse benchmark and its anchors, measured in the same run on the same 100,000 commands:
#   - shcard's re2c+bison front end, per command (bench_parse.c)
#   - bash -n over the whole file in one process (a yes/no answer, no AST), amortised
#   - Python's shlex.split per command (tokens only)
# Budget (issue 2): p99 <= 1 us per command.  Ratios, not gates: these machines are noisy.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out=$("$BUILD/bench/bench_parse" "$tmp/cmds.txt") || exit 1
echo "$out" | grep -v '_ns='
mean=$(echo "$out" | sed -n 's/.*parse_mean_ns=\([0-9.]*\).*/\1/p')
p99=$(echo "$out" | sed -n 's/.*parse_p99_ns=\([0-9.]*\).*/\1/p')
t0=$(date +%s%N); bash -n "$tmp/cmds.txt" 2>/dev/null; t1=$(date +%s%N)
bashn=$(( (t1 - t0) / 100000 ))
echo "anchor bash -n (whole file, one process): ${bashn} ns per command amortised"
shlex=$(python3 -c '
import shlex, sys, time
lines = open(sys.argv[1]).read().splitlines()
t = time.perf_counter()
for l in lines: shlex.split(l)
print(int((time.perf_counter() - t) / len(lines) * 1e9))' "$tmp/cmds.txt")
echo "anchor python shlex.split: ${shlex} ns per command"
awk -v m="$mean" -v b="$bashn" -v s="$shlex" -v p="$p99" 'BEGIN {
  printf "ratio: shcard parse is %.1fx faster than bash -n and %.1fx faster than shlex.split (mean)\n", b / m, s / m;
  printf "budget: p99 %.0f ns against 1000 ns: %s\n", p, (p <= 1000 ? "within" : "OVER") }'
