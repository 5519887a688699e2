#!/usr/bin/env bash
# shcard acp: throughput of a 50 MB output streamed as terminal_output updates, against the
# executor alone (`shcard run`, same command), interleaved over BENCH_ROUNDS rounds (medians);
# the bridge's own CPU time and peak memory while doing so; and the delay from a line leaving the
# PTY to its notification on stdout (median, p99).  Target (issue 15): bridge / executor >= 1.0.
# Ratios and numbers only: these machines are shared and noisy.
set -u
cd "$(dirname "$0")/.."
SHCARD=${SHCARD:-$PWD/shcard}
MB=${BENCH_MB:-50}
R=${BENCH_ROUNDS:-3}
cmd="yes 'some line of output text abcdefghij' | head -c $((MB * 1000 * 1000))"
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ex=() br=() cpu=() cmdcpu=() clcpu=()
for ((r = 1; r <= R; r++)); do
  # anchor: the executor alone, output to /dev/null
  t0=$(date +%s%N)
  "$SHCARD" run "$cmd" > /dev/null 2>&1
  t1=$(date +%s%N)
  ex+=("$(awk -v a="$t0" -v b="$t1" -v mb="$MB" 'BEGIN { printf "%.2f", mb / ((b - a) / 1e9) }')")
  lat=0; [ "$r" -eq "$R" ] && lat=${BENCH_LAT_N:-300}
  res=$(BENCH_MB=$MB BENCH_LAT_N=$lat node bench/acp_bench.mjs "$SHCARD" 2>/dev/null) || { echo "bench_acp: the bridge run failed"; exit 1; }
  field() { node -e 'const o = JSON.parse(process.argv[1]); const v = o[process.argv[2]]; console.log(typeof v === "number" && !Number.isInteger(v) ? v.toFixed(2) : v)' "$res" "$1"; }
  [ "$(field stop)" = end_turn ] || { echo "bench_acp: turn did not end end_turn"; exit 1; }
  br+=("$(field mb_per_s)"); cpu+=("$(field bridge_cpu_s)"); cmdcpu+=("$(field command_cpu_s)"); clcpu+=("$(field client_cpu_s)")
  echo "round $r: executor alone ${ex[-1]} MB/s, bridge ${br[-1]} MB/s ($(field data_bytes) data bytes in $(field updates) updates)"
done
exm=$(printf '%s\n' "${ex[@]}" | median); brm=$(printf '%s\n' "${br[@]}" | median); cpum=$(printf '%s\n' "${cpu[@]}" | median)
echo "executor alone (shcard run > /dev/null): median ${exm} MB/s over $R rounds"
echo "bridge (terminal_output updates):        median ${brm} MB/s"
echo "CPU per ${MB} MB during the bridge run (medians): bridge $cpum s, the command (yes | head, incl. the kernel's PTY work) $(printf '%s\n' "${cmdcpu[@]}" | median) s, the client $(printf '%s\n' "${clcpu[@]}" | median) s"
echo "ratio: bridge / executor throughput = $(awk -v a="$brm" -v b="$exm" 'BEGIN { r = a / b; printf "%.2f (target >= 1.0): %s", r, (r >= 1.0 ? "within" : "UNDER") }')"
echo "bridge peak memory (VmHWM):              $(field peak_rss_mib) MiB"
echo "PTY -> stdout notification delay:        median $(field latency_median_ms) ms, p99 $(field latency_p99_ms) ms ($(field latency_samples) samples; coalescing window 16 ms)"
