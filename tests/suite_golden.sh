#!/usr/bin/env bash
# Golden AST dumps: tests/golden/NAME.sh parses (unwrapping bash -lc) to tests/golden/NAME.ast.
# UPDATE_GOLDEN=1 rewrites the .ast files (review the diff before committing).
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
dump="$BUILD/tests/helpers/astdump"
for src in tests/golden/*.sh; do
  want="${src%.sh}.ast"
  got=$("$dump" "$src" --unwrap)
  if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then printf '%s\n' "$got" > "$want"; fi
  if [ -f "$want" ] && [ "$got" == "$(cat "$want")" ]; then ok; else
    fail "$src"; diff <(printf '%s\n' "$got") "$want" | head -20; fi
done
finish
