#!/usr/bin/env bash
# Conditional behaviour (tests/oracle_conditions.py): per tool, the condition under which an
# option does harm (sort spilling to temporary files runs --compress-program, a pager on a
# terminal, a gzip file for rg -z, a file that never ends for tail -f, an open stdin for head)
# is created in the sandboxed oracle; its control must be flagged and every accepted option of
# the tool must run clean under it.  One result per condition.
set -u
cd "$(dirname "$0")/.."
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
exec "$PY" tests/oracle_conditions.py --shcard "${SHCARD:-./shcard}"
