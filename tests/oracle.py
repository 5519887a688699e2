#!/usr/bin/env python3
"""The dynamic safety oracle: runs every command the classifier labels read, search or list,
for real, inside a sandbox that makes a wrong verdict harmless, and checks what it did.

Sandbox (bubblewrap): a read-only view of the system, a private /tmp, no network (all
namespaces unshared), and one writable scratch directory populated with the files and
directories the command names.  The command runs as `bash --noprofile --norc -c SCRIPT` (the
script with the bash -lc wrapper stripped), stdin from /dev/null, under a time limit, traced
with `strace -f` so that even a failed write attempt is seen.  PATH has `bat` and `fd` naming
the real tools (Debian installs batcat and fdfind).

A run is a violation when it opens a file for writing (other than /dev/null), creates,
deletes, renames, links or changes the mode of anything, executes a program that its own
pipeline does not name, or does not finish in time.

Usage: oracle.py [--shcard PATH] [--timeout S] [--expect-violations] [--selftest] [FILE...]
  FILEs (or stdin) hold JSON lines with a "cmd" string (corpus lines work as they are).
  --expect-violations: every accepted command must be flagged (used for negative controls,
  which are classified with --force-run so that the oracle runs them whatever the label).
  Prints one line per violation and ends with "oracle: N run, N violations, N skipped".
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

WRITE_SYSCALLS = {
    "creat", "mkdir", "mkdirat", "unlink", "unlinkat", "rmdir", "rename", "renameat",
    "renameat2", "link", "linkat", "symlink", "symlinkat", "truncate", "ftruncate", "mknod",
    "mknodat", "chmod", "fchmod", "fchmodat", "chown", "fchown", "fchownat", "lchown",
    "utimensat", "utimes", "utime", "futimesat", "setxattr", "lsetxattr", "fsetxattr",
    "removexattr", "lremovexattr", "fremovexattr",
}
TRACE = ",".join(sorted(WRITE_SYSCALLS | {"open", "openat", "openat2", "execve", "execveat"}))
LINE_RE = re.compile(r'^(?:\[pid\s+\d+\]\s+|\d+\s+)?(?:<\.\.\. )?(\w+)(\(| resumed>)(.*)$')
WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND", "O_TMPFILE")
# Programs that are thin wrappers around another (Debian's egrep and fgrep are `exec grep -E`).
EXEC_ALIASES = {"egrep": {"grep"}, "fgrep": {"grep"}}
ALLOWED_WRITE_TARGETS = {"/dev/null", "/dev/tty"}  # bash probes /dev/tty (no ctty here)

CONTENT = "".join(
    "line %d: foo bar TODO useState def main impl Display import React fmt.Println SELECT "
    "panic! x -z main test config component\n" % i for i in range(1, 301))


def classify(shcard, cmds):
    """Runs shcard explain --batch over cmds; returns the verdict objects in order."""
    data = "".join(json.dumps({"cmd": c}) + "\n" for c in cmds)
    p = subprocess.run([shcard, "explain", "--batch"], input=data.encode(), capture_output=True,
                       timeout=300)
    out = [json.loads(l) for l in p.stdout.decode().splitlines() if l.strip()]
    if len(out) != len(cmds):
        sys.exit("oracle: shcard explain --batch returned %d objects for %d commands"
                 % (len(out), len(cmds)))
    return out


def inside(root, rel):
    full = os.path.normpath(os.path.join(root, rel))
    return full if (full + "/").startswith(root + "/") and full != root else None


def populate(work, verdict):
    """Creates the files and directories the verdict names (relative paths only)."""
    paths = [verdict.get("path")] + [l.get("path") for l in verdict.get("locations") or []]
    for p in paths:
        if not p or os.path.isabs(p):
            continue
        full = inside(work, p)
        if not full or os.path.exists(full):
            continue
        base = os.path.basename(full)
        is_file = verdict["kind"] == "read" or ("." in base.strip(".") and verdict["kind"] == "search")
        if is_file:
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(CONTENT)
        else:
            os.makedirs(os.path.join(full, "sub"), exist_ok=True)
            for name in ("a.txt", "b.py", "sub/c.md", "main.rs", "test_x.ts"):
                with open(os.path.join(full, name), "w") as f:
                    f.write(CONTENT)
    # a few files every command may name without saying so
    for name in ("f", "package.json", "README.md"):
        full = os.path.join(work, name)
        if not os.path.exists(full):
            with open(full, "w") as f:
                f.write(CONTENT)


def git_init(work):
    env = dict(os.environ, GIT_AUTHOR_NAME="o", GIT_AUTHOR_EMAIL="o@x", GIT_COMMITTER_NAME="o",
               GIT_COMMITTER_EMAIL="o@x", HOME=work)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "x", "--no-gpg-sign"]):
        subprocess.run(["git", "-c", "init.defaultBranch=main"] + args, cwd=work, env=env,
                       capture_output=True)


def run_one(shcard, verdict, timeout):
    """Returns a list of problems (empty when the run was clean)."""
    root = tempfile.mkdtemp(prefix="shc-oracle-")
    try:
        work = os.path.join(root, "work")
        home = os.path.join(root, "home")
        bindir = os.path.join(root, "bin")
        for d in (work, home, bindir):
            os.makedirs(d)
        for name, real in (("bat", "batcat"), ("fd", "fdfind")):
            target = shutil.which(real) or shutil.which(name)
            if target:
                os.symlink(target, os.path.join(bindir, name))
        populate(work, verdict)
        git_init(work)
        trace = os.path.join(root, "trace.txt")
        script = verdict["script"]
        cmd = [
            "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", "--bind", root, root, "--ro-bind", home, home,
            "--ro-bind", bindir, bindir,
            "--unshare-all", "--die-with-parent", "--new-session", "--chdir", work,
            "--clearenv", "--setenv", "PATH", bindir + ":/usr/local/bin:/usr/bin:/bin",
            "--setenv", "HOME", home, "--setenv", "LANG", "C.UTF-8", "--setenv", "TERM", "dumb",
            "--",
            "strace", "-f", "-qq", "-s", "256", "-o", trace, "-e", "trace=" + TRACE,
            "bash", "--noprofile", "--norc", "-c", script,
        ]
        try:
            p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return ["did not finish within %ss" % timeout]
        if p.returncode != 0 and not os.path.exists(trace):
            return ["sandbox failed: " + p.stderr.decode(errors="replace")[:300]]
        with open(trace, errors="replace") as f:
            lines = f.read().splitlines()
        return check_trace(lines, allowed_programs(shcard, script))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def allowed_programs(shcard, script):
    """bash itself plus every command name its own pipeline names."""
    names = {"bash"}
    p = subprocess.run([shcard, "parse", "--json", "--no-unwrap", "--", script],
                       capture_output=True, timeout=30)
    try:
        tree = json.loads(p.stdout.decode().splitlines()[0])
    except (ValueError, IndexError):
        return names
    for c in tree.get("commands") or []:
        argv = c.get("argv") or []
        if argv and isinstance(argv[0], str):
            name = os.path.basename(argv[0])
            names.add(name)
            names |= EXEC_ALIASES.get(name, set())
    return names


def check_trace(lines, programs):
    problems = []
    first_exec = True
    for line in lines:
        m = LINE_RE.match(line)
        if not m:
            continue
        name, rest = m.group(1), m.group(3)
        if m.group(2) != "(":
            continue  # "<... name resumed>": the arguments were on the unfinished line
        if name in ("execve", "execveat"):
            pm = re.match(r'\s*(?:AT_FDCWD, )?"([^"]*)"', rest)
            prog = os.path.basename(pm.group(1)) if pm else "?"
            if first_exec and prog == "bash":
                first_exec = False
                continue
            first_exec = False
            if prog not in programs:
                problems.append("executes %s: %s" % (prog, line.strip()[:200]))
        elif name in ("open", "openat", "openat2"):
            pm = re.search(r'"([^"]*)"', rest)
            target = pm.group(1) if pm else "?"
            flags = rest.split('"', 2)[-1] if pm else rest
            if any(fl in flags for fl in WRITE_FLAGS) and target not in ALLOWED_WRITE_TARGETS:
                problems.append("opens for writing: " + line.strip()[:200])
        elif name in WRITE_SYSCALLS:
            problems.append("%s: %s" % (name, line.strip()[:200]))
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shcard", default=os.environ.get("SHCARD", "./shcard"))
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--expect-violations", action="store_true")
    ap.add_argument("--force-run", action="store_true",
                    help="run every command whatever its label (negative controls)")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    cmds = []
    srcs = [open(f) for f in a.files] if a.files else [sys.stdin]
    for src in srcs:
        for line in src:
            line = line.strip()
            if line:
                cmds.append(json.loads(line)["cmd"])
    verdicts = classify(a.shcard, cmds)
    seen = set()
    run = bad = skipped = 0
    for c, v in zip(cmds, verdicts):
        if v.get("kind") == "terminal" and not a.force_run:
            skipped += 1
            continue
        if v["script"] in seen:
            continue
        seen.add(v["script"])
        if a.force_run and v.get("kind") == "terminal":
            v = dict(v, kind="read")
        run += 1
        problems = run_one(a.shcard, v, a.timeout)
        if a.expect_violations:
            if not problems:
                bad += 1
                print("NOT FLAGGED: %s" % c)
        elif problems:
            bad += 1
            print("VIOLATION: %s (%s: %s)" % (c, v["kind"], v["title"]))
            for pr in problems[:5]:
                print("    " + pr)
    label = "not flagged" if a.expect_violations else "violations"
    print("oracle: %d run, %d %s, %d skipped" % (run, bad, label, skipped))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
