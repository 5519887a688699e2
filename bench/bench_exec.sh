#!/usr/bin/env bash
# Executor benchmark (issue 4, Performance).  Ratios against anchors measured in the same run:
#   - spawn-to-exit latency of `bash -c true` through the executor against a bare forkpty + exec
#     of the same command (bench_exec.c, interleaved, medians); target ratio <= 1.2
#   - throughput of `cat` of a 50 MB file (BENCH_MB) through the executor against
#     `script -q -c 'cat FILE' /dev/null` (bench_exec.c, interleaved, best of 7); target >= 1.0
# Shared machines are noisy: these are printed, not gated.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
f="$tmp/stream.txt"
MB=${BENCH_MB:-50}
head -c $((MB * 750000)) /dev/urandom | base64 -w 100 | head -c $((MB * 1000000)) >"$f"
out=$("$BUILD/bench/bench_exec" "$f") || exit 1
echo "$out"
get() { echo "$out" | sed -n "s/^$1=//p"; }
script_ms=$(get throughput_script_best_ms)
awk -v e="$(get latency_exec_median_ms)" -v b="$(get latency_forkpty_median_ms)" \
    -v x="$(get throughput_exec_best_ms)" -v s="$script_ms" -v n="$(stat -c %s "$f")" 'BEGIN {
  r1 = e / b; r2 = s / x
  printf "ratio: latency executor/forkpty = %.2f (target <= 1.2): %s\n", r1, (r1 <= 1.2 ? "within" : "OVER")
  printf "ratio: throughput executor/script = %.2f (target >= 1.0): %s\n", r2, (r2 >= 1.0 ? "within" : "UNDER")
  printf "throughput: executor %.0f MB/s, script %.0f MB/s (%d bytes)\n", n / x / 1000, n / s / 1000, n }'
