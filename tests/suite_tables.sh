#!/usr/bin/env bash
# The option tables against the installed tools (tests/check_tables.py): every getopt_long
# table's options, shapes, permutation and prefix completeness as the real binary passes them
# to getopt_long (read with the LD_PRELOAD shim tests/tables/getopt_dump.c), and git grep /
# git ls-files long options from git's own completion helper.
set -u
cd "$(dirname "$0")/.."
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cc -shared -fPIC -O1 -Wall -Wextra -Werror -o "$d/getopt_dump.so" tests/tables/getopt_dump.c ||
  { echo "FAIL: cannot build the getopt shim"; echo "0 passed, 1 failed"; exit 1; }
python3 tests/check_tables.py "$d/getopt_dump.so"
