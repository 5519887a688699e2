#!/usr/bin/env python3
"""The dynamic safety oracle: runs every command the classifier labels read, search or list,
for real, inside a sandbox that makes a wrong verdict harmless, and checks what it did.

Sandbox (bubblewrap): a read-only view of the system, a private /tmp, no network (all
namespaces unshared), and one writable scratch directory: the files and directories the
verdict names, a git repository, and hostile fixtures (FIXTURES below: symlinks to /dev/zero,
/dev/stdin, /dev/tty and /proc/self/fd/0, FIFOs, a socket, symlink loops, a directory holding a
FIFO, gzip files, files named like options, planted shells (./bash, bin/bash, tools/bash,
node_modules/.bin/{bash,sh}, .venv/bin/bash, scripts/zsh, ../bash), git configuration that runs
a pager or a textconv program if asked).  For a command that names git the repository is a partial clone
(--filter=tree:0 from a file:// remote, three commits) whose older revisions (v1, old, HEAD~1,
HEAD~2) have neither trees nor blobs: reading them makes git fetch.

The command runs as `bash --noprofile --norc -c SCRIPT` under `strace -f -y`, started by
tests/oracle/supervise.py inside the sandbox, in one or more modes:
  pipe  stdin an open pipe that is never written or closed (a read of it blocks), stdout a pipe
  tty   stdin/stdout/stderr a real pseudo-terminal, the controlling terminal, whose master is
        held open and never written (a terminal nobody types into); TERM=xterm, no PAGER
  exec  shcard's executor: stdin /dev/null, stdout/stderr the pty, its environment (PAGER=cat)
SCRIPT is the whole command, as the executor runs it: a wrapper (`bash -lc`, `sh -c` is dash,
`zsh -c`, a planted `./bash -c`) runs for real and decodes its script itself (system login
profiles are empty in the sandbox).  Only a plain bash wrapper around a single-quoted script
equal to the classifier's is run as that script alone.

A run is a violation ("KIND: detail") when it
  write:   opens for writing (other than /dev/null), creates, deletes, renames, links, changes
           mode, times or attributes, binds a socket file;
  exec:    executes a program its own command line does not name (or names fewer times: git
           running `git fetch` is a second git; the grep that find -exec or xargs runs may run
           once per file), or any program from the scratch directory;
  stdin:   reads standard input (a read of the stdin pipe, the terminal, /dev/null stdin), or
           opens it by name (/dev/stdin, /dev/fd/0, /proc/self/fd/0);
  tty:     opens or reads the terminal (/dev/tty, /dev/pts/N), other than the shell's probe;
  device:  opens a device other than /dev/null and /dev/urandom (/dev/zero, /dev/full, ...);
  fifo:    opens or reads a FIFO or a socket fixture;
  proc:    opens a file of a process (/proc/PID/..., /proc/self/...) outside the few that
           language runtimes read for themselves (PROC_OK);
  net:     creates a network socket or connects anywhere but the name-service socket;
  block:   blocks in a read that can never return (the supervisor's watchdog: stdin, the
           terminal, a FIFO) -- the run ends at once;
  timeout: does not finish within the time limit.

Classification: `shcard explain --batch --context C --cwd DIR`, C the line's "context" (any,
the default: modes pipe then tty; bridge: the exec mode alone), DIR a copy of the fixtures so
that the classifier can stat what a command names, as the bridge does in a real directory.

Usage: oracle.py [--shcard PATH] [--timeout S] [--modes pipe,tty] [--jobs N] [--expect-violations]
                 [--force-run] [--show] [--hostile-git] [--findings FILE] [--keep] [FILE...]
  FILEs (or stdin) hold JSON lines with a "cmd" string (corpus lines work as they are; a line
  may name its "context" and its "modes").
  --expect-violations: every command must be flagged (negative controls, with --force-run so
  that the oracle runs them whatever the label); a control line may say "detects": KIND, and
  then it must be flagged with that kind; --show prints what flagged each.
  --findings FILE appends every violation as a JSON line.  --jobs: sandboxes at once (2).
  Prints one line per violation and ends with "oracle: N run, N violations, N skipped".
"""
import argparse
import atexit
import collections
import concurrent.futures
import gzip
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
SUPERVISE = os.path.join(HERE, "oracle", "supervise.py")
SANDBOX_PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable

WRITE_SYSCALLS = {
    "creat", "mkdir", "mkdirat", "unlink", "unlinkat", "rmdir", "rename", "renameat",
    "renameat2", "link", "linkat", "symlink", "symlinkat", "truncate", "ftruncate", "mknod",
    "mknodat", "chmod", "fchmod", "fchmodat", "chown", "fchown", "fchownat", "lchown",
    "utimensat", "utimes", "utime", "futimesat", "setxattr", "lsetxattr", "fsetxattr",
    "removexattr", "lremovexattr", "fremovexattr",
}
OPEN_SYSCALLS = {"open", "openat", "openat2"}
READ_SYSCALLS = {"read", "readv", "pread64", "preadv", "preadv2"}
EXEC_SYSCALLS = {"execve", "execveat"}
CLONE_SYSCALLS = {"clone", "clone3", "fork", "vfork"}
NET_SYSCALLS = {"socket", "connect", "bind"}
TRACE = ",".join(sorted(WRITE_SYSCALLS | OPEN_SYSCALLS | READ_SYSCALLS | EXEC_SYSCALLS
                        | CLONE_SYSCALLS | NET_SYSCALLS))
