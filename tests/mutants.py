#!/usr/bin/env python3
"""The mutation score: planted bugs (tests/mutants/NAME.mut) applied one at a time to a scratch
copy of the checkout, built, and put through the suites that must kill them.  Every mutant must
be killed (the suites fail); one that survives means a suite is weaker than it should be.

A mutant file:
    what: find -delete treated as safe
    kill: suite_corpus test_policy          the suites run for it (the smallest set that kills)
    file: src/classify/find.c
    - {"-delete", 0, FIND_TEST, "find: -delete deletes files"},
    + {"-delete", 0, FIND_TEST, NULL},
The "- " lines are the text replaced (it must occur exactly once: a mutant whose anchor has
gone is an error, never a silent pass), the "+ " lines what replaces it.  Several file/-/+
groups may follow one another.

The scratch copy keeps the build directory's objects and the files' times, so each mutant
rebuilds only what it touches, and builds only the binary, the helpers and the cmocka tests
its suites name.

Usage: mutants.py [--list] [--sample N] [--jobs N] [--keep] [NAME...]
  --sample N: a fixed sample of N mutants (the first of each suite family, then by name).
Ends with "mutants: N run, N killed, N survived, N broken" and "N passed, N failed" (one
result per mutant).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MUTDIR = os.path.join(HERE, "mutants")
MUTANT_TIMEOUT = 600  # s: the build and the suites of one mutant


class Mutant:
    def __init__(self, path):
        self.name = os.path.basename(path)[:-len(".mut")]
        self.what, self.kill, self.edits = "", [], []  # edits: [file, old, new]
        with open(path) as f:
            for line in f.read().split("\n"):
                if line.startswith("what: "):
                    self.what = line[6:]
                elif line.startswith("kill: "):
                    self.kill = line[6:].split()
                elif line.startswith("file: "):
                    self.edits.append([line[6:].strip(), [], []])
                elif line.startswith("- ") or line == "-":
                    self.edits[-1][1].append(line[2:])
                elif line.startswith("+ ") or line == "+":
                    self.edits[-1][2].append(line[2:])
                elif line.strip() and not line.startswith("#"):
                    raise SystemExit("%s: cannot read line %r" % (path, line))
        if not self.what or not self.kill or not self.edits:
            raise SystemExit("%s: needs what:, kill: and at least one file: edit" % path)


def load(names=None):
    out = [Mutant(os.path.join(MUTDIR, f)) for f in sorted(os.listdir(MUTDIR))
           if f.endswith(".mut")]
    if names:
        unknown = set(names) - {m.name for m in out}
        if unknown:
            raise SystemExit("unknown mutants: %s" % " ".join(sorted(unknown)))
        out = [m for m in out if m.name in names]
    return out


def scratch_copy():
    """The checkout's files (tracked and new, as they are now) and its build directory, times
    kept, in a fresh directory."""
    dst = tempfile.mkdtemp(prefix="shc-mutants-")
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=ROOT, capture_output=True, check=True).stdout
    files = b"\0".join(f for f in files.split(b"\0") if f and os.path.lexists(
        os.path.join(ROOT.encode(), f)))
    tar = subprocess.Popen(["tar", "--null", "-T", "-", "-cf", "-"], cwd=ROOT,
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    untar = subprocess.Popen(["tar", "-xf", "-", "-C", dst], stdin=tar.stdout)
    tar.stdin.write(files)
    tar.stdin.close()
    tar.stdout.close()
    if untar.wait() or tar.wait():
        raise SystemExit("mutants: copying the checkout failed")
    build = os.environ.get("BUILD", "build")
    subprocess.run(["cp", "-a", os.path.join(ROOT, build), os.path.join(dst, build)], check=True)
    for keep in ("tests/e2e/node_modules", "bench/anchors/node_modules"):
        if os.path.isdir(os.path.join(ROOT, keep)):
            os.symlink(os.path.join(ROOT, keep), os.path.join(dst, keep))
    return dst


def apply(dst, m):
    """Applies m's edits; returns the original texts (to restore), or raises SystemExit."""
    saved = {}
    for path, old, new in m.edits:
        full = os.path.join(dst, path)
        with open(full) as f:
            text = saved.get(path) or f.read()
        saved.setdefault(path, text)
        with open(full) as f:
            cur = f.read()
        o, n = "\n".join(old), "\n".join(new)
        if cur.count(o) != 1:
            raise ValueError("%s: the text to replace occurs %d times in %s"
                             % (m.name, cur.count(o), path))
        with open(full, "w") as f:
            f.write(cur.replace(o, n))
    return saved


