#!/usr/bin/env bash
# Classification benchmark (issue 3): parse + classify per command on the 100,000-command
# fixed-seed set, next to parse alone measured in the same passes (the anchor).
# Budget: p99 <= 1 us per command (issue 15; it was 2 us in issue 3).  The tail lines say which
# templates the slowest 1% come from.  Ratios, not gates: these machines are noisy.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
out=$("$BUILD/bench/bench_classify") || exit 1
echo "$out" | grep -v '_ns='
c99=$(echo "$out" | sed -n 's/^classify_p99_ns=\([0-9.]*\).*/\1/p')
cm=$(echo "$out" | sed -n 's/.*classify_mean_ns=\([0-9.]*\).*/\1/p')
pm=$(echo "$out" | sed -n 's/.* parse_mean_ns=\([0-9.]*\).*/\1/p')
b99=$(echo "$out" | sed -n 's/.*best3_classify_p99_ns=\([0-9.]*\).*/\1/p')
awk -v c="$cm" -v p="$pm" -v q="$c99" -v b="$b99" 'BEGIN {
  printf "ratio: parse + classify costs %.2fx parse alone (mean)\n", c / p;
  printf "budget: p99 %.0f ns (best pass) against 1000 ns: %s\n", q, (q <= 1000 ? "within" : "OVER");
  printf "budget: p99 %.0f ns (per-command best of 3) against 1000 ns: %s\n", b, (b <= 1000 ? "within" : "OVER") }'
