#!/usr/bin/env bash
# make run: the demo over the bundled example commands (examples/commands.txt): the card each
# command gets from `shcard explain -v` (kind, title, location, reason, parse, caret).
set -u
cd "$(dirname "$0")/.."
while IFS= read -r cmd; do
  [ -n "$cmd" ] || continue
  echo "\$ $cmd"
  ./shcard explain -v -- "$cmd"
  echo
done < examples/commands.txt
exit 0
