#!/usr/bin/env bash
# A second opinion on the golden ASTs (tests/golden_bash.py): the committed .ast files, read
# without shcard's code, against bash itself (word values at their spans, the wrapper's script,
# syntax errors against bash -n).  One result per golden file.
set -u
cd "$(dirname "$0")/.."
exec python3 tests/golden_bash.py tests/golden
