#!/usr/bin/env python3
"""Fuzzing for classifier safety: mutates the corpus with a dictionary of dangerous pieces
(-i, --in-place, -exec rm {} \\;, -delete, -fprint f, w out, e id, > f, | tee f, | xargs rm,
$(...), backquotes, --pre, globs, ...), classifies every mutant with `shcard explain --batch`,
and puts every mutant that is not labelled terminal through the dynamic safety oracle
(tests/oracle.py).  Any oracle violation fails the run.

Usage: fuzz_safety.py [--seed N] [--mutants N] [--max-runs N] [--shcard PATH] CORPUS.jsonl...
Prints "fuzz-safety: N mutants, N accepted, N run, N violations" last.
"""
import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "oracle"))
import oracle  # noqa: E402
import options  # noqa: E402

PIECES = [
    "-i", "--in-place", "--in-place=.bak", "-i.bak", "-ni", "-in", "-ie", "--in", "--in-p",
    "-exec rm {} \\;", "-execdir rm {} +", "-exec cat {} +", "-delete", "-ok rm {} \\;",
    "-fprint f", "-fprint0 f", "-fprintf f %p", "-fls f",
    "w out", "W out", "e id", "1e id", "s/a/b/w out", "s/a/b/e", "p;w out", "$w out",
    "-e 'w out'", "--expression='1e id'", "'-ew out'",
    "> f", ">> f", ">| f", "&> f", "2> err", ">& out", "<> f", "3> x", "> /dev/nul",
    "| tee f", "| tee -a f", "| xargs rm", "| xargs -0 rm -f", "| sh", "| bash",
    "| sort -o f", "| uniq - out", "| sed -i 1d f", "| awk '{system(\"id\")}'",
    "$(id)", "`id`", "$HOME", "${X}", "$((1))", "<(id)", ">(cat)", "<<< x", "<<EOF",
    "--pre ./x", "--pre=cat", "--pre cat", "--p\\re=cat", "'--pre=cat'", "--hostname-bin cat",
    "-z", "--search-zip", "-nz", "-x rm", "-X rm", "--exec rm", "--exec-batch rm", "-l",
    "*", "*.txt", "?", "[a]", "{a,b}", "~", "~/x", "-f", "-F", "--follow", "--follow=name",
    "--fo", "--retry", "--pid=1", "-o out", "--output=out", "-O", "-Ovim",
    "--open-files-in-pager", "--open", "--textconv", "-c core.pager=x", "-p", "--paginate",
    "--pag", "-C /", "--git-dir=/", "--pager cat", "--pager=cat", "--paging=always", "-R",
    "-H x", "--fromfile", "--files0-from=f", "--compress-program=cat", "-T /tmp",
    "&", "; rm f", "&& rm f", "|| rm f", "\nrm f", "FOO=1", "env", "command", "sudo", "\\",
    "'", "\"", "-", "--", "(", ")", "{", "}", "!", "#", "-\\i", "\"-i\"", "'-i'",
    "--base-directory /", "--batch-size 1", "--ackrc=x", "--output=$&", "-D read",
    "-r", "--recursive", "./", "/dev/stdin", "-s", "--sandbox", "-u",
]


def entry_forms(e, values):
    """An entry of the compiled tables (tests/oracle/options.py, from the tabledump helper)
    written with each value: -x V and --long=V."""
    out = []
    for v in values:
        if e["short"]:
            out.append("-" + e["short"] + ((" " if e["arg"] == "REQ" else "") + v if v else ""))
        if e["long"] and e["tool"] != "find":
            out.append("--" + e["long"] + ("=" + v if v else ""))
        elif e["long"]:
            out.append(e["long"] + (" " + v if v else ""))
    return out


def table_options():
    """Every option in the compiled tables, as it would be written (with a value when it takes
    one): mutants then try the allowlisted options themselves, so the oracle checks the
    tables."""
    out = []
    for e in options.table_entries():
        out += entry_forms(e, ["1", "x", "never"] if e["arg"] == "REQ" else [""])
    return out


