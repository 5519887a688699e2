#!/usr/bin/env python3
"""Coverage: the share of commands that get a semantic card (read, search or list) rather than
the terminal card, per command set and per context (any, bridge).

Sets:
  corpus     the labelled corpus (corpus/*.jsonl), every line once
  generated  bench/'s fixed-seed generated set (build/bench/gencmds_dump, 100,000 commands:
             the set bench_parse and bench_classify time)
  agents     real agent commands from public transcripts (corpus/agents/agents.jsonl, with provenance)

Usage: coverage.py [--shcard PATH] [--gen PATH] [--sets a,b] [--contexts any,bridge]
                   [--reasons N] [--json FILE] [--baseline PATH] [--cwd DIR]
  --reasons N: also print the N most frequent terminal reasons of the agents set (per context),
  reasons folded to their rule (quoted words and numbers elided).
  --baseline PATH: also print the recall against another build (an earlier shcard): of the
  commands of each set and context that build gives a card, the share this one still does, and
  the first commands lost.
  --cwd DIR: judge every command with that real directory (explain --cwd): paths resolved,
  the repository's files and what the tools read from their directory judged.
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def load_jsonl(paths):
    out = []
    for p in paths:
        with open(p) as f:
            for line in f:
                line = line.strip()
                if line:
                    out.append(json.loads(line)["cmd"])
    return out


def classify(shcard, cmds, context, cwd=None):
    data = "".join(json.dumps({"cmd": c}) + "\n" for c in cmds).encode()
    p = subprocess.run([shcard, "explain", "--batch", "--context", context] +
                       (["--cwd", cwd] if cwd else []), input=data,
                       capture_output=True, timeout=900)
    out = [json.loads(l) for l in p.stdout.decode().splitlines() if l.strip()]
    if len(out) != len(cmds):
        sys.exit("coverage: %d verdicts for %d commands" % (len(out), len(cmds)))
    return out


def fold(reason):
    r = re.sub(r"'[^']*'", "'…'", reason or "")
    r = re.sub(r"\d+", "N", r)
    return r[:110]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shcard", default=os.environ.get("SHCARD", os.path.join(ROOT, "shcard")))
    ap.add_argument("--gen", default=os.path.join(ROOT, "build", "bench", "gencmds_dump"))
    ap.add_argument("--sets", default="corpus,generated,agents")
    ap.add_argument("--contexts", default="any,bridge")
    ap.add_argument("--reasons", type=int, default=0)
    ap.add_argument("--json")
    ap.add_argument("--baseline")
    ap.add_argument("--cwd")
    a = ap.parse_args()
    sets = {}
    want = a.sets.split(",")
    if "corpus" in want:
        files = sorted(f for f in glob.glob(os.path.join(ROOT, "corpus", "*.jsonl"))
                       if not f.endswith("agents.jsonl"))
        sets["corpus"] = load_jsonl(files)
    if "generated" in want:
        p = subprocess.run([a.gen], capture_output=True, check=True)
        sets["generated"] = [json.loads(l)["cmd"] for l in p.stdout.decode().splitlines()]
    if "agents" in want:
        sets["agents"] = load_jsonl([os.path.join(ROOT, "corpus", "agents", "agents.jsonl")])
    results = {}
    print("%-10s %-7s %7s %9s %7s %7s %7s" % ("set", "context", "n", "semantic", "read",
                                               "search", "list"))
    for name, cmds in sets.items():
        for ctx in a.contexts.split(","):
            vs = classify(a.shcard, cmds, ctx, a.cwd)
            kinds = collections.Counter(v.get("kind") for v in vs)
            n = len(vs)
            sem = n - kinds["terminal"]
            results["%s/%s" % (name, ctx)] = {
                "n": n, "semantic": sem, "share": round(100.0 * sem / n, 2),
                "read": kinds["read"], "search": kinds["search"], "list": kinds["list"]}
            print("%-10s %-7s %7d %8.1f%% %7d %7d %7d" % (name, ctx, n, 100.0 * sem / n,
                                                        kinds["read"], kinds["search"],
                                                        kinds["list"]))
            if a.baseline:
                bs = classify(a.baseline, cmds, ctx, a.cwd)
                base = [i for i, v in enumerate(bs) if v.get("kind") != "terminal"]
                lost = [i for i in base if vs[i].get("kind") == "terminal"]
                kept = len(base) - len(lost)
                print("    recall against the baseline: %d of %d cards kept (%.2f%%)"
                      % (kept, len(base), 100.0 * kept / max(len(base), 1)))
                results["%s/%s" % (name, ctx)]["recall"] = round(100.0 * kept / max(len(base), 1), 2)
                for i in lost[:a.reasons or 5]:
                    print("      lost: %s" % cmds[i][:120])
            if a.reasons and name == "agents":
                c = collections.Counter(fold(v.get("reason")) for v in vs
                                        if v.get("kind") == "terminal")
                for r, k in c.most_common(a.reasons):
                    print("    %5d  %s" % (k, r))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
