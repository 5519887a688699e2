#!/usr/bin/env python3
"""Turns the findings file of verified cards into corpus cases.

Each line of the findings file (written by `shcard acp` and `shcard run --verify` when a read,
search or list card's command did what such a command must not: docs/verified-cards.md) becomes
one case in the corpus's format: {"cmd", "expect": "terminal", "context": "bridge", "why"}, the
why naming what was observed.  Review each case (the command may depend on the directory it ran
in: "cwd" is kept) before adding it to corpus/redteam.jsonl.

Usage: findings_to_corpus.py FINDINGS.jsonl [--out CASES.jsonl]   (stdout without --out)
"""
import json
import sys


def why_of(row):
    evs = row.get("events") or []
    parts = []
    for e in evs[:3]:
        what, detail = e.get("what", "?"), e.get("detail", "")
        parts.append("%s %s" % (what, detail) if detail else what)
    return "verified: shown as %s, but %s" % (row.get("card", "?"), "; ".join(parts) or "?")


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out = sys.stdout
    if "--out" in argv:
        out = open(argv[argv.index("--out") + 1], "w")
    seen = set()
    n = 0
    with open(argv[1]) as f:
        for i, line in enumerate(f, 1):
            try:
                row = json.loads(line)
            except ValueError:
                print("findings_to_corpus: line %d is not JSON: skipped" % i, file=sys.stderr)
                continue
            cmd = row.get("cmd")
            if not isinstance(cmd, str) or cmd in seen:
                continue
            seen.add(cmd)
            case = {"cmd": cmd, "expect": "terminal", "context": "bridge", "why": why_of(row),
                    "cwd": row.get("cwd")}
            out.write(json.dumps(case) + "\n")
            n += 1
    print("findings_to_corpus: %d case(s)" % n, file=sys.stderr)
    return 0 if n else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
