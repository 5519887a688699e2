#!/usr/bin/env python3
"""The option oracle: every allowlisted tool x option shape (tests/oracle/options.py) is
classified with `shcard explain --batch`; the commands labelled read, search or list run for
real through the sandboxed safety oracle (tests/oracle.py) in its modes (stdin an open pipe, a
silent terminal), and must do nothing a read may not do.

A fixed-seed sample keeps `make test` short: the accepted commands are grouped by (tool, shape)
and taken round-robin over the groups, those with a dangerous value or operand first.
`--all` runs every accepted command (hours); `make fuzz-safety` runs a large sample.

Usage: option_oracle.py [--shcard PATH] [--seed N] [--runs N | --all] [--modes pipe,tty]
                        [--timeout S] [--jobs N] [--findings FILE] [--list]
                        [--tools grep,xargs,...] [--context any|bridge]
  --context bridge classifies as the executor's bridge does and runs in the exec mode.
Prints one block per violation and ends with
  "option-oracle: N generated, N accepted, N run, N violations".
"""
import argparse
import collections
import concurrent.futures
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "oracle"))
import oracle  # noqa: E402
import options  # noqa: E402

# The classes of the safety issue a shape exercises.
SHAPE_CLASS = {"single": "4/6", "cluster": "4", "prefix": "4", "negate": "4", "hyphenval": "4",
               "permute": "4", "digits": "4", "repeat": "5", "operand": "6/7", "cd": "6/7",
               "revision": "9"}
DANGER_TOKENS = ("-", "/dev/", "/proc/", "fifo", "../", "-delete", "--pre", "/./", "/sys", "link-",
                 "sock")


def dangerous(cmd):
    return any(t in cmd.split() or (t != "-" and t in cmd) for t in DANGER_TOKENS)


def sample(accepted, runs, seed, danger_keys=()):
    """Coverage first: one command of every (tool, shape) group and one of every dangerous table
    entry that some accepted command exercises (a dangerous option accepted as itself, or as
    another option's value); then round-robin over the groups up to runs in all.  Inside a
    group, dangerous-looking commands first, each part in a seeded random order."""
    rng = random.Random(seed)
    groups = collections.defaultdict(list)
    for case, verdict in accepted:
        groups[(case["tool"], case["shape"])].append((case, verdict))
    order = sorted(groups)
    rng.shuffle(order)
    for k in order:
        g = groups[k]
        rng.shuffle(g)
        g.sort(key=lambda cv: not dangerous(cv[0]["cmd"]))
    out, taken = [], set()

    def take(cv):
        if cv[0]["cmd"] not in taken:
            taken.add(cv[0]["cmd"])
            out.append(cv)

    # per dangerous entry: a command written for it (the option itself) and one where it is
    # another entry's value (hyphenval), when any is accepted
    for key in sorted(danger_keys):
        for primary in (True, False):
            hits = [cv for k in order for cv in groups[k] if key in cv[0]["entries"]
                    and (cv[0]["entries"][0] == key) == primary]
            if hits:
                take(hits[0])
    for k in order:
        if not any((cv[0]["tool"], cv[0]["shape"]) == k for cv in out):
            take(groups[k][0])
    i = 0
    while len(out) < runs and any(cv[0]["cmd"] not in taken for k in order for cv in groups[k]):
        g = [cv for cv in groups[order[i % len(order)]] if cv[0]["cmd"] not in taken]
        if g:
            take(g[0])
        i += 1
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shcard", default=os.environ.get("SHCARD", "./shcard"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", type=int, default=0,
                    help="at least this many (the coverage sample is run whatever the number)")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--modes", default=",".join(oracle.DEFAULT_MODES))
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--findings")
    ap.add_argument("--list", action="store_true", help="print the accepted commands, run none")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("ORACLE_JOBS", "2")))
    ap.add_argument("--tools", help="only these tool ids (comma-separated: grep,xargs,find,...)")
    ap.add_argument("--context", default="any",
                    help="classify in this context; bridge runs in the exec mode (the executor)")
    a = ap.parse_args()
    if a.context == "bridge" and a.modes == ",".join(oracle.DEFAULT_MODES):
        a.modes = "exec"
    tools = options.load_tools()
    cases = options.cases(tools)
    miss = options.uncovered(tools, cases)
    if miss:
        print("option-oracle: table entries with no generated case: " + ", ".join(miss))
        return 1
    if a.tools:
        cases = [c for c in cases if c["tool"] in a.tools.split(",")]
    verdicts = oracle.classify(a.shcard, [c["cmd"] for c in cases], a.context)
    accepted, seen = [], set()
    for c, v in zip(cases, verdicts):
        if v.get("kind") == "terminal":
            continue
        key = (v["script"], v.get("wrapped"))
        if key in seen:
            continue
        seen.add(key)
        accepted.append((c, dict(v, cmd=c["cmd"])))
    if a.list:
        for c, v in accepted:
            print(json.dumps(dict(c, kind=v["kind"])))
        return 0
    dkeys = options.dangerous_keys(tools)
    runs = accepted if a.all else sample(accepted, a.runs, a.seed, dkeys)
    groups = {(c["tool"], c["shape"]) for c, _ in accepted}
    ran_groups = {(c["tool"], c["shape"]) for c, _ in runs}
    dacc = {k for c, _ in accepted for k in c["entries"] if k in dkeys}
    dran = {k for c, _ in runs for k in c["entries"] if k in dkeys}
    print("option-oracle: the accepted commands of the dangerous entries (tables or reviewed "
          "list) that run: %s" % (", ".join(sorted(dran)) or "none"))
    modes = [m for m in a.modes.split(",") if m]
    bad = 0
    per_class = collections.Counter()

    def work(cv):
        return oracle.run_modes(a.shcard, cv[1], a.timeout, modes)

    pool = concurrent.futures.ThreadPoolExecutor(max(1, a.jobs))
    for (c, v), problems in zip(runs, pool.map(work, runs)):
        if problems:
            bad += 1
            cls = SHAPE_CLASS.get(c["shape"], "?")
            per_class[cls] += 1
            print("VIOLATION: %s (%s: %s) [%s %s, class %s]"
                  % (c["cmd"], v["kind"], v["title"], c["tool"], c["shape"], cls))
            for p in problems[:5]:
                print("    " + p)
            sys.stdout.flush()
            if a.findings:
                oracle.record_finding(a.findings, dict(c, **{"class": cls}), v, problems,
                                      "option-oracle")
    pool.shutdown()
    if per_class:
        print("violations by class: " + ", ".join("%s: %d" % kv for kv in sorted(per_class.items())))
    entries = sum(len(t.opts) for t in tools.values())
    safe_now = options.listed_but_safe(tools)
    if safe_now:
        print("option-oracle: listed dangerous (tests/oracle/dangerous.txt) but not in the "
              "tables, so run: " + ", ".join(safe_now))
    print("option-oracle: %d table entries (%d dangerous), every one with a generated case"
          % (entries, len(dkeys)))
    print("option-oracle: %d of %d (tool, shape) groups run, %d of %d dangerous entries that an "
          "accepted command exercises run" % (len(ran_groups), len(groups), len(dran), len(dacc)))
    print("option-oracle: %d generated, %d accepted, %d run, %d violations"
          % (len(cases), len(accepted), len(runs), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
