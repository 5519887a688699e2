#!/usr/bin/env bash
# make fuzz-safety: mutates the corpus with dangerous pieces (tests/fuzz_safety.py) and puts
# every mutant the classifier does not label terminal through the sandboxed safety oracle.
#   tests/fuzz-safety.sh            short fixed-seed pass (what `make test` runs)
#   tests/fuzz-safety.sh --long     30,000 mutants over 3 seeds, every accepted mutant run, plus
#                                   a sweep of every option of every table in its usual shape,
#                                   plus the word oracle (tests/word_oracle.py) over 2,000,000
#                                   generated commands (4 seeds)
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
fi
exit $rc