SWEEP_TEMPLATES = {
    "cat": "cat {o} f", "head": "head {o} f", "tail": "tail {o} f", "nl": "nl {o} f",
    "bat": "bat -P {o} f", "sed": "sed -n {o} 1,5p f", "rg": "rg {o} foo src",
    "grep": "grep -r {o} foo src", "ag": "ag -U {o} foo src", "ack": "ack {o} foo src",
    "git": "git {o} ls-files", "git_grep": "git --no-pager grep {o} foo",
    "git_ls_files": "git ls-files {o}", "fd": "fd {o} foo src", "ls": "ls {o} src",
    "tree": "tree {o} src", "wc": "cat f | wc {o}", "sort": "cat f | sort {o}",
    "uniq": "cat f | uniq {o}", "cut": "cat f | cut -f1 {o}", "tr": "cat f | tr {o} a b",
    "column": "cat f | column {o}", "cd": "cd {o} src && ls",
}


def sweep_commands():
    """Every option of every table in its command's usual shape (the systematic half of
    --long): each one the classifier accepts runs through the oracle."""
    out = []
    for e in options.table_entries():
        if e["tool"] not in SWEEP_TEMPLATES:
            continue
        arg = e["arg"]
        values = ["1", "x", "never"] if arg == "REQ" else ([""] if arg == "NONE" else ["", "1"])
        for form in entry_forms(e, values):
            out.append(SWEEP_TEMPLATES[e["tool"]].format(o=form))
    return out


def mutate(rng, cmd, pieces):
    words = cmd.split(" ")
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(6)
        piece = rng.choice(pieces)
        if op == 0:  # insert a word
            words.insert(rng.randint(1, len(words)), piece)
        elif op == 1 and len(words) > 1:  # replace a word
            words[rng.randrange(1, len(words))] = piece
        elif op == 2:  # append
            words.append(piece)
        elif op == 3:  # glue onto a word
            i = rng.randrange(len(words))
            words[i] = words[i] + piece if rng.random() < 0.5 else piece + words[i]
        elif op == 4:  # inside a word (often inside quotes)
            i = rng.randrange(len(words))
            w = words[i]
            k = rng.randint(0, len(w))
            words[i] = w[:k] + piece + w[k:]
        else:  # prefix
            words.insert(0, piece)
    return " ".join(words)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mutants", type=int, default=2000)
    ap.add_argument("--max-runs", type=int, default=0, help="0: run every accepted mutant")
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--shcard", default=os.environ.get("SHCARD", "./shcard"))
    ap.add_argument("--sweep", action="store_true", help="also every table option (systematic)")
    ap.add_argument("--modes", default=",".join(oracle.DEFAULT_MODES))
    ap.add_argument("corpus", nargs="+")
    a = ap.parse_args()
    base = []
    for path in a.corpus:
        with open(path) as f:
            for line in f:
                if line.strip():
                    base.append(json.loads(line)["cmd"])
    rng = random.Random(a.seed)
    pieces = PIECES + table_options()
    mutants = [mutate(rng, rng.choice(base), pieces) for _ in range(a.mutants)]
    if a.sweep:
        mutants += sweep_commands()
    verdicts = oracle.classify(a.shcard, mutants)
    accepted = []
    seen = set()
    for m, v in zip(mutants, verdicts):
        if v.get("kind") != "terminal" and v["script"] not in seen:
            seen.add(v["script"])
            accepted.append((m, v))
    runs = accepted if not a.max_runs else accepted[:a.max_runs]
    bad = 0
    modes = [x for x in a.modes.split(",") if x]
    for m, v in runs:
        # stdin an open pipe, then a silent terminal (tests/oracle.py)
        problems = oracle.run_modes(a.shcard, dict(v, cmd=m), a.timeout, modes)
        if problems:
            bad += 1
            print("VIOLATION: %s (%s: %s)" % (json.dumps(m), v["kind"], v["title"]))
            for p in problems[:5]:
                print("    " + p)
            sys.stdout.flush()
    print("fuzz-safety: %d mutants, %d accepted, %d run, %d violations"
          % (len(mutants), len(accepted), len(runs), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
