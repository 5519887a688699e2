#!/usr/bin/env python3
"""The reliability suite: drives the real `shcard acp` binary as a hostile client and a hostile
environment would (issue 11).  Raw NDJSON over pipes, no SDK: the point is to send what a
well-behaved client never would, and to stop reading, close pipes and send signals at will.

Every process an agent starts inherits SHCARD_RELIAB_MARK=<unique>; "no orphan" means no live
process (zombies excluded) anywhere on the machine carries that mark in its environment.

  python3 tests/reliability.py                 # every case; prints "N passed, N failed"
  python3 tests/reliability.py signals mention # chosen cases
  RELIAB_JOBS=3 (concurrent cases), RELIAB_STALL_S=30 (the stalled-client pause)

Cases run concurrently in a few threads (most of them wait on processes); the flood cases take
their own lane so that their CPU use does not starve the timing of the others.
"""
import json
import os
import re
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import uuid

SHCARD = os.environ.get("SHCARD") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "shcard")
SAN = os.environ.get("SAN", "")
STALL_S = float(os.environ.get("RELIAB_STALL_S", "30"))
# Peak RSS bound for the agent (issue 11, item 3).  Sanitizer builds carry shadow memory and a
# quarantine: the bound there is looser, but still a bound.
RSS_LIMIT_MB = 64 if not SAN else 320
MARK_VAR = "SHCARD_RELIAB_MARK"

ZED_CAPS = {
    "fs": {"readTextFile": True, "writeTextFile": True},
    "terminal": True,
    "_meta": {"terminal_output": True, "terminal-auth": True},
}
PLAIN_CAPS = {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}

_print_lock = threading.Lock()


class Results:
    def __init__(self):
        self.lock = threading.Lock()
        self.passed = 0
        self.failed = 0

    def check(self, cond, name, detail=None):
        with self.lock:
            if cond:
                self.passed += 1
            else:
                self.failed += 1
                d = "" if detail is None else ": " + (detail if isinstance(detail, str) else json.dumps(detail, default=str))[:1200]
                with _print_lock:
                    print(f"FAIL: {name}{d}", flush=True)
        return cond

    def note(self, msg):
        with _print_lock:
            print(msg, flush=True)


R = Results()


# ---------------------------------------------------------------- processes

def proc_state(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            s = f.read()
        return chr(s[s.rindex(b")") + 2])
    except (OSError, ValueError):
        return None


def alive(pid):
    st = proc_state(pid)
    return st is not None and st not in "ZX"


def marked(mark, exclude=()):
    """Live processes whose environment carries the mark."""
    needle = f"{MARK_VAR}={mark}".encode()
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        pid = int(d)
        if pid in exclude:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read()
        except OSError:
            continue
        if needle in env.split(b"\0") and alive(pid):
            out.append(pid)
    return out


def describe(pids):
    out = []
    for p in pids:
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            out.append(f"{p}:{cmd}")
        except OSError:
            out.append(str(p))
    return out


def wait_until(fn, timeout, step=0.05):
    deadline = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.monotonic() > deadline:
            return v
        time.sleep(step)


def kill_marked(mark):
    """Cleanup after a failed case: never leave our own test processes behind."""
    for _ in range(5):
        pids = marked(mark)
        if not pids:
            return
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.1)


def rss_kb(pid, field="VmRSS"):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def fd_count(pid):
    """Open descriptors, not counting session store files (a live session holds its file
    open, locked, from its first record on: that is by design, not a leak)."""
    try:
        n = 0
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                if "/shcard/sessions/sess_" in os.readlink(f"/proc/{pid}/fd/{fd}"):
                    continue
            except OSError:
                pass
            n += 1
        return n
    except OSError:
        return -1


# ---------------------------------------------------------------- the agent

