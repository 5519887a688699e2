"""bench_bindings.sh: the Python binding (ctypes) over the same records as classify_c.c.
Prints commands_per_s for classify_json (string) and classify (dict), best of three."""
import json
import sys
import time

import shcard

min_s = float(sys.argv[1]) / 1000.0 if len(sys.argv) > 1 else 1.0
cmds = []
for path in sys.argv[2:]:
    with open(path, encoding="utf-8") as f:
        cmds += [json.loads(line)["cmd"] for line in f if line.strip()]


def rate(fn):
    best = 0.0
    for _ in range(3):
        done, t0 = 0, time.perf_counter()
        while True:
            for c in cmds:
                fn(c)
            done += len(cmds)
            t = time.perf_counter() - t0
            if t >= min_s:
                break
        best = max(best, done / t)
    return best


print("json_per_s=%.0f dict_per_s=%.0f" % (rate(shcard.classify_json), rate(shcard.classify)))
