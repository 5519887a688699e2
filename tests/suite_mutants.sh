#!/usr/bin/env bash
# A fixed sample of the planted bugs (tests/mutants.py SAMPLE: a table entry, the lexer, the xargs
# rule), each applied to a scratch copy, built, and killed by its suites.  One result
# per mutant; `make mutants` runs them all.
set -u
cd "$(dirname "$0")/.."
exec python3 tests/mutants.py --sample 3
