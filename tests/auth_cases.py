#!/usr/bin/env python3
"""Authentication: `shcard login` on a real PTY, and the bridge's authMethods / authenticate.

login: the real binary on a pseudo-terminal; the test types the choices and the key as a user
would and reads everything the terminal shows.  The key must never appear there (echo off),
the typed visible answers must (so the check can fail), the config file gets what was chosen with
mode 0600 and its other lines kept, Ctrl-C saves nothing and gives the terminal its echo back,
and with no terminal at all login refuses.

bridge: `shcard acp` over pipes with raw JSON-RPC (as the ACP Registry's validator talks to it):
the validator's exact initialize gets the terminal method (type and the older _meta spelling)
and the env_var method in their exact shapes; a client without terminal auth gets the env_var one
only; authenticate answers -32602 for a method never advertised; a login in another process is
picked up by the next session/new of the running agent (the fake OpenAI server on loopback sees
the key), while the session made before keeps shell mode.

Prints "N passed, N failed".
"""
import json
import os
import pty
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import termios
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from fake_openai import FakeServer  # noqa: E402

SHCARD = os.environ.get("SHCARD") or os.path.join(ROOT, "shcard")
passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name}" + (f": {detail}" if detail else ""))


def clean_env(home, **extra):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "TERM": "dumb",
           "LC_ALL": "C.UTF-8"}
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if k in os.environ:
            env[k] = os.environ[k]
    env.update(extra)
    return env


class Pty:
    """A program on a new PTY (its controlling terminal); everything it shows is kept."""

    def __init__(self, argv, env):
        self.master, self.slave = pty.openpty()
        self.proc = subprocess.Popen(argv, stdin=self.slave, stdout=self.slave, stderr=self.slave,
                                     env=env, start_new_session=True,
                                     preexec_fn=self._ctty, close_fds=True)
        self.seen = b""

    def _ctty(self):
        import fcntl
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    def read_until(self, text, timeout=10):
        end = time.monotonic() + timeout
        while text.encode() not in self.seen:
            left = end - time.monotonic()
            if left <= 0:
                return False
            r, _, _ = select.select([self.master], [], [], left)
            if r:
                try:
                    data = os.read(self.master, 4096)
                except OSError:
                    return False
                if not data:
                    return False
                self.seen += data
        return True

    def type(self, text):
        os.write(self.master, text.encode())

    def finish(self, timeout=10):
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        while True:  # what is left on the terminal
            r, _, _ = select.select([self.master], [], [], 0.2)
            if not r:
                break
            try:
                data = os.read(self.master, 4096)
            except OSError:
                break
            if not data:
                break
            self.seen += data
        self.lflag_after = termios.tcgetattr(self.slave)[3]
        self.echo_after = bool(self.lflag_after & termios.ECHO)
        os.close(self.master)
        os.close(self.slave)
        return rc


def login(argv, env, answers, secret_at=None):
    """Runs a login, answering each (prompt, text) in turn; returns (rc, screen, echo_after)."""
    p = Pty(argv, env)
    for prompt, text in answers:
        if not p.read_until(prompt):
            p.proc.kill()
            p.finish()
            return None, p.seen.decode("utf-8", "replace"), None
        p.type(text)
    rc = p.finish()
    return rc, p.seen.decode("utf-8", "replace"), p.echo_after


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def read(path):
    with open(path) as f:
        return f.read()


# ------------------------------------------------------------------ shcard login on a PTY

