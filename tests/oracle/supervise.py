#!/usr/bin/env python3
"""The oracle's supervisor, run INSIDE the bubblewrap sandbox (tests/oracle.py starts it): it gives
the traced command the standard input and terminal of the chosen mode, keeps that input open
and silent for the whole run, watches the sandbox's processes for a read that can only block, and
writes a JSON report.

Modes (the command's fds 0, 1, 2 and controlling terminal):
  pipe   stdin: a pipe whose write end this process holds open and never writes (an open,
         silent pipe, as in a pipeline that has not produced anything yet); stdout and stderr:
         pipes drained here; no controlling terminal.
  tty    stdin, stdout, stderr: the slave of a fresh pseudo-terminal that is also the controlling
         terminal; the master is held open, drained, and never written (a terminal nobody types
         into: a read of it never returns, never sees EOF).
  exec   as shcard's executor (src/exec/pty_spawn.c): stdin /dev/null, stdout and stderr the
         pty slave, the pty the controlling terminal.

Watchdog: every 20 ms each task of each process in the sandbox (its own /proc) that sleeps in
read/readv/pread on the held stdin pipe, on a terminal (/dev/tty, /dev/pts/N), or in open() of
a FIFO, is reported in "blocked" and ends the run at once: nothing will ever write to them.  So
does a process holding /dev/zero or /dev/full open (at once) or /dev/urandom or /dev/random (for
about a second): reading them never ends.  At the time limit the same snapshot says where every
process was stuck.

Usage: supervise.py MODE TIMEOUT REPORT.json -- COMMAND...
"""
import fcntl
import json
import os
import select
import signal
import stat
import sys
import termios
import time

# x86_64 syscall numbers (the watchdog reads /proc/PID/syscall)
READS = {0: "read", 19: "readv", 17: "pread64", 295: "preadv", 327: "preadv2"}
OPENS = {2: "open", 257: "openat", 437: "openat2"}
NAMES = {7: "poll", 23: "select", 270: "pselect6", 271: "ppoll", 232: "epoll_wait",
         281: "epoll_pwait", 61: "wait4", 202: "futex", 35: "nanosleep", 230: "clock_nanosleep",
         34: "pause", 45: "recvfrom", 47: "recvmsg", 43: "accept", 288: "accept4", 42: "connect"}
NAMES.update(READS)
NAMES.update(OPENS)
# devices a read of which never reaches an end
ENDLESS = {"/dev/zero", "/dev/full", "/dev/urandom", "/dev/random"}
AT_FDCWD = 0xFFFFFF9C  # -100 as the low 32 bits (/proc/PID/syscall prints it so)


def is_terminal(st):
    if not stat.S_ISCHR(st.st_mode):
        return False
    major = os.major(st.st_rdev)
    # /dev/pts/N, /dev/tty, /dev/console, /dev/ptmx (a new master: nobody writes its slave), ttyN
    return 136 <= major <= 143 or (major, os.minor(st.st_rdev)) in ((5, 0), (5, 1), (5, 2)) or major == 4


def read_cstr(pid, addr):
    try:
        with open("/proc/%d/mem" % pid, "rb", buffering=0) as f:
            f.seek(addr)
            data = f.read(4096)
    except (OSError, ValueError, OverflowError):
        return None
    return data.split(b"\0", 1)[0].decode("utf-8", "replace")


def task_state(pid, tid):
    base = "/proc/%d/task/%d/" % (pid, tid)
    try:
        with open(base + "stat") as f:
            st = f.read()
        state = st[st.rindex(")") + 2]
        comm = st[st.index("(") + 1:st.rindex(")")]
        with open(base + "syscall") as f:
            sc = f.read().split()
    except (OSError, ValueError):
        return None
    return state, comm, sc


