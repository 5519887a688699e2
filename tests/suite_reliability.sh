#!/usr/bin/env bash
# `shcard acp` under hostile conditions (issue 11): signals, kill -9, a client that stops reading
# during floods, stdin closed with stdout unread, mentions with shell syntax, commands waiting
# for terminal input, huge commands, prompt-after-cancel ordering, JSON-RPC edges.  The driver
# (tests/reliability.py) speaks raw NDJSON to the real binary and prints "N passed, N failed".
# The stalled-client case pauses for 30 s (RELIAB_STALL_S); independent cases run concurrently.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
[ -x "$SHCARD" ] || { fail "no shcard binary at $SHCARD"; finish; exit 1; }
SHCARD="$SHCARD" SAN="${SAN:-}" exec python3 tests/reliability.py "$@"
