#!/usr/bin/env python3
"""Whole-process timing for bench_anchors.sh: runs each named command over the same input file
(stdin, stdout to /dev/null), interleaved round by round, and prints per command the median
wall time and the median CPU time (user + sys of the child, from rusage), then the ratios of
the first command (the anchor) to each other: the median over rounds of the ratio within a
round (the runs of one round are next to each other in time, so a machine that speeds up or
slows down between rounds moves both), and the ratio of the medians beside it.
Usage: whole.py ROUNDS INPUT NAME=CMD..."""
import os
import resource
import shlex
import statistics
import subprocess
import sys
import time

rounds, path = int(sys.argv[1]), sys.argv[2]
cmds = [a.split("=", 1) for a in sys.argv[3:]]
wall = {n: [] for n, _ in cmds}
cpu = {n: [] for n, _ in cmds}
for r in range(rounds):
    for name, cmd in (cmds if r % 2 == 0 else cmds[::-1]):  # alternate the order
        with open(path, "rb") as f, open(os.devnull, "wb") as out:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            rc = subprocess.call(shlex.split(cmd), stdin=f, stdout=out)
            t1 = time.perf_counter()
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if rc not in (0, 1):
            sys.exit(f"whole.py: {cmd} exited {rc}")
        wall[name].append(t1 - t0)
        cpu[name].append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
n = sum(1 for _ in open(path, "rb"))
anchor = cmds[0][0]
med = {k: (statistics.median(wall[k]), statistics.median(cpu[k])) for k in wall}
for name, _ in cmds:
    w, c = med[name]
    spread = (max(wall[name]) - min(wall[name])) / w * 100
    print(f"{name:24s} wall {w:7.3f} s ({w / n * 1e9:7.0f} ns/command, spread {spread:3.0f}%)  "
          f"cpu {c:7.3f} s ({c / n * 1e9:7.0f} ns/command)")
for name, _ in cmds[1:]:
    pw = statistics.median(a / b for a, b in zip(wall[anchor], wall[name]))
    pc = statistics.median(a / b for a, b in zip(cpu[anchor], cpu[name]) if b > 0)
    print(f"ratio: {name} is {pw:.1f}x faster than {anchor} (wall, median of {rounds} paired "
          f"rounds), {pc:.1f}x (cpu); ratio of the medians {med[anchor][0] / med[name][0]:.1f}x")
