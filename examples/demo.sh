#!/usr/bin/env bash
# make run: the demo over the bundled example commands (examples/commands.txt).
set -u
cd "$(dirname "$0")/.."
while IFS= read -r cmd; do
  [ -n "$cmd" ] || continue
  ./shcard parse "$cmd"
  echo
done < examples/commands.txt
exit 0