TRACE_LIGHT = ",".join(sorted(WRITE_SYSCALLS | OPEN_SYSCALLS | EXEC_SYSCALLS | CLONE_SYSCALLS
                              | NET_SYSCALLS))
WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND", "O_TMPFILE")
# Programs that are thin wrappers around another (Debian's egrep and fgrep are `exec grep -E`).
EXEC_ALIASES = {"egrep": ["grep"], "fgrep": ["grep"]}
SHELLS = {"bash", "sh", "dash", "zsh"}
# Directories a named program may come from (the sandbox's bin holds bat/fd links).
SYSTEM_DIRS = ("/usr/bin/", "/bin/", "/usr/local/bin/", "/usr/sbin/", "/sbin/")
# Process files the tools' runtimes read about themselves (rust's available_parallelism, glibc,
# perl): any other /proc/PID/... or /proc/self/... open is a violation.
PROC_OK = re.compile(r"^/proc/(self|thread-self|\d+)(/task/\d+)?/(maps|cgroup|mountinfo|mounts|"
                     r"stat|status|limits|auxv|exe|loginuid|sessionid|comm|fd)$")  # fd: the listing
NAME_SERVICE = ("/var/run/nscd/socket", "/run/nscd/socket")
DEV_OK = {"/dev/null", "/dev/urandom", "/dev/random"}  # a few random bytes (perl, git)

CONTENT = "".join(
    "line %d: foo bar TODO useState def main impl Display import React fmt.Println SELECT "
    "panic! x -z main test config component\n" % i for i in range(1, 301))
BIG_LINES = 400000  # 7.5 MB: GNU sort reading a pipe keeps about 4 MB before it spills
OLD_CONTENT = CONTENT.replace("line", "old line")
OLDEST_CONTENT = CONTENT.replace("line", "oldest line")

# Hostile fixtures in the scratch directory (relative name -> kind, target).
FIXTURES = [
    ("link-zero", "symlink", "/dev/zero"),
    ("link-stdin", "symlink", "/dev/stdin"),
    ("link-tty", "symlink", "/dev/tty"),
    ("link-fd0", "symlink", "/proc/self/fd/0"),
    ("fifo", "fifo", None),
    ("sock", "socket", None),
    ("loop", "symlink", "loop"),
    ("fifodir/a.txt", "file", None),
    ("fifodir/fifo", "fifo", None),
    ("fifodir/zero", "symlink", "/dev/zero"),
    ("fifodir/up", "symlink", ".."),
    ("-delete", "file", None),
    ("--pre=x", "file", None),
    ("logs.gz", "gzip", None),
    ("fifodir/old.gz", "gzip", None),
    ("bash", "planted", None),
    ("bin/bash", "planted", None),
    ("tools/bash", "planted", None),
    ("node_modules/.bin/bash", "planted", None),
    ("node_modules/.bin/sh", "planted", None),
    (".venv/bin/bash", "planted", None),
    ("scripts/zsh", "planted", None),
    ("../bash", "planted", None),  # in the checkout's parent directory
    # names that find -exec and xargs hand on (the breadth rules): names that split into an
    # injected operand under xargs without -0 (a blank, a newline before /dev/zero), quotes and
    # backslashes, `{}` inside a name, names that are options (`--include=x.py`, which a glob in
    # an option value could expand to), *.py links to /dev/zero and /dev/stdin, a FIFO *.py (no
    # link to /: the clean controls walk with -L, and a walk of everything is not clean)
    ("x /dev/zero y.py", "file", None),
    ("nl\n/dev/zero\nz.py", "file", None),
    ("q'uote.py", "file", None),
    ('dq"uote.py', "file", None),
    ("back\\slash.py", "file", None),
    ("{}.py", "file", None),
    ("-e.py", "file", None),
    ("--include=x.py", "file", None),
    ("--exclude=y.py", "file", None),
    ("--glob=z.rs", "file", None),
    ("zero.py", "symlink", "/dev/zero"),
    ("stdin.py", "symlink", "/dev/stdin"),
    ("fifo.py", "fifo", None),
]
FIXTURE_TOP = {name.split("/")[0] for name, _, _ in FIXTURES}
PLANTED = "#!/bin/sh\necho planted > PLANTED-RAN\n"
PROFILES = ("/etc/profile", "/etc/bash.bashrc", "/etc/zsh/zshenv", "/etc/zsh/zprofile",
            "/etc/zsh/zshrc", "/etc/zsh/zlogin", "/etc/zsh/zlogout", "/etc/environment")
HOOK_PROGRAMS = ("shc-pager", "shc-textconv", "shc-fsmonitor", "shc-clean")
GIT_REFS = {"v1", "old", "main", "HEAD", "origin", "refs", "FETCH_HEAD", "ORIG_HEAD"}
GIT_CONFIG = [("core.pager", "shc-pager"), ("diff.shc.textconv", "shc-textconv"),
              ("pager.grep", "shc-pager")]
# --hostile-git: configuration that runs programs on ordinary git commands (the residual risk
# the policy accepts: display-only); used by the negative controls to prove it is seen.
HOSTILE_GIT_CONFIG = [("core.fsmonitor", "shc-fsmonitor"), ("filter.shc.clean", "shc-clean")]

