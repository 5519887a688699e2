#!/usr/bin/env bash
# `make run`, the demo a newcomer runs first (examples/demo.sh: shcard explain over
# examples/commands.txt, then shcard acp driven by the example ACP client), runs cleanly: it
# exits 0, every example command gets a card and ends as it should, every terminal card in the
# explain part says why, and nothing in its output is an error from a command that could not run.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh

# HOME is a fresh directory, as on a new machine: the demo's `bash -lc` commands then read the
# system's login profile only, not the developer's (a pyenv profile costs seconds a command)
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
out=$(HOME=$home timeout 300 bash examples/demo.sh 2>&1); rc=$?
expect_eq "demo exit status" "$rc" 0

mapfile -t cmds < <(grep -v '^[[:space:]]*#' examples/commands.txt | grep -v '^[[:space:]]*$')
n=${#cmds[@]}
[ "$n" -ge 10 ] && ok || fail "examples/commands.txt has only $n commands"

# the explain part: each command, its card, and for a terminal card the rule that decided
explain=$(printf '%s\n' "$out" | sed -n '/^=== shcard explain/,/^=== shcard acp/p')
for c in "${cmds[@]}"; do
  block=$(printf '%s\n' "$explain" | grep -F -x -A3 -- "\$ $c")
  card=$(printf '%s\n' "$block" | sed -n 2p)
  case "$card" in
    "  read: "* | "  search: "* | "  list: "*) ok ;;
    "  terminal: "*) printf '%s\n' "$block" | grep -q '^    reason: ' && ok || fail "no reason shown for the terminal card of: $c" ;;
    *) fail "no card shown for: $c" ;;
  esac
done
for kind in read search list terminal; do
  printf '%s\n' "$explain" | grep -q "^  $kind: " && ok || fail "the demo shows no $kind card"
done

# the acp part over examples/commands.txt: one card per command, each completed, and the turn's
# summary says all of them ran and succeeded
run=$(printf '%s\n' "$out" | sed -n '/^=== examples\/commands.txt/,$p')
expect_eq "cards in the commands.txt turn" "$(printf '%s\n' "$run" | grep -c '^┌ ')" "$n"
expect_eq "failed cards in the demo" "$(printf '%s\n' "$out" | grep -c '^└.*failed')" 0
printf '%s\n' "$run" | grep -qF "Ran $n of $n commands: $n succeeded, 0 failed." && ok ||
  fail "the commands.txt turn did not run every command successfully: $(printf '%s\n' "$run" | grep '^agent:')"
expect_eq "turns that ended normally" "$(printf '%s\n' "$out" | grep -c '^\[turn ended: end_turn\]')" 3

# no error text from a command that could not run
bad=$(printf '%s\n' "$out" | grep -E "could not start|No such file|command not found|Permission denied|can't read|^fatal:" | head -5)
[ -z "$bad" ] && ok || fail "error lines in the demo's output: $bad"
# and it stays short enough to read
lines=$(printf '%s\n' "$out" | wc -l)
[ "$lines" -le 600 ] && ok || fail "the demo prints $lines lines (at most 600 stay readable)"
finish
