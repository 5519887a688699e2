# Shared helpers for script suites (tests/suite_*.sh): source it, call ok/fail/check, then finish.
# finish prints the suite's closing line "N passed, N failed" that tests/run.sh reads.
_pass=0
_fail=0
BUILD=${BUILD:-build}
SHCARD=${SHCARD:-$PWD/shcard}
ok() { _pass=$((_pass + 1)); }
fail() { _fail=$((_fail + 1)); echo "FAIL: $*"; }
# check NAME CMD...: passes when CMD exits 0
check() { local n=$1; shift; if "$@"; then ok; else fail "$n"; fi; }
# expect_eq NAME GOT WANT
expect_eq() { if [ "$2" == "$3" ]; then ok; else fail "$1: got [$2] want [$3]"; fi; }
finish() { echo "$_pass passed, $_fail failed"; [ "$_fail" -eq 0 ]; }
