#!/usr/bin/env bash
# The code keeps the shape ARCHITECTURE.md draws: folder dependencies one way, no circles between
# files, no source file over 600 lines, each folder's main file opening with its paragraph.
set -u
cd "$(dirname "$0")/.."
exec python3 tests/check_layout.py "${BUILD:-build}/libshc.a"
