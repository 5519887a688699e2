#!/usr/bin/env bash
# libshcard as its users get it: `make install` into a temporary DESTDIR (then `make uninstall`),
# the installed files (SONAME, links, header, pkg-config, man pages, Python module), the exported
# symbols against the committed list, and a C program built with `pkg-config --cflags --libs
# shcard` (shared and static) whose output equals `shcard explain --batch` on the whole corpus.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
D="$T/dest"
P=/usr/local
L=$D$P/lib

# ---- install
if make --no-print-directory -s install DESTDIR="$D" PREFIX=$P BUILD="$BUILD" SAN="${SAN:-}" >"$T/install.log" 2>&1; then ok
else fail "make install: $(tail -5 "$T/install.log")"; fi
for f in bin/shcard lib/libshcard.so.0 lib/libshcard.so lib/libshcard.a include/shcard.h \
         lib/pkgconfig/shcard.pc share/man/man1/shcard.1 share/man/man1/shcard-parse.1 \
         share/man/man1/shcard-explain.1 share/man/man1/shcard-run.1 share/man/man1/shcard-acp.1 \
         share/man/man3/shcard.3 share/man/man3/shc_classify.3; do
  [ -e "$D$P/$f" ] && ok || fail "not installed: $P/$f"
done
expect_eq "libshcard.so -> " "$(readlink "$L/libshcard.so")" "libshcard.so.0"
real=$(readlink "$L/libshcard.so.0")
expect_eq "libshcard.so.0 -> a real file" "$([ -f "$L/$real" ] && [ ! -L "$L/$real" ] && echo file)" file
expect_eq "SONAME" "$(readelf -d "$L/libshcard.so.0" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" "libshcard.so.0"
expect_eq "NEEDED (libc only: no jansson, no curl)" \
  "$(readelf -d "$L/libshcard.so.0" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')" "libc.so.6 "
expect_eq "installed header is include/shcard.h" "$(cmp -s include/shcard.h "$D$P/include/shcard.h" && echo same)" same
"$D$P/bin/shcard" --version >/dev/null && ok || fail "installed shcard does not run"

# ---- exported symbols: the .so, the version script, the header's SHC_API and the committed list
dyn=$(nm -D --defined-only "$L/libshcard.so.0" | awk '$2=="T"{print $3}' | sort)
expect_eq "every export is versioned SHCARD_0" "$(echo "$dyn" | grep -vc '@@SHCARD_0$')" 0
dyn=$(echo "$dyn" | sed 's/@.*//')
want=$(grep -v '^#' lib/libshcard.symbols | grep . | sort)
expect_eq "exports = lib/libshcard.symbols" "$dyn" "$want"
hdr=$(grep -oE '^SHC_API [^(]*\bshc_[a-z_]+\(' include/shcard.h | grep -oE 'shc_[a-z_]+\($' | tr -d '(' | sort)
expect_eq "exports = SHC_API in include/shcard.h" "$dyn" "$hdr"
# a function declared in the header without SHC_API would be hidden: every declaration has it
unexported=$(grep -nE '^[a-z][a-z_ ]*[ *]shc_[a-z_]+\(' include/shcard.h | grep -v 'SHC_API')
expect_eq "functions declared in include/shcard.h without SHC_API" "$unexported" ""
map=$(sed -n '/global:/,/local:/p' lib/libshcard.map | grep -oE 'shc_[a-z_]+' | sort)
expect_eq "exports = lib/libshcard.map" "$dyn" "$map"
expect_eq "no other exported objects" "$(nm -D --defined-only "$L/libshcard.so.0" | awk '$2!="T" && $2!="A"' | wc -l)" 0
expect_eq "static archive: every global symbol is shc_" \
  "$(nm -g --defined-only "$L/libshcard.a" | awk 'NF==3{print $3}' | grep -vc '^shc_')" 0

# ---- pkg-config
export PKG_CONFIG_PATH="$L/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D"
expect_eq "pkg-config --modversion" "$(pkg-config --modversion shcard)" \
  "$(sed -n 's/^#define SHC_VERSION "\(.*\)"/\1/p' include/shcard.h)"
cflags=$(pkg-config --cflags shcard); libs=$(pkg-config --libs shcard)
if cc -std=c11 -Wall -Wextra -Werror tests/library/shc_batch.c $cflags $libs -o "$T/shc_batch" 2>"$T/cc.log"
then ok; else fail "cc with pkg-config: $(cat "$T/cc.log")"; fi
expect_eq "linked against the SONAME" \
  "$(readelf -d "$T/shc_batch" | grep -c 'NEEDED.*\[libshcard.so.0\]')" 1
if cc -std=c11 -Wall -Werror tests/library/shc_batch.c $cflags "$L/libshcard.a" -o "$T/shc_batch_static" 2>"$T/cc.log"
then ok; else fail "cc with libshcard.a: $(cat "$T/cc.log")"; fi
if c++ -x c++ -std=c++17 -Wall -Werror -fsyntax-only $cflags - <<<'#include <shcard.h>
int main() { shc_verdict *v = nullptr; shc_classify(&v, "ls", 2, true); shc_verdict_free(v); }' 2>"$T/cxx.log"
then ok; else fail "the header in C++: $(cat "$T/cxx.log")"; fi
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