MODE_ENV = {
    "pipe": [("TERM", "dumb")],
    "tty": [("TERM", "xterm")],
    "exec": [("TERM", "dumb"), ("NO_COLOR", "1"), ("PAGER", "cat"), ("GIT_PAGER", "cat"),
             ("BAT_PAGER", ""),
             ("GH_PAGER", "cat"), ("MANPAGER", "cat"), ("SYSTEMD_PAGER", "cat"),
             ("GIT_TERMINAL_PROMPT", "0")],
}
DEFAULT_MODES = ("pipe", "tty")
ALL_MODES = ("pipe", "tty", "exec")


def classify(shcard, cmds, context="any", cwd=None):
    """Runs shcard explain --batch over cmds (in the given context, judging files from cwd:
    by default a directory with the fixtures, as the sandbox will have them); returns the
    verdict objects in order."""
    data = "".join(json.dumps({"cmd": c}) + "\n" for c in cmds)
    args = [shcard, "explain", "--batch", "--context", context, "--cwd", cwd or fixture_dir()]
    p = subprocess.run(args, input=data.encode(), capture_output=True, timeout=900)
    out = [json.loads(l) for l in p.stdout.decode().splitlines() if l.strip()]
    if len(out) != len(cmds):
        sys.exit("oracle: shcard explain --batch returned %d objects for %d commands: %s"
                 % (len(out), len(cmds), p.stderr.decode(errors="replace")[:300]))
    return out


def classify_rows(shcard, rows):
    """classify() for rows that may name their "context" (any, the default, or bridge)."""
    out = [None] * len(rows)
    groups = collections.defaultdict(list)
    for i, r in enumerate(rows):
        groups[r.get("context") or "any"].append(i)
    for ctx, idx in groups.items():
        for i, v in zip(idx, classify(shcard, [rows[i]["cmd"] for i in idx], ctx)):
            out[i] = v
    return out


def modes_for(row, default):
    """The modes a row runs in: its own "modes", or the executor's alone for the bridge context
    (stdin /dev/null, a pty, pagers set to cat), or the default."""
    if row.get("modes"):
        return row["modes"]
    if row.get("context") == "bridge":
        return ["exec"]
    return default


def inside(root, rel):
    full = os.path.normpath(os.path.join(root, rel))
    return full if (full + "/").startswith(root + "/") and full != root else None


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def populate(work, verdict, content=CONTENT):
    """Creates the files and directories the verdict names (relative paths only, never over a
    fixture), and a few files every command may name without saying so."""
    paths = [verdict.get("path")] + [l.get("path") for l in verdict.get("locations") or []]
    for p in paths:
        if not p or os.path.isabs(p):
            continue
        full = inside(work, p)
        if not full or os.path.exists(full) or os.path.islink(full):
            continue
        parts = os.path.relpath(full, work).split("/")
        top = parts[0]
        if top in FIXTURE_TOP or set(parts) & GIT_REFS or re.search(r"[~^@:]", top):
            continue  # a fixture, or a revision of the fixture repository (git grep foo v1)
        base = os.path.basename(full)
        is_file = verdict["kind"] == "read" or ("." in base.strip(".") and verdict["kind"] == "search")
        if is_file:
            write(full, content)
        else:
            for name in ("a.txt", "b.py", "sub/c.md", "main.rs", "test_x.ts"):
                write(os.path.join(full, name), content)
    for name in ("f", "a.txt", "package.json", "README.md", "src/main.c"):
        full = os.path.join(work, name)
        if not os.path.exists(full):
            write(full, content)


def directories(work):
    out = []
    for d, dirs, _ in os.walk(work):
        dirs[:] = [x for x in dirs if x != ".git" and x not in FIXTURE_TOP]
        out.append(d)
    return out


def add_fixtures(work):
    """The hostile fixtures (FIXTURES), plus a FIFO in every populated directory (a recursive
    search must not block on it).  Returns the paths of the FIFOs and sockets."""
    special = set()
    for d in directories(work):
        if d != work:
            p = os.path.join(d, "fifo")
            if not os.path.lexists(p):
                os.mkfifo(p)
                special.add(p)
    for name, kind, target in FIXTURES:
        p = os.path.join(work, name)
        if os.path.lexists(p):
            continue
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if kind == "symlink":
            os.symlink(target, p)
        elif kind == "fifo":
            os.mkfifo(p)
            special.add(p)
        elif kind == "socket":
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(p)
            s.close()
            special.add(p)
        elif kind == "gzip":  # rg -z / --search-zip runs gzip on it
            with gzip.open(p, "wt") as f:
                f.write(CONTENT)
        elif kind == "planted":
            write(p, PLANTED)
            os.chmod(p, 0o755)
        else:
            write(p, CONTENT)
    return special


def git_env(home):
    return dict(os.environ, GIT_AUTHOR_NAME="o", GIT_AUTHOR_EMAIL="o@x", GIT_COMMITTER_NAME="o",
                GIT_COMMITTER_EMAIL="o@x", HOME=home, GIT_CONFIG_NOSYSTEM="1")


def git(cwd, env, *args):
    return subprocess.run(["git", "-c", "init.defaultBranch=main"] + list(args), cwd=cwd, env=env,
                          capture_output=True)