def test_login(tmp):
    home = os.path.join(tmp, "home")
    xdg = os.path.join(tmp, "xdg")
    os.makedirs(home)
    cfg = os.path.join(xdg, "shcard", "config")
    os.makedirs(os.path.dirname(cfg))
    with open(cfg, "w") as f:
        f.write("# mine\ntimeout = 60\nmodel = deepseek-reasoner\napi_key_env = OLD_VAR\n")
    os.chmod(cfg, 0o644)
    env = clean_env(home, XDG_CONFIG_HOME=xdg)
    key = "sk-test-SECRET-4711"

    # 1. DeepSeek, the key typed (with a typo fixed by backspace)
    rc, screen, echo = login([SHCARD, "login"], env,
                             [("Choice", "1\r"), ("API key", key[:-1] + "x\x7f" + key[-1] + "\r")])
    check("login deepseek: exit 0", rc == 0, f"rc {rc}: {screen[-400:]}")
    check("login deepseek: the key never shown", "SECRET" not in screen, screen)
    check("login deepseek: the visible answer echoed", "Choice [1-3, Enter for 1]: 1" in screen,
          screen)
    check("login deepseek: says where", cfg in screen and "no restart needed" in screen, screen)
    check("login deepseek: echo back on", echo is True)
    check("login deepseek: file", read(cfg) ==
          "# mine\ntimeout = 60\nmodel = deepseek-reasoner\n"
          "base_url = https://api.deepseek.com\napi_key = " + key + "\n", repr(read(cfg)))
    check("login deepseek: mode 0600", mode_of(cfg) == 0o600, oct(mode_of(cfg)))
    check("login deepseek: no temporary file left",
          sorted(os.listdir(os.path.dirname(cfg))) == ["config", "config.lock"],
          os.listdir(os.path.dirname(cfg)))

    # 2. another server through `shcard acp login` (what the ACP terminal method runs), no key
    rc, screen, echo = login([SHCARD, "acp", "--approve", "ask", "login"], env,
                             [("Choice", "2\r"), ("Base URL", "ftp://x\r"),
                              ("starts with http", "http://127.0.0.1:9/v1\r"),
                              ("Model name [Enter for deepseek-reasoner]", "llama3\r"),
                              ("API key", "\r")])
    check("acp login other: exit 0", rc == 0, f"rc {rc}: {screen[-400:]}")
    check("acp login other: file", read(cfg) ==
          "# mine\ntimeout = 60\nmodel = llama3\nbase_url = http://127.0.0.1:9/v1\n",
          repr(read(cfg)))
    check("acp login other: typed answers echoed", "llama3" in screen, screen)

    # 3. shell mode: the rest stays
    rc, screen, echo = login([SHCARD, "login"], env, [("Choice", "3\r")])
    check("login shell: exit 0", rc == 0, screen)
    check("login shell: file", read(cfg).endswith("base_url = http://127.0.0.1:9/v1\nshell = yes\n")
          and "model = llama3" in read(cfg), repr(read(cfg)))

    # 4. Ctrl-C at the key: nothing saved, the terminal's echo back
    before = read(cfg)
    rc, screen, echo = login([SHCARD, "login"], env,
                             [("Choice", "\r"), ("API key", "sk-half\x03")])
    check("login ctrl-c: exit 1", rc == 1, f"rc {rc}: {screen}")
    check("login ctrl-c: nothing saved", read(cfg) == before and "nothing saved" in screen,
          screen)
    check("login ctrl-c: echo back on", echo is True)
    check("login ctrl-c: the half key never shown", "sk-half" not in screen, screen)

    # 5. no terminal at all (no controlling tty, stdin not a terminal): refused, nothing written
    other = os.path.join(tmp, "xdg2")
    r = subprocess.run([SHCARD, "login"], stdin=subprocess.DEVNULL, capture_output=True,
                       env=clean_env(home, XDG_CONFIG_HOME=other), start_new_session=True,
                       timeout=10)
    check("login without a terminal: exit 2", r.returncode == 2, r.stderr)
    check("login without a terminal: says why", b"needs a terminal" in r.stderr and
          b"DEEPSEEK_API_KEY" in r.stderr, r.stderr)
    check("login without a terminal: nothing written", not os.path.exists(other))


# ------------------------------------------------------------------ the bridge

VALIDATOR_INIT = {"protocolVersion": 1,
                  "clientInfo": {"name": "ACP Registry Validator", "version": "1.0.0"},
                  "clientCapabilities": {"terminal": True,
                                         "fs": {"readTextFile": True, "writeTextFile": True},
                                         "_meta": {"terminal_output": True,
                                                   "terminal-auth": True}}}

ENV_METHOD = {"id": "api-key-env", "name": "API key in the environment",
              "description": "Start shcard with DEEPSEEK_API_KEY (DeepSeek) or OPENAI_API_KEY "
                             "(the server base_url names) set; one of them is enough",
              "type": "env_var",
              "vars": [{"name": "DEEPSEEK_API_KEY", "label": "DeepSeek API key", "secret": True,
                        "optional": True},
                       {"name": "OPENAI_API_KEY", "label": "OpenAI-compatible API key",
                        "secret": True, "optional": True}],
              "link": "https://platform.deepseek.com/api_keys"}


