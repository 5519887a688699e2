#!/usr/bin/env python3
"""The verified-card watch checked against strace, on hostile repositories and benign twins.

For each fixture (a repository state that used to make a read/search/list command do something
else: a core.fsmonitor that runs `touch`, a FIFO ignore file, an include.path to a FIFO, huge
ignore files, a link into another repository with an fsmonitor), the command that used to get a
card runs twice, each time on a fresh copy of the fixture:
  - forced as a card under the watch: `shcard run --verify --as KIND --json` (so the watch
    applies even where the static classifier now says terminal);
  - under `strace -f` (execve, openat, unlinkat, mkdirat, renameat2, connect, utimensat) with a timeout.
The two must agree: a write, change, connection or another program in strace <=> an event in the
watch, and a command that blocks (strace's run times out) <=> the grace event.  Every hostile
fixture must not hold; every benign twin must hold with nothing forbidden in strace.  Then the
hostile commands go through the bridge (`shcard acp`, shell mode: the prompt line is the command):
none may end as a read/search/list card.

Prints one line per check and ends with "N passed, N failed"."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from reliability import Agent  # noqa: E402  (a real `shcard acp` on pipes)

SHCARD = os.environ.get("SHCARD") or os.path.join(HERE, "..", "shcard")
GRACE = 1.0      # the watch's grace: a card command is expected to be quick
TIMEOUT = 2.5    # both runs are bounded; a run still going then is a hang
PASS = FAIL = 0


def check(cond, name, detail=None):
    global PASS, FAIL
    if cond:
        PASS += 1
    else:
        FAIL += 1
        print(f"FAIL: {name}" + (f": {detail}" if detail is not None else ""), flush=True)


def sh(script, cwd):
    subprocess.run(["bash", "-ec", script], cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


GIT = "git -c init.defaultBranch=main -c user.email=t@t -c user.name=t"
BASE = (f"{GIT} init -q . && mkdir -p src && echo foo > src/a.c && echo foo > README.md && "
        f"{GIT} add -A && {GIT} commit -qm init")

# name, kind, command, the hostile state (after BASE), its benign twin (after BASE), what the
# hostile one does (the watch's event: "exec", another program; "slow", still running after the
# grace: it blocks on a FIFO or takes seconds)
FIXTURES = [
    ("fsmonitor runs touch", "list", "git ls-files",
     "git config core.fsmonitor 'touch PWNED; false'", "git config core.untrackedCache false",
     "exec"),
    ("fsmonitor through git grep", "search", "git --no-pager grep foo",
     "git config core.fsmonitor 'touch PWNED; false'", "true", "exec"),
    ("FIFO ignore file", "search", "rg foo .",
     "mkfifo .ignore", "printf '*.o\\n' > .ignore", "slow"),
    ("FIFO ignore file below", "search", "rg foo src",
     "mkfifo src/.ignore", "printf '*.o\\n' > src/.ignore", "slow"),
    ("include.path to a FIFO", "list", "git ls-files",
     "mkfifo incl && git config include.path ../incl",
     "printf '[core]\\n\\tquotepath = false\\n' > incl && git config include.path ../incl", "slow"),
    ("huge ignore files", "search", "rg foo src",
     "for i in $(seq 1 12); do mkdir -p src/d$i && seq -f '*a*a*a*a*a*a*a*a*a*b%.0f' 1 4000 "
     "> src/d$i/.ignore; done",
     "for i in $(seq 1 12); do mkdir -p src/d$i && printf '*.o\\n' > src/d$i/.ignore; done",
     "slow"),
    ("link into a repository with fsmonitor", "list", "cd alias2 && git ls-files",
     "mkdir -p evil/sub && cd evil && git init -q . && echo x > sub/z.txt && "
     "git config core.fsmonitor 'touch PWNED; false' && cd .. && ln -s evil alias2",
     "mkdir -p good/sub && cd good && git init -q . && echo x > sub/z.txt && cd .. && "
     "ln -s good alias2", "exec"),
    ("link into a subdirectory of it", "search", "cd alias3 && git --no-pager grep x",
     "mkdir -p evil/sub && cd evil && git init -q . && echo x > sub/z.txt && git add -A && "
     "git config core.fsmonitor 'touch PWNED; false' && cd .. && ln -s evil/sub alias3",
     "mkdir -p good/sub && cd good && git init -q . && echo x > sub/z.txt && git add -A && "
     "cd .. && ln -s good/sub alias3", "exec"),
]

WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_TMPFILE")
OUTPUT_PATHS = ("/dev/null", "/dev/tty", "/dev/stdout", "/dev/stderr")


def make(root, name, setup):
    d = os.path.join(root, name)
    os.makedirs(d)
    sh(BASE, d)
    sh(setup, d)
    return os.path.realpath(d)


def unblock(d):
    """Open every FIFO of the fixture for writing (and close it) so a reader blocked on one ends."""
    for top, dirs, files in os.walk(d):
        for f in files:
            p = os.path.join(top, f)
            try:
                if os.path.stat.S_ISFIFO(os.lstat(p).st_mode):
                    fd = os.open(p, os.O_WRONLY | os.O_NONBLOCK)
                    os.close(fd)
            except OSError:
                pass


def command_words(cmd):
    """The programs the command line names (the watch's own rule: every command word)."""
    words = set()
    for part in re.split(r"&&|\|\||;|\|", cmd):
        w = part.split()
        if w:
            words.add(os.path.basename(w[0]))
    return words


def strace_run(cmd, cwd, log):
    argv = ["timeout", "-s", "KILL", str(TIMEOUT + 1), "strace", "-f", "-qq", "-y",
            "-e", "trace=execve,openat,unlinkat,mkdirat,renameat2,connect,utimensat",
            "-o", log, "bash", "-c", cmd]
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=TIMEOUT)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        rc = None
    # the watch's grace, measured the same way: still running after GRACE seconds
    hung = time.monotonic() - t0 >= GRACE
    unblock(cwd)
    subprocess.run(["sleep", "0.2"])
    return parse_strace(log, cmd, hung), rc