class Agent:
    """`shcard acp` on pipes.  A reader thread parses every frame (unless paused with
    stop_reading()); terminal_output data is counted per terminal instead of being kept."""

    def __init__(self, args=(), cwd=None, env=None, new_session=False, stderr=None, log_level=None):
        self.mark = uuid.uuid4().hex
        self.dir = tempfile.mkdtemp(prefix="shc-reliab-")
        self.cwd = cwd or self.dir
        e = dict(os.environ)
        e[MARK_VAR] = self.mark
        e["XDG_STATE_HOME"] = os.path.join(self.dir, "state")  # a session store of its own
        if SAN:
            # bounded quarantine so that the RSS bound means something under ASan
            e.setdefault("ASAN_OPTIONS", "quarantine_size_mb=8:malloc_context_size=5:detect_leaks=1")
        e.update(env or {})
        argv = [SHCARD, "acp", *args]
        if log_level:
            argv += ["--log-level", log_level]
        self.err_path = os.path.join(self.dir, "stderr")
        self.errf = open(self.err_path, "wb") if stderr is None else None
        self.p = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.errf if stderr is None else stderr,
            cwd=self.dir, env=e, start_new_session=new_session)
        self.pid = self.p.pid
        os.set_blocking(self.p.stdin.fileno(), False)
        self.frames = []          # (seq, obj, raw_len)
        self.raw_lines = []       # raw bytes of lines, when keep_raw
        self.keep_raw = False
        self.tout = {}            # (session id, terminal id) -> bytes of terminal_output data (UTF-8)
        self.tout_tail = {}       # (session id, terminal id) -> the last 8 KiB of that output
        self.tout_frames = 0
        self.bytes_read = 0
        self.cv = threading.Condition()
        self.reading = threading.Event()
        self.reading.set()
        self.eof = False
        self.next_id = 100
        self.bad_lines = []
        self.t = threading.Thread(target=self._reader, daemon=True)
        self.t.start()

    # -- reading
    def _reader(self):
        fd = self.p.stdout.fileno()
        buf = b""
        while True:
            self.reading.wait()
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                break
            self.bytes_read += len(chunk)
            buf += chunk
            if b"\n" not in chunk:
                continue
            *lines, buf = buf.split(b"\n")
            parsed = []
            for line in lines:
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except ValueError:
                    self.bad_lines.append(line[:300])
                    continue
                u = obj.get("params", {}).get("update") if isinstance(obj.get("params"), dict) else None
                meta = u.get("_meta") if isinstance(u, dict) else None
                if isinstance(meta, dict) and "terminal_output" in meta and u.get("sessionUpdate") == "tool_call_update" and len(meta) == 1 and "status" not in u:
                    to = meta["terminal_output"]
                    tid = (obj["params"].get("sessionId"), to.get("terminal_id"))
                    data = to.get("data", "")
                    self.tout[tid] = self.tout.get(tid, 0) + len(data.encode())
                    self.tout_tail[tid] = (self.tout_tail.get(tid, "") + data)[-8192:]
                    self.tout_frames += 1
                    # keep a stub so that ordering checks still see it
                    obj = {"_tout": tid, "sessionId": obj["params"].get("sessionId")}
                if self.keep_raw:
                    self.raw_lines.append(line)
                parsed.append(obj)
            with self.cv:
                for obj in parsed:
                    self.frames.append(obj)
                self.cv.notify_all()
        with self.cv:
            self.eof = True
            self.cv.notify_all()

    def stop_reading(self):
        self.reading.clear()

    def resume_reading(self):
        self.reading.set()

    def wait_frame(self, pred, timeout=10.0, start=0):
        """First frame (index >= start) matching pred, or None."""
        deadline = time.monotonic() + timeout
        i = start
        with self.cv:
            while True:
                while i < len(self.frames):
                    f = self.frames[i]
                    i += 1
                    try:
                        if pred(f):
                            return f
                    except Exception:
                        pass
                left = deadline - time.monotonic()
                if left <= 0 or self.eof:
                    return None
                self.cv.wait(min(left, 0.2))

    def index_of(self, pred):
        with self.cv:
            for i, f in enumerate(self.frames):
                try:
                    if pred(f):
                        return i
                except Exception:
                    pass
        return -1

    def response(self, rid, timeout=10.0):
        return self.wait_frame(lambda f: "method" not in f and f.get("id") == rid and ("result" in f or "error" in f), timeout)

    def responses(self, rid):
        with self.cv:
            return [f for f in self.frames if "method" not in f and f.get("id") == rid and ("result" in f or "error" in f)]

    # -- writing
    def send_bytes(self, data, timeout=10.0):
        fd = self.p.stdin.fileno()
        deadline = time.monotonic() + timeout
        view = memoryview(data)
        while view:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                _, w, _ = select.select([], [fd], [], min(left, 0.5))
            except (OSError, ValueError):
                return False
            if not w:
                continue
            try:
                n = os.write(fd, view)
            except BlockingIOError:
                continue
            except (BrokenPipeError, OSError):
                return False
            view = view[n:]
        return True

    def send(self, obj, timeout=10.0):
        return self.send_bytes((json.dumps(obj, ensure_ascii=False) + "\n").encode(), timeout)

    def request(self, method, params=None, rid=None):
        if rid is None:
            self.next_id += 1
            rid = self.next_id
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return rid

    def call(self, method, params=None, timeout=10.0):
        return self.response(self.request(method, params), timeout)

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def init(self, caps=ZED_CAPS):
        r = self.call("initialize", {"protocolVersion": 1, "clientCapabilities": caps})
        return r is not None and "result" in r

    def new_session(self, cwd=None):
        r = self.call("session/new", {"cwd": cwd or self.cwd, "mcpServers": []})
        return r["result"]["sessionId"] if r and "result" in r else None

    def prompt(self, sid, text_or_blocks):
        blocks = [{"type": "text", "text": text_or_blocks}] if isinstance(text_or_blocks, str) else text_or_blocks
        return self.request("session/prompt", {"sessionId": sid, "prompt": blocks})

    def cancel(self, sid):
        self.notify("session/cancel", {"sessionId": sid})

    def close_stdin(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass

    # -- inspection
    def updates(self, sid=None):
        with self.cv:
            return [f["params"]["update"] for f in self.frames
                    if f.get("method") == "session/update" and (sid is None or f["params"].get("sessionId") == sid)]

    def tool_calls(self, sid=None):
        return [u for u in self.updates(sid) if u.get("sessionUpdate") == "tool_call"]

    def finals(self, sid=None):
        return [u for u in self.updates(sid) if u.get("sessionUpdate") == "tool_call_update" and u.get("status") in ("completed", "failed")]

    def wait_exit(self, timeout):
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stderr_text(self):
        try:
            with open(self.err_path, "rb") as f:
                return f.read()
        except OSError:
            return b""

    def close(self):
        """Cleanup, whatever state the case left the agent in."""
        if self.p.poll() is None:
            self.p.kill()
        self.reading.set()
        try:
            self.p.wait(5)
        except subprocess.TimeoutExpired:
            pass
        kill_marked(self.mark)
        for f in (self.p.stdin, self.p.stdout):
            try:
                f.close()
            except OSError:
                pass
        if self.errf:
            self.errf.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def wait_marked(a, n, timeout=5.0):
    """Wait until at least n marked processes (the agent excluded) run."""
    return wait_until(lambda: len(marked(a.mark, exclude=(a.pid,))) >= n, timeout)


# Commands that try every way to outlive their parent: a new session, nohup, a subshell that
# ignores SIGTERM and SIGHUP, a double-forked daemon; and a foreground that keeps the call running.
ESCAPERS = ("setsid sleep 300 & nohup sleep 301 >/dev/null 2>&1 & "
            "(trap '' TERM HUP INT QUIT; exec sleep 302) & "
            "( (trap '' TERM HUP; setsid sleep 303 & ) & ) ; sleep 304")
ESCAPER_COUNT = 5  # five sleeps (bash execs the last one)


def frame_is_update_for(sid):
    return lambda f: f.get("method") == "session/update" and f["params"].get("sessionId") == sid


# ---------------------------------------------------------------- cases

def case_signals():
    """Item 1: every catchable terminating signal runs the one teardown."""
    sigs = ["SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGPIPE", "SIGVTALRM", "SIGPROF",
            "SIGXCPU", "SIGXFSZ", "SIGIO", "SIGPWR", "SIGSTKFLT", "SIGTERM", "SIGINT",
            "SIGRTMIN", "SIGRTMIN+7", "SIGRTMAX"]

    def signo(name):
        if name.startswith("SIGRTMIN+"):
            return signal.SIGRTMIN + int(name.split("+")[1])
        return int(getattr(signal, name))

    def one(name):
        a = Agent()
        try:
            a.init()
            sid = a.new_session()
            pid = a.prompt(sid, ESCAPERS)
            if not R.check(wait_marked(a, ESCAPER_COUNT), f"{name}: the escapers run", describe(marked(a.mark))):
                return
            t0 = time.monotonic()
            os.kill(a.pid, signo(name))
            resp = a.response(pid, 8)
            R.check(resp is not None and resp.get("result", {}).get("stopReason") == "cancelled",
                    f"{name}: the prompt is answered cancelled", resp)
            rc = a.wait_exit(8)
            R.check(rc == 0, f"{name}: the agent tears down and exits 0", rc)
            left = wait_until(lambda: not marked(a.mark), 1.0) or marked(a.mark)
            R.check(left is True or not left, f"{name}: nothing outlives the agent", describe(left if left is not True else []))
            R.check(time.monotonic() - t0 < 8, f"{name}: within 8 s", time.monotonic() - t0)
        finally:
            a.close()

    run_parallel([lambda n=n: one(n) for n in sigs], 4)


def case_signal_teardown():
    """Signals arriving while the teardown already runs: still one teardown, one answer."""
    a = Agent()
    try:
        a.init()
        sid = a.new_session()
        pid = a.prompt(sid, "trap '' TERM HUP; " + ESCAPERS)
        if not R.check(wait_marked(a, ESCAPER_COUNT), "during teardown: escapers run"):
            return
        a.close_stdin()
        time.sleep(0.05)
        for s in (signal.SIGHUP, signal.SIGTERM, signal.SIGUSR1, signal.SIGINT, signal.SIGQUIT):
            os.kill(a.pid, s)
            time.sleep(0.02)
        rc = a.wait_exit(10)
        R.check(rc == 0, "during teardown: exit 0", rc)
        a.t.join(3)
        R.check(len(a.responses(pid)) == 1, "during teardown: the prompt is answered exactly once", a.responses(pid))
        left = wait_until(lambda: not marked(a.mark), 1.0)
        R.check(left, "during teardown: nothing outlives the agent", describe(marked(a.mark)))
    finally:
        a.close()


def case_stderr_closed():
    """A broken stderr (SIGPIPE on every log line) must not end the agent."""
    a = Agent(stderr=subprocess.PIPE, log_level="debug")
    try:
        a.p.stderr.close()
        a.init()
        sid = a.new_session()
        pid = a.prompt(sid, "echo one\necho two")
        resp = a.response(pid, 10)
        R.check(resp is not None and resp.get("result", {}).get("stopReason") == "end_turn",
                "stderr closed: the prompt still completes", resp)
        R.check(a.p.poll() is None, "stderr closed: the agent is still running")
        a.close_stdin()
        R.check(a.wait_exit(8) == 0, "stderr closed: clean exit on stdin EOF")
    finally:
        a.close()


def case_sigkill():
    """Item 2: kill -9 of the agent leaves nothing running 5 s later."""
    for label, new_session, group in (("kill -9 agent", False, False), ("kill -9 agent's group", True, True)):
        a = Agent(new_session=new_session)
        try:
            a.init()
            s1 = a.new_session()
            s2 = a.new_session()
            a.prompt(s1, ESCAPERS)
            a.prompt(s2, "trap '' TERM HUP INT; while :; do sleep 1; done")
            if not R.check(wait_marked(a, ESCAPER_COUNT + 2), f"{label}: commands run", describe(marked(a.mark))):
                continue
            t0 = time.monotonic()
            if group:
                os.killpg(a.pid, signal.SIGKILL)
            else:
                os.kill(a.pid, signal.SIGKILL)
            a.wait_exit(5)
            gone = wait_until(lambda: not marked(a.mark), 5.0, 0.01)
            dt = time.monotonic() - t0
            R.check(gone, f"{label}: no descendant alive 5 s later", describe(marked(a.mark)))
            if gone:
                R.note(f"measure: {label}: everything gone {dt * 1000:.0f} ms after SIGKILL")
        finally:
            a.close()


def case_stall_flood():
    """Item 3: several floods (several sessions, two commands in one prompt) while the client
    stops reading for STALL_S seconds.  Peak RSS stays bounded, cancel works while paused, and
    after the client reads again every byte arrives."""
    n_bytes = 20_000_000
    flood = f"head -c {n_bytes} /dev/zero | tr '\\0' x"
    a = Agent()
    try:
        a.init()
        sids = [a.new_session() for _ in range(5)]
        rss0 = rss_kb(a.pid)
        fds0 = fd_count(a.pid)
        a.stop_reading()
        pids = {}
        # session 0 floods forever: it only ends through a cancel sent while the client is not reading
        victim = sids[0]
        for i, sid in enumerate(sids):
            text = "yes" if sid == victim else flood + ("\n" + flood if i == 1 else "")
            pids[sid] = a.prompt(sid, text)
        peak = 0
        t0 = time.monotonic()
        cancelled_at = None
        while time.monotonic() - t0 < STALL_S:
            peak = max(peak, rss_kb(a.pid))
            if cancelled_at is None and time.monotonic() - t0 > STALL_S / 3:
                # a cancel storm for the victim and for unknown sessions while paused
                for _ in range(300):
                    a.cancel(victim)
                    a.cancel("sess_unknown")
                cancelled_at = time.monotonic()
            time.sleep(0.1)
        hwm = rss_kb(a.pid, "VmHWM")
        R.note(f"measure: stalled client {STALL_S:.0f}s, 6 floods of {n_bytes // 1000000} MB in 5 sessions: "
               f"agent RSS start {rss0 / 1024:.1f} MiB, peak {hwm / 1024:.1f} MiB (sampled {peak / 1024:.1f})")
        R.check(hwm < RSS_LIMIT_MB * 1024, f"stall: peak RSS under {RSS_LIMIT_MB} MiB", f"{hwm / 1024:.1f} MiB")
        # the cancelled command must be gone although nobody reads the output
        def yes_procs():
            out = []
            for p in marked(a.mark):
                try:
                    if open(f"/proc/{p}/cmdline", "rb").read().split(b"\0")[0] == b"yes":
                        out.append(p)
                except OSError:
                    pass
            return out
        R.check(wait_until(lambda: not yes_procs(), 5.0), "stall: the cancelled flood is killed while paused",
                describe(yes_procs()))
        a.resume_reading()
        for sid, rid in pids.items():
            resp = a.response(rid, 60)
            want = "cancelled" if sid == victim else "end_turn"
            R.check(resp is not None and resp.get("result", {}).get("stopReason") == want,
                    f"stall: session {sids.index(sid)} answered {want}", resp)
        # every byte of the completed floods arrived, in terminal_output updates
        for i, sid in enumerate(sids):
            if sid == victim:
                continue
            calls = [u["toolCallId"] for u in a.tool_calls(sid)]
            got = sum(a.tout.get((sid, c), 0) for c in calls)
            want = n_bytes * (2 if i == 1 else 1)
            R.check(got == want, f"stall: session {i} received all {want} bytes", got)
        R.check(not a.bad_lines, "stall: every frame is valid JSON", a.bad_lines[:3])
        hwm = rss_kb(a.pid, "VmHWM")
        R.check(hwm < RSS_LIMIT_MB * 1024, f"stall: peak RSS under {RSS_LIMIT_MB} MiB after the drain", f"{hwm / 1024:.1f} MiB")
        R.check(fd_count(a.pid) == fds0, "stall: no fd leaked", (fds0, fd_count(a.pid)))
        a.close_stdin()
        R.check(a.wait_exit(10) == 0, "stall: clean exit")
    finally:
        a.close()


def case_many_sessions():
    """Item 3, the other way round: many sessions, each flooding, client stalled."""
    a = Agent()
    try:
        a.init()
        sids = [a.new_session() for _ in range(24)]
        a.stop_reading()
        pids = [a.prompt(s, "yes | head -c 30000000") for s in sids]
        time.sleep(min(STALL_S, 8))
        hwm = rss_kb(a.pid, "VmHWM")
        R.note(f"measure: 24 sessions flooding, client stalled: agent peak RSS {hwm / 1024:.1f} MiB")
        R.check(hwm < RSS_LIMIT_MB * 1024, f"24 sessions: peak RSS under {RSS_LIMIT_MB} MiB", f"{hwm / 1024:.1f} MiB")
        for s in sids:
            a.cancel(s)
        a.resume_reading()
        answered = [a.response(p, 30) for p in pids]
        R.check(all(r and r.get("result", {}).get("stopReason") in ("cancelled", "end_turn") for r in answered),
                "24 sessions: every prompt answered after cancel", [r for r in answered if not r][:2])
        a.close_stdin()
        R.check(a.wait_exit(15) == 0, "24 sessions: clean exit")
    finally:
        a.close()


def case_command_slots():
    """--max-commands: past the limit a call waits (shown, in progress) and runs when a slot
    frees; a waiting call can be cancelled."""
    a = Agent(["--max-commands", "2"])
    try:
        a.init()
        sids = [a.new_session() for _ in range(4)]
        t0 = time.monotonic()
        pids = [a.prompt(s, "sleep 1; echo slot-done") for s in sids[:3]]
        wait_until(lambda: len(a.tool_calls()) >= 3, 5)
        time.sleep(0.3)
        running = [p for p in marked(a.mark, exclude=(a.pid,)) if open(f"/proc/{p}/cmdline", "rb").read().startswith(b"sleep")]
        R.check(len(running) == 2, "slots: two commands run, the third waits", describe(running))
        pd = a.prompt(sids[3], "echo never-runs")
        wait_until(lambda: len(a.tool_calls(sids[3])) >= 1, 5)
        a.cancel(sids[3])
        rd = a.response(pd, 5)
        R.check(rd is not None and rd.get("result", {}).get("stopReason") == "cancelled", "slots: a waiting call is cancelled", rd)
        rs = [a.response(p, 10) for p in pids]
        dt = time.monotonic() - t0
        R.check(all(r and r.get("result", {}).get("stopReason") == "end_turn" for r in rs), "slots: all three complete", rs)
        R.check(dt >= 1.9, "slots: the third ran after a slot freed", dt)
        R.check(all("slot-done" in json.dumps(a.tout_tail.get((s, "call_1"), "")) for s in sids[:3]), "slots: each printed", a.tout_tail)
    finally:
        a.close()


def case_answer_flood():
    """A client that sends 100,000 initialize requests (30 MB of answers) and reads nothing
    meanwhile: the agent stops reading stdin once 16 MiB of answers wait (the client's writes
    block), memory stays bounded, and every request is answered once the client reads."""
    a = Agent()
    try:
        a.init()
        a.stop_reading()
        n = 100_000
        data = b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":1}}\n'
                        % (1000 + i) for i in range(n))
        done = []
        w = threading.Thread(target=lambda: done.append(a.send_bytes(data, timeout=120)))
        w.start()
        wait_until(lambda: rss_kb(a.pid) > 20 * 1024 or not w.is_alive(), 20)
        time.sleep(1)
        blocked = w.is_alive()
        hwm = rss_kb(a.pid, "VmHWM")
        R.note(f"measure: 100,000 requests, answers unread: agent peak RSS {hwm / 1024:.1f} MiB")
        R.check(blocked, "answer flood: the agent stopped reading stdin (the client's writes block)")
        R.check(hwm < RSS_LIMIT_MB * 1024, f"answer flood: peak RSS under {RSS_LIMIT_MB} MiB", f"{hwm / 1024:.1f} MiB")
        a.resume_reading()
        w.join(120)
        last = a.response(1000 + n - 1, 60)
        R.check(done == [True] and last is not None, "answer flood: every request answered once read", (done, last))
        a.close_stdin()
        rc = a.wait_exit(30)
        R.check(rc == 0, "answer flood: clean exit", rc)
    finally:
        a.close()


