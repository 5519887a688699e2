#!/usr/bin/env bash
# The bindings' speed (issue 14): commands per second through the C library (libshcard.so.0:
# shc_classify_ex + shc_verdict_to_json, the anchor), through WebAssembly (the npm package, in
# Node) and through ctypes (the Python module), on the whole corpus, in the same run; ratios to
# the C library.  Each rate is the best of three passes of at least BENCH_MS (default 1500) ms.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
MS=${BENCH_MS:-1500}
V=$(sed -n 's/^#define SHC_VERSION "\(.*\)"/\1/p' include/shcard.h)
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
L="$PWD/$BUILD/lib"
cc -std=c11 -O2 -Iinclude bench/bindings/classify_c.c -L"$L" -lshcard -Wl,-rpath,"$L" -o "$T/classify_c" || exit 1
python3 tests/library/records.py corpus/*.jsonl >"$T/records"
mkdir "$T/proj" && echo '{"name": "bench", "private": true, "type": "module"}' >"$T/proj/package.json"
(cd "$T/proj" && npm install --offline --no-audit --no-fund --loglevel=error "$OLDPWD/$BUILD/npm/shcard-$V.tgz" >/dev/null) || exit 1
cp bench/bindings/classify_node.mjs "$T/proj/"
# the three in turn, twice (the machine is shared: load moves between runs); the best of each
best() { echo "$1" | sed -n "s/.*$2=\([0-9]*\).*/\1/p" | sort -n | tail -1; }
c=""; js=""; py=""
for round in 1 2; do
  c="$c"$'\n'"$("$T/classify_c" "$MS" <"$T/records")" || exit 1
  js="$js"$'\n'"$(cd "$T/proj" && node classify_node.mjs "$MS" "$OLDPWD"/corpus/*.jsonl)" || exit 1
  py="$py"$'\n'"$(SHCARD_LIBRARY="$L/libshcard.so.0" PYTHONPATH=bindings/python python3 bench/bindings/classify_py.py "$MS" corpus/*.jsonl)" || exit 1
done
c="commands_per_s=$(best "$c" commands_per_s) ($(grep -c . corpus/*.jsonl | awk -F: '{n += $2} END {print n}') commands)"
js="json_per_s=$(best "$js" json_per_s) dict_per_s=$(best "$js" dict_per_s)"
py="json_per_s=$(best "$py" json_per_s) dict_per_s=$(best "$py" dict_per_s)"
echo "C library (libshcard.so.0, classify + JSON): $c"
echo "WebAssembly (npm, node $(node --version)): $js"
echo "ctypes (python $(python3 -c 'import platform; print(platform.python_version())')): $py"
cr=$(echo "$c" | sed -n 's/^commands_per_s=\([0-9]*\).*/\1/p')
awk -v c="$cr" -v js="$js" -v py="$py" 'function f(s, k) { match(s, k "=[0-9]+"); return substr(s, RSTART + length(k) + 1, RLENGTH - length(k) - 1) }
BEGIN {
  printf "ratio: WebAssembly classifyJSON %.2fx the C library, classify (object) %.2fx\n", f(js, "json_per_s") / c, f(js, "dict_per_s") / c;
  printf "ratio: ctypes classify_json %.2fx the C library, classify (dict) %.2fx\n", f(py, "json_per_s") / c, f(py, "dict_per_s") / c }'