_lock = threading.Lock()
_template = {}
_plans = {}
_reaper = concurrent.futures.ThreadPoolExecutor(1)  # deletes scratch directories in the background


def template_repo():
    """A committed repository of the default files with GIT_CONFIG, made once per process and
    copied into each run's scratch directory (git init/add/commit per run costs more than the
    run)."""
    with _lock:
        if "work" not in _template:
            base = tempfile.mkdtemp(prefix="shc-oracle-tmpl-")
            atexit.register(shutil.rmtree, base, True)
            work = os.path.join(base, "work")
            os.makedirs(work)
            populate(work, {"kind": "list"})
            env = git_env(base)
            git(work, env, "init", "-q")
            git(work, env, "add", "-A")
            git(work, env, "commit", "-qm", "x", "--no-gpg-sign")
            for k, v in GIT_CONFIG:
                git(work, env, "config", k, v)
            _template["work"] = work
        return _template["work"]


def fixture_dir():
    """A directory laid out as a run's scratch directory (the default files and the fixtures) for
    the classifier to stat (explain --cwd): a command that names a fixture is judged against the
    file it will meet."""
    with _lock:
        if "fixtures" not in _template:
            base = tempfile.mkdtemp(prefix="shc-oracle-fix-")
            atexit.register(shutil.rmtree, base, True)
            work = os.path.join(base, "work")
            os.makedirs(work)
            populate(work, {"kind": "list"})
            add_fixtures(work)
            _template["fixtures"] = work
        return _template["fixtures"]


def partial_key(verdict):
    """What populate() reads of a verdict: the partial clone of two verdicts with the same key
    is the same."""
    return (verdict["kind"], verdict.get("path"),
            tuple(l.get("path") for l in verdict.get("locations") or []))


def partial_clone(root, work, verdict, env):
    """The treeless clone in work of a three-commit repository in root/remote, with the
    verdict's files, untracked, and GIT_CONFIG."""
    remote = os.path.join(root, "remote")
    populate(remote, verdict, OLDEST_CONTENT)
    git(remote, env, "init", "-q")
    git(remote, env, "add", "-A")
    git(remote, env, "commit", "-qm", "v0", "--no-gpg-sign")
    for text, msg in ((OLD_CONTENT, "v1"), (CONTENT, "v2")):
        if msg == "v2":
            git(remote, env, "tag", "v1")
            git(remote, env, "branch", "old")
        for d, dirs, files in os.walk(remote):
            dirs[:] = [x for x in dirs if x != ".git"]
            for name in files:
                write(os.path.join(d, name), text)
        git(remote, env, "commit", "-qam", msg, "--no-gpg-sign")
    git(remote, env, "config", "uploadpack.allowFilter", "true")
    git(remote, env, "config", "uploadpack.allowAnySHA1InWant", "true")
    p = git(root, env, "clone", "-q", "--filter=tree:0", "file://" + remote, work)
    if p.returncode != 0:
        raise RuntimeError("partial clone failed: " + p.stderr.decode(errors="replace"))
    git(work, env, "branch", "-q", "old", "origin/old")
    git(work, env, "fetch", "-q", "--tags", "--filter=tree:0", "origin")
    populate(work, verdict)
    for k, v in GIT_CONFIG:
        git(work, env, "config", k, v)


_partials = {}


def partial_template(verdict):
    """partial_clone() made once per partial_key in a directory of its own (about fifteen git
    runs, more than the sandboxed run itself costs) and copied into each run's scratch
    directory; returns that directory."""
    key = partial_key(verdict)
    with _lock:
        lock = _partials.setdefault(key, [threading.Lock(), None])
    with lock[0]:
        if lock[1] is None:
            base = tempfile.mkdtemp(prefix="shc-oracle-part-")
            atexit.register(shutil.rmtree, base, True)
            os.makedirs(os.path.join(base, "home"))
            partial_clone(base, os.path.join(base, "work"), verdict,
                          git_env(os.path.join(base, "home")))
            lock[1] = base
        return lock[1]


def copy_partial(base, root, work, env):
    """A copy of partial_template()'s repositories in root: the clone's remote (its URL, in
    .git/config, FETCH_HEAD and the reflogs) points at root/remote, and the index is refreshed
    for the copies' new inodes and times, as a fresh clone's is."""
    shutil.copytree(os.path.join(base, "remote"), os.path.join(root, "remote"), symlinks=True)
    os.rmdir(work)
    shutil.copytree(os.path.join(base, "work"), work, symlinks=True)
    old, new = os.fsencode(base), os.fsencode(root)
    gitdir = os.path.join(work, ".git")
    for d, dirs, files in os.walk(gitdir):
        dirs[:] = [x for x in dirs if not (d == gitdir and x == "objects")]
        for name in files:
            path = os.path.join(d, name)
            with open(path, "rb") as f:
                data = f.read()
            if old in data:
                with open(path, "wb") as f:
                    f.write(data.replace(old, new))
    git(work, env, "update-index", "-q", "--refresh")


