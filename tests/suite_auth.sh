#!/usr/bin/env bash
# Authentication (tests/auth_cases.py): `shcard login` typed on a real PTY (no echo of the key,
# the file and its mode, Ctrl-C, no terminal), and `shcard acp`'s authMethods and authenticate
# over raw JSON-RPC, including a login picked up by the next session of a running agent (the
# fake OpenAI server on loopback).  auth_cases.py prints the "N passed, N failed" line.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
[ -x "$SHCARD" ] || { echo "FAIL: $SHCARD not built"; echo "0 passed, 1 failed"; exit 1; }
SHCARD=$SHCARD exec timeout 300 python3 tests/auth_cases.py