def parse_strace(log, cmd, hung):
    """What strace saw, as the watch's categories: {"exec": [...], "write": [...], ...}."""
    seen = {"exec": [], "write": [], "change": [], "network": [], "slow": []}
    named = command_words(cmd) | {"bash"}
    first_exec = True
    try:
        text = open(log, errors="replace").read()
    except OSError:
        text = ""
    for line in text.splitlines():
        m = re.match(r"\s*(\d+)\s+(\w+)\((.*)", line)
        if not m:
            continue
        call, rest = m.group(2), m.group(3)
        failed = re.search(r"= -1 ", rest) is not None
        path = re.search(r'"((?:[^"\\]|\\.)*)"', rest)
        path = path.group(1) if path else ""
        if call == "execve":
            if failed:
                continue
            if first_exec:  # strace's own exec of bash, the wrapper the watch also names
                first_exec = False
                continue
            if os.path.basename(path) not in named:
                seen["exec"].append(path)
        elif call == "openat":
            if any(f in rest for f in WRITE_FLAGS) and path not in OUTPUT_PATHS and not failed:
                seen["write"].append(path)
        elif call in ("unlinkat", "mkdirat", "renameat2", "utimensat"):
            if call == "utimensat" and not path:  # utimensat(fd, NULL): -y names the fd's file
                fd = re.match(r"\d+<([^>]*)>", rest)
                path = fd.group(1) if fd else ""
            if not failed:
                seen["change"].append(path)
        elif call == "connect":
            if "sun_path" in rest and ("nscd" in rest or "userdb" in rest):
                continue
            seen["network"].append(rest[:80])
    if hung:
        seen["slow"].append("timed out")
    return {k: v for k, v in seen.items() if v}


def watch_run(cmd, kind, cwd):
    argv = [SHCARD, "run", "--verify", "--as", kind, "--json", "--grace", str(GRACE),
            "--timeout", str(TIMEOUT), cmd]
    try:
        p = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=TIMEOUT + 5)
    except subprocess.TimeoutExpired:
        unblock(cwd)
        return None
    unblock(cwd)
    lines = p.stdout.decode(errors="replace").strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        return {"bad": p.stdout[-400:], "stderr": p.stderr[-400:]}


