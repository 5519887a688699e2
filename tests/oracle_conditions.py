#!/usr/bin/env python3
"""Conditional behaviour in the sandboxed safety oracle (tests/oracle.py): some options do harm
only under a condition the usual fixtures never create.  For each condition below the oracle
builds it (a fixture file, a terminal, a time limit), then
  1. runs the condition's control with --force-run: it must be flagged with its kind (proof that
     the fixture really creates the condition: sort really spills and runs the compressor, bat
     really starts its pager on the terminal, ...);
  2. classifies every option entry of the tool (from the compiled tables, tests/oracle/options.py)
     written into the condition's command; every accepted command runs under the condition and
     must stay clean.  Commands from a dangerous entry (which the classifier normally rejects)
     always run (dangerous by the tables or by the reviewed list tests/oracle/dangerous.txt);
     of the others a fixed-seed sample of SAMPLE.

Conditions (tool: what it needs -> what then happens):
  sort   input larger than its in-memory buffer (7.5 MB through a pipe): sort writes sorted runs
         to $TMPDIR (the sandbox's private /tmp: accepted) and runs --compress-program on each
  bat    a terminal on stdout and a file longer than the screen: bat starts its pager
  git    a terminal: git grep starts core.pager (the repository's configuration names one)
  rg     a gzip file in the tree (logs.gz): -z / --search-zip runs gzip on it
  tail   a regular file and no end: -f / -F / --follow never exit (the time limit)
  head   standard input an open pipe that nobody writes: without a file operand head blocks

Usage: oracle_conditions.py [--shcard PATH] [--timeout S] [--jobs N] [--sample N] [--only NAME]
Ends with "conditions: N conditions, N controls flagged, N commands run, N violations" and
"N passed, N failed": one result per condition (its control flagged, its runs clean).
"""
import argparse
import concurrent.futures
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "oracle"))
import oracle  # noqa: E402
import options  # noqa: E402

CONDITIONS = [
    {"name": "sort-spill", "tool": "sort", "template": "cat big | sort {o}",
     "files": {"big": "big"}, "tmp_writes": True, "modes": ["pipe"],
     "control": "cat big | sort --compress-program=cat", "detects": "exec"},
    {"name": "bat-pager", "tool": "bat", "template": "bat {o} f", "modes": ["tty"],
     "control": "bat --paging=always f", "detects": "exec"},
    {"name": "git-pager", "tool": "git_grep", "template": "git grep {o} foo", "modes": ["tty"],
     "control": "git grep foo", "detects": "exec"},
    {"name": "rg-zip", "tool": "rg", "template": "rg {o} foo logs.gz", "modes": ["pipe"],
     "control": "rg -z foo logs.gz", "detects": "exec"},
    {"name": "tail-follow", "tool": "tail", "template": "tail {o} f", "modes": ["pipe"],
     "control": "tail -f f", "detects": "timeout"},
    {"name": "head-stdin", "tool": "head", "template": "head {o}", "modes": ["pipe"],
     "control": "head -n 1", "detects": "stdin"},
]
VALUES = ["cat", "1"]


def commands(cond, tools):
    """(command, dangerous entry?) for every entry of the condition's tool."""
    tool = tools[cond["tool"]]
    dkeys = options.dangerous_keys(tools)  # the tables' and the reviewed list's
    out, seen = [], set()
    for opt in tool.opts:
        for v in (VALUES if opt[2] != "NONE" else [""]):
            for f in options.forms(tool, opt, v):
                cmd = options.fill((cond["template"], ""), f)
                if cmd not in seen:
                    seen.add(cmd)
                    out.append((cmd, opt[5] in dkeys))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shcard", default=os.environ.get("SHCARD", "./shcard"))
    ap.add_argument("--timeout", type=float, default=6.0)
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("ORACLE_JOBS", "2")))
    ap.add_argument("--sample", type=int, default=6)
    ap.add_argument("--only", help="one condition by name")
    a = ap.parse_args()
    tools = options.load_tools()
    conds = [c for c in CONDITIONS if not a.only or c["name"] == a.only]
    pool = concurrent.futures.ThreadPoolExecutor(max(1, a.jobs))
    flagged = runs = bad = passed = failed = 0
    for cond in conds:
        bad0 = bad
        # 1. the control really meets the condition
        v = oracle.classify(a.shcard, [cond["control"]])[0]
        probs = oracle.run_modes(a.shcard, dict(v, cmd=cond["control"]), a.timeout, cond["modes"],
                                 condition=cond)
        kinds = {oracle.kind_of(p) for p in probs}
        if cond["detects"] in kinds:
            flagged += 1
            print("%s: control %r flagged (%s)" % (cond["name"], cond["control"],
                                                  cond["detects"]))
        else:
            bad += 1
            print("CONTROL NOT FLAGGED: %s: %r gave %s (want %s)"
                  % (cond["name"], cond["control"], sorted(kinds) or "nothing", cond["detects"]))
        # 2. every accepted option form runs clean under the condition
        cmds = commands(cond, tools)
        verdicts = oracle.classify(a.shcard, [c for c, _ in cmds])
        acc, scripts = [], set()
        for (cmd, dang), v in zip(cmds, verdicts):
            if v.get("kind") != "terminal" and v["script"] not in scripts:
                scripts.add(v["script"])
                acc.append((cmd, dang, v))
        rng = random.Random(cond["name"])
        others = [x for x in acc if not x[1]]
        rng.shuffle(others)
        todo = [x for x in acc if x[1]] + others[:a.sample]

        def work(x, cond=cond):
            return oracle.run_modes(a.shcard, dict(x[2], cmd=x[0]), a.timeout, cond["modes"],
                                    condition=cond)

        for (cmd, dang, v), problems in zip(todo, pool.map(work, todo)):
            runs += 1
            if problems:
                bad += 1
                print("VIOLATION under %s: %s (%s: %s)%s" % (cond["name"], cmd, v["kind"],
                                                             v["title"],
                                                             " [a dangerous entry]" if dang else ""))
                for p in problems[:5]:
                    print("    " + p)
        print("%s: %d option forms, %d accepted, %d run" % (cond["name"], len(cmds), len(acc),
                                                           len(todo)))
        if bad == bad0:
            passed += 1
        else:
            failed += 1
        sys.stdout.flush()
    pool.shutdown()
    print("conditions: %d conditions, %d controls flagged, %d commands run, %d violations"
          % (len(conds), flagged, runs, bad))
    print("%d passed, %d failed" % (passed, failed))  # one result per condition
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
