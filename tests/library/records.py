#!/usr/bin/env python3
"""Writes the "cmd" of every JSON line of the named files (corpus/*.jsonl) as records
"LEN\\n" + LEN bytes (UTF-8) on stdout: the input of tests/library/shc_batch.c."""
import json
import sys

out = sys.stdout.buffer
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                b = json.loads(line)["cmd"].encode("utf-8")
                out.write(b"%d\n" % len(b) + b)