# ---- the program's answers equal the CLI's on the whole corpus (shared and static, unwrap and not)
python3 tests/library/records.py corpus/*.jsonl >"$T/records"
n=$(cat corpus/*.jsonl | grep -c .)
for mode in "" --no-unwrap "--context bridge"; do
  cat corpus/*.jsonl | "$SHCARD" explain --batch $mode >"$T/cli${mode// /}"
  LD_LIBRARY_PATH="$L" "$T/shc_batch" $mode <"$T/records" >"$T/lib${mode// /}"
  expect_eq "libshcard.so$mode: $n answers" "$(grep -c . "$T/lib${mode// /}")" "$n"
  cmp -s "$T/cli${mode// /}" "$T/lib${mode// /}" && ok || fail "libshcard.so$mode differs from shcard explain --batch: $(diff "$T/cli${mode// /}" "$T/lib${mode// /}" | head -4)"
  "$T/shc_batch_static" $mode <"$T/records" >"$T/static${mode// /}"
  cmp -s "$T/cli${mode// /}" "$T/static${mode// /}" && ok || fail "libshcard.a$mode differs from shcard explain --batch"
done
expect_eq "library version" "$(LD_LIBRARY_PATH="$L" "$T/shc_batch" --version)" \
  "$("$SHCARD" --version | sed 's/^shcard //') $("$SHCARD" --version | sed 's/^shcard //')"
# --cwd: a FIFO in the directory makes `cat` terminal through the library as through the CLI
mkdir "$T/proj" && mkfifo "$T/proj/pipe" && echo x >"$T/proj/file"
printf '8\ncat pipe8\ncat file' >"$T/cwd.rec"
LD_LIBRARY_PATH="$L" "$T/shc_batch" --cwd "$T/proj" <"$T/cwd.rec" >"$T/cwd.lib"
"$SHCARD" explain --json --cwd "$T/proj" 'cat pipe' 'cat file' >"$T/cwd.cli"
cmp -s "$T/cwd.lib" "$T/cwd.cli" && ok || fail "--cwd: library and CLI differ"
expect_eq "--cwd: the FIFO is terminal" "$(head -1 "$T/cwd.lib" | grep -o '"kind":"[a-z]*"')" '"kind":"terminal"'

# ---- the installed Python module finds the installed library (Debian's python3 path layout)
py=$(find "$D" -path '*/shcard/__init__.py' | head -1)
if [ -n "$py" ]; then
  got=$(cd "$T" && PYTHONPATH="$(dirname "$(dirname "$py")")" LD_LIBRARY_PATH="$L" python3 -c \
    'import shcard; print(shcard.classify("rg -n foo src")["kind"])' 2>&1)
  expect_eq "python3 -c 'import shcard' after make install" "$got" search
else
  fail "make install put no Python module"
fi

# ---- uninstall leaves no file behind
make --no-print-directory -s uninstall DESTDIR="$D" PREFIX=$P BUILD="$BUILD" SAN="${SAN:-}" >/dev/null 2>&1 && ok || fail "make uninstall"
left=$(find "$D" -not -type d | sed "s|^$D||")
expect_eq "files left after uninstall" "$left" ""
for f in "$BUILD"/man/shcard.1 "$BUILD"/man/shcard.3 "$BUILD"/lib/libshcard.so.0; do
  [ -e "$f" ] && ok || fail "make uninstall removed the build's $f"
done

# ---- a user prefix: `make install PREFIX=$HOME/.local`, then python3 imports the module with no
# PYTHONPATH and no LD_LIBRARY_PATH (the user site-packages, and the libdir make install recorded)
H="$T/home"; mkdir -p "$H"
if HOME="$H" make --no-print-directory -s install PREFIX="$H/.local" BUILD="$BUILD" SAN="${SAN:-}" \
     >"$T/uinstall.log" 2>&1; then ok; else fail "make install PREFIX=\$HOME/.local: $(tail -5 "$T/uinstall.log")"; fi
got=$(cd "$T" && HOME="$H" env -u PYTHONPATH -u LD_LIBRARY_PATH -u SHCARD_LIBRARY python3 -c \
  'import shcard; print(shcard.__file__); print(shcard.classify("rg -n foo src")["kind"])' 2>&1)
case "$got" in "$H/.local/lib/python"*"/site-packages/shcard/__init__.py"$'\n'search) ok ;;
  *) fail "python3 after make install PREFIX=\$HOME/.local: $got" ;; esac
expect_eq "python3 -m shcard after make install PREFIX=\$HOME/.local" \
  "$(cd "$T" && HOME="$H" env -u PYTHONPATH python3 -m shcard explain 'ls src' 2>&1 | head -n1)" "list: List files in 'src'"
check "no note about PYTHONPATH for the user prefix" bash -c "! grep -q PYTHONPATH '$T/uinstall.log'"
HOME="$H" make --no-print-directory -s uninstall PREFIX="$H/.local" BUILD="$BUILD" SAN="${SAN:-}" >/dev/null 2>&1
expect_eq "files left after uninstall from \$HOME/.local" "$(find "$H/.local" -not -type d | sed "s|^$H||")" ""
# a prefix no Python searches: installed all the same, and make install says how to reach it
make --no-print-directory -s install DESTDIR="$T/d2" PREFIX=/opt/shcard BUILD="$BUILD" SAN="${SAN:-}" >"$T/oinstall.log" 2>&1
check "prefix /opt/shcard: the module installed" test -f "$T/d2/opt/shcard/lib/python$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')/site-packages/shcard/__init__.py"
check "prefix /opt/shcard: a note about PYTHONPATH" grep -q "set PYTHONPATH=/opt/shcard/lib/python" "$T/oinstall.log"
finish
