#!/usr/bin/env bash
# The manual pages (man/*.scd, built by `make man` into $BUILD/man): each renders through man(1)
# without a warning, each subcommand has its page, and every flag a `--help` prints appears in
# that command's page (so the pages stay true when a flag is added).
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
M="$BUILD/man"
[ -d "$M" ] || { echo "missing $M (make man)"; echo "0 passed, 1 failed"; exit 1; }

render() { LC_ALL=C.UTF-8 MANWIDTH=200 man --warnings -E UTF-8 -l "$1"; }

for page in shcard.1 shcard-parse.1 shcard-explain.1 shcard-run.1 shcard-acp.1 shcard-login.1 shcard.3; do
  if [ ! -s "$M/$page" ]; then fail "$page: not built"; continue; fi
  err=$(render "$M/$page" 2>&1 >/dev/null)
  if [ -z "$err" ]; then ok; else fail "$page: man warns: $err"; fi
  # groff's own checks, all warnings on
  err=$(groff -ww -z -man "$M/$page" 2>&1)
  if [ -z "$err" ]; then ok; else fail "$page: groff -ww: $err"; fi
  # NAME section as whatis/lexgrog read it
  if lexgrog "$M/$page" >/dev/null 2>&1; then ok; else fail "$page: lexgrog cannot read its NAME"; fi
done

# every flag that --help prints is in the page (rendered text, so a flag lost in markup counts)
flags_of() { grep -oE '(^|[^A-Za-z0-9_-])--?[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^[^-]*//' | sort -u; }
check_flags() { # page, help text
  local page=$1 help=$2 text missing=""
  text=$(render "$M/$page" 2>/dev/null)
  for f in $(printf '%s\n' "$help" | flags_of); do
    case "$f" in -c|-lc) continue ;; esac   # bash's own flags, quoted in the help text
    printf '%s\n' "$text" | grep -qE -- "(^|[^A-Za-z0-9-])$f([^A-Za-z0-9-]|\$)" || missing="$missing $f"
  done
  if [ -z "$missing" ]; then ok; else fail "$page lacks flags that --help prints:$missing"; fi
}
check_flags shcard.1 "$("$SHCARD" --help)"
for c in parse explain run acp login; do
  help=$("$SHCARD" "$c" --help 2>&1); rc=$?
  expect_eq "shcard $c --help exit status" "$rc" 0
  check_flags "shcard-$c.1" "$help"
  # and the top-level page names the command's page
  render "$M/shcard.1" 2>/dev/null | grep -q "shcard-$c(1)" && ok || fail "shcard.1 does not refer to shcard-$c(1)"
done

# every function the header exports is documented in shcard(3)
text=$(render "$M/shcard.3" 2>/dev/null)
for fn in $(grep -oE '^SHC_API [^(]*\b(shc_[a-z_]+)\(' include/shcard.h | grep -oE 'shc_[a-z_]+\($' | tr -d '('); do
  printf '%s\n' "$text" | grep -qE "\b$fn\(" && ok || fail "shcard.3 does not document $fn()"
done
finish
