#!/usr/bin/env bash
# make test-packages (after make deb): lintian on the built packages (no error), then the
# packages installed on this machine (apt-get, as root) and used as a user would: shcard
# explain, the man pages, a C program built with pkg-config against libshcard-dev whose output
# equals the CLI's on the whole corpus, the Python module over the packaged library.  The
# packages are purged at the end.  Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
V=$(sed -n 's/^#define SHC_VERSION "\(.*\)"/\1/p' include/shcard.h)
DEBS="$PWD/$BUILD/deb"
T=$(mktemp -d)
PKGS="shcard libshcard0 libshcard-dev python3-shcard"
cleanup() {
  DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq $PKGS >/dev/null 2>&1
  rm -rf "$T"
}
trap cleanup EXIT

expect_eq "debian/changelog version = SHC_VERSION" "$(dpkg-parsechangelog -S Version)" "$V"
for p in $PKGS; do
  a=$(dpkg --print-architecture); [ "$p" = python3-shcard ] && a=all
  [ -f "$DEBS/${p}_${V}_$a.deb" ] && ok || fail "no $p package in $DEBS (make deb)"
done

# ---- lintian: no error (warnings are printed)
lintian --pedantic -I "$DEBS"/shcard_"$V"_*.changes >"$T/lintian" 2>&1
grep -v 'running with root privileges' "$T/lintian"
expect_eq "lintian errors" "$(grep -c '^E:' "$T/lintian")" 0

# ---- install
if [ "$(id -u)" -ne 0 ]; then fail "installing the packages needs root"; finish; exit; fi
arch=$(dpkg --print-architecture)
if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
     "$DEBS/shcard_${V}_$arch.deb" "$DEBS/libshcard0_${V}_$arch.deb" "$DEBS/libshcard-dev_${V}_$arch.deb" "$DEBS/python3-shcard_${V}_all.deb" \
     >"$T/apt.log" 2>&1; then ok; else fail "apt-get install: $(tail -5 "$T/apt.log")"; fi
for p in $PKGS; do
  expect_eq "$p installed" "$(dpkg-query -W -f='${Status} ${Version}' "$p" 2>/dev/null)" "install ok installed $V"
done

# ---- the binary
expect_eq "installed shcard" "$(command -v shcard)" /usr/bin/shcard
expect_eq "shcard explain" "$(/usr/bin/shcard explain 'rg -n foo src' | head -n1)" "search: Search for 'foo' in src"
expect_eq "shcard --version" "$(/usr/bin/shcard --version)" "shcard $V"

# ---- the man pages: found by man, rendered without warnings
for page in shcard shcard-parse shcard-explain shcard-run shcard-acp shcard-login "3 shcard" "3 shc_classify"; do
  f=$(man -w $page 2>/dev/null)
  case "$f" in /usr/share/man/*) ok ;; *) fail "man -w $page: '$f'" ;; esac
  err=$(LC_ALL=C.UTF-8 MANWIDTH=100 man --warnings $page 2>&1 >/dev/null)
  [ -z "$err" ] && ok || fail "man $page warns: $err"
done

# ---- a C program against libshcard-dev, with pkg-config, equals the CLI on the corpus
expect_eq "pkg-config --modversion shcard" "$(pkg-config --modversion shcard)" "$V"
if cc -std=c11 -Wall -Wextra -Werror tests/library/shc_batch.c $(pkg-config --cflags --libs shcard) \
     -o "$T/shc_batch" 2>"$T/cc.log"; then ok; else fail "cc \$(pkg-config --cflags --libs shcard): $(cat "$T/cc.log")"; fi
expect_eq "the program uses the packaged library" \
  "$(readlink -f "$(ldd "$T/shc_batch" | awk '/libshcard/ {print $3}')")" \
  "$(readlink -f "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libshcard.so.0")"
if cc -std=c11 -Wall -Werror tests/library/shc_batch.c $(pkg-config --cflags shcard) \
     "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libshcard.a" -o "$T/shc_batch_static" 2>"$T/cc.log"
then ok; else fail "cc with libshcard.a: $(cat "$T/cc.log")"; fi
python3 tests/library/records.py corpus/*.jsonl >"$T/records"
n=$(cat corpus/*.jsonl | grep -c .)
for mode in "" --no-unwrap "--context bridge"; do
  cat corpus/*.jsonl | /usr/bin/shcard explain --batch $mode >"$T/cli${mode// /}"
  "$T/shc_batch" $mode <"$T/records" >"$T/lib${mode// /}"
  "$T/shc_batch_static" $mode <"$T/records" >"$T/static${mode// /}"
  expect_eq "corpus$mode: answers" "$(grep -c . "$T/lib${mode// /}")" "$n"
  cmp -s "$T/cli${mode// /}" "$T/lib${mode// /}" && ok || fail "libshcard0$mode differs from shcard explain --batch"
  cmp -s "$T/cli${mode// /}" "$T/static${mode// /}" && ok || fail "libshcard.a$mode differs from shcard explain --batch"
done

# ---- python3-shcard: Debian's python3 imports it with no PYTHONPATH, over libshcard0
got=$(cd "$T" && env -u SHCARD_LIBRARY -u PYTHONPATH /usr/bin/python3 -c \
  'import shcard; print(shcard.__file__, shcard.library_path, shcard.version(), shcard.classify("ls src")["kind"])' 2>&1)
expect_eq "python3-shcard over libshcard0" "$got" "/usr/lib/python3/dist-packages/shcard/__init__.py libshcard.so.0 $V list"
expect_eq "python3 -m shcard explain (python3-shcard)" \
  "$(cd "$T" && /usr/bin/python3 -m shcard explain --json 'rg -n foo src')" "$(/usr/bin/shcard explain --json 'rg -n foo src')"
expect_eq "python3-shcard ships py.typed" "$(dpkg -L python3-shcard | grep -c '/shcard/py.typed$')" 1
expect_eq "python3-shcard depends on libshcard0" \
  "$(dpkg-query -W -f='${Depends}' python3-shcard | grep -o 'libshcard0 (>= [^)]*)')" "libshcard0 (>= $V)"

# ---- purge: nothing left
DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq $PKGS >/dev/null 2>&1 && ok || fail "apt-get purge"
[ ! -e /usr/bin/shcard ] && ! ldconfig -p | grep -q libshcard && ok || fail "files left after purge"
finish
