#!/usr/bin/env bash
# The Python binding (bindings/python, ctypes over libshcard.so.0): its unittest suite against
# the built library and the CLI (the whole corpus), then `pip install --no-build-isolation
# bindings/python` into a scratch venv (Debian's python3, no network) and the same suite run
# from there with the library found by the dynamic loader.
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

# pip install into a venv (Debian's pip from the system site-packages; a copy of the source: an in-tree build writes build/ and egg-info)
PY=/usr/bin/python3
if [ -x "$PY" ] && "$PY" -m venv --without-pip --system-site-packages "$T/venv" >"$T/venv.log" 2>&1; then
  cp -rL bindings/python "$T/src"
  if "$T/venv/bin/python" -m pip install --no-build-isolation --no-index --no-deps -q "$T/src" >"$T/pip.log" 2>&1; then
    ok
    dist=$(echo "$T"/venv/lib/python3*/site-packages/shcard-*.dist-info)
    grep -qx 'License: Apache-2.0' "$dist/METADATA" && ok || fail "wheel METADATA has no 'License: Apache-2.0'"
    grep -qx 'Classifier: License :: OSI Approved :: Apache Software License' "$dist/METADATA" && ok \
      || fail "wheel METADATA has no Apache license classifier"
    cmp -s "$dist/LICENSE" LICENSE && ok || fail "the installed package carries no LICENSE ($dist)"
    mkdir "$T/elsewhere"
    (cd "$T/elsewhere" && LD_LIBRARY_PATH="$(dirname "$LIBSO")" "$T/venv/bin/python" -c \
      'import shcard, sys; print(shcard.__file__); print(shcard.library_path)') >"$T/where" 2>&1
    case "$(head -1 "$T/where")" in "$T/venv/"*) ok ;; *) fail "pip-installed module not used: $(cat "$T/where")" ;; esac
    expect_eq "library from the dynamic loader" "$(sed -n 2p "$T/where")" "libshcard.so.0"
    cp -r bindings/python/tests "$T/elsewhere/tests"
    (cd "$T/elsewhere" && LD_LIBRARY_PATH="$(dirname "$LIBSO")" "$T/venv/bin/python" -m unittest discover -s tests) >"$T/ut2.log" 2>&1
    count "$T/ut2.log" "unittest (pip-installed)"
  else
    fail "pip install --no-build-isolation: $(tail -5 "$T/pip.log")"
  fi
else
  fail "python3 -m venv: $(tail -3 "$T/venv.log" 2>/dev/null)"
fi
finish
