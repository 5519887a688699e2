#!/usr/bin/env bash
# make fuzz-safety: mutates the corpus with dangerous pieces (tests/fuzz_safety.py) and puts
# every mutant the classifier does not label terminal through the sandboxed safety oracle.
#   tests/fuzz-safety.sh            short fixed-seed pass (what `make test` runs)
#   tests/fuzz-safety.sh --long     30,000 mutants over 3 seeds, every accepted mutant run, a sweep
#                                   of every option of every table in its usual shape; the option
#                                   oracle over a large sample (tests/option_oracle.py, OPTION_RUNS,
#                                   default 1500, or "all"); the red-team corpus section run for real
#                                   (--force-run --expect-violations): each of its commands must
#                                   really do what a read may not (proves its label); and the word
#                                   oracle (tests/word_oracle.py) over 2,000,000 generated commands
#   SEED=N MUTANTS=N MAX_RUNS=N     override; WORD_ORACLE_N=N the word oracle's commands per seed
set -u
cd "$(dirname "$0")/.."
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
SHCARD=${SHCARD:-$PWD/shcard}
[ -x "$SHCARD" ] || { echo "fuzz-safety: build ./shcard first (make)"; exit 2; }
long=0
[ "${1:-}" = "--long" ] && long=1
if [ $long -eq 1 ]; then
  seeds=${SEED:-"11 22 33"}; mutants=${MUTANTS:-10000}; max=${MAX_RUNS:-0}
else
  seeds=${SEED:-1}; mutants=${MUTANTS:-2000}; max=${MAX_RUNS:-80}
fi
rc=0
sweep=""
[ $long -eq 1 ] && sweep="--sweep"
for s in $seeds; do
  "$PY" tests/fuzz_safety.py --shcard "$SHCARD" --seed "$s" --mutants "$mutants" \
    --max-runs "$max" $sweep corpus/*.jsonl || rc=1
  sweep=""
done
if [ $long -eq 1 ]; then
  dump="${BUILD:-build}/tests/helpers/word_dump"
  for s in 101 202 303 404; do
    "$PY" tests/word_oracle.py --shcard-dump "$dump" --n "${WORD_ORACLE_N:-500000}" --seed "$s" \
      --chunk 50000 --direct 200 || rc=1
  done
  runs=${OPTION_RUNS:-1500}
  if [ "$runs" = all ]; then sel="--all"; else sel="--runs $runs"; fi
  "$PY" tests/option_oracle.py --shcard "$SHCARD" --seed "${SEED:-7}" $sel --modes pipe,tty,exec \
    || rc=1
  # the red-team section: each command really is dangerous (unwrapped forms; the wrapped ones
  # are the same command to bash)
  rt=$(mktemp)
  grep -v '"cmd": "bash -lc ' corpus/redteam.jsonl > "$rt"
  "$PY" tests/oracle.py --shcard "$SHCARD" --force-run --expect-violations --timeout 6 "$rt" || rc=1
  rm -f "$rt"
fi
exit $rc