def case_run_sigkill():
    """`shcard run` has the same guardian: kill -9 of it leaves nothing."""
    mark = uuid.uuid4().hex
    env = dict(os.environ, **{MARK_VAR: mark})
    p = subprocess.Popen([SHCARD, "run", ESCAPERS], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        ok = wait_until(lambda: len(marked(mark, exclude=(p.pid,))) >= ESCAPER_COUNT, 5)
        R.check(ok, "shcard run: escapers run", describe(marked(mark)))
        p.kill()
        p.wait(5)
        gone = wait_until(lambda: not marked(mark), 5.0, 0.01)
        R.check(gone, "shcard run: kill -9 leaves nothing after 5 s", describe(marked(mark)))
    finally:
        if p.poll() is None:
            p.kill()
        kill_marked(mark)


def case_stdin_closed_unread():
    """Item 4: stdin closes while the client never reads stdout: exit in bounded time."""
    # a) a running flood
    a = Agent()
    try:
        a.init()
        sid = a.new_session()
        a.stop_reading()
        a.prompt(sid, "trap '' TERM HUP; yes")
        wait_marked(a, 2)
        time.sleep(1.5)
        t0 = time.monotonic()
        a.close_stdin()
        rc = a.wait_exit(15)
        dt = time.monotonic() - t0
        R.check(rc is not None, "unread stdout + stdin EOF (flood): the agent exits", dt)
        R.check(rc is not None and dt < 10, "unread stdout + stdin EOF (flood): within 10 s", dt)
        R.check(wait_until(lambda: not marked(a.mark), 2.0), "unread stdout + stdin EOF (flood): no orphan",
                describe(marked(a.mark)))
        if rc is not None:
            R.note(f"measure: stdin closed with stdout unread (flood running): exit after {dt:.2f} s")
    finally:
        a.close()
    # b) only answers queued (thousands of errors nobody reads)
    a = Agent()
    try:
        a.stop_reading()
        a.send_bytes(b"{bad json\n" * 20000, timeout=5)
        time.sleep(0.5)
        t0 = time.monotonic()
        a.close_stdin()
        rc = a.wait_exit(15)
        dt = time.monotonic() - t0
        R.check(rc is not None and dt < 10, "unread stdout + stdin EOF (answers queued): exits within 10 s", dt)
    finally:
        a.close()


MENTION_NAMES = [
    "a$(touch PWN1)",
    "b;touch PWN2",
    "c`touch PWN3`",
    "d'e\"f",
    "g\ntouch PWN4\n",
    "h $HOME *",
    "-n",
    "i\\j",
    "ünï ✓.txt",
    "k\x1b]0;x\x07",
]


def pct(s):
    from urllib.parse import quote
    return quote(s, safe="/")


def case_mention():
    """Item 5: an @-mention is one shell-quoted path argument, never shell syntax."""
    a = Agent(log_level="debug")
    try:
        a.init(PLAIN_CAPS)
        sid = a.new_session()
        for i, name in enumerate(MENTION_NAMES):
            with open(os.path.join(a.cwd, name), "w") as f:
                f.write(f"content-{i}\n")
        outside = tempfile.mkdtemp(prefix="shc-reliab-out-")
        with open(os.path.join(outside, "o$(touch PWN9)"), "w") as f:
            f.write("content-outside\n")
        try:
            cases = []
            for i, name in enumerate(MENTION_NAMES):
                path = os.path.join(a.cwd, name)
                uri = "file://" + (pct(path) if i % 2 else path)
                cases.append((name, uri, f"content-{i}"))
            cases.append(("outside", "file://" + pct(os.path.join(outside, "o$(touch PWN9)")), "content-outside"))
            for name, uri, want in cases:
                pid = a.prompt(sid, [{"type": "text", "text": "cat "},
                                     {"type": "resource_link", "uri": uri, "name": "x$(touch PWN5)"}])
                resp = a.response(pid, 10)
                R.check(resp is not None and "result" in resp, f"mention {name!r}: answered", resp)
                fin = a.finals(sid)
                last = fin[-1] if fin else {}
                body = json.dumps(last.get("content", []))
                R.check(want in body, f"mention {name!r}: cat printed the file", last)
            # a non-file URI is quoted as a whole
            pid = a.prompt(sid, [{"type": "text", "text": "echo "},
                                 {"type": "resource_link", "uri": "https://example.com/$(touch PWN6);touch PWN7", "name": "u"}])
            a.response(pid, 10)
            # two mentions and text around them, several lines
            p1 = os.path.join(a.cwd, MENTION_NAMES[0])
            pid = a.prompt(sid, [{"type": "text", "text": "wc -c "},
                                 {"type": "resource_link", "uri": "file://" + p1, "name": "a"},
                                 {"type": "text", "text": " "},
                                 {"type": "resource_link", "uri": "file://" + pct(os.path.join(a.cwd, MENTION_NAMES[1])), "name": "b"},
                                 {"type": "text", "text": "\necho done"}])
            resp = a.response(pid, 10)
            R.check(resp is not None and resp.get("result", {}).get("stopReason") == "end_turn", "two mentions: answered", resp)
            cmds = [u.get("rawInput", {}).get("command") for u in a.tool_calls(sid)[-2:]]
            R.check(cmds[-1] == "echo done", "two mentions: the next line is its own command", cmds)
            R.check(cmds[0] is not None and cmds[0].startswith("wc -c ") and "\n" not in cmds[0],
                    "two mentions: one command line with both paths", cmds)
            fin = a.finals(sid)
            R.check(any('20 total' in json.dumps(u.get("content", [])) for u in fin[-2:]),
                    "two mentions: wc counted both files", fin[-2:])
            pwned = [f for f in os.listdir(a.cwd) + os.listdir(outside) if f.startswith("PWN")]
            R.check(not pwned, "mentions: no shell syntax from a mention ever ran", pwned)
            err = a.stderr_text()
            R.check(b"\x1b" not in err and b"\x07" not in err, "mentions: no raw control character reaches the log",
                    err[-300:].decode(errors="replace"))
        finally:
            shutil.rmtree(outside, ignore_errors=True)
    finally:
        a.close()


def case_tty_wait():
    """Item 6: a command waiting for terminal input ends after a short grace, with a message."""
    long_file = "seq 1 20000 > long.txt; "
    cmds = [
        ("read </dev/tty", "read x < /dev/tty; echo never"),
        ("less", long_file + "less long.txt"),
        ("getpass", "python3 -c 'import getpass; getpass.getpass()'"),
        ("kill -STOP $$", "echo before; kill -STOP $$; echo never"),
        ("child stopped", "sleep 100 & kill -STOP $!; wait"),
    ]
    a = Agent()
    try:
        a.init()
        sids = [a.new_session() for _ in cmds]
        for (label, cmd), sid in zip(cmds, sids):
            pid = a.prompt(sid, cmd)
            t0 = time.monotonic()
            resp = a.response(pid, 20)
            dt = time.monotonic() - t0
            R.check(resp is not None and resp.get("result", {}).get("stopReason") == "end_turn",
                    f"tty wait ({label}): the turn ends", resp)
            R.check(resp is not None and dt < 12, f"tty wait ({label}): within 12 s", dt)
            fin = a.finals(sid)
            last = fin[-1] if fin else {}
            R.check(last.get("status") == "failed", f"tty wait ({label}): the call failed", last)
            msgs = a.updates(sid)
            blob = json.dumps(msgs) + json.dumps([v for k, v in a.tout_tail.items() if k[0] == sid])
            R.check("waiting for terminal input" in blob and "non-interactively" in blob,
                    f"tty wait ({label}): a clear message in the card", blob[-600:])
        # not input: a quiet sleep is left alone
        sid = a.new_session()
        pid = a.prompt(sid, "sleep 4; echo slept")
        resp = a.response(pid, 15)
        fin = a.finals(sid)
        R.check(resp is not None and fin and fin[-1].get("status") == "completed",
                "tty wait: a quiet `sleep 4` is not mistaken for input", fin[-1:] if fin else resp)
        left = [p for p in marked(a.mark, exclude=(a.pid,))]
        R.check(not left or all(b"shcard" in open(f"/proc/{p}/cmdline", "rb").read() for p in left),
                "tty wait: nothing left running", describe(left))
    finally:
        a.close()
    # the message reaches the model side too (console card = fenced text, and the shell summary)
    a = Agent(["--input-wait", "1"])
    try:
        a.init(PLAIN_CAPS)
        sid = a.new_session()
        pid = a.prompt(sid, "read x < /dev/tty")
        t0 = time.monotonic()
        resp = a.response(pid, 15)
        R.check(resp is not None and time.monotonic() - t0 < 6, "--input-wait 1: ends quickly", time.monotonic() - t0)
        blob = json.dumps(a.finals(sid))
        R.check("waiting for terminal input" in blob, "--input-wait 1: message in the console card", blob[-400:])
    finally:
        a.close()


def case_long_command():
    """Item 7: a 100 kB command gets a short title; rawInput keeps it whole."""
    a = Agent(log_level="debug")
    try:
        a.init()
        sid = a.new_session()
        for label, ch, n in (("ascii", "x", 100_000), ("utf8", "é", 50_000), ("emoji", "😀", 30_000)):
            cmd = "echo " + ch * n
            pid = a.prompt(sid, cmd)
            resp = a.response(pid, 20)
            R.check(resp is not None and resp.get("result", {}).get("stopReason") == "end_turn", f"long {label}: answered", resp)
            tc = a.tool_calls(sid)[-1] if a.tool_calls(sid) else {}
            title = tc.get("title", "")
            R.check(0 < len(title) <= 300, f"long {label}: title capped", len(title))
            R.check(title.endswith("…"), f"long {label}: title ends with an ellipsis", title[-10:])
            R.check(title[:-1] == cmd[:len(title) - 1], f"long {label}: title is the command's start, cut on a character", title[:40])
            R.check(tc.get("rawInput", {}).get("command") == cmd, f"long {label}: rawInput keeps the whole command")
            got = a.tout.get((sid, tc.get("toolCallId")), 0)
            R.check(got >= len((ch * n).encode()), f"long {label}: the whole output arrived", got)
        err = a.stderr_text()
        longest = max((len(l) for l in err.split(b"\n")), default=0)
        R.check(longest <= 2048, "long: log lines are capped", longest)
        rss = rss_kb(a.pid, "VmHWM")
        R.check(rss < RSS_LIMIT_MB * 1024, "long: RSS bounded", rss)
    finally:
        a.close()


def case_big_prompts():
    """Messages just under the line limit (4 MiB): one huge command, and a prompt of 600,000
    lines; each answered, RSS bounded, the many-line prompt cancellable."""
    a = Agent()
    try:
        a.init()
        sid = a.new_session()
        pid = a.prompt(sid, ": " + "x" * 4_000_000)
        r = a.response(pid, 30)
        R.check(r is not None and r.get("result", {}).get("stopReason") == "end_turn", "4 MB command: runs", r)
        pid = a.prompt(sid, "true\n" * 600_000)
        time.sleep(2)
        a.cancel(sid)
        r = a.response(pid, 30)
        R.check(r is not None and r.get("result", {}).get("stopReason") == "cancelled", "600k-line prompt: cancelled", r)
        n = len(a.tool_calls(sid))
        R.check(n > 10, "600k-line prompt: its lines ran one after another", n)
        hwm = rss_kb(a.pid, "VmHWM")
        R.note(f"measure: 4 MB command and a 600,000-line prompt: agent peak RSS {hwm / 1024:.1f} MiB")
        R.check(hwm < RSS_LIMIT_MB * 1024, f"big prompts: peak RSS under {RSS_LIMIT_MB} MiB", f"{hwm / 1024:.1f} MiB")
    finally:
        a.close()


def case_prompt_after_cancel():
    """Item 8: the cancelled prompt's answer comes before any update of the next turn."""
    a = Agent()
    try:
        a.init()
        sid = a.new_session()
        for rnd in range(3):
            n_before = len(a.tool_calls(sid))
            pa = a.prompt(sid, "trap '' TERM; sleep 30")
            wait_until(lambda: len(a.tool_calls(sid)) > n_before, 10)
            time.sleep(0.2)
            a.cancel(sid)
            pb = a.prompt(sid, f"echo second-{rnd}")
            rb = a.response(pb, 15)
            ra = a.response(pa, 15)
            R.check(ra is not None and ra.get("result", {}).get("stopReason") == "cancelled", f"after cancel {rnd}: A cancelled", ra)
            R.check(rb is not None and rb.get("result", {}).get("stopReason") == "end_turn", f"after cancel {rnd}: B runs", rb)
            ia = a.index_of(lambda f: "method" not in f and f.get("id") == pa)
            first_b = a.index_of(lambda f: f.get("method") == "session/update" and f["params"]["update"].get("sessionUpdate") == "tool_call"
                                 and f["params"]["update"].get("rawInput", {}).get("command") == f"echo second-{rnd}")
            R.check(0 <= ia < first_b, f"after cancel {rnd}: A's answer precedes B's first update", (ia, first_b))
        # cancel, prompt, cancel, prompt: every prompt answered once, in order
        pa = a.prompt(sid, "trap '' TERM; sleep 30")
        time.sleep(0.3)
        a.cancel(sid)
        pb = a.prompt(sid, "echo b-never")
        a.cancel(sid)
        pc = a.prompt(sid, "echo c-runs")
        rc = a.response(pc, 15)
        ids = [f.get("id") for f in a.frames if "method" not in f and f.get("id") in (pa, pb, pc)]
        R.check(ids == [pa, pb, pc], "cancel/prompt/cancel/prompt: answered once each, in order", ids)
        R.check(rc is not None and rc.get("result", {}).get("stopReason") == "end_turn", "cancel/prompt/cancel/prompt: the last runs", rc)
        # a prompt while one is running (not cancelled) is still refused
        pa = a.prompt(sid, "sleep 2")
        time.sleep(0.2)
        pb = a.prompt(sid, "echo no")
        rb = a.response(pb, 5)
        R.check(rb is not None and rb.get("error", {}).get("code") == -32602, "busy session: a second prompt is refused", rb)
        a.response(pa, 10)
    finally:
        a.close()


def raw_line_for(a, rid_text, timeout=5.0):
    """The raw output line whose "id" member is exactly rid_text (for ids Python can't round-trip)."""
    pat = re.compile(rb'"id":\s*' + re.escape(rid_text.encode()) + rb'[,}]')
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with a.cv:
            for l in a.raw_lines:
                if pat.search(l):
                    return l
        time.sleep(0.05)
    return None


def case_jsonrpc_edges():
    """Item 9 and friends: every request gets an answer carrying its own id."""
    a = Agent()
    a.keep_raw = True
    try:
        a.init()
        sid = a.new_session()

        def sendraw(s):
            a.send_bytes(s.encode() if isinstance(s, str) else s)

        # \u0000 inside strings
        sendraw('{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"/tmp\\u0000x","mcpServers":[]}}\n')
        r = a.response(7)
        R.check(r is not None and r.get("error", {}).get("code") == -32602, "NUL in cwd: -32602 with id 7", r)
        sendraw('{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{"sessionId":"%s","prompt":[{"type":"text","text":"echo a\\u0000; touch PWNNUL"}]}}\n' % sid)
        r = a.response(8)
        R.check(r is not None and r.get("error", {}).get("code") == -32602, "NUL in prompt: -32602 with id 8", r)
        sendraw('{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"a\\u0000b","version":"1"}}}\n')
        r = a.response(9)
        R.check(r is not None and "result" in r, "NUL in clientInfo: initialize still answered with id 9", r)
        sendraw('{"jsonrpc":"2.0","id":10,"method":"authenticate\\u0000x","params":{}}\n')
        r = a.response(10)
        R.check(r is not None and r.get("error", {}).get("code") == -32601, "NUL in method: -32601 with id 10", r)
        sendraw('{"jsonrpc":"2.0","id":"s\\u0000t","method":"authenticate","params":{}}\n')
        r = a.response("s\u0000t")
        R.check(r is not None, "NUL in a string id: answered with that id", r)
        sendraw('{"jsonrpc":"2.0","id":11,"method":"session/prompt","params":{"sessionId":"%s\\u0000x","prompt":[{"type":"text","text":"echo x"}]}}\n' % sid)
        r = a.response(11)
        R.check(r is not None and r.get("error", {}).get("code") == -32602, "NUL in sessionId: unknown session", r)
        # ids out of range or not integral
        for rid in ("18446744073709551616", "-9223372036854775809", "1e400", "1.5", "-0.0", "1E3",
                    "123456789012345678901234567890"):
            sendraw('{"jsonrpc":"2.0","id":%s,"method":"authenticate","params":{}}\n' % rid)
            line = raw_line_for(a, rid)
            ok = line is not None and json.loads(line).get("error", {}).get("code") == -32600
            R.check(ok, f"id {rid}: -32600 echoing the id", line)
        sendraw('{"jsonrpc":"2.0","id":9223372036854775807,"method":"initialize","params":{"protocolVersion":1}}\n')
        r = a.response(9223372036854775807)
        R.check(r is not None and "result" in r, "id 2^63-1: a normal answer", r)
        sendraw('{"jsonrpc":"2.0","id":-9223372036854775808,"method":"initialize","params":{"protocolVersion":1}}\n')
        r = a.response(-9223372036854775808)
        R.check(r is not None and "result" in r, "id -2^63: a normal answer", r)
        # initialize validates its params
        for i, params in enumerate(({"protocolVersion": "1"}, {"protocolVersion": 1.5}, {},
                                    {"protocolVersion": 1, "clientCapabilities": []},
                                    {"protocolVersion": 1, "clientCapabilities": "x"},
                                    {"protocolVersion": -1}, {"protocolVersion": 70000},
                                    {"protocolVersion": 1, "clientCapabilities": {"terminal": "yes"}},
                                    {"protocolVersion": 1, "clientCapabilities": {"_meta": []}})):
            rid = 200 + i
            a.request("initialize", params, rid)
            r = a.response(rid)
            R.check(r is not None and r.get("error", {}).get("code") == -32602, f"initialize {json.dumps(params)}: -32602", r)
        r = a.call("initialize", {"protocolVersion": 7, "clientCapabilities": ZED_CAPS})
        R.check(r is not None and r.get("result", {}).get("protocolVersion") == 1, "initialize v7: answers 1", r)
        # invalid UTF-8 inside a string: answered with the id
        sendraw(b'{"jsonrpc":"2.0","id":12,"method":"session/new","params":{"cwd":"/tmp/\xff\xfe","mcpServers":[]}}\n')
        r = a.response(12)
        R.check(r is not None and "error" in r, "invalid UTF-8 in cwd: an error with id 12", r)
        sendraw(b'{"jsonrpc":"2.0","id":13,"method":"session/prompt","params":{"sessionId":"' + sid.encode() + b'","prompt":[{"type":"text","text":"echo \xc3\x28"}]}}\n')
        r = a.response(13)
        R.check(r is not None and "error" in r, "invalid UTF-8 in a prompt: an error with id 13", r)
        sendraw(b'{"jsonrpc":"2.0","id":"\xff","method":"authenticate"}\n')
        r = a.wait_frame(lambda f: "error" in f and f.get("id") is None, 5)
        R.check(r is not None, "invalid UTF-8 in the id itself: answered with id null", r)
        # invalid UTF-8 (and a NUL) in every string field of every method: always answered
        # with the request's own id, never run
        templates = [
            {"method": "initialize", "params": {"protocolVersion": 1, "clientCapabilities": {"terminal": True, "_meta": {"terminal_output": True}}, "clientInfo": {"name": "S", "version": "S"}}},
            {"method": "session/new", "params": {"cwd": a.cwd, "mcpServers": []}},
            {"method": "session/prompt", "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "echo S"}, {"type": "resource_link", "uri": "file:///tmp/S", "name": "S"}]}},
            {"method": "authenticate", "params": {"methodId": "S"}},
        ]

        def string_paths(o, path=()):
            if isinstance(o, str):
                yield path
            elif isinstance(o, dict):
                for k, v in o.items():
                    yield from string_paths(v, path + (k,))
            elif isinstance(o, list):
                for i, v in enumerate(o):
                    yield from string_paths(v, path + (i,))

        rid = 5000
        for t in templates:
            msg = {"jsonrpc": "2.0", "id": 0, **t}
            for path in list(string_paths(msg)):
                if path == ("jsonrpc",):
                    continue
                for bad in ("\udcff", "a\u0000b"):
                    rid += 1
                    m = json.loads(json.dumps(msg))
                    m["id"] = rid
                    cur = m
                    for k in path[:-1]:
                        cur = cur[k]
                    cur[path[-1]] = ("x" + bad) if path[-1] != "method" else cur[path[-1]] + bad
                    line = json.dumps(m, ensure_ascii=False).encode("utf-8", "surrogateescape") + b"\n"
                    a.send_bytes(line)
                    r = a.response(rid, 5)
                    what = "NUL" if "\u0000" in bad else "invalid UTF-8"
                    where = "/".join(map(str, path))
                    R.check(r is not None, f"bad string at {where} ({what}): answered with id {rid}", line[:200])
        # deep nesting
        deep = '{"jsonrpc":"2.0","id":14,"method":"authenticate","params":{"x":' + "[" * 100000 + "]" * 100000 + "}}\n"
        sendraw(deep)
        r = a.response(14)
        R.check(r is not None and "error" in r, "100000-deep nesting: an error with id 14", r)
        deep = '{"jsonrpc":"2.0","id":15,"method":"authenticate","params":{"x":' + "[" * 100000 + "}\n"
        sendraw(deep)
        r = a.response(15)
        R.check(r is not None and "error" in r, "100000-deep unterminated nesting: an error with id 15", r)
        # a huge method name is not echoed in full
        sendraw('{"jsonrpc":"2.0","id":16,"method":"%s"}\n' % ("m" * 1_000_000))
        line = raw_line_for(a, "16")
        R.check(line is not None and len(line) < 4096, "1 MB method name: a short -32601", len(line) if line else None)
        # a line of a million tiny values must not cost a gigabyte
        bomb = '{"jsonrpc":"2.0","id":17,"method":"authenticate","params":{"x":[' + ",".join(["{}"] * 1_300_000) + "]}}\n"
        sendraw(bomb)
        r = a.response(17, 20)
        R.check(r is not None, "a million empty objects: answered with id 17", r)
        hwm = rss_kb(a.pid, "VmHWM")
        R.check(hwm < RSS_LIMIT_MB * 1024, f"a million empty objects: peak RSS under {RSS_LIMIT_MB} MiB", f"{hwm / 1024:.1f} MiB")
        # a response to a request we never sent, with odd ids: ignored, no answer
        sendraw('{"jsonrpc":"2.0","id":99999999,"result":{}}\n{"jsonrpc":"2.0","id":1e400,"result":{}}\n')
        # still alive and well
        pid = a.prompt(sid, "echo alive")
        r = a.response(pid, 10)
        R.check(r is not None and r.get("result", {}).get("stopReason") == "end_turn", "after the edges: a prompt still works", r)
        R.check(not os.path.exists(os.path.join(a.cwd, "PWNNUL")), "NUL-truncated prompt never ran")
        R.check(not a.bad_lines, "every output line is valid JSON", a.bad_lines[:2])
    finally:
        a.close()


def case_cwd():
    """Session cwd edge cases: a symlink, a directory removed after session/new, a name with a
    newline and '=' (no environment injection)."""
    a = Agent()
    try:
        a.init(PLAIN_CAPS)
        real = os.path.join(a.dir, "real")
        os.mkdir(real)
        with open(os.path.join(real, "f.txt"), "w") as f:
            f.write("in-real\n")
        link = os.path.join(a.dir, "link")
        os.symlink(real, link)
        sid = a.new_session(link)
        pid = a.prompt(sid, [{"type": "text", "text": "cat "}, {"type": "resource_link", "uri": "file://" + os.path.join(real, "f.txt"), "name": "f"}])
        r = a.response(pid, 10)
        R.check(r is not None and "in-real" in json.dumps(a.finals(sid)), "symlink cwd: a mention of the real path works", a.finals(sid)[-1:])
        gone = os.path.join(a.dir, "gone")
        os.mkdir(gone)
        sid = a.new_session(gone)
        os.rmdir(gone)
        pid = a.prompt(sid, "echo hi")
        r = a.response(pid, 10)
        fin = a.finals(sid)
        R.check(r is not None and r.get("result", {}).get("stopReason") == "end_turn" and fin and fin[-1]["status"] == "failed",
                "removed cwd: the call fails, the turn ends", (r, fin[-1:]))
        R.check("cannot change directory" in json.dumps(fin), "removed cwd: says why", fin[-1:])
        odd = os.path.join(a.dir, "x\nBASH_ENV=evil\nLD_PRELOAD=x=y")
        os.mkdir(odd)
        sid = a.new_session(odd)
        pid = a.prompt(sid, 'echo "bash_env=${BASH_ENV-unset} preload=${LD_PRELOAD-unset}"')
        a.response(pid, 10)
        R.check("bash_env=unset preload=unset" in json.dumps(a.finals(sid)), "odd cwd: no environment injection", a.finals(sid)[-1:])
        r = a.call("session/new", {"cwd": "relative/path", "mcpServers": []})
        R.check(r is not None and r.get("error", {}).get("code") == -32602, "relative cwd refused", r)
        r = a.call("session/new", {"cwd": "/" + "a" * 100000, "mcpServers": []})
        R.check(r is not None and r.get("error", {}).get("code") == -32602, "100 kB cwd refused", r)
    finally:
        a.close()


def case_sessions_cap():
    """Thousands of session/new: each answered, memory bounded."""
    a = Agent()
    try:
        a.init()
        n = 5000
        batch = "".join(json.dumps({"jsonrpc": "2.0", "id": 10000 + i, "method": "session/new",
                                    "params": {"cwd": a.cwd, "mcpServers": []}}) + "\n" for i in range(n))
        a.send_bytes(batch.encode(), 30)
        last = a.response(10000 + n - 1, 30)
        R.check(last is not None and "result" in last, "5000 session/new: all answered", last)
        first = a.response(10000, 5)
        hwm = rss_kb(a.pid, "VmHWM")
        R.check(hwm < RSS_LIMIT_MB * 1024, "5000 session/new: RSS bounded", hwm)
        # the newest works; the oldest (idle) ones made room
        pid = a.prompt(last["result"]["sessionId"], "echo newest")
        r = a.response(pid, 10)
        R.check(r is not None and r.get("result", {}).get("stopReason") == "end_turn", "5000 sessions: the newest works", r)
        pid = a.prompt(first["result"]["sessionId"], "echo oldest")
        r = a.response(pid, 10)
        R.check(r is not None and r.get("error", {}).get("code") == -32602, "5000 sessions: the oldest idle one was dropped", r)
    finally:
        a.close()


def case_hostile_store():
    """A planted store file, a forged cursor, hostile mention names: only their own session is
    affected, memory stays bounded, nothing a client sends is shell syntax."""
    a = Agent()
    try:
        a.init(PLAIN_CAPS)
        # the first list of an empty store (qsort(NULL, 0): an abort under `make asan`)
        r = a.call("session/list", {})
        R.check(r is not None and r.get("result") == {"sessions": []}, "list of an empty store", r)
        sid = a.new_session()
        store = os.path.join(a.dir, "state", "shcard", "sessions")
        os.makedirs(store, exist_ok=True)
        # 30,000 calls that never end: the replay keeps a bounded number open
        victim = "sess_" + "ab" * 16
        with open(os.path.join(store, victim + ".jsonl"), "w") as f:
            f.write(json.dumps({"t": "session", "v": 1, "id": victim, "cwd": a.cwd, "created": "x", "agent": "shell"}) + "\n")
            f.write(json.dumps({"t": "prompt", "blocks": [{"type": "text", "text": "x"}]}) + "\n")
            for i in range(30000):
                f.write('{"t":"call","id":"c%d","command":"x","cwd":"/tmp","card":"console","status":"in_progress",'
                        '"kind":"terminal","title":"x","locations":[{"path":"/a"},{"path":"/b"}]}\n' % i)
        t0 = time.monotonic()
        r = a.call("session/load", {"sessionId": victim, "cwd": a.cwd, "mcpServers": []}, timeout=60)
        took = time.monotonic() - t0
        R.check(r is not None and "result" in r, "planted open calls: the load is answered", r)
        R.check(took < 30, "planted open calls: the load takes linear time", f"{took:.1f} s")
        hwm = rss_kb(a.pid, "VmHWM")
        R.check(hwm < RSS_LIMIT_MB * 1024, "planted open calls: RSS bounded", hwm)
        # a forged cursor beyond 64 bits is refused (it overflowed before)
        r = a.call("session/list", {"cursor": "9999999999999999999:sess_" + "a" * 32})
        R.check(r is not None and r.get("error", {}).get("code") == -32602, "cursor beyond int64: -32602", r)
        # a title from a mention whose path is not UTF-8 is still a title
        s2 = a.new_session()
        r = a.response(a.prompt(s2, [{"type": "resource_link", "uri": "file:///tmp/%ff%fe(x", "name": ""},
                                     {"type": "text", "text": "\ntrue"}]), 10)
        titles = [u.get("title") for u in a.updates(s2) if u.get("sessionUpdate") == "session_info_update"]
        R.check(titles == ["/tmp/\ufffd\ufffd(x"], "title from a non-UTF-8 mention: sent, U+FFFD", titles)
        # a mention named like an assignment, first on the line, is a word, not an assignment
        with open(os.path.join(a.cwd, "evil.sh"), "w") as f:
            f.write("touch PWN_ENV\n")
        open(os.path.join(a.cwd, "BASH_ENV=evil.sh"), "w").close()
        r = a.response(a.prompt(s2, [{"type": "resource_link", "uri": "file://" + a.cwd + "/BASH_ENV=evil.sh", "name": "e"},
                                     {"type": "text", "text": " bash -c :"}]), 10)
        R.check(r is not None and "result" in r, "assignment-like mention: answered", r)
        R.check(not os.path.exists(os.path.join(a.cwd, "PWN_ENV")), "assignment-like mention: not an assignment",
                a.tool_calls(s2)[-1:])
    finally:
        a.close()


def case_session_fds():
    """Every live session holds its store file: under a hard descriptor limit of 1024, over a thousand
    sessions that each recorded something still leave room for commands."""
    a = Agent()
    try:
        a.init(PLAIN_CAPS)
        resource.prlimit(a.pid, resource.RLIMIT_NOFILE, (1024, 1024))
        n = 1020
        sids = []
        for i in range(n):
            sid = a.new_session()
            sids.append(sid)
            a.prompt(sid, [{"type": "resource_link", "uri": "file:///x", "name": "x"}])  # recorded, runs nothing
        last = a.response(a.next_id, 60)
        R.check(last is not None and "result" in last, "1020 recorded sessions: answered", last)
        nfd = len(os.listdir(f"/proc/{a.pid}/fd"))
        R.check(nfd <= 1024 - 200, "1020 recorded sessions: descriptors left for commands", nfd)
        sid = a.new_session()
        r = a.response(a.prompt(sid, "echo fd-ok"), 15)
        fin = a.finals(sid)
        R.check(r is not None and fin and fin[-1].get("status") == "completed", "a command still runs", fin[-1:])
        r = a.call("session/load", {"sessionId": sids[0], "cwd": a.cwd, "mcpServers": []}, timeout=15)
        R.check(r is not None and "result" in r, "the oldest session loads again", r)
    finally:
        a.close()


# ---------------------------------------------------------------- containment (round 3)
# Escapes that drop every marker: a new session, a cleared or edited environment.  They are
# found by a unique argument (sleep 600.NNNNNN) since they carry nothing else of ours.

NO_CGROUP = {"SHC_EXEC_NO_CGROUP": "1"}


def tagged_sleep():
    return "600.%06d" % (uuid.uuid4().int % 1000000)


def procs_with_args(*args):
    """Live processes whose argv is exactly `sleep ARG` for one of args."""
    want = {a.encode() for a in args}
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cl = f.read()
        except OSError:
            continue
        argv = cl.split(b"\0")
        if len(argv) >= 2 and os.path.basename(argv[0]) == b"sleep" and argv[1] in want and alive(int(d)):
            out.append(int(d))
    return out


def kill_pids(pids):
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass


def guardian_of(agent_pid):
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as f:
                s = f.read()
        except OSError:
            continue
        comm = s[s.index(b"(") + 1:s.rindex(b")")]
        ppid = int(s[s.rindex(b")") + 2:].split()[1])
        if comm == b"shcard-guard" and ppid == agent_pid:
            return int(d)
    return None


def case_escape_unmarked(mode_env=None):
    """Escapes that leave the session and drop the command's marker die with their command."""
    LBL = "tree: " if mode_env else ""
    a = Agent(env=mode_env)
    t1, t2, t3 = tagged_sleep(), tagged_sleep(), tagged_sleep()
    try:
        a.init()
        sid = a.new_session()
        cmd = (f"setsid env -i sleep {t1} & setsid -f env -u SHCARD_CMD_ID sleep {t2}; "
               f"( setsid env -i bash -c 'sleep {t3} & exit 0' & ); sleep 0.3; echo started")
        r = a.response(a.prompt(sid, cmd), 15)
        R.check(r is not None and r.get("result", {}).get("stopReason") == "end_turn", LBL + "unmarked escapes: the turn ends", r)
        left = wait_until(lambda: not procs_with_args(t1, t2, t3), 2.0) or procs_with_args(t1, t2, t3)
        R.check(left is True, LBL + "unmarked escapes: none alive 2 s after their command", describe(left if left is not True else []))
        R.check(a.p.poll() is None, LBL + "unmarked escapes: the agent runs on")
        # a second session's command running meanwhile is not touched by the first one's end
        s2 = a.new_session()
        t4 = tagged_sleep()
        p2 = a.prompt(s2, f"sleep {t4}")
        wait_until(lambda: procs_with_args(t4), 5)
        r = a.response(a.prompt(sid, f"setsid env -i sleep {t1} & echo x"), 15)
        time.sleep(0.5)
        R.check(procs_with_args(t4) and not procs_with_args(t1), LBL + "unmarked escapes: a concurrent command survives another's end",
                describe(procs_with_args(t1, t4)))
        a.cancel(s2)
        a.response(p2, 10)
    finally:
        a.close()
        kill_pids(procs_with_args(t1, t2, t3))


def case_guardian_killed(mode_env=None):
    """A command that kills the guardian: its escapes die at once, and nothing outlives the agent."""
    LBL = "tree: " if mode_env else ""
    a = Agent(env=mode_env)
    t1, t2 = tagged_sleep(), tagged_sleep()
    try:
        a.init()
        sid = a.new_session()
        g0 = guardian_of(a.pid)
        r = a.response(a.prompt(sid, f"setsid env -i sleep {t1} & sleep {t2} & sleep 0.2; kill -9 $PPID; sleep 30"), 15)
        R.check(r is not None and "result" in r, LBL + "guardian killed: the turn is answered", r)
        left = wait_until(lambda: not procs_with_args(t1, t2), 2.0) or procs_with_args(t1, t2)
        R.check(left is True, LBL + "guardian killed: its commands' escapes are killed at once", describe(left if left is not True else []))
        R.check(g0 is not None and not alive(g0), LBL + "guardian killed: it is gone", g0)
        r = a.response(a.prompt(sid, "echo again"), 15)
        R.check(r is not None and r.get("result", {}).get("stopReason") == "end_turn", LBL + "guardian killed: the next command runs", r)
        # killed while the agent exits normally: nothing left after the exit
        p = a.prompt(sid, f"setsid env -i sleep {t1} & sleep 0.2; kill -9 $PPID; sleep 30")
        wait_until(lambda: procs_with_args(t1), 5)
        time.sleep(0.3)
        a.close_stdin()
        rc = a.wait_exit(10)
        R.check(rc == 0, LBL + "guardian killed, then stdin closed: exit 0", rc)
        left = wait_until(lambda: not procs_with_args(t1), 1.0) or procs_with_args(t1)
        R.check(left is True, LBL + "guardian killed, then stdin closed: nothing outlives the agent", describe(left if left is not True else []))
        del p
    finally:
        a.close()
        kill_pids(procs_with_args(t1, t2))


def case_guardian_stopped(mode_env=None):
    """A command that stops the guardian: the turn, cancel and teardown still end in time, and a
    SIGKILL of the agent does not leave the stopped guardian behind."""
    LBL = "tree: " if mode_env else ""
    t1, t2 = tagged_sleep(), tagged_sleep()
    a = Agent(env=mode_env)
    try:
        a.init()
        sid = a.new_session()
        t0 = time.monotonic()
        r = a.response(a.prompt(sid, "kill -STOP $PPID; echo after-stop"), 10)
        R.check(r is not None and r.get("result", {}).get("stopReason") == "end_turn",
                LBL + "guardian stopped: the turn is answered", (r, round(time.monotonic() - t0, 2)))
        p = a.prompt(sid, f"kill -STOP $PPID; setsid env -i sleep {t1} & sleep {t2}")
        wait_until(lambda: procs_with_args(t2), 5)
        time.sleep(0.2)
        t0 = time.monotonic()
        a.cancel(sid)
        r = a.response(p, 5)
        dt = time.monotonic() - t0
        R.check(r is not None and r.get("result", {}).get("stopReason") == "cancelled" and dt < 2.0,
                LBL + "guardian stopped: cancel answers within 2 s", (r, round(dt, 2)))
        left = wait_until(lambda: not procs_with_args(t1, t2), 2.0) or procs_with_args(t1, t2)
        R.check(left is True, LBL + "guardian stopped: the cancelled command's escapes are gone", describe(left if left is not True else []))
        g = guardian_of(a.pid)
        a.prompt(sid, f"kill -STOP $PPID; setsid env -i sleep {t1} & sleep {t2}")
        wait_until(lambda: procs_with_args(t2), 5)
        time.sleep(0.2)
        t0 = time.monotonic()
        a.close_stdin()
        rc = a.wait_exit(10)
        dt = time.monotonic() - t0
        R.check(rc == 0 and dt < 5.0, LBL + "guardian stopped: teardown exits 0 within 5 s", (rc, round(dt, 2)))
        left = wait_until(lambda: not procs_with_args(t1, t2) and not (g and alive(g)), 1.0)
        R.check(left, LBL + "guardian stopped: nothing left after teardown", describe(procs_with_args(t1, t2) + ([g] if g and alive(g) else [])))
    finally:
        a.close()
        kill_pids(procs_with_args(t1, t2))
    # the agent SIGKILLed while its guardian is stopped
    a = Agent(env=mode_env)
    try:
        a.init()
        sid = a.new_session()
        a.prompt(sid, f"setsid env -i sleep {t1} & kill -STOP $PPID; sleep {t2}")
        wait_until(lambda: procs_with_args(t1, t2), 5)
        g = guardian_of(a.pid)
        time.sleep(0.3)
        os.kill(a.pid, signal.SIGKILL)
        a.wait_exit(5)
        gone = wait_until(lambda: not procs_with_args(t1, t2) and not (g and alive(g)), 5.0)
        R.check(g is not None and gone, LBL + "agent SIGKILLed, guardian stopped: guardian and commands gone within 5 s",
                describe(procs_with_args(t1, t2) + ([g] if g and alive(g) else [])))
    finally:
        a.close()
        kill_pids(procs_with_args(t1, t2))


# ---------------------------------------------------------------- memory pressure (round 3)

def memory_lines(sid):
    """(name, bytes, valid) for the limit sweep: a valid 4 MB prompt, valid and hostile lines."""
    big = "#" + "x" * 4_000_000
    esc = "#" + "\\u00e9" * 600_000  # 3.6 MB of escapes that become 1.2 MB of UTF-8
    def req(rid, method, params):
        return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode()
    return [
        ("valid 4 MB prompt", req(501, "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": big}]}), True),
        ("3.6 MB of escapes", req(502, "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "#"}]}).replace(b'"#"', ('"' + esc + '"').encode()), True),
        ("4 MB invalid", b'{"jsonrpc":"2.0","id":503,"method":"session/prompt","params":{"x":"' + b"y" * 4_000_000 + b'}', False),
        ("deep nesting", b'{"jsonrpc":"2.0","id":504,"method":"session/list","params":{"a":' + b"[" * 60 + b"]" * 60 + b"}}", True),
        ("19,000 values", req(505, "session/list", {"a": list(range(19_000))}), True),
        ("9,000 keys", req(506, "session/list", {"k%d" % i: "v" * 100 for i in range(9_000)}), True),
        ("too many values", req(507, "session/list", {"a": list(range(30_000))}), False),
    ]


def case_memory_sweep():
    """Under RLIMIT_AS from 8 to 64 MiB, a valid 4 MB prompt and hostile lines: every request is
    answered (a result, or -32603 out of memory, never a misleading -32700 for valid JSON), the
    agent never crashes and answers the next request."""
    # Under a sanitizer build RLIMIT_AS cannot work (the shadow memory needs terabytes of address
    # space): there the allocator fails every allocation past a size instead
    # (allocator_may_return_null=1, max_allocation_size_mb), which reaches the same paths.
    limits = list(range(8, 66, 2)) if not SAN else [1, 2, 3, 4, 6, 8, 12, 16]
    results = {}

    def one(mb):
        env = None
        if SAN:
            env = {"ASAN_OPTIONS": "allocator_may_return_null=1:max_allocation_size_mb=%d:quarantine_size_mb=8:"
                                   "malloc_context_size=5:detect_leaks=1" % mb}
        a = Agent(env=env)
        try:
            a.init(PLAIN_CAPS)
            sid = a.new_session()
            if not SAN:
                resource.prlimit(a.pid, resource.RLIMIT_AS, (mb << 20, mb << 20))
            bad = []
            for name, line, valid in memory_lines(sid):
                rid = int(re.search(rb'"id": ?(\d+)', line[:100]).group(1))
                a.send_bytes(line + b"\n", 20)
                r = a.response(rid, 20)
                code = (r or {}).get("error", {}).get("code")
                if r is None:
                    bad.append(f"{name}: no answer")
                elif valid and code not in (None, -32603):
                    bad.append(f"{name}: {r['error']}")  # never -32700/-32600 for a valid line
                elif not valid and code is None:
                    bad.append(f"{name}: accepted {r}")
                if a.p.poll() is not None:
                    bad.append(f"{name}: the agent ended ({a.p.returncode})")
                    break
            if a.p.poll() is None:
                r = a.call("session/list", {}, timeout=15)
                if r is None:
                    bad.append("the next request is not answered")
                a.close_stdin()
                rc = a.wait_exit(15)
                if rc != 0:
                    bad.append(f"exit {rc}")
            results[mb] = bad
        finally:
            a.close()

    t0 = time.monotonic()
    run_parallel([lambda m=m: one(m) for m in limits], 2)
    for mb in limits:
        what = f"allocations over {mb} MiB fail" if SAN else f"RLIMIT_AS {mb} MiB"
        R.check(not results.get(mb), f"{what}: every line answered, no crash", results.get(mb))
    R.note(f"measure: memory sweep {limits[0]}..{limits[-1]} MiB ({len(limits)} limits x {len(memory_lines('s'))} lines): {time.monotonic() - t0:.1f} s")


def case_two_values():
    """Two JSON values on one line: each request is answered under its own id."""
    a = Agent()
    try:
        a.init(PLAIN_CAPS)
        one = lambda rid: '{"jsonrpc":"2.0","id":%d,"method":"session/list","params":{}}' % rid
        a.send_bytes((one(24) + one(25) + "\n").encode())
        r24, r25 = a.response(24, 5), a.response(25, 5)
        R.check(r24 is not None and "result" in r24 and r25 is not None and "result" in r25,
                "two values on a line: both answered", (r24, r25))
        a.send_bytes((one(26) + '  ' + one(27) + one(28) + "\n").encode())
        R.check(all(a.response(i, 5) and "result" in a.response(i, 5) for i in (26, 27, 28)),
                "three values on a line: all answered", [a.response(i, 1) for i in (26, 27, 28)])
        # a string holding brackets and escaped quotes does not end the first value early
        tricky = '{"jsonrpc":"2.0","id":29,"method":"session/list","params":{"x":"}{\\"]["}}'
        a.send_bytes((tricky + one(30) + "\n").encode())
        R.check(a.response(29, 5) and a.response(30, 5) and "result" in a.response(30, 5),
                "two values, brackets inside a string: both answered", [a.response(i, 1) for i in (29, 30)])
        # the second one broken: the first is answered, the second gets its own parse error
        a.send_bytes((one(31) + '{"jsonrpc":"2.0","id":32,"method":' + "\n").encode())
        r31, r32 = a.response(31, 5), a.response(32, 5)
        R.check(r31 is not None and "result" in r31 and r32 is not None and r32.get("error", {}).get("code") == -32700,
                "two values, the second broken: first answered, second -32700 under its id", (r31, r32))
        # trailing garbage after a value
        a.send_bytes((one(33) + ' x' + "\n").encode())
        r33 = a.response(33, 5)
        R.check(r33 is not None and "result" in r33, "a value then garbage: the value is answered", r33)
        R.check(a.call("session/list", {}) is not None, "two values: the agent goes on")
    finally:
        a.close()


# ---------------------------------------------------------------- a model server without progress

def case_model_no_progress():
    """A model server that sends bytes without progress: an error body that never ends (fast,
    and trickling), keep-alive comments only, content events that never end, events slower
    than the deadline.  Each prompt is answered in bounded time; peak RSS stays under 32 MiB."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from fake_openai import FakeServer
    x = {"content": "x" * 4000}
    cases = [
        # (label, responses, extra args, answered within s)
        ("HTTP 500 body never ends", [{"status": 500, "endless_body": {"chunk": "e" * 4096}}] * 3, [], 25),
        ("HTTP 500 body trickles", [{"status": 500, "endless_body": {"chunk": "e", "interval_ms": 200}}] * 3, [], 30),
        ("only ': ping' comments", [{"events": [{"forever": {"event": {"comment": "ping"}, "interval_ms": 100}}]}], [], 12),
        ("content that never ends", [{"events": [{"forever": {"event": x}}]}], [], 30),
        ("events slower than the deadline", [{"events": [{"forever": {"event": {"content": "."}, "interval_ms": 500}}]}],
         ["--model-deadline", "4"], 12),
    ]
    for label, responses, extra, limit in cases:
        d = tempfile.mkdtemp(prefix="shc-fake-")
        script = os.path.join(d, "script.json")
        with open(script, "w") as f:
            json.dump({"responses": responses}, f)
        srv = FakeServer(script).start()
        a = Agent(args=["--base-url", srv.base_url, "--request-timeout", "3", *extra], env={"OPENAI_API_KEY": "k"})
        try:
            a.init(PLAIN_CAPS)
            sid = a.new_session()
            t0 = time.monotonic()
            pid = a.prompt(sid, "hello")
            peak = 0
            r = None
            while time.monotonic() - t0 < limit and r is None:
                peak = max(peak, rss_kb(a.pid, "VmHWM"))
                r = a.response(pid, 0.2)
            dt = time.monotonic() - t0
            peak = max(peak, rss_kb(a.pid, "VmHWM"))
            R.check(r is not None, f"model server, {label}: the prompt is answered within {limit} s",
                    f"{dt:.1f} s; {a.stderr_text()[-400:]!r}")
            R.check(peak < 32 * 1024 or SAN, f"model server, {label}: peak RSS under 32 MiB", f"{peak / 1024:.1f} MiB")
            R.note(f"measure: model server, {label}: answered in {dt:.1f} s, peak RSS {peak / 1024:.1f} MiB")
            R.check(a.call("session/list", {}) is not None, f"model server, {label}: the agent goes on")
        finally:
            a.close()
            srv.stop()
            shutil.rmtree(d, ignore_errors=True)


def case_store_read_only():
    """A read-only store (the agent cannot write its files): an existing session still loads,
    and the agent says the store is read-only instead of "cannot be read"."""
    # The agent runs as nobody, who cannot walk into the suite's private temp dir (0700) or a
    # checkout under a private home: the store and a copy of the binary live under /tmp.
    d = tempfile.mkdtemp(prefix="shc-rostore-", dir="/tmp")
    store = os.path.join(d, "st")
    binary = os.path.join(d, "shcard")
    shutil.copy(SHCARD, binary)
    os.chmod(binary, 0o755)
    try:
        a = Agent(args=["--store", store])
        try:
            a.init(PLAIN_CAPS)
            sid = a.new_session()
            r = a.response(a.prompt(sid, "echo recorded"), 15)
            R.check(r is not None and "result" in r, "read-only store: a session is recorded first", r)
            a.close_stdin()
            a.wait_exit(10)
        finally:
            a.close()
        # the store then belongs to an unprivileged user who may only read it (root would bypass
        # the modes, so the agent runs as nobody)
        subprocess.run(["chown", "-R", "nobody", d], check=True)
        for f in os.listdir(store):
            if f.endswith(".jsonl"):
                os.chmod(os.path.join(store, f), 0o444)
        os.chmod(store, 0o555)
        os.chmod(d, 0o755)
        # nobody cannot read the suite's private XDG_CONFIG_HOME: point it at a missing one
        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(d, "no-config"))
        p = subprocess.Popen(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", binary, "acp", "--store", store],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd="/tmp", env=env)
        def call(rid, method, params):
            if p.poll() is not None:
                raise RuntimeError(f"the agent exited ({p.returncode}): {p.stderr.read().decode(errors='replace')[-500:]}")
            p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}) + "\n").encode())
            p.stdin.flush()
            while True:
                line = p.stdout.readline()
                if not line:
                    return None
                o = json.loads(line)
                if o.get("id") == rid and "method" not in o:
                    return o
        try:
            call(1, "initialize", {"protocolVersion": 1})
            r = call(2, "session/load", {"sessionId": sid, "cwd": "/tmp", "mcpServers": []})
            R.check(r is not None and "result" in r, "read-only store: the existing session loads", r)
            p.stdin.close()
            err = p.stderr.read().decode(errors="replace")
            p.wait(10)
            R.check("read-only" in err and "cannot be read" not in err, "read-only store: the agent says it is read-only", err[-500:])
        finally:
            if p.poll() is None:
                p.kill()
    finally:
        subprocess.run(["chmod", "-R", "u+w", d])
        shutil.rmtree(d, ignore_errors=True)


def case_model_big_usage():
    """A usage number too large for 64 bits drops the usage, never the model's reply."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from fake_openai import FakeServer
    d = tempfile.mkdtemp(prefix="shc-fake-")
    script = os.path.join(d, "script.json")
    with open(script, "w") as f:
        json.dump({"responses": [{"events": [
            {"content": "the reply survives"},
            {"raw": 'data: {"id":"x","object":"chat.completion.chunk","created":0,"model":"fake","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":99999999999999999999999,"completion_tokens":5,"total_tokens":1e400}}\n\n'},
            {"done": True}]}]}, f)
    srv = FakeServer(script).start()
    a = Agent(args=["--base-url", srv.base_url], env={"OPENAI_API_KEY": "k"})
    try:
        a.init(PLAIN_CAPS)
        sid = a.new_session()
        r = a.response(a.prompt(sid, "hello"), 20)
        text = "".join(u.get("content", {}).get("text", "") for u in a.updates(sid) if u.get("sessionUpdate") == "agent_message_chunk")
        R.check(r is not None and r.get("result", {}).get("stopReason") == "end_turn", "usage past 64 bits: the turn ends normally", r)
        R.check("the reply survives" in text, "usage past 64 bits: the reply is kept", text)
    finally:
        a.close()
        srv.stop()
        shutil.rmtree(d, ignore_errors=True)


def make_sessions(store, n, template_sid):
    """n session files copied from a real one, with ids of the same form and distinct times."""
    with open(os.path.join(store, template_sid + ".jsonl"), "rb") as f:
        body = f.read()
    t = time.time() - n
    ids = []
    for i in range(n):
        sid = "sess_" + uuid.uuid4().hex
        path = os.path.join(store, sid + ".jsonl")
        with open(path, "wb") as f:
            f.write(body)
        os.utime(path, (t + i, t + i))
        ids.append(sid)
    return ids


def list_all(a, cwd=None):
    """Every page of session/list: (ids in order, pages, seconds per page)."""
    ids, cursor, pages, times = [], None, 0, []
    while True:
        params = {} if cursor is None else {"cursor": cursor}
        if cwd is not None:
            params["cwd"] = cwd
        t0 = time.monotonic()
        r = a.call("session/list", params, timeout=60)
        times.append(time.monotonic() - t0)
        if r is None or "result" not in r:
            return None, pages, times
        pages += 1
        ids += [x["sessionId"] for x in r["result"]["sessions"]]
        cursor = r["result"].get("nextCursor")
        if not cursor:
            return ids, pages, times


def write_sessions(store, n, cwds, t0=None, no_prompt_every=0):
    """n session files written directly in the store's format (store.c: a first "session"
    record, then "prompt" and "title" records, one JSON object a line), each with its own time
    (mtime, whole seconds apart) and one of cwds.  Returns [(id, mtime_ns, cwd, title, prompted)]
    oldest first."""
    t0 = int(time.time()) - n - 10 if t0 is None else t0
    out = []
    for i in range(n):
        sid = "sess_" + uuid.uuid4().hex
        cwd = cwds[i % len(cwds)]
        prompted = not (no_prompt_every and i % no_prompt_every == 0)
        title = f"echo {i}"
        lines = [json.dumps({"t": "session", "v": 1, "id": sid, "cwd": cwd, "created": "x", "agent": "shell"})]
        if prompted:
            lines.append('{"t":"prompt","blocks":[{"type":"text","text":"echo %d"}]}' % i)
            lines.append(json.dumps({"t": "title", "title": title}))
        path = os.path.join(store, sid + ".jsonl")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, ("\n".join(lines) + "\n").encode())
        os.close(fd)
        ns = (t0 + i) * 1_000_000_000
        os.utime(path, ns=(ns, ns))
        out.append((sid, ns, cwd, title, prompted))
    return out