def git_setup(root, work, verdict, partial, hostile):
    """A repository in work: a plain one, or (partial) a treeless clone of root/remote whose
    older revisions (v1 = old = HEAD~1, HEAD~2) are missing.  Then the configuration that runs
    programs on request."""
    env = git_env(os.path.join(root, "home"))
    if partial:
        copy_partial(partial_template(verdict), root, work, env)
    else:  # the template's commit; the verdict's own files stay untracked
        os.rmdir(work)
        shutil.copytree(template_repo(), work, symlinks=True)
        populate(work, verdict)
    for k, v in HOSTILE_GIT_CONFIG if hostile else []:
        git(work, env, "config", k, v)
    write(os.path.join(work, ".gitattributes"), "* diff=shc\n" + ("* filter=shc\n" if hostile else ""))


def wrapper_of(shcard, cmd):
    p = subprocess.run([shcard, "parse", "--json", "--", cmd], capture_output=True, timeout=30)
    try:
        return json.loads(p.stdout.decode().splitlines()[0]).get("wrapper")
    except (ValueError, IndexError):
        return None


PLAIN_BASH = ("bash -c ", "bash -lc ", "/bin/bash -c ", "/bin/bash -lc ", "/usr/bin/bash -c ",
              "/usr/bin/bash -lc ")


def script_for(shcard, verdict):
    """The text bash runs: the whole command, as the executor runs it, so that the wrapper's own
    shell (bash decoding $'...', dash, zsh, a planted ./bash) handles it for real.  Only when the
    command is exactly a plain bash wrapper around a single-quoted script equal to the verdict's
    (single quotes are literal: nothing to decode) is the script run alone."""
    cmd = verdict.get("cmd") or verdict["script"]
    if verdict.get("wrapped") and any(cmd == p + shlex.quote(verdict["script"]) for p in PLAIN_BASH):
        return verdict["script"]
    return cmd


def command_names(shcard, text):
    """The command names of text's pipeline (argv[0] of every simple command, unwrapped too)."""
    out = []
    for unwrap in (False, True):
        p = subprocess.run([shcard, "parse", "--json"] + ([] if unwrap else ["--no-unwrap"])
                           + ["--", text], capture_output=True, timeout=30)
        try:
            tree = json.loads(p.stdout.decode().splitlines()[0])
        except (ValueError, IndexError):
            continue
        names = []
        for c in tree.get("commands") or []:
            argv = c.get("argv") or []
            if argv and isinstance(argv[0], str):
                names.append(os.path.basename(argv[0]))
        out.append(names)
    if len(out) == 2 and out[0] != out[1]:
        return out[0] + out[1]
    return out[0] if out else []