def restore(dst, saved):
    for path, text in saved.items():
        with open(os.path.join(dst, path), "w") as f:
            f.write(text)


def run_mutant(dst, m, jobs):
    """('killed' | 'survived' | 'broken', detail, seconds)."""
    t0 = time.time()
    try:
        saved = apply(dst, m)
    except ValueError as e:
        return "broken", str(e), 0
    try:
        env = dict(os.environ, BUILD=os.environ.get("BUILD", "build"))
        env.pop("SUITES", None)
        build = env["BUILD"]
        helpers = [os.path.join(build, "tests", "helpers", f[:-2])
                   for f in sorted(os.listdir(os.path.join(dst, "tests", "helpers")))
                   if f.endswith(".c")]
        tests = [os.path.join(build, "tests", k) for k in m.kill if k.startswith("test_")]
        b = subprocess.run(["make", "-s", "-j%d" % jobs, "shcard"] + helpers + tests, cwd=dst,
                           env=env, capture_output=True, timeout=MUTANT_TIMEOUT)
        if b.returncode:
            return "broken", "build failed: " + b.stderr.decode(errors="replace")[-800:], \
                time.time() - t0
        env.update(SUITES=" ".join(m.kill), SHCARD=os.path.join(dst, "shcard"))
        try:
            r = subprocess.run(["bash", "tests/run.sh"], cwd=dst, env=env, capture_output=True,
                               timeout=MUTANT_TIMEOUT)
        except subprocess.TimeoutExpired:
            return "killed", "the suites ran over %d s" % MUTANT_TIMEOUT, time.time() - t0
        out = r.stdout.decode(errors="replace")
        lines = [l for l in out.splitlines() if l[:1] not in (" ", "") and " passed " in l]
        detail = "; ".join(" ".join(l.split()) for l in lines)
        why = [l.strip() for l in out.splitlines()
               if ("FAIL" in l or "not ok" in l or "left in the temp dir" in l)
               and "FAILED (rc=" not in l and not l.startswith("failed suites")][:2]
        if why:
            detail += " | " + " | ".join(w[:160] for w in why)
        return ("killed" if r.returncode else "survived"), detail, time.time() - t0
    finally:
        restore(dst, saved)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    ms = load(a.names)
    if a.sample:
        ms = ms[:a.sample] if a.names else [m for m in ms if m.name in SAMPLE][:a.sample]
    if a.list:
        for m in ms:
            print("%-28s %-44s kill: %s" % (m.name, m.what, " ".join(m.kill)))
        return 0
    dst = scratch_copy()
    counts = {"killed": 0, "survived": 0, "broken": 0}
    try:
        for m in ms:
            res, detail, dt = run_mutant(dst, m, a.jobs)
            counts[res] += 1
            print("%-8s %-28s %4.0fs  %s -- %s" % (res.upper(), m.name, dt, m.what, detail))
            sys.stdout.flush()
    finally:
        if a.keep:
            print("kept %s" % dst, file=sys.stderr)
        else:
            shutil.rmtree(dst, True)
    print("mutants: %d run, %d killed, %d survived, %d broken"
          % (len(ms), counts["killed"], counts["survived"], counts["broken"]))
    print("%d passed, %d failed" % (counts["killed"], counts["survived"] + counts["broken"]))
    return 0 if counts["killed"] == len(ms) else 1


# The fixed sample `make test` runs (suite_mutants): cheap to build and kill (a table entry, the
# generated lexer, a rule in C), about 1.5 min together on a quiet machine.
SAMPLE = ("find-delete-safe", "lexer-dquote-escape", "xargs-no-nul")

if __name__ == "__main__":
    sys.exit(main())
