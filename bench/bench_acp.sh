#!/usr/bin/env bash
# shcard acp: throughput of a 50 MB output streamed as terminal_output updates, against the
# executor alone (`shcard run`, same command, same run); the bridge's peak memory while doing so;
# and the delay from a line leaving the PTY to its notification on stdout (median, p99).
# Ratios and numbers only: these machines are shared and noisy.
set -u
cd "$(dirname "$0")/.."
SHCARD=${SHCARD:-$PWD/shcard}
MB=${BENCH_MB:-50}
cmd="yes 'some line of output text abcdefghij' | head -c $((MB * 1000 * 1000))"

# anchor: the executor alone, output to /dev/null
t0=$(date +%s%N)
"$SHCARD" run "$cmd" > /dev/null
t1=$(date +%s%N)
anchor_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
anchor_mbs=$(awk -v s="$anchor_s" -v mb="$MB" 'BEGIN { printf "%.1f", mb / s }')

res=$(BENCH_MB=$MB node bench/acp_bench.mjs "$SHCARD") || { echo "bench_acp: the bridge run failed"; exit 1; }
field() { node -e 'const o = JSON.parse(process.argv[1]); const v = o[process.argv[2]]; console.log(typeof v === "number" && !Number.isInteger(v) ? v.toFixed(2) : v)' "$res" "$1"; }
mbs=$(field mb_per_s)
echo "executor alone (shcard run > /dev/null): ${MB} MB in ${anchor_s} s = ${anchor_mbs} MB/s"
echo "bridge (terminal_output updates):        $(field data_bytes) data bytes in $(field updates) updates, $(field seconds) s = ${mbs} MB/s"
echo "bridge / executor throughput ratio:      $(awk -v a="$mbs" -v b="$anchor_mbs" 'BEGIN { printf "%.2f", a / b }')"
echo "bridge peak memory (VmHWM):              $(field peak_rss_mib) MiB"
echo "PTY -> stdout notification delay:        median $(field latency_median_ms) ms, p99 $(field latency_p99_ms) ms ($(field latency_samples) samples; coalescing window 16 ms)"
[ "$(field stop)" = end_turn ] || { echo "bench_acp: turn did not end end_turn"; exit 1; }