def comm_of(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return "?"


def stdin_kind(st, stdin_id):
    if stdin_id and stat.S_ISFIFO(st.st_mode) and (st.st_dev, st.st_ino) == stdin_id:
        return "standard input (the open pipe)"
    if is_terminal(st):
        return "the terminal"
    return None


def snapshot(skip, stdin_id, held, everything=False):
    """Returns (fatal, lines): fatal lines are reads that can never return."""
    fatal, lines = [], []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        if pid in skip:
            continue
        try:
            tids = [int(t) for t in os.listdir("/proc/%d/task" % pid)]
            fds = os.listdir("/proc/%d/fd" % pid)
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except OSError:
                continue
            if target in ENDLESS:
                key = (pid, fd, target)
                held[key] = held.get(key, 0) + 1
                # /dev/zero at once; the random devices once held for a while (a tool may read
                # a few bytes of seed from them)
                if target in ("/dev/zero", "/dev/full") or held[key] >= 40:
                    fatal.append("%s (%d) holds %s open (a read of it never ends)"
                                 % (comm_of(pid), pid, target))
        for tid in tids:
            ts = task_state(pid, tid)
            if not ts:
                continue
            state, comm, sc = ts
            if state not in "SD" or not sc or sc[0] in ("running", "-1"):
                continue
            try:
                nr = int(sc[0])
                args = [int(a, 16) for a in sc[1:7]]
            except ValueError:
                continue
            what = None
            if nr in READS:
                try:
                    st = os.stat("/proc/%d/fd/%d" % (pid, args[0]))
                except OSError:
                    st = None
                kind = st and stdin_kind(st, stdin_id)
                if kind:
                    what = "%s (%s) blocks in %s of %s (fd %d)" % (comm, pid, READS[nr], kind, args[0])
                elif st and stat.S_ISFIFO(st.st_mode):
                    try:
                        target = os.readlink("/proc/%d/fd/%d" % (pid, args[0]))
                    except OSError:
                        target = "pipe:"
                    if not target.startswith("pipe:"):  # a named FIFO: nobody will write to it
                        what = "%s (%s) blocks in %s of FIFO %s" % (comm, pid, READS[nr], target)
            elif nr in OPENS:
                dirfd, ptr = (AT_FDCWD, args[0]) if nr == 2 else (args[0], args[1])
                path = read_cstr(pid, ptr)
                if path is not None:
                    if path.startswith("/"):
                        full = "/proc/%d/root%s" % (pid, path)
                    elif dirfd & 0xFFFFFFFF == AT_FDCWD:
                        full = "/proc/%d/cwd/%s" % (pid, path)
                    else:
                        full = "/proc/%d/fd/%d/%s" % (pid, dirfd & 0xFFFFFFFF, path)
                    try:
                        st = os.stat(full)
                    except OSError:
                        st = None
                    if st and stat.S_ISFIFO(st.st_mode):
                        what = "%s (%s) blocks in %s of FIFO %s" % (comm, pid, OPENS[nr], path)
            if what:
                fatal.append(what)
            elif everything:
                lines.append("%s (%s) waits in %s" % (comm, pid, NAMES.get(nr, "syscall %d" % nr)))
    return fatal, lines


def main():
    mode, limit, report_path = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    assert sys.argv[4] == "--"
    cmd = sys.argv[5:]
    me = os.getpid()
    keep = []  # fds held open for the whole run (the silent input)
    drain = []
    stdin_id = ()
    if mode == "pipe":
        r, w = os.pipe()
        keep.append(w)
        st = os.fstat(r)
        stdin_id = (st.st_dev, st.st_ino)
        out_r, out_w = os.pipe()
        drain.append(out_r)
        child_fds = (r, out_w, out_w)
        master = None
    elif mode in ("tty", "exec"):
        master, slave = os.openpty()
        drain.append(master)
        if mode == "tty":
            child_fds = (slave, slave, slave)
        else:
            child_fds = (os.open("/dev/null", os.O_RDONLY), slave, slave)
    else:
        sys.exit("supervise: unknown mode " + mode)
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            if master is not None:
                fcntl.ioctl(child_fds[1], termios.TIOCSCTTY, 0)
            for i, fd in enumerate(child_fds):
                os.dup2(fd, i)
            os.closerange(3, 1 << 16)
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    for fd in set(child_fds):
        os.close(fd)
    skip = {me, pid}  # pid is strace: the tracer, not the command
    t0 = time.monotonic()
    output = bytearray()
    fatal, waits = [], []
    held = {}  # (pid, fd, device) -> polls seen open
    status = None
    timed_out = False
    while True:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
            break
        left = limit - (time.monotonic() - t0)
        if left <= 0:
            fatal, waits = snapshot(skip, stdin_id, held, everything=True)
            timed_out = True
            break
        rd, _, _ = select.select(drain, [], [], min(0.02, left))
        for fd in rd:
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: the pty slave is closed
                data = b""
            if not data:
                drain.remove(fd)
            elif len(output) < 1 << 16:
                output += data
        fatal, _ = snapshot(skip, stdin_id, held)
        if fatal:
            break
    if status is None:
        # kill the command's processes first so that strace writes its trace out, then strace
        for _ in range(50):
            victims = [int(n) for n in os.listdir("/proc") if n.isdigit() and int(n) not in skip]
            victims = [v for v in victims if v != 1]
            for v in victims:
                try:
                    os.kill(v, signal.SIGKILL)
                except OSError:
                    pass
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
                break
            time.sleep(0.02)
        if status is None:
            os.kill(pid, signal.SIGKILL)
            status = os.waitpid(pid, 0)[1]
    for fd in drain:
        try:
            while len(output) < 1 << 16:
                if not select.select([fd], [], [], 0)[0]:
                    break
                data = os.read(fd, 65536)
                if not data:
                    break
                output += data
        except OSError:
            pass
    rep = {
        "mode": mode,
        "exit": os.waitstatus_to_exitcode(status) if status is not None else None,
        "timed_out": timed_out,
        "blocked": fatal,
        "waits": waits,
        "seconds": round(time.monotonic() - t0, 3),
        "stdin_pipe_ino": stdin_id[1] if stdin_id else None,
        "output": output[-2000:].decode("utf-8", "replace"),
    }
    with open(report_path, "w") as f:
        json.dump(rep, f)
    for fd in keep:
        os.close(fd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