def expected_ids(made, cwd=None):
    """What session/list shows of sessions written by write_sessions: prompted ones, newest
    first (time, then id)."""
    v = [m for m in made if m[4] and (cwd is None or m[2] == cwd)]
    v.sort(key=lambda m: (-m[1], m[0]))
    return [m[0] for m in v]


def start_seeded(store):
    """An agent on store that recorded one real session (the store exists, with its key)."""
    a = Agent(args=["--store", store], log_level="debug")
    a.init(PLAIN_CAPS)
    sid = a.new_session()
    a.response(a.prompt(sid, "echo seed"), 15)
    return a, sid


def case_list_lazy():
    """A restarted agent reads the index file a block at a time (each with its checksum): its
    first page costs no scan even when a later block is damaged, which then costs one scan
    when a page reaches it, every session still listed once and in order; a session another
    agent announced in the journal, from further down the file, is listed once, first."""
    d = tempfile.mkdtemp(prefix="shc-lazy-")
    store = os.path.join(d, "st")
    scans = lambda x: x.stderr_text().count(b"session store: every session read to index it")
    agents = []
    try:
        a, sid = start_seeded(store)
        agents.append(a)
        made = make_sessions(store, 3000, sid)
        want = [sid] + made[::-1]
        ids, _, _ = list_all(a)
        R.check(ids == want and scans(a) == 1, "lazy: the index is built by one scan", (len(ids or []), scans(a)))
        a.close_stdin()
        a.wait_exit(30)
        path = os.path.join(store, ".index", "sessions")
        with open(path, "rb") as f:
            text = bytearray(f.read())
        at = len(text) * 9 // 10
        while text[at] in b"\n0123456789 ":
            at += 1
        text[at] = ord("Z") if text[at] != ord("Z") else ord("Y")
        with open(path + ".tmp", "wb") as f:
            f.write(text)
        os.rename(path + ".tmp", path)
        b = Agent(args=["--store", store], log_level="debug")
        agents.append(b)
        b.init(PLAIN_CAPS)
        r = b.call("session/list", {})
        first = [x["sessionId"] for x in r["result"]["sessions"]] if r and "result" in r else None
        R.check(first == want[:50] and scans(b) == 0, "lazy: the first page from the file's head, no scan", (scans(b), (first or [])[:2]))
        ids, _, _ = list_all(b)
        R.check(ids == want, "lazy: a damaged later block: every session once, in order", (len(ids or []), len(set(ids or []))))
        R.check(scans(b) == 1, "lazy: a damaged later block costs one scan", scans(b))
        b.close_stdin()
        b.wait_exit(30)
        # an agent that parsed only the file's head learns from the journal that a session
        # further down was written again: it is first, and listed once
        c = Agent(args=["--store", store], log_level="debug")
        agents.append(c)
        c.init(PLAIN_CAPS)
        r = c.call("session/list", {})
        old = want[-10]
        now = time.time() + 5
        os.utime(os.path.join(store, old + ".jsonl"), (now, now))
        with open(os.path.join(store, ".index", "journal"), "a") as f:
            f.write(old + "\n")
        ids, _, _ = list_all(c)
        R.check(ids == [old] + [x for x in want if x != old], "lazy: an announced session from further down: first, once", (len(ids or []), (ids or [])[:1], old))
        R.check(scans(c) == 0, "lazy: no scan for it", scans(c))
    finally:
        for x in agents:
            x.close()
        shutil.rmtree(d, ignore_errors=True)


