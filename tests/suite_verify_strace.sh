#!/usr/bin/env bash
# The verified-card watch checked against strace: hostile repository fixtures (an fsmonitor that
# runs `touch`, FIFO ignore files, an include.path to a FIFO, huge ignore files, links into a
# repository with an fsmonitor) and their benign twins, each command forced as a card with
# `shcard run --verify --as KIND` and run again under `strace -f`; the two must agree, the hostile
# ones must not hold, the benign ones must.  Then the hostile commands through `shcard acp`: none
# ends as a card.  The work is tests/verify_strace.py.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
PY=python3 # a version manager's shim costs seconds a call: the system's python when there is one
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
if ! command -v strace >/dev/null || ! command -v rg >/dev/null; then
  fail "strace and rg are needed (make deps installs them)"
  finish
  exit
fi
SHCARD=$SHCARD timeout 150 $PY -B tests/verify_strace.py
