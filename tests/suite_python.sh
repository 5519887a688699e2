#!/usr/bin/env bash
# The Python binding (bindings/python: ctypes over the C core): its unittest suite against the
# built library and the CLI (the whole corpus), then the package as pip builds it (the core
# compiled into it), installed from a wheel into a clean venv and tested there.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
LIBSO="$PWD/$BUILD/lib/libshcard.so.0"
[ -e "$LIBSO" ] || { echo "missing $LIBSO (make lib)"; echo "0 passed, 1 failed"; exit 1; }
export SHCARD SHCARD_ROOT="$PWD"

# unittest's closing lines: "Ran N tests" and "OK" or "FAILED (failures=F, errors=E)"
count() { # log
  local n f
  n=$(sed -nE 's/^Ran ([0-9]+) tests? in.*/\1/p' "$1" | tail -1)
  f=0; for k in $(sed -nE 's/^FAILED \((.*)\)/\1/p' "$1" | grep -oE '[0-9]+'); do f=$((f + k)); done
  n=${n:-0}; f=${f:-0}
  if [ "$n" -eq 0 ]; then fail "$2: no test ran"; cat "$1"; return; fi
  _pass=$((_pass + n - f)); [ "$f" -eq 0 ] || { _fail=$((_fail + f)); echo "FAIL: $2"; tail -40 "$1"; }
}

SHCARD_LIBRARY="$LIBSO" PYTHONPATH=bindings/python python3 -m unittest discover -s bindings/python/tests >"$T/ut.log" 2>&1
count "$T/ut.log" "unittest (SHCARD_LIBRARY)"

expect_eq "pyproject version = SHC_VERSION" \
  "$(sed -n 's/^version = "\(.*\)"/\1/p' bindings/python/pyproject.toml)" \
  "$(sed -n 's/^#define SHC_VERSION "\(.*\)"/\1/p' include/shcard.h)"
expect_eq "module __version__ = SHC_VERSION" \
  "$(sed -n 's/^__version__ = "\(.*\)"/\1/p' bindings/python/shcard/__init__.py)" \
  "$(sed -n 's/^#define SHC_VERSION "\(.*\)"/\1/p' include/shcard.h)"

# ---- the package builds the C core itself: `pip install bindings/python` and `pip wheel` in a
# venv that sees Debian's setuptools and wheel (offline: --no-build-isolation), then the wheel
# installed into a clean venv without them, with no libshcard anywhere on the loader's path.
# (A copy of the package: an in-tree build writes build/ and egg-info; SHCARD_SOURCE_ROOT says
# where the C sources are.)
PY=/usr/bin/python3
unset LD_LIBRARY_PATH
if [ -x "$PY" ] && "$PY" -m venv --system-site-packages "$T/build-venv" >"$T/venv.log" 2>&1; then
  cp -rL bindings/python "$T/src"; rm -rf "$T/src/build" "$T/src"/*.egg-info
  export SHCARD_SOURCE_ROOT="$PWD"
  pip_b() { "$T/build-venv/bin/python" -m pip --disable-pip-version-check "$@"; }
  if pip_b install --no-build-isolation --no-index --no-deps -q "$T/src" >"$T/pip.log" 2>&1; then ok
  else fail "pip install --no-build-isolation bindings/python: $(tail -5 "$T/pip.log")"; fi
  got=$(cd "$T" && env -u SHCARD_LIBRARY "$T/build-venv/bin/python" -c \
    'import shcard; print(shcard.library_path.startswith(shcard.__file__.rsplit("/", 1)[0] + "/_libshcard"), shcard.classify("ls src")["kind"])' 2>&1)
  expect_eq "pip install: the module uses the core built into the package" "$got" "True list"
  if pip_b wheel --no-build-isolation --no-index --no-deps -q -w "$T/wheels" "$T/src" >"$T/wheel.log" 2>&1; then ok
  else fail "pip wheel: $(tail -5 "$T/wheel.log")"; fi
  whl=$(ls "$T"/wheels/shcard-*.whl 2>/dev/null | head -1)
  files=$(unzip -Z1 "$whl" 2>/dev/null | grep '^shcard/' | sed 's/\.cpython-.*\.so$/.so/' | sort | tr '\n' ' ')
  expect_eq "the wheel's files" "$files" "shcard/__init__.py shcard/__main__.py shcard/_libshcard.so shcard/py.typed "
  mkdir "$T/whl"; (cd "$T/whl" && unzip -q "$whl")
  so=$(ls "$T"/whl/shcard/_libshcard*.so)
  expect_eq "the bundled core needs libc only" \
    "$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')" "libc.so.6 "
  expect_eq "the bundled core exports the library's functions only" \
    "$(nm -D --defined-only "$so" | awk '$2 == "T" {print $3}' | sort | tr '\n' ' ')" \
    "$(grep -oE '^shc_[a-z_]+' lib/libshcard.symbols | sort | tr '\n' ' ')"
  # a clean venv: no pip, no setuptools, no wheel, no system site-packages
  "$PY" -m venv --without-pip "$T/clean" >>"$T/venv.log" 2>&1
  if pip_b --python "$T/clean/bin/python" install --no-index --no-deps -q "$whl" >"$T/pipc.log" 2>&1; then ok
  else fail "installing the wheel into a clean venv: $(tail -5 "$T/pipc.log")"; fi
  mkdir "$T/elsewhere"; cp -r bindings/python/tests "$T/elsewhere/tests"
  check "the clean venv has no setuptools" bash -c "! '$T/clean/bin/python' -c 'import setuptools' 2>/dev/null"
  got=$(cd "$T/elsewhere" && env -u SHCARD_LIBRARY "$T/clean/bin/python" -c \
    'import shcard; print(shcard.__file__); print(shcard.library_path)' 2>&1)
  case "$got" in "$T/clean/lib/python3"*"/site-packages/shcard/__init__.py"$'\n'"$T/clean/lib/python3"*"/site-packages/shcard/_libshcard"*.so) ok ;;
    *) fail "the wheel in a clean venv: $got" ;; esac
  (cd "$T/elsewhere" && env -u SHCARD_LIBRARY "$T/clean/bin/python" -m unittest discover -s tests) >"$T/ut2.log" 2>&1
  count "$T/ut2.log" "unittest (the wheel, clean venv)"
  expect_eq "python3 -m shcard explain (clean venv)" \
    "$(cd "$T/elsewhere" && "$T/clean/bin/python" -m shcard explain 'rg -n foo src' --json)" \
    "$("$SHCARD" explain --json 'rg -n foo src')"
  "$T/clean/bin/python" -m shcard explain "$(printf 'cat a\001')" >/dev/null 2>&1
  expect_eq "python3 -m shcard: a control character is an answer" "$?" 0
  "$T/clean/bin/python" -m shcard explain --context=tty ls >/dev/null 2>&1
  expect_eq "python3 -m shcard: a bad option is exit 2" "$?" 2
else
  fail "python3 -m venv: $(tail -3 "$T/venv.log" 2>/dev/null)"
fi
finish