def case_list_index():
    """session/list pages come from an index kept in the store: one scan of the store for a
    whole walk through its pages and none for a session written meanwhile, here, by another
    agent or by hand; a second agent starts from the index file without a scan; the index file
    damaged or replaced by a FIFO costs one scan, never a wrong page or a hang."""
    d = tempfile.mkdtemp(prefix="shc-list-")
    store = os.path.join(d, "st")
    try:
        a, sid = start_seeded(store)
        b = None
        try:
            made = make_sessions(store, 3000, sid)
            ids, pages, _ = list_all(a)
            scans = lambda x: x.stderr_text().count(b"session store: every session read to index it")
            R.check(ids is not None and len(ids) == 3001 and pages == 61, "index: every session listed once", (len(ids or []), pages))
            R.check(ids == [sid] + made[::-1], "index: newest first, as the files' times say", (ids or [])[:3])
            R.check(scans(a) == 1, "index: one scan for 61 pages", scans(a))
            R.check(os.path.isfile(os.path.join(store, ".index", "sessions")), "index: written to the store", os.listdir(store)[:5])
            s2 = a.new_session()
            a.response(a.prompt(s2, "echo newest"), 15)
            r = a.call("session/list", {})
            first = r["result"]["sessions"][0]["sessionId"] if r and "result" in r else None
            R.check(first == s2 and scans(a) == 1, "index: a session written here is first, without a rescan", (first, s2, scans(a)))
            # a session made by hand: the directory changed for no announced reason, its names
            # are read again (no scan of every session)
            hand = make_sessions(store, 1, sid)[0]
            now = time.time()
            os.utime(os.path.join(store, hand + ".jsonl"), (now, now))
            r = a.call("session/list", {})
            first = r["result"]["sessions"][0]["sessionId"] if r and "result" in r else None
            R.check(first == hand and scans(a) == 1, "index: a session made by hand is listed, without a rescan", (first, hand, scans(a)))
            # a second agent on the same store starts from the index file
            b = Agent(args=["--store", store], log_level="debug")
            b.init(PLAIN_CAPS)
            ids, pages, _ = list_all(b)
            R.check(ids is not None and ids[:3] == [hand, s2, sid] and len(ids) == 3003 and len(set(ids)) == 3003,
                    "two agents: the second lists every session once", (len(ids or []), (ids or [])[:3]))
            R.check(scans(b) == 0, "two agents: the second reads the index file, not every session", scans(b))
            # each sees the other's new sessions first, and a session written again moves up
            s3 = b.new_session()
            b.response(b.prompt(s3, "echo from b"), 15)
            r = a.call("session/list", {})
            got = [x["sessionId"] for x in r["result"]["sessions"][:2]] if r and "result" in r else None
            R.check(got == [s3, hand], "two agents: a session written by the other is first", (got, s3))
            time.sleep(0.05)
            a.response(a.prompt(s2, "echo again"), 15)
            r = b.call("session/list", {})
            got = [x["sessionId"] for x in r["result"]["sessions"][:2]] if r and "result" in r else None
            R.check(got == [s2, s3], "two agents: a session the other wrote again moves to the top", (got, s2))
            # a session deleted through one agent is gone from the other's list
            b.call("session/close", {"sessionId": s3})
            r = a.call("session/delete", {"sessionId": s3})
            R.check(r is not None and "result" in r, "two agents: one deletes a session the other closed", r)
            ids, _, _ = list_all(b)
            R.check(ids is not None and s3 not in ids and len(ids) == 3003, "two agents: a session deleted by the other is not listed", len(ids or []))
            R.check(scans(a) == 1 and scans(b) == 0, "two agents: no scan for any of it", (scans(a), scans(b)))
        finally:
            a.close()
            if b:
                b.close()
        # the index file damaged: one scan, the right pages
        path = os.path.join(store, ".index", "sessions")
        with open(path, "r+b") as f:
            f.seek(os.path.getsize(path) // 2)
            c = f.read(1)
            f.seek(-1, 1)
            f.write(bytes([c[0] ^ 0x20]))
        for what in ("damaged", "a FIFO"):
            a = Agent(args=["--store", store], log_level="debug")
            try:
                a.init(PLAIN_CAPS)
                ids, _, _ = list_all(a)
                R.check(ids is not None and len(ids) == 3003 and len(set(ids)) == 3003 and ids[0] == s2,
                        f"index file {what}: every session listed once", (len(ids or []), (ids or [])[:1]))
                R.check(scans(a) == 1, f"index file {what}: one scan", scans(a))
            finally:
                a.close()
            os.unlink(path)
            os.mkfifo(path)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def case_list_100k():
    """100,000 sessions (RELIAB_LIST_N) written directly in the store's format: every session
    listed exactly once across the pages, newest first, the cwd filter, then a second agent
    from the index file after sessions were deleted, added, truncated and corrupted by hand."""
    n = int(os.environ.get("RELIAB_LIST_N", "100000"))
    d = tempfile.mkdtemp(prefix="shc-list100k-")
    store = os.path.join(d, "st")
    cwds = [os.path.join(d, "p%d" % i) for i in range(3)]
    scans = lambda x: x.stderr_text().count(b"session store: every session read to index it")
    try:
        a, seed = start_seeded(store)
        try:
            made = write_sessions(store, n, cwds, no_prompt_every=1000)
            want = [seed] + expected_ids(made)
            ids, pages, _ = list_all(a)
            R.check(ids == want, f"{n} sessions: every one listed once, newest first",
                    (len(ids or []), len(set(ids or [])), len(want), pages))
            ids, _, _ = list_all(a, cwds[1])
            R.check(ids == expected_ids(made, cwds[1]), f"{n} sessions: the cwd filter", len(ids or []))
            R.check(scans(a) == 1, f"{n} sessions: one scan", scans(a))
            a.close_stdin()
            a.wait_exit(30)
        finally:
            a.close()
        # by hand: 3 deleted (one on the first page), 2 added (newest), one truncated and one
        # corrupted on the first page
        order = expected_ids(made)
        gone = {order[0], order[5000], order[-1]}
        for sid in gone:
            os.unlink(os.path.join(store, sid + ".jsonl"))
        with open(os.path.join(store, order[1] + ".jsonl"), "r+b") as f:
            f.truncate(0)
        with open(os.path.join(store, order[2] + ".jsonl"), "r+b") as f:
            f.write(b"\x00garbage")
        added = write_sessions(store, 2, cwds, t0=int(time.time()) + 100)
        a = Agent(args=["--store", store], log_level="debug")
        try:
            a.init(PLAIN_CAPS)
            ids, _, _ = list_all(a)
            # the two added are newest, then the seed session (recorded now), then the rest
            want = [m[0] for m in added[::-1]] + [seed] + [x for x in order if x not in gone and x not in (order[1], order[2])]
            R.check(ids == want, "changed by hand: the second agent lists each session once, in order",
                    (len(ids or []), len(want), (ids or [])[:3], want[:3]))
            R.check(scans(a) == 0, "changed by hand: no scan of every session", scans(a))
        finally:
            a.close()
    finally:
        shutil.rmtree(d, ignore_errors=True)


CASES = {
    "signals": case_signals,
    "signal_teardown": case_signal_teardown,
    "stderr_closed": case_stderr_closed,
    "sigkill": case_sigkill,
    "stall_flood": case_stall_flood,
    "many_sessions": case_many_sessions,
    "stdin_closed_unread": case_stdin_closed_unread,
    "command_slots": case_command_slots,
    "answer_flood": case_answer_flood,
    "run_sigkill": case_run_sigkill,
    "mention": case_mention,
    "tty_wait": case_tty_wait,
    "long_command": case_long_command,
    "prompt_after_cancel": case_prompt_after_cancel,
    "big_prompts": case_big_prompts,
    "jsonrpc_edges": case_jsonrpc_edges,
    "cwd": case_cwd,
    "sessions_cap": case_sessions_cap,
    "hostile_store": case_hostile_store,
    "session_fds": case_session_fds,
    "escape_unmarked": case_escape_unmarked,
    "guardian_killed": case_guardian_killed,
    "guardian_stopped": case_guardian_stopped,
    # the same where no cgroup can be made: the guardian's process tree contains the commands
    "escape_unmarked_tree": lambda: case_escape_unmarked(NO_CGROUP),
    "guardian_killed_tree": lambda: case_guardian_killed(NO_CGROUP),
    "guardian_stopped_tree": lambda: case_guardian_stopped(NO_CGROUP),
    "memory_sweep": case_memory_sweep,
    "two_values": case_two_values,
    "model_no_progress": case_model_no_progress,
    "store_read_only": case_store_read_only,
    "model_big_usage": case_model_big_usage,
    "list_index": case_list_index,
    "list_lazy": case_list_lazy,
    "list_100k": case_list_100k,
}
HEAVY = {"stall_flood", "many_sessions", "answer_flood"}


def run_guarded(name, fn):
    t0 = time.monotonic()
    try:
        fn()
    except Exception:
        R.check(False, f"{name}: raised", traceback.format_exc()[-1500:])
    R.note(f"case {name}: {time.monotonic() - t0:.1f} s")


def run_parallel(fns, jobs):
    lock = threading.Lock()
    todo = list(fns)

    def worker():
        while True:
            with lock:
                if not todo:
                    return
                f = todo.pop(0)
            try:
                f()
            except Exception:
                R.check(False, "worker raised", traceback.format_exc()[-1500:])

    ts = [threading.Thread(target=worker) for _ in range(max(1, jobs))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def main():
    names = sys.argv[1:] or list(CASES)
    for n in names:
        if n not in CASES:
            print(f"unknown case {n}; cases: {' '.join(CASES)}")
            return 2
    if not os.access(SHCARD, os.X_OK):
        print(f"no shcard binary at {SHCARD}")
        print("0 passed, 1 failed")
        return 1
    # Every stray process of ours comes back to us rather than to init, so it can be found.
    heavy = [n for n in names if n in HEAVY]
    light = [n for n in names if n not in HEAVY]
    jobs = int(os.environ.get("RELIAB_JOBS", "2"))
    lanes = [threading.Thread(target=run_parallel, args=([lambda n=n: run_guarded(n, CASES[n]) for n in heavy], 1))]
    lanes.append(threading.Thread(target=run_parallel, args=([lambda n=n: run_guarded(n, CASES[n]) for n in light], jobs)))
    for t in lanes:
        t.start()
    for t in lanes:
        t.join()
    print(f"{R.passed} passed, {R.failed} failed", flush=True)
    return 0 if R.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
