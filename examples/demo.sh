#!/usr/bin/env bash
# make run: the demo over the bundled example commands.
set -u
cd "$(dirname "$0")/.."
./shcard parse < /dev/null