def compare(name, cmd, kind, root, setup, hostile, does):
    label = f"{'hostile' if hostile else 'benign'} {name}: {cmd}"
    d1 = make(root, "w", setup)
    v = watch_run(cmd, kind, d1)
    shutil.rmtree(d1, ignore_errors=True)
    d2 = make(root, "s", setup)
    seen, rc = strace_run(cmd, d2, os.path.join(root, "strace.log"))
    shutil.rmtree(d2, ignore_errors=True)
    check(v is not None and "held" in v, f"{label}: the watch gives a verdict", v)
    if v is None or "held" not in v:
        return
    wkinds = {e["what"] for e in v.get("events", [])}
    check(v.get("watched") is True, f"{label}: watched", v)
    check(v["held"] == (not seen), f"{label}: the watch and strace agree (held={v['held']})",
          {"watch": v.get("events"), "strace": seen})
    # category by category: another program, a write/change, a hang
    check(("exec" in wkinds) == ("exec" in seen), f"{label}: another program: watch {'exec' in wkinds}, strace {'exec' in seen}",
          {"watch": v.get("events"), "strace": seen})
    for what in ("write", "change"):
        check((what in wkinds) == (what in seen), f"{label}: {what}: watch {what in wkinds}, strace {what in seen}",
              {"watch": v.get("events"), "strace": seen})
        # the same files: every file the watch names is one strace saw (strace's may be relative)
        theirs = {os.path.basename(x) for x in seen.get(what, [])}
        for e in v.get("events", []):
            if e["what"] == what:
                check(e.get("detail", "") and os.path.basename(e["detail"]) in theirs,
                      f"{label}: the watch's {e['syscall']} names a file strace saw", (e, theirs))
    check(("slow" in wkinds) == ("slow" in seen), f"{label}: a hang <=> the grace event",
          {"watch": v.get("events"), "strace": seen})
    check(("network" in wkinds) == ("network" in seen), f"{label}: the network agrees",
          {"watch": v.get("events"), "strace": seen})
    if hostile:
        check(not v["held"], f"{label}: the forced card does not hold", v)
        check(does in wkinds, f"{label}: the watch reports {does}", v.get("events"))
    else:
        check(v["held"], f"{label}: the card holds", v)
        check(not seen, f"{label}: strace sees nothing forbidden", seen)
    print(f"{label}: watch {'held' if v['held'] else sorted(wkinds)}, strace {sorted(seen) or 'nothing'}",
          flush=True)


def bridge(root):
    """The hostile commands through `shcard acp` (shell mode): none ends as a card."""
    for name, kind, cmd, setup, _benign, _does in FIXTURES:
        d = make(root, "b", setup)
        a = Agent(args=["--verify-grace", str(GRACE), "--input-wait", "0"], cwd=d)
        try:
            check(a.init(), f"bridge {name}: initialize")
            sid = a.new_session(d)
            check(sid is not None, f"bridge {name}: session/new")
            rid = a.prompt(sid, cmd)
            r = None
            # nothing is killed: end a blocked reader's FIFO; a CPU-bound one (huge ignore files)
            # may take a minute on a busy machine
            for _ in range(int(TIMEOUT + 60)):
                r = a.response(rid, timeout=1.0)
                if r is not None:
                    break
                unblock(d)
            check(r is not None and "result" in r, f"bridge {name}: the turn ends", r)
            calls = [u for u in a.updates(sid) if u.get("sessionUpdate") == "tool_call"]
            check(len(calls) >= 1, f"bridge {name}: a tool call", calls)
            last = calls[-1] if calls else {}
            check(last.get("kind") == "execute",
                  f"bridge {name}: `{cmd}` ends as a terminal card (kinds {[c.get('kind') for c in calls]})",
                  last)
            how = "flipped" if len(calls) > 1 else "terminal from the start"
            print(f"bridge {name}: {how}", flush=True)
        finally:
            unblock(d)
            a.close()
            shutil.rmtree(d, ignore_errors=True)


def main():
    only = os.environ.get("VSTRACE_ONLY")  # a substring of fixture names, to run a few
    if only:
        FIXTURES[:] = [f for f in FIXTURES if only in f[0]]
    root = tempfile.mkdtemp(prefix="shc-vstrace-")
    os.environ.setdefault("SHCARD_FINDINGS", os.path.join(root, "findings.jsonl"))
    try:
        for name, kind, cmd, setup, benign, does in FIXTURES:
            compare(name, cmd, kind, root, setup, True, does)
            compare(name, cmd, kind, root, benign, False, does)
        bridge(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{PASS} passed, {FAIL} failed")
    return 0 if FAIL == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