def terminal_method():
    return {"id": "shcard-login", "name": "Set up shcard in a terminal",
            "description": "Choose DeepSeek, another OpenAI-compatible server or shell mode, and "
                           "type the API key (shcard login)",
            "type": "terminal", "args": ["login"],
            "_meta": {"terminal-auth": {"command": os.path.realpath(SHCARD), "args": ["login"],
                                        "label": "shcard login"}}}


class Agent:
    def __init__(self, env, args=()):
        # unbuffered: select() then sees every line (a buffered reader would hold some back)
        self.proc = subprocess.Popen([SHCARD, "acp", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                     bufsize=0)
        self.n = 0
        self.nonjson = []
        self.notes = []

    def call(self, method, params, timeout=20):
        self.n += 1
        msg = {"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            r, _, _ = select.select([self.proc.stdout], [], [], end - time.monotonic())
            if not r:
                break
            line = self.proc.stdout.readline()
            if not line:
                break
            try:
                obj = json.loads(line)
            except ValueError:
                self.nonjson.append(line)
                continue
            if obj.get("id") == self.n and "method" not in obj:
                return obj
            if obj.get("method") == "session/request_permission":
                self.reply(obj["id"], {"outcome": {"outcome": "selected",
                                                   "optionId": "allow_once"}})
            else:
                self.notes.append(obj)
        return None

    def reply(self, rid, result):
        self.proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": rid, "result": result})
                               + "\n").encode())
        self.proc.stdin.flush()

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        err = self.proc.stderr.read().decode("utf-8", "replace")
        self.proc.stdout.close()
        self.proc.stderr.close()
        return err


def validator_type(m):
    """The registry validator's reading of a method's type (client.py parse_auth_methods)."""
    t = m.get("type")
    if not t:
        meta = m.get("_meta", {})
        t = "terminal" if "terminal-auth" in meta else "agent" if "agent-auth" in meta else None
    return t or "agent"


def test_bridge_methods(tmp):
    home = tempfile.mkdtemp(prefix="acp-auth-check-", dir=tmp)
    a = Agent(clean_env(home))
    r = a.call("initialize", VALIDATOR_INIT)
    methods = (r or {}).get("result", {}).get("authMethods")
    check("validator initialize: exact authMethods", methods == [terminal_method(), ENV_METHOD],
          json.dumps(methods))
    check("validator initialize: a terminal or agent method",
          any(validator_type(m) in ("agent", "terminal") for m in methods or []))
    # the same without the method's own type: the older _meta spelling alone says terminal
    check("validator: _meta alone reads as terminal",
          validator_type({k: v for k, v in terminal_method().items() if k != "type"}) ==
          "terminal")
    for mid, code in (("nope", -32602), ("", -32602), ("shcard-login", -32000),
                      ("api-key-env", -32000)):
        r = a.call("authenticate", {"methodId": mid})
        check(f"authenticate {mid!r}: {code}", (r or {}).get("error", {}).get("code") == code,
              json.dumps(r))
    r = a.call("authenticate", {"methodId": 7})
    check("authenticate methodId 7: -32602", (r or {}).get("error", {}).get("code") == -32602)
    r = a.call("authenticate", {})
    check("authenticate without methodId: -32602",
          (r or {}).get("error", {}).get("code") == -32602)
    a.close()
    check("validator: nothing but JSON on stdout", not a.nonjson, a.nonjson)

    # a client without terminal auth: only env_var; the terminal id was never advertised
    a = Agent(clean_env(home, DEEPSEEK_API_KEY="sk-env"))
    r = a.call("initialize", {"protocolVersion": 1, "clientCapabilities": {"terminal": True}})
    check("plain client: env_var only", r and r["result"]["authMethods"] == [ENV_METHOD],
          json.dumps(r))
    r = a.call("authenticate", {"methodId": "shcard-login"})
    check("plain client: terminal id never advertised -> -32602",
          (r or {}).get("error", {}).get("code") == -32602, json.dumps(r))
    r = a.call("authenticate", {"methodId": "api-key-env"})
    check("env_var with DEEPSEEK_API_KEY set: ok", (r or {}).get("result") == {}, json.dumps(r))
    a.close()

    # clientCapabilities.auth.terminal (the stable v1 capability) alone
    a = Agent(clean_env(home))
    r = a.call("initialize", {"protocolVersion": 1,
                              "clientCapabilities": {"auth": {"terminal": True}}})
    check("auth.terminal client: both methods",
          r and r["result"]["authMethods"] == [terminal_method(), ENV_METHOD], json.dumps(r))
    a.close()