# Programs find -exec and xargs may run on the names they supply, any number of times (once per
# file with `-exec ... \;`): only those the classifier admits there (grep and its aliases).
RUN_BY_OK = {"grep", "egrep", "fgrep"}
XARGS_VALUE = {"-a", "-E", "-I", "-L", "-n", "-P", "-s", "-d", "--arg-file", "--delimiter",
               "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}


def run_by(argv):
    """The programs a find or xargs argv runs itself (grep family only; anything else keeps the
    budget of its command line and is flagged when it runs)."""
    out = []
    name = os.path.basename(argv[0]) if argv else ""
    if name == "find":
        for i, a in enumerate(argv[:-1]):
            if a in ("-exec", "-execdir", "-ok", "-okdir"):
                out.append(argv[i + 1])
    elif name == "xargs":
        i = 1
        while i < len(argv) and argv[i].startswith("-") and argv[i] != "--":
            i += 2 if argv[i] in XARGS_VALUE else 1
        if i < len(argv) and argv[i] == "--":
            i += 1
        if i < len(argv):
            out.append(argv[i])
    return [p for p in out if p in RUN_BY_OK]


def allowed_programs(shcard, script):
    """How many times each program may be executed: once per simple command that names it; the
    grep that find -exec or xargs runs, as often as they run it."""
    c = collections.Counter(command_names(shcard, script))
    for name, n in list(c.items()):
        if name == "sh":
            c["dash"] += n
    p = subprocess.run([shcard, "parse", "--json", "--", script], capture_output=True, timeout=30)
    try:
        tree = json.loads(p.stdout.decode().splitlines()[0])
    except (ValueError, IndexError):
        tree = {}
    for cmd in tree.get("commands") or []:
        for prog in run_by([a for a in cmd.get("argv") or [] if isinstance(a, str)]):
            c[prog] += 10 ** 6
    return c


def plan(shcard, verdict):
    """(the text bash runs, the programs it may execute), once per command."""
    key = (shcard, verdict.get("cmd"), verdict["script"], verdict.get("wrapped"))
    if key not in _plans:
        script = script_for(shcard, verdict)
        _plans[key] = (script, allowed_programs(shcard, script))
    return _plans[key]


def condition_files(work, condition):
    """The files a condition needs (tests/oracle_conditions.py): "big" is BIG_BYTES of
    distinct lines, more than sort holds in memory when it reads a pipe."""
    for name, kind in (condition or {}).get("files", {}).items():
        if kind == "big":
            with open(os.path.join(work, name), "w") as f:
                f.write("".join("%08x line %d\n" % ((i * 2654435761) % 2**32, i)
                                for i in range(BIG_LINES)))


def run_one(shcard, verdict, timeout, mode="pipe", hostile_git=False, keep=False, light=False,
            condition=None):
    """Runs the verdict's command in one mode; returns a list of problems ("KIND: detail").
    Tracing every read makes a program that reads a byte at a time (sed -u) slow: a run that
    times out with many reads in its trace runs again without tracing reads (light), and only
    that run's time counts."""
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
        for name in HOOK_PROGRAMS:  # what the repository's configuration names: seen if run
            write(os.path.join(bindir, name), "#!/bin/sh\nexec cat\n")
            os.chmod(os.path.join(bindir, name), 0o755)
        # the supervisor runs from the scratch directory: the sandbox's /tmp is empty, and a
        # checkout under /tmp (a CI clone) would not be seen there
        supervise = os.path.join(root, "supervise.py")
        shutil.copyfile(SUPERVISE, supervise)
        script, programs = plan(shcard, verdict)
        git_setup(root, work, verdict, partial="git" in programs, hostile=hostile_git)
        special = add_fixtures(work)
        condition_files(work, condition)
        trace = os.path.join(root, "trace.txt")
        report = os.path.join(root, "report.json")
        cmd = [
            "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", "--bind", root, root, "--ro-bind", home, home,
            "--ro-bind", bindir, bindir,
            "--unshare-all", "--die-with-parent", "--new-session", "--chdir", work,
            "--clearenv", "--setenv", "PATH", bindir + ":/usr/local/bin:/usr/bin:/bin",
            "--setenv", "HOME", home, "--setenv", "LANG", "C.UTF-8",
        ]
        for k, v in MODE_ENV[mode]:
            cmd += ["--setenv", k, v]
        for f in PROFILES:  # a login wrapper (bash -lc, zsh -lc) reads no system profile
            if os.path.exists(f):
                cmd += ["--ro-bind", "/dev/null", f]
        cmd += ["--", SANDBOX_PY, "-I", "-S", supervise, mode, str(timeout), report, "--",
                "strace", "-f", "-y", "-qq", "-s", "256", "--seccomp-bpf", "-e", "signal=none",
                "-o", trace, "-e", "trace=" + (TRACE_LIGHT if light else TRACE),
                "bash", "--noprofile", "--norc", "-c", script]
        try:
            p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                               timeout=timeout + 30)
        except subprocess.TimeoutExpired:
            return ["timeout: the sandbox did not end within %ss" % (timeout + 30)]
        try:
            with open(report) as f:
                rep = json.load(f)
        except (OSError, ValueError):
            return ["sandbox: failed: " + p.stderr.decode(errors="replace")[:300]]
        try:
            with open(trace, errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            lines = []
        ctx = ctx_of(rep, programs, special, root, condition)
        problems = ["block: " + b for b in rep.get("blocked") or []]
        reads = sum(1 for l in lines if re.match(r"^\d+\s+(<\.\.\. )?p?readv?\d*\W", l))
        if rep.get("timed_out") and not light and not problems and reads > 5000:
            again = run_one(shcard, verdict, timeout, mode, hostile_git, keep, light=True,
                            condition=condition)
            return dedupe(check_trace(lines, ctx) + again)
        if rep.get("timed_out"):
            waits = "; ".join(rep.get("waits") or [])
            problems.append("timeout: did not finish within %ss%s"
                            % (timeout, " (" + waits + ")" if waits else ""))
        problems += check_trace(lines, ctx)
        if keep:
            print("kept %s" % root, file=sys.stderr)
        return dedupe(problems)
    finally:
        if not keep:
            _reaper.submit(shutil.rmtree, root, True)


def ctx_of(rep, programs, special, root, condition=None):
    return {"programs": programs, "stdin_ino": rep.get("stdin_pipe_ino"), "special": special,
            "root": root, "tmp_writes": bool((condition or {}).get("tmp_writes"))}


def dedupe(problems):
    seen, out = set(), []
    for p in problems:
        key = p[:120]
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def run_modes(shcard, verdict, timeout, modes=DEFAULT_MODES, hostile_git=False, want=None,
              condition=None):
    """Runs the modes in order until one finds problems (of kind want, when given); returns
    the problems, each prefixed with its mode."""
    out = []
    for m in modes:
        probs = run_one(shcard, verdict, timeout, m, hostile_git, condition=condition)
        out += ["(%s) %s" % (m, p) for p in probs]
        if any(want is None or kind_of(p) == want for p in probs):
            break
    return out


def kind_of(problem):
    """"(mode) KIND: detail" or "KIND: detail" -> KIND."""
    return problem.split(") ", 1)[-1].split(":", 1)[0]


# ------------------------------------------------------------------ the trace

SYSCALL_RE = re.compile(r"^(\w+)\((.*)$", re.S)
RESULT_RE = re.compile(r"\)\s+=\s+(-?\d+|\?|0x[0-9a-f]+)(?:<(.*)>)?(?:\s+(E[A-Z0-9]+)\s.*)?$")
STR_RE = re.compile(r'"((?:[^"\\]|\\.)*)"')
FD_RE = re.compile(r"^(\d+)<(.*?)>(?:,|\))")


def unescape(s):
    try:
        return s.encode("latin-1", "backslashreplace").decode("unicode_escape").encode(
            "latin-1").decode("utf-8", "replace")
    except (UnicodeDecodeError, UnicodeEncodeError):
        return s


def syscalls(lines):
    """Yields (pid, name, args, result, annotation, errno, finished) from an strace -f -y
    trace, joining "<unfinished ...>" with "<... resumed>"; calls still unfinished at the end
    (the process was killed inside them) come last with finished False."""
    pending = {}
    for line in lines:
        m = re.match(r"^(\d+)\s+(.*)$", line)
        if not m:
            continue
        pid, rest = int(m.group(1)), m.group(2)
        if rest.startswith("+++") or rest.startswith("---"):
            continue
        if rest.endswith("<unfinished ...>"):
            pending[pid] = rest[:-len("<unfinished ...>")].rstrip()
            continue
        r = re.match(r"^<\.\.\. (\w+) resumed>(.*)$", rest)
        if r:
            rest = pending.pop(pid, r.group(1) + "(") + r.group(2)
        yield (pid,) + parse_call(rest) + (True,)
    for pid, rest in pending.items():
        yield (pid,) + parse_call(rest + ")") + (False,)


def parse_call(text):
    m = SYSCALL_RE.match(text)
    if not m:
        return ("?", text, None, None, None)
    name, body = m.group(1), m.group(2)
    r = RESULT_RE.search(body)
    if r:
        return (name, body[:r.start()], r.group(1), r.group(2), r.group(3))
    return (name, body.rstrip(")"), None, None, None)


def terminal_path(p):
    return bool(p) and (p == "/dev/tty" or p.startswith("/dev/pts/") or p == "/dev/console"
                        or re.match(r"^/dev/tty\d+$", p) is not None)


def private_tmp(path, root):
    """A file in the sandbox's private /tmp (not the scratch directory, which lives under the
    host's /tmp at the same path)."""
    return path.startswith("/tmp/") and not (path + "/").startswith(root + "/")


def check_trace(lines, ctx):
    problems = []
    budget = collections.Counter(ctx["programs"])
    stdin_pipe = "pipe:[%s]" % ctx["stdin_ino"] if ctx.get("stdin_ino") else None
    special = ctx.get("special") or set()
    root = ctx.get("root") or "/nonexistent"
    prog = {}
    first = None
    shell_started = False
    failed_named = set()

    def stdin_like(ann):
        if ann and stdin_pipe and ann == stdin_pipe:
            return "standard input (the open pipe)"
        if terminal_path(ann):
            return "the terminal (%s)" % ann
        return None

    for pid, name, args, result, ann, err, finished in syscalls(lines):
        if first is None:
            first = pid
            prog[pid] = "bash"
        who = prog.get(pid, "?")
        shown = ("%s(%s) = %s%s" % (name, args, result, "<%s>" % ann if ann else "")
                 if finished else "%s(%s <blocked>" % (name, args))[:220]
        if name in CLONE_SYSCALLS:
            if result and result.isdigit():
                prog[int(result)] = who
            continue
        if name in EXEC_SYSCALLS:
            sm = STR_RE.search(args)
            path = unescape(sm.group(1)) if sm else "?"
            base = os.path.basename(path)
            if result == "0":
                prog[pid] = base
                if not shell_started:
                    shell_started = True  # the first exec is the oracle's own bash
                    continue
                if (path.startswith(root + "/work/") or path.startswith(root + "/remote/")
                        or (not path.startswith("/") and "/" in path)):
                    problems.append("exec: executes a program from the scratch directory: "
                                    + shown)
                elif budget[base] > 0:
                    budget[base] -= 1
                    for a in EXEC_ALIASES.get(base, []):
                        budget[a] += 1
                else:
                    problems.append("exec: executes %s: %s" % (base, shown))
            elif (base not in ctx["programs"] and base not in failed_named
                  and not any(base in EXEC_ALIASES.get(n, []) for n in ctx["programs"])):
                failed_named.add(base)
                problems.append("exec: tries to execute %s: %s" % (base, shown))
            continue
        if name in READ_SYSCALLS:
            fm = FD_RE.match(args)
            ann_fd = fm.group(2) if fm else None
            kind = stdin_like(ann_fd)
            if kind and who not in ("?",):
                tag = "stdin" if "standard input" in kind or fm.group(1) == "0" else "tty"
                problems.append("%s: %s reads %s: %s" % (tag, who, kind, shown))
            elif fm and fm.group(1) == "0" and ann_fd == "/dev/null" and who not in SHELLS:
                problems.append("stdin: %s reads standard input (/dev/null here): %s" % (who, shown))
            elif ann_fd and ann_fd in special:
                problems.append("fifo: %s reads %s: %s" % (who, ann_fd, shown))
            continue
        if name in OPEN_SYSCALLS:
            sm = STR_RE.search(args)
            target = unescape(sm.group(1)) if sm else "?"
            flags = args[sm.end():] if sm else args
            real = ann or ""
            if any(fl in flags for fl in WRITE_FLAGS):
                if ctx.get("tmp_writes") and private_tmp(real or target, root):
                    continue  # the condition's accepted consequence: temporary files
                ok_tty = terminal_path(target) or terminal_path(real)
                if not (target == "/dev/null" or real == "/dev/null" or (ok_tty and who in SHELLS)):
                    problems.append("write: %s opens for writing: %s" % (who, shown))
                    continue
            if who in SHELLS and (terminal_path(target) or terminal_path(real)):
                continue  # the shell's own probe for its terminal (reads of it are still seen)
            by_name = re.match(r"^/(dev/(stdin|fd/0)|proc/(self|thread-self|\d+)/fd/0)$", target)
            kind = stdin_like(real)
            if by_name or (kind and "standard input" in kind):
                problems.append("stdin: %s opens standard input by name: %s" % (who, shown))
            elif terminal_path(target) or terminal_path(real):
                problems.append("tty: %s opens the terminal: %s" % (who, shown))
            elif real in special or os.path.normpath(os.path.join(root, "work", target)) in special:
                problems.append("fifo: %s opens %s: %s" % (who, real or target, shown))
            elif real.startswith("/dev/") and real not in DEV_OK:
                problems.append("device: %s opens %s: %s" % (who, real, shown))
            elif (real or target).startswith("/proc/") and re.match(
                    r"^/proc/(self|thread-self|\d+)/", real or target) and not PROC_OK.match(real or target):
                if result is not None and result.startswith("-"):
                    continue  # a failed probe of its own process
                problems.append("proc: %s opens %s: %s" % (who, real or target, shown))
            continue
        if name in NET_SYSCALLS:
            if name == "socket":
                if not args.startswith("AF_UNIX") and not args.startswith("AF_LOCAL"):
                    problems.append("net: %s creates a socket: %s" % (who, shown))
            elif name == "connect":
                sm = re.search(r'sun_path="([^"]*)"', args)
                if not (sm and sm.group(1) in NAME_SERVICE):
                    problems.append("net: %s connects: %s" % (who, shown))
            elif name == "bind":
                problems.append("write: %s binds a socket: %s" % (who, shown))
            continue
        if name in WRITE_SYSCALLS:
            paths = [unescape(m) for m in re.findall(r'"((?:[^"\\]|\\.)*)"', args)]
            if ctx.get("tmp_writes") and paths and all(private_tmp(x, root) for x in paths):
                continue
            problems.append("write: %s %s: %s" % (who, name, shown))
    return problems


# ------------------------------------------------------------------ driver

def load(files):
    rows = []
    srcs = [open(f) for f in files] if files else [sys.stdin]
    for src in srcs:
        for line in src:
            line = line.strip()
            if line:
                rows.append(json.loads(line))
    return rows


def record_finding(path, row, verdict, problems, source):
    with open(path, "a") as f:
        f.write(json.dumps({"cmd": row["cmd"], "kind": verdict["kind"], "title": verdict["title"],
                            "class": row.get("class"), "source": source,
                            "violations": problems[:6]}, ensure_ascii=False) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shcard", default=os.environ.get("SHCARD", "./shcard"))
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--modes", default=",".join(DEFAULT_MODES))
    ap.add_argument("--expect-violations", action="store_true")
    ap.add_argument("--force-run", action="store_true",
                    help="run every command whatever its label (negative controls)")
    ap.add_argument("--hostile-git", action="store_true")
    ap.add_argument("--findings", help="append every violation as a JSON line to this file")
    ap.add_argument("--source", default="oracle")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directories")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("ORACLE_JOBS", "2")),
                    help="sandboxes run at once (default 2)")
    ap.add_argument("--show", action="store_true", help="with --expect-violations: print what flagged each")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    modes = [m for m in a.modes.split(",") if m]
    for m in modes:
        if m not in MODE_ENV:
            sys.exit("oracle: unknown mode " + m)
    rows = load(a.files)
    verdicts = classify_rows(a.shcard, rows)
    seen = set()
    jobs = []
    skipped = 0
    for row, v in zip(rows, verdicts):
        c = row["cmd"]
        v = dict(v, cmd=c)
        if v.get("kind") == "terminal" and not a.force_run:
            skipped += 1
            continue
        if a.force_run and v.get("kind") == "terminal":
            v = dict(v, kind="read", script=c, wrapped=False)
        if not a.expect_violations:
            # what bash runs (`bash -lc 'cat f'` is `cat f` again), where
            key = (plan(a.shcard, v)[0], tuple(modes_for(row, modes)))
            if key in seen:
                continue
            seen.add(key)
        jobs.append((row, v))

    def work(job):
        row, v = job
        if os.environ.get("ORACLE_DEBUG"):
            print("run: " + row["cmd"], file=sys.stderr, flush=True)
        want = row.get("detects") if a.expect_violations else None
        return run_modes(a.shcard, v, a.timeout, modes_for(row, modes),
                         hostile_git=a.hostile_git or row.get("hostile_git", False), want=want)

    bad = 0
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        for (row, v), problems in zip(jobs, pool.map(work, jobs)):
            c = row["cmd"]
            if a.expect_violations:
                want = row.get("detects")
                hit = [p for p in problems if want is None or kind_of(p) == want]
                if not hit:
                    bad += 1
                    print("NOT FLAGGED%s: %s%s" % (" as " + want if want else "", c,
                                                 " (got: %s)" % "; ".join(problems)[:300] if problems else ""))
                elif a.show:
                    print("flagged: %s\n    %s" % (c, hit[0][:300]))
            elif problems:
                bad += 1
                print("VIOLATION: %s (%s: %s)" % (c, v["kind"], v["title"]))
                for pr in problems[:6]:
                    print("    " + pr)
                if a.findings:
                    record_finding(a.findings, row, v, problems, a.source)
            sys.stdout.flush()
    run = len(jobs)
    label = "not flagged" if a.expect_violations else "violations"
    print("oracle: %d run, %d %s, %d skipped" % (run, bad, label, skipped))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
