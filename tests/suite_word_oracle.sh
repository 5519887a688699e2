#!/usr/bin/env bash
# Word oracle (tests/word_oracle.py): 20,000 generated commands built from the hard word
# constructs (ANSI-C escapes, braces, tildes, line continuations, comments, $"...", $...); every
# word shcard calls static must be byte for byte the argument bash 5.2 passes (bash in
# bubblewrap, globbing off), and 100 of them are re-run as `bash -c` scripts to check the eval
# batching.  Fixed seed; WORD_ORACLE_N and WORD_ORACLE_SEED override.  `make fuzz-safety` runs
# millions.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
dump="$BUILD/tests/helpers/word_dump"
[ -x "$dump" ] || { echo "word oracle: build $dump first (make build-tests)"; echo "0 passed, 1 failed"; exit 1; }
exec python3 tests/word_oracle.py --shcard-dump "$dump" --n "${WORD_ORACLE_N:-20000}" \
  --seed "${WORD_ORACLE_SEED:-20261201}" --direct 100