def prompt_text(a, sid, text):
    return a.call("session/prompt", {"sessionId": sid,
                                     "prompt": [{"type": "text", "text": text}]}, timeout=30)


def test_login_then_new_session(tmp):
    home = os.path.join(tmp, "h2")
    xdg = os.path.join(tmp, "x2")
    os.makedirs(home)
    work = os.path.join(tmp, "work")
    os.makedirs(work)
    srv = FakeServer(os.path.join(ROOT, "tests/data/openai/text.json"))
    srv.start()
    try:
        env = clean_env(home, XDG_CONFIG_HOME=xdg)
        a = Agent(env, ["--store", os.path.join(tmp, "store")])
        a.call("initialize", VALIDATOR_INIT)
        r1 = a.call("session/new", {"cwd": work, "mcpServers": []})
        s1 = (r1 or {}).get("result", {})
        opts1 = [o["id"] for o in s1.get("configOptions", [])]
        check("before login: shell mode (no model option)", opts1 == ["mode", "sandbox", "network"], json.dumps(r1))
        sb1 = [o["currentValue"] for o in s1.get("configOptions", []) if o["id"] == "sandbox"]
        check("before login: shell mode runs commands as typed (sandbox off)", sb1 == ["off"], json.dumps(r1))
        r = a.call("authenticate", {"methodId": "shcard-login"})
        check("before login: authenticate says no setup", (r or {}).get("error", {})
              .get("code") == -32000 and "shcard login" in r["error"]["message"], json.dumps(r))

        key = "sk-login-KEY-0815"
        rc, screen, _ = login([SHCARD, "login"], env,
                              [("Choice", "2\r"), ("Base URL", f"{srv.base_url}\r"),
                               ("Model name", "fake-model\r"), ("API key", key + "\r")])
        check("login for the running agent", rc == 0, screen)
        r = a.call("authenticate", {"methodId": "shcard-login"})
        check("after login: authenticate ok", (r or {}).get("result") == {}, json.dumps(r))

        r2 = a.call("session/new", {"cwd": work, "mcpServers": []})
        s2 = (r2 or {}).get("result", {})
        model = [o for o in s2.get("configOptions", []) if o["id"] == "model"]
        check("after login: the new session has the model",
              model and model[0]["currentValue"] == "fake-model", json.dumps(r2))
        sb2 = [o["currentValue"] for o in s2.get("configOptions", []) if o["id"] == "sandbox"]
        check("after login: the model's session runs its commands in the workspace sandbox",
              sb2 == ["workspace"], json.dumps(r2))
        r = prompt_text(a, s2.get("sessionId"), "hi")
        check("after login: the prompt ends", (r or {}).get("result", {}).get("stopReason") ==
              "end_turn", json.dumps(r))
        posts = [q for q in srv.requests if q["path"].endswith("/chat/completions")]
        check("after login: the server got the key",
              len(posts) == 1 and posts[0]["authorization"] == "Bearer " + key,
              json.dumps([q.get("authorization") for q in posts]))
        texts = "".join(n["params"]["update"]["content"].get("text", "")
                        for n in a.notes if n.get("method") == "session/update"
                        and n["params"]["sessionId"] == s2.get("sessionId")
                        and n["params"]["update"].get("sessionUpdate") == "agent_message_chunk")
        check("after login: the model's answer streamed", "Hello, world" in texts, texts)

        # the session made before the login keeps shell mode: its prompt runs as a command
        a.notes.clear()
        r = prompt_text(a, s1.get("sessionId"), "echo from-the-old-session")
        check("old session: still shell mode", (r or {}).get("result", {}).get("stopReason") ==
              "end_turn" and len([q for q in srv.requests if q["path"].endswith(
                  "/chat/completions")]) == 1, json.dumps(r))
        calls = [n["params"]["update"] for n in a.notes if n.get("method") == "session/update"
                 and n["params"]["update"].get("sessionUpdate") == "tool_call"]
        check("old session: the line ran as a command", any(
            "from-the-old-session" in json.dumps(c) for c in calls), json.dumps(calls)[:400])
        err = a.close()
        check("the agent said what it uses now", "model fake-model at " + srv.base_url +
              " (the config file)" in err, err[-600:])
        check("no key in the agent's log", key not in err)
        check("bridge: nothing but JSON on stdout", not a.nonjson, a.nonjson)
    finally:
        srv.stop()


