#!/usr/bin/env python3
"""Smoke tests of a release binary as a user would run it: unpacked archive, empty environment.

    dist_smoke.py [--model] [--no-curl] UNPACKED_DIR [RUNNER...]

Runs UNPACKED_DIR/shcard (through RUNNER, e.g. qemu-aarch64-static -L SYSROOT, when given) with
an environment that holds only a fresh HOME (as `env -i HOME=...`), from the unpacked directory:
`shcard explain` on a read command, `shcard run` of a command whose output only bash can produce,
and an ACP session (initialize, session/new, a shell-mode prompt that runs a command) over
stdin/stdout, every stdout line checked to be JSON.  --model adds a model session against
tests/fake_openai.py on loopback (libcurl loaded with dlopen by the release binary); --no-curl
runs that session where no libcurl.so.4 can be loaded and expects the clear error instead of a
crash or a silent failure (natively in bwrap with the library replaced by an empty file; under
qemu the -L sysroot must simply have none).  Prints "ok: NAME" or "FAIL: NAME: why" per
check; the exit status is non-zero when any check failed.
"""
import json
import os
import select
import subprocess
import sys
import tempfile
import time

failed = 0


def report(ok, name, why=""):
    global failed
    if ok:
        print("ok: " + name)
    else:
        failed += 1
        print("FAIL: %s: %s" % (name, why))


def main():
    argv = sys.argv[1:]
    model = "--model" in argv
    no_curl = "--no-curl" in argv
    argv = [a for a in argv if a not in ("--model", "--no-curl")]
    unpacked = os.path.abspath(argv[0])
    runner = argv[1:]
    exe = runner + ["./shcard"]
    home = tempfile.mkdtemp(prefix="shcard-dist-home-")
    try:
        return smoke(unpacked, runner, exe, home, model, no_curl)
    finally:
        import shutil
        shutil.rmtree(home, ignore_errors=True)


def smoke(unpacked, runner, exe, home, model, no_curl):
    env = {"HOME": home}
    tag = "[%s]" % (" ".join(runner[:1]) or "native")

    def run(args, timeout=60):
        return subprocess.run(exe + args, cwd=unpacked, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=timeout)

    r = run(["explain", "sed -n 1,5p README.md"])
    report(r.returncode == 0 and r.stdout.startswith("read:") and "path: README.md" in r.stdout,
           tag + " explain classifies a read", "rc=%d out=%r err=%r" % (r.returncode, r.stdout, r.stderr))
    r = run(["explain", "--json", "rm -rf /tmp/x"])
    try:
        kind = json.loads(r.stdout).get("kind")
    except ValueError:
        kind = None
    report(r.returncode == 0 and kind == "terminal", tag + " explain --json (jansson linked in)",
           "rc=%d out=%r err=%r" % (r.returncode, r.stdout, r.stderr))
    r = run(["run", "echo smoke-$((6*7)) $PWD"])
    report(r.returncode == 0 and ("smoke-42 " + unpacked) in r.stdout, tag + " run executes in bash",
           "rc=%d out=%r err=%r" % (r.returncode, r.stdout, r.stderr))

    acp_session(exe, unpacked, env, tag)
    if model:
        model_session(exe, unpacked, env, tag, wrap=[])
    if no_curl:
        model_session(exe, unpacked, env, tag, wrap=hide_libcurl(runner), expect_curl=False)
    return 1 if failed else 0


def hide_libcurl(runner):
    """bwrap arguments that put an empty file where the machine's libcurl.so.4 is; none under a
    runner whose sysroot (-L DIR) has no libcurl at all (checked)."""
    import glob
    import shutil
    if runner:
        root = runner[runner.index("-L") + 1]
        found = glob.glob(os.path.join(root, "**", "libcurl.so*"), recursive=True)
        if found:
            raise SystemExit("FAIL: --no-curl: the sysroot has %s" % found)
        return []
    out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    lib = next((l.split("=>")[1].strip() for l in out.splitlines()
                if l.strip().startswith("libcurl.so.4 ") and "x86-64" in l), None)
    if not lib or not shutil.which("bwrap"):
        raise SystemExit("FAIL: --no-curl needs bwrap and a libcurl.so.4 to hide")
    tmp = tempfile.gettempdir()
    return ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/run", "--bind", tmp, tmp, "--ro-bind", "/dev/null",
            os.path.realpath(lib), "--"]


