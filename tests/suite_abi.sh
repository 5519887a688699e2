#!/usr/bin/env bash
# The ABI of libshcard.so.N against the committed baseline lib/abi/libshcard.so.N.dump
# (abi-dumper of the built library, abi-compliance-checker): binary and source compatibility
# must be 100%.  A change that breaks it needs a SONAME bump (a new baseline for the new N), or,
# when the ABI policy (docs/library.md) allows it, `make abi-dump` and a commit that says why.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
so=$(readlink -f "$BUILD/lib/libshcard.so.0" 2>/dev/null)
soname=$(readelf -d "$so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
base="lib/abi/$soname.dump"
[ -f "$base" ] && ok || { fail "no ABI baseline $base for $soname (make abi-dump)"; finish; exit; }
if abi-dumper "$so" -o "$T/new.dump" -lver new -public-headers include/ >"$T/dump.log" 2>&1; then ok
else fail "abi-dumper: $(tail -3 "$T/dump.log")"; finish; exit; fi
abi-compliance-checker -l libshcard -old "$base" -new "$T/new.dump" -report-path "$T/report.html" >"$T/acc.log" 2>&1
rc=$?
expect_eq "binary compatibility with $base" "$(sed -n 's/^Binary compatibility: //p' "$T/acc.log")" "100%"
expect_eq "source compatibility with $base" "$(sed -n 's/^Source compatibility: //p' "$T/acc.log")" "100%"
expect_eq "abi-compliance-checker exit status" "$rc" 0
[ "$rc" -eq 0 ] || { cat "$T/acc.log"; sed -e 's/<[^>]*>/ /g' "$T/report.html" | tr -s ' \n' | grep -iE 'problem|changed|removed' | head -20; }
finish