def write_config(path, text):
    """Replaces the config file the way login does (a new file renamed over the old one)."""
    tmp = path + ".new"
    with open(tmp, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o600)
    os.rename(tmp, path)


def test_backend_freed_while_models_in_flight(tmp):
    """A backend is replaced (settings changed) while its GET /models still waits on a slow
    server: the agent must keep serving, never touch the freed client's timers or sockets."""
    home = os.path.join(tmp, "h-uaf")
    cfgdir = os.path.join(home, ".config", "shcard")
    os.makedirs(cfgdir, 0o700)
    cfg = os.path.join(cfgdir, "config")
    script = os.path.join(tmp, "slow-models.json")
    with open(os.path.join(ROOT, "tests/data/openai/text.json")) as f:
        data = json.load(f)
    data["models"] = [{"id": "m", "object": "model"}]
    data["models_delay_s"] = 1.5
    with open(script, "w") as f:
        json.dump(data, f)
    servers = [FakeServer(script), FakeServer(script)]
    for srv in servers:
        srv.start()
    try:
        write_config(cfg, f"base_url = {servers[0].base_url}\napi_key = sk-0\nmodel = m\n")
        a = Agent(clean_env(home), ["--store", os.path.join(tmp, "store-uaf")])
        a.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        sids, answered = [], 0
        old_pipe = signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # a crashed agent: a failure
        try:
            answered = churn_sessions(a, cfg, servers, home, sids)
        except (BrokenPipeError, OSError) as e:
            check("settings changed under a slow /models: the agent kept reading", False, repr(e))
        finally:
            signal.signal(signal.SIGPIPE, old_pipe)
        err = a.close()
        check("settings changed under a slow /models: every session answered",
              answered == 12 + len(sids), f"answered {answered}")
        check("settings changed under a slow /models: the agent exits cleanly",
              a.proc.returncode == 0, f"rc {a.proc.returncode}: {err[-1500:]}")
        check("settings changed under a slow /models: no sanitizer report",
              "ERROR: AddressSanitizer" not in err and "runtime error" not in err, err[-1500:])
    finally:
        for srv in servers:
            srv.stop()


def churn_sessions(a, cfg, servers, home, sids):
    """Twelve session/new, each after the settings changed; some closed meanwhile."""
    answered = 0
    for i in range(12):
        write_config(cfg, f"base_url = {servers[i % 2].base_url}\napi_key = sk-{i}\n"
                          "model = m\n")
        r = a.call("session/new", {"cwd": home, "mcpServers": []}, 30)
        if r and "result" in r:
            answered += 1
            sids.append(r["result"]["sessionId"])
        if i % 3 == 0 and sids:
            a.call("session/close", {"sessionId": sids.pop(0)}, 30)
    time.sleep(3)  # the last requests finish or time out while the loop runs on
    for sid in sids:
        r = a.call("session/close", {"sessionId": sid}, 30)
        answered += bool(r and "result" in r)
    return answered


