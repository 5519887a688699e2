#!/usr/bin/env python3
"""Checks the option tables (src/classify/tools/*.def) against the installed tools.

getopt_long tools (family GNU): the real optstring and long options are read with an LD_PRELOAD
shim (tests/tables/getopt_dump.c: the first getopt_long call dumps them and exits before the
tool does anything).  Checked: every short and long option of the table exists with the same
argument shape (none / required / optional); SHC_STOP is set exactly when the optstring starts
with '+'; for SHC_ABBREV tables, every real long name that is a prefix of one of the table's
names is in the table (so a prefix resolves as getopt_long resolves it, or the tool errors).

parse-options tools (family GIT: git grep, git ls-files): the real long options come from
`git CMD --git-completion-helper-all` ("--name=" takes a value); every long name of the table,
`no-` forms included, must be real with the same shape.

Usage: check_tables.py SHIM.so   -- prints one line per problem and "N passed, N failed".
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
passed = failed = 0
ARGS = {"ag": ["x", "/nonexistent-dir"]}  # ag reads its options only with a pattern


def ok():
    global passed
    passed += 1


def fail(msg):
    global failed
    failed += 1
    print("FAIL:", msg)


def read_tables():
    """{name: {"family", "flags", "opts": [(short, long, arg)]}} from the .def files."""
    tables, cur = {}, None
    text = ""
    for path in sorted(glob.glob(os.path.join(ROOT, "src/classify/tools/*.def"))):
        text += open(path).read() + "\n"
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    for m in re.finditer(r"SHC_(CMD|OPTX?)\((.*?)\)\s*(?=SHC_|$)", text, re.S):
        args = [a.strip() for a in re.split(r",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", m.group(2))]
        if m.group(1) == "CMD":
            cur = {"family": args[2], "flags": args[3], "opts": []}
            tables[args[1].strip('"')] = cur
        elif cur is not None:
            short = args[0][1:-1] if args[0] != "0" else None
            long_ = args[1].strip('"') if args[1] != "NULL" else None
            cur["opts"].append((short, long_, args[2]))
    return tables


def getopt_table(shim, cmd):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "dump")
        env = dict(os.environ, LD_PRELOAD=shim, GETOPT_DUMP=out)
        try:
            subprocess.run([cmd] + ARGS.get(cmd, []), env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=20, cwd=d)
        except (OSError, subprocess.TimeoutExpired) as e:
            return None, "could not run %s: %s" % (cmd, e)
        if not os.path.exists(out):
            return None, "%s never called getopt_long with the shim" % cmd
        lines = open(out).read().splitlines()
    optstring = lines[0].split(" ", 1)[1] if lines and " " in lines[0] else ""
    shorts, i, body = {}, 0, optstring.lstrip("+-")
    while i < len(body):
        c, arg = body[i], "NONE"
        if body[i + 1:i + 3] == "::":
            arg, i = "OPT", i + 3
        elif body[i + 1:i + 2] == ":":
            arg, i = "REQ", i + 2
        else:
            i += 1
        shorts[c] = arg
    longs = {}
    for l in lines[1:]:
        _, name, has = l.split(" ")
        longs[name] = {"0": "NONE", "1": "REQ", "2": "OPT"}[has]
    return (optstring, shorts, longs), None


def check_gnu(shim, name, t):
    real, err = getopt_table(shim, name)
    if err:
        fail(err)
        return
    optstring, shorts, longs = real
    for short, long_, arg in t["opts"]:
        if short is not None:
            if shorts.get(short) != arg:
                fail("%s: -%s is %s here, %s in the tool" % (name, short, arg, shorts.get(short)))
            else:
                ok()
        if long_ is not None:
            if longs.get(long_) != arg:
                fail("%s: --%s is %s here, %s in the tool" % (name, long_, arg, longs.get(long_)))
            else:
                ok()
    stop = "SHC_STOP" in t["flags"]
    if stop == optstring.startswith("+"):
        ok()
    else:
        fail("%s: SHC_STOP %s, optstring %r" % (name, stop, optstring))
    if "SHC_ABBREV" in t["flags"]:
        mine = {l for _, l, _ in t["opts"] if l}
        hazards = [(r, m) for r in longs if r not in mine for m in mine if m.startswith(r)]
        for r, m in hazards:
            fail("%s: the tool's --%s is a prefix of --%s but not in the table" % (name, r, m))
        if not hazards:
            ok()


def check_git(name, t):
    sub = name.split(" ", 1)[1]
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["git", "init", "-q", d], capture_output=True)
        p = subprocess.run(["git", sub, "--git-completion-helper-all"], cwd=d,
                           capture_output=True, timeout=20)
    real = {}
    for w in p.stdout.decode().split():
        if w.startswith("--") and len(w) > 2:
            real[w[2:].rstrip("=")] = w.endswith("=")
    if not real:
        fail("git %s --git-completion-helper-all listed nothing" % sub)
        return
    for _, long_, arg in t["opts"]:
        if long_ is None:
            continue
        if long_ not in real:
            fail("%s: --%s is not an option of the installed git" % (name, long_))
        elif real[long_] != (arg == "REQ"):
            fail("%s: --%s is %s here, %s in git" % (name, long_, arg,
                                                      "REQ" if real[long_] else "not REQ"))
        else:
            ok()


def main():
    shim = sys.argv[1]
    tables = read_tables()
    for name, t in tables.items():
        if t["family"] == "GNU":
            check_gnu(shim, name, t)
        elif t["family"] == "GIT":
            check_git(name, t)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
