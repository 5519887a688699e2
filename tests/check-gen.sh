#!/usr/bin/env bash
# Regenerates gen/ from grammar/ in a scratch copy (same relative paths, so the output is
# byte-identical) and fails when it differs from the committed gen/.
set -u
want_re2c=$(sed -n 's/^re2c //p' gen/TOOLS)
want_bison=$(sed -n 's/^bison //p' gen/TOOLS)
have_re2c=$(re2c --version 2>/dev/null | awk '{print $2}')
have_bison=$(bison --version 2>/dev/null | head -n1 | awk '{print $4}')
if [ "$have_re2c" != "$want_re2c" ] || [ "$have_bison" != "$want_bison" ]; then
  echo "check-gen: gen/ was made by re2c $want_re2c and bison $want_bison; this machine has" \
       "re2c '${have_re2c:-none}' and bison '${have_bison:-none}'. Install re2c $want_re2c / bison $want_bison (make deps)." >&2
  exit 2
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp -r grammar "$tmp/grammar"; mkdir -p "$tmp/gen"; cp gen/TOOLS "$tmp/gen/TOOLS"
( cd "$tmp" && make -s -f "$OLDPWD/Makefile" gen >/dev/null ) || { echo "check-gen: regeneration failed" >&2; exit 2; }
if ! diff -ru gen "$tmp/gen"; then
  echo "check-gen: gen/ does not match grammar/; run 'make gen' and commit gen/" >&2
  exit 1
fi
echo "check-gen: gen/ matches grammar/"