def model_session(exe, cwd, env, tag, wrap, expect_curl=True):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from fake_openai import FakeServer
    here = os.path.dirname(os.path.abspath(__file__))
    srv = FakeServer(os.path.join(here, "data", "openai", "text.json"))
    srv.start()
    name = tag + (" model turn without libcurl: a clear error" if not expect_curl else
                  " model turn (libcurl loaded with dlopen)")
    try:
        s = Session(wrap + exe + ["acp", "--base-url", "http://127.0.0.1:%d/v1" % srv.port,
                                  "--api-key-env", "SHCARD_DIST_KEY"], cwd,
                    dict(env, SHCARD_DIST_KEY="sk-test"))
        s.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": 1, "clientCapabilities": {}}})
        s.send({"jsonrpc": "2.0", "id": 2, "method": "session/new",
                "params": {"cwd": cwd, "mcpServers": []}})
        new = s.wait(lambda f: f.get("id") == 2)
        sid = (new or {}).get("result", {}).get("sessionId")
        s.send({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
                "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}})
        done = s.wait(lambda f: f.get("id") == 3)
        text = "".join(f["params"]["update"].get("content", {}).get("text", "")
                       for f in s.frames if f.get("method") == "session/update"
                       and f["params"]["update"].get("sessionUpdate") == "agent_message_chunk")
        rc, err = s.close()
        if not expect_curl:
            msg = json.dumps((done or {}).get("error", {}))
            report(done is not None and "libcurl" in msg and "libcurl" in err and rc == 0
                   and not s.bad, name, "answer=%r rc=%s err=%r" % (done, rc, err[-400:]))
        else:
            report(done is not None and done.get("result", {}).get("stopReason") == "end_turn"
                   and text == "Hello, world" and len(srv.requests) >= 1 and rc == 0 and not s.bad,
                   name, "answer=%r text=%r rc=%s err=%r" % (done, text, rc, err[-400:]))
    finally:
        srv.stop()


class Session:
    """An agent process on pipes: JSON lines out, every stdout line kept (bad ones apart)."""

    def __init__(self, argv, cwd, env):
        self.p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.frames, self.bad, self.buf = [], [], b""

    def send(self, obj):
        self.p.stdin.write((json.dumps(obj) + "\n").encode())
        self.p.stdin.flush()

    def wait(self, pred, timeout=60):
        end = time.monotonic() + timeout
        while True:
            for f in self.frames:
                if pred(f):
                    return f
            left = end - time.monotonic()
            if left <= 0:
                return None
            if not select.select([self.p.stdout], [], [], min(left, 1.0))[0]:
                continue
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if not chunk:
                return None
            self.buf += chunk
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                try:
                    self.frames.append(json.loads(line))
                except ValueError:
                    self.bad.append(line)

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        rest = self.p.stdout.read()
        for line in rest.split(b"\n"):
            if line.strip():
                try:
                    self.frames.append(json.loads(line))
                except ValueError:
                    self.bad.append(line)
        err = self.p.stderr.read().decode(errors="replace")
        self.p.stdout.close()
        self.p.stderr.close()
        return self.p.returncode, err


def acp_session(exe, cwd, env, tag):
    p = subprocess.Popen(exe + ["acp"], cwd=cwd, env=env, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    frames, bad = [], []
    buf = b""

    def send(obj):
        p.stdin.write((json.dumps(obj) + "\n").encode())
        p.stdin.flush()

    def wait(pred, timeout=60):
        nonlocal buf
        end = time.monotonic() + timeout
        while True:
            for f in frames:
                if pred(f):
                    return f
            left = end - time.monotonic()
            if left <= 0 or p.poll() is not None and not select.select([p.stdout], [], [], 0)[0]:
                return None
            if not select.select([p.stdout], [], [], min(left, 1.0))[0]:
                continue
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                return None
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    frames.append(json.loads(line))
                except ValueError:
                    bad.append(line)

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": 1, "clientCapabilities": {"terminal": False}}})
        init = wait(lambda f: f.get("id") == 1)
        report(init is not None and init.get("result", {}).get("protocolVersion") == 1,
               tag + " acp initialize", repr(init))
        send({"jsonrpc": "2.0", "id": 2, "method": "session/new",
              "params": {"cwd": cwd, "mcpServers": []}})
        new = wait(lambda f: f.get("id") == 2)
        sid = (new or {}).get("result", {}).get("sessionId")
        report(bool(sid), tag + " acp session/new", repr(new))
        if not sid:
            return
        send({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
              "params": {"sessionId": sid,
                         "prompt": [{"type": "text", "text": "echo acp-$((6*7))"}]}})
        done = wait(lambda f: f.get("id") == 3)
        report(done is not None and done.get("result", {}).get("stopReason") == "end_turn",
               tag + " acp prompt ends its turn", repr(done))
        updates = [f for f in frames if f.get("method") == "session/update"
                   and f.get("params", {}).get("sessionId") == sid]
        calls = [u for u in updates if u["params"]["update"].get("sessionUpdate") == "tool_call"]
        ran = [u for u in updates if "acp-42" in json.dumps(u)]
        report(len(calls) == 1 and ran, tag + " acp prompt runs the command in bash",
               "%d tool calls, output seen: %s" % (len(calls), bool(ran)))
        report(not bad, tag + " acp stdout carries JSON only", repr(bad[:3]))
    finally:
        p.stdin.close()
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        report(p.returncode == 0, tag + " acp exits 0 at end of input",
               "rc=%s err=%r" % (p.returncode, p.stderr.read().decode(errors="replace")[-500:]))
        p.stderr.close()
        p.stdout.close()


if __name__ == "__main__":
    sys.exit(main())
