#!/usr/bin/env bash
# Differential test of the front end against bash: 3,000 generated simple commands (argv equal
# to bash's, or flagged as brace/tilde expansions) and 3,000 token soups (whatever bash -n
# rejects, shcard rejects).  Fixed seed; BASH_DIFF_N and BASH_DIFF_SEED override.
set -u
cd "$(dirname "$0")/.."
exec python3 tests/bash_diff.py "${SHCARD:-./shcard}" "${BASH_DIFF_N:-3000}" "${BASH_DIFF_SEED:-20261129}"