def test_method_id_and_replaced_binary(tmp):
    """A methodId with a NUL is not the advertised id; an agent whose binary was replaced
    (an upgrade) still advertises a command a client can run."""
    home = os.path.join(tmp, "h-edge")
    os.makedirs(home)
    bindir = os.path.join(tmp, "bin-upgraded")
    os.makedirs(bindir)
    exe = os.path.join(bindir, "shcard")
    shutil.copy2(os.path.realpath(SHCARD), exe)
    a = Agent.__new__(Agent)
    a.n, a.nonjson, a.notes = 0, [], []
    a.proc = subprocess.Popen([exe, "acp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=clean_env(home, DEEPSEEK_API_KEY="sk-e"),
                              bufsize=0)
    time.sleep(0.3)
    os.unlink(exe)  # the package manager replaced it
    shutil.copy2(os.path.realpath(SHCARD), exe)
    r = a.call("initialize", VALIDATOR_INIT)
    methods = (r or {}).get("result", {}).get("authMethods", [])
    cmds = [m["_meta"]["terminal-auth"]["command"] for m in methods
            if "terminal-auth" in m.get("_meta", {})]
    check("replaced binary: the terminal command is the path, not '... (deleted)'",
          cmds == [exe], json.dumps(cmds))
    for mid in ("api-key-env\u0000x", "shcard-login\u0000"):
        r = a.call("authenticate", {"methodId": mid})
        check(f"methodId with a NUL ({mid!r}) is refused",
              (r or {}).get("error", {}).get("code") == -32602, json.dumps(r))
    a.close()


def test_shell_session_loaded_onto_model(tmp):
    """A session made in shell mode (mode all by default: the user types each command) and loaded
    after a login runs on the model, which must ask: the mode follows the new backend, unless
    the user chose the mode for that session."""
    home = os.path.join(tmp, "h-mode")
    work = os.path.join(tmp, "work-mode")
    os.makedirs(home)
    os.makedirs(work)
    cfgdir = os.path.join(home, ".config", "shcard")
    srv = FakeServer(os.path.join(ROOT, "tests/data/openai/text.json"))
    srv.start()
    try:
        a = Agent(clean_env(home), ["--store", os.path.join(tmp, "store-mode")])
        a.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        sids = []
        for chosen in (False, True):
            r = a.call("session/new", {"cwd": work, "mcpServers": []})
            sid = r["result"]["sessionId"]
            check("shell mode: a new session runs all", r["result"]["modes"]["currentModeId"] ==
                  "all", json.dumps(r))
            if chosen:  # the user picks "all" for this one
                a.call("session/set_mode", {"sessionId": sid, "modeId": "ask"})
                a.call("session/set_mode", {"sessionId": sid, "modeId": "all"})
            prompt_text(a, sid, "echo recorded")
            a.call("session/close", {"sessionId": sid})
            sids.append(sid)
        os.makedirs(cfgdir, 0o700)
        write_config(os.path.join(cfgdir, "config"),
                     f"base_url = {srv.base_url}\napi_key = sk-mode\nmodel = fake-model\n")
        r = a.call("session/load", {"sessionId": sids[0], "cwd": work, "mcpServers": []}, 30)
        mode = (r or {}).get("result", {}).get("modes", {}).get("currentModeId")
        check("loaded onto the model: the default mode is ask", mode == "ask", json.dumps(r))
        r = a.call("session/load", {"sessionId": sids[1], "cwd": work, "mcpServers": []}, 30)
        mode = (r or {}).get("result", {}).get("modes", {}).get("currentModeId")
        check("loaded onto the model: a mode the user chose is kept", mode == "all",
              json.dumps(r))
        a.close()
    finally:
        srv.stop()


def test_login_signal_restores_terminal(tmp):
    """A signal at the key prompt (the editor closes the terminal-auth tab: SIGTERM; a hangup;
    SIGQUIT; SIGINT from kill) ends login with the terminal given back: echo, lines, signals."""
    home = os.path.join(tmp, "h-sig")
    os.makedirs(home)
    env = clean_env(home, XDG_CONFIG_HOME=os.path.join(tmp, "x-sig"))
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGINT):
        p = Pty([SHCARD, "login"], env)
        ok = p.read_until("Choice")
        p.type("1\r")
        ok = ok and p.read_until("API key")
        time.sleep(0.2)  # the prompt is written once echo is off
        p.proc.send_signal(sig)
        rc = p.finish()
        check(f"login {sig.name} at the key prompt: the terminal has echo back",
              ok and p.echo_after and rc == -sig, f"rc {rc} echo {p.echo_after}")
        check(f"login {sig.name}: lines and signals back", ok and p.lflag_after &
              termios.ICANON and p.lflag_after & termios.ISIG, f"lflag {p.lflag_after:o}")


def main():
    tmp = tempfile.mkdtemp(prefix="shc-auth-")
    try:
        for t in (test_login, test_bridge_methods, test_login_then_new_session,
                  test_backend_freed_while_models_in_flight,
                  test_method_id_and_replaced_binary, test_shell_session_loaded_onto_model,
                  test_login_signal_restores_terminal):
            try:
                t(tmp)
            except Exception as e:  # a crash is a failure, never a silent stop
                import traceback
                traceback.print_exc()
                check(f"{t.__name__} ran to its end", False, repr(e))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
