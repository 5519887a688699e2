#!/usr/bin/env python3
"""The model backend against the fake OpenAI-compatible server, through the seam harness
(build/tests/helpers/model_host): real HTTP and SSE on loopback, real commands.

Each case starts a fake server with a scripted conversation (tests/data/openai/*.json), runs
the harness, and checks the callbacks it printed, the requests the server received and stderr.
Prints "N passed, N failed" at the end (tests/run.sh reads it)."""
import json
import os
import subprocess
import sys
import tempfile
import time
import atexit
import shutil

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_openai import FakeServer  # noqa: E402

# Every temporary directory these cases make is under one root, removed at exit.
tempfile.tempdir = tempfile.mkdtemp(prefix="shc-model-cases-")
atexit.register(shutil.rmtree, tempfile.tempdir, True)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", "build")
HOST = os.path.join(ROOT, BUILD, "tests", "helpers", "model_host")
DATA = os.path.join(ROOT, "tests", "data", "openai")
KEY = "sk-test-SECRET-123"

passed = 0
failed = 0


class Run:
    def __init__(self, events, stderr, server, rc, elapsed):
        self.events, self.stderr, self.server, self.rc, self.elapsed = events, stderr, server, rc, elapsed

    def of(self, kind):
        return [e for e in self.events if e["type"] == kind]

    def text(self, kind="message"):
        return "".join(e["text"] for e in self.of(kind))

    @property
    def reqs(self):
        return self.server.requests

    def msgs(self, n):
        return self.server.requests[n]["body"]["messages"]


def run(script, prompts, args=(), env_key=KEY, base_url=None, timeout=30, cwd=None, wrap=()):
    srv = FakeServer(os.path.join(DATA, script)).start()
    env = dict(os.environ)
    env.pop("DEEPSEEK_API_KEY", None)
    env.pop("OPENAI_API_KEY", None)
    env["SHCARD_CONFIG"] = ""
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"  # the fake server is local
    env["HOME"] = tempfile.gettempdir()
    env["XDG_CONFIG_HOME"] = os.path.join(tempfile.gettempdir(), "shcard-no-config")
    if env_key:
        env["DEEPSEEK_API_KEY"] = env_key
    work = cwd or tempfile.mkdtemp(prefix="shc-model-")
    argv = list(wrap) + [HOST, "--base-url", base_url or srv.base_url, "--cwd", work] + list(args) + ["--"] + prompts
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, env=env, capture_output=True, timeout=timeout)
    finally:
        srv.stop()
    elapsed = time.monotonic() - t0
    events = [json.loads(l) for l in p.stdout.decode().splitlines() if l.strip()]
    return Run(events, p.stderr.decode(), srv, p.returncode, elapsed)


def case(fn):
    global passed, failed
    t0 = time.monotonic()
    try:
        fn()
        passed += 1
        print("ok   %-45s %.2fs" % (fn.__name__, time.monotonic() - t0))
    except AssertionError as e:
        failed += 1
        print("FAIL %s: %s" % (fn.__name__, e))
    except Exception as e:  # a crash in the test itself is a failure too
        failed += 1
        print("FAIL %s: %r" % (fn.__name__, e))
    return fn


def eq(got, want, what=""):
    assert got == want, "%s: got %r want %r" % (what, got, want)


def common(r):
    """Checks every run shares: clean exit, no key anywhere but the Authorization header."""
    eq(r.rc, 0, "harness exit status")
    assert r.of("exit"), "harness did not finish"
    assert KEY not in r.stderr, "API key leaked to stderr"
    assert KEY not in json.dumps(r.events), "API key leaked into callbacks"
    for q in r.reqs:
        assert KEY not in json.dumps(q["body"]), "API key in a request body"


@case
def text_only():
    r = run("text.json", ["hi"])
    common(r)
    eq(r.text(), "Hello, world", "message")
    assert 1 <= len(r.of("message")) <= 2, "deltas of one read may be joined, never split"
    eq(r.of("done"), [{"type": "done", "reason": "end_turn", "code": 0, "error": None}], "done")
    eq(len(r.reqs), 1, "requests")
    q = r.reqs[0]
    eq(q["path"], "/v1/chat/completions", "path")
    eq(q["authorization"], "Bearer " + KEY, "auth header")
    eq(q["accept"], "text/event-stream", "accept")
    b = q["body"]
    eq(b["model"], "deepseek-chat", "default model")
    eq(b["stream"], True, "stream")
    tool = b["tools"][0]
    eq(tool["type"], "function", "tool type")
    eq(tool["function"]["name"], "bash", "tool name")
    props = tool["function"]["parameters"]["properties"]
    eq(sorted(props), ["command", "description"], "tool params")
    eq(tool["function"]["parameters"]["required"], ["command"], "required")
    assert "working directory" in tool["function"]["description"], "tool says where it runs"
    m = b["messages"]
    eq([x["role"] for x in m], ["system", "user"], "roles")
    assert "The working directory is /" in m[0]["content"], "system prompt names cwd"
    eq(m[1]["content"], "hi", "user text")


@case
def reasoning_then_text():
    r = run("reasoning.json", ["hello"], args=["--model", "deepseek-reasoner"])
    common(r)
    eq(r.text("thought"), "The user greets; answer briefly.", "thoughts")
    eq(r.text(), "Hi there.", "message")
    kinds = [e["type"] for e in r.events if e["type"] in ("thought", "message")]
    assert kinds and kinds[-1] == "message" and "message" not in kinds[:-1] and kinds[0] == "thought", \
        "thoughts first, then the text: %r" % kinds
    eq(r.reqs[0]["body"]["model"], "deepseek-reasoner", "--model")


@case
def reasoning_kept_for_tool_call_messages():
    r = run("reasoning_tool.json", ["list", "again"])
    common(r)
    m = r.msgs(1)
    eq(m[2].get("reasoning_content"), "I should list files.", "reasoning sent back with the tool call")
    m = r.msgs(2)
    eq(m[2].get("reasoning_content"), "I should list files.", "and in every later request")
    eq([x["role"] for x in m], ["system", "user", "assistant", "tool", "assistant", "user"], "roles")
    assert "reasoning_content" not in m[4], "a plain answer's reasoning is left out: %r" % m[4]


@case
def one_tool_call():
    r = run("one_tool.json", ["look"])
    common(r)
    tc = r.of("tool_call")
    eq(len(tc), 1, "tool calls")
    eq(tc[0]["id"], "call_1", "id")
    eq(tc[0]["command"], "printf 'hello\\n'; exit 3", "command")
    eq(tc[0]["description"], "Say hello", "description")
    eq(r.text(), "Let me look.The command printed hello and failed with 3.", "messages")
    eq(r.of("done")[0]["reason"], "end_turn", "stop")
    eq(len(r.reqs), 2, "requests")
    m = r.msgs(1)
    eq([x["role"] for x in m], ["system", "user", "assistant", "tool"], "history roles")
    eq(m[2]["content"], "Let me look.", "assistant content kept")
    eq(m[2]["tool_calls"][0]["id"], "call_1", "tool call id in history")
    eq(json.loads(m[2]["tool_calls"][0]["function"]["arguments"])["command"],
       "printf 'hello\\n'; exit 3", "arguments in history")
    eq(m[3]["tool_call_id"], "call_1", "tool result id")
    eq(m[3]["content"], "hello\n[exit code: 3]", "model text ends with the exit line")


@case
def several_tool_calls():
    r = run("two_tools.json", ["both"])
    common(r)
    eq([e["command"] for e in r.of("tool_call")], ["echo one", "echo two"], "order")
    eq(r.of("tool_call")[1]["description"], "second", "description")
    m = r.msgs(1)
    eq([x["role"] for x in m], ["system", "user", "assistant", "tool", "tool"], "roles")
    eq(len(m[2]["tool_calls"]), 2, "both calls in one message")
    eq(m[2]["content"], None, "no content: null")
    eq([(x["tool_call_id"], x["content"]) for x in m[3:]],
       [("call_a", "one\n[exit code: 0]"), ("call_b", "two\n[exit code: 0]")], "results")


@case
def arguments_split_across_deltas():
    r = run("split_args.json", ["split"])
    common(r)
    tc = r.of("tool_call")
    eq(len(tc), 1, "one call")
    eq(tc[0]["command"], "echo split \u00e9", "reassembled command")
    eq(tc[0]["description"], "Echo", "description")
    eq(r.msgs(1)[3]["content"], "split \u00e9\n[exit code: 0]", "result")
    eq(r.text(), "Done \u00e9\u00e8 \U0001F600", "UTF-8 text split at every byte")


@case
def retry_after_429():
    r = run("retry_429.json", ["go"])
    common(r)
    eq(r.text(), "After the wait.", "message")
    eq(r.of("done")[0]["reason"], "end_turn", "stop")
    eq(len(r.reqs), 2, "requests")
    gap = r.reqs[1]["t"] - r.reqs[0]["t"]
    assert 0.9 <= gap <= 5, "Retry-After honoured: retried after %.2fs" % gap
    assert "retrying" in r.stderr, "retry logged"
    eq(r.msgs(1), r.msgs(0), "the retry sends the same conversation")


@case
def error_500_three_times():
    r = run("error_500x3.json", ["go"])
    common(r)
    d = r.of("done")[0]
    eq(d["code"], -32603, "JSON-RPC error code")
    assert "HTTP 500 3 times" in d["error"] and "internal trouble" in d["error"], d["error"]
    eq(len(r.reqs), 3, "bounded: three attempts")
    gaps = [r.reqs[i + 1]["t"] - r.reqs[i]["t"] for i in range(2)]
    assert gaps[0] >= 0.4 and gaps[1] >= 0.9, "backoff grows: %r" % gaps
    eq(r.of("message"), [], "no text")


@case
def error_401_key_refused():
    r = run("error_401.json", ["go"])
    common(r)
    d = r.of("done")[0]
    eq(d["code"], -32603, "code")
    assert "refused the API key" in d["error"] and "HTTP 401" in d["error"], d["error"]
    assert "is invalid" in d["error"], "the server's reason is kept: %s" % d["error"]
    eq(len(r.reqs), 1, "no retry on 401")


@case
def stream_cut_mid_event():
    r = run("cut_mid_event.json", ["go"])
    common(r)
    eq(r.text(), "Partial ", "the text before the cut was streamed")
    d = r.of("done")[0]
    eq(d["code"], -32603, "error")
    assert "ended before the message was complete" in d["error"] and "middle of an event" in d["error"], d["error"]


@case
def slow_stream_cancelled():
    r = run("slow.json", ["slow", "again"], args=["--cancel-after-ms", "400"])
    common(r)
    dones = r.of("done")
    eq(dones[0]["reason"], "cancelled", "first turn cancelled")
    eq(dones[0]["error"], None, "cancel is not an error")
    assert r.elapsed < 5, "cancel aborted the 10 s stream at once (took %.1fs)" % r.elapsed
    assert r.server.disconnects and r.server.disconnects[0]["request"] == 0, "server saw the abort"
    eq(dones[1]["reason"], "end_turn", "the next prompt runs")
    # the second request shows what happened in the first turn
    m = r.msgs(1)
    eq([x["role"] for x in m], ["system", "user", "assistant", "user"], "history")
    eq(m[2]["content"], "Thinking slowly\n\n[cancelled by the user]", "partial text recorded")
    eq(m[3]["content"], "again", "next prompt")


@case
def malformed_tool_calls_answered_as_errors():
    r = run("malformed_tools.json", ["go"])
    common(r)
    eq([e["command"] for e in r.of("tool_call")], ["echo fine"], "only the valid call runs")
    m = r.msgs(1)
    tools = {x["tool_call_id"]: x["content"] for x in m if x["role"] == "tool"}
    eq(sorted(tools), ["call_bad", "call_nocmd", "call_ok", "call_unk"], "every call answered")
    assert tools["call_bad"].startswith("error: the arguments are not valid JSON"), tools["call_bad"]
    assert tools["call_unk"].startswith("error: unknown tool 'python'"), tools["call_unk"]
    assert "non-empty string \"command\"" in tools["call_nocmd"], tools["call_nocmd"]
    eq(tools["call_ok"], "fine\n[exit code: 0]", "valid call result")
    eq(r.of("done")[0]["reason"], "end_turn", "no crash, turn ends normally")


@case
def finish_length_is_max_tokens():
    r = run("length.json", ["go"])
    common(r)
    eq(r.of("done")[0]["reason"], "max_tokens", "stop reason")
    eq(r.of("done")[0]["error"], None, "not an error")


@case
def max_turn_requests():
    r = run("loop_tools.json", ["go"], args=["--max-turn-requests", "2"])
    common(r)
    eq(len(r.reqs), 2, "stopped at the limit")
    eq(len(r.of("tool_call")), 2, "both calls ran")
    eq(r.of("done")[0]["reason"], "max_turn_requests", "stop reason")


@case
def rejected_command_is_reported_to_the_model():
    r = run("one_tool.json", ["look"], args=["--reject"])
    common(r)
    eq(r.msgs(1)[3]["content"], "[not run: rejected by the user]", "model told")


@case
def history_across_prompts():
    r = run("two_prompts.json", ["first question", "second question"])
    common(r)
    eq([d["reason"] for d in r.of("done")], ["end_turn", "end_turn"], "two turns")
    m = r.msgs(1)
    eq([(x["role"], x["content"]) for x in m[1:]],
       [("user", "first question"), ("assistant", "First answer."), ("user", "second question")],
       "history")


@case
def cancel_while_tool_pending():
    r = run("tool_then_next.json", ["run it", "next"], args=["--cancel-on-tool"])
    common(r)
    eq([d["reason"] for d in r.of("done")], ["cancelled", "end_turn"], "turns")
    m = r.msgs(1)
    eq([x["role"] for x in m], ["system", "user", "assistant", "tool", "user"], "valid history")
    assert "cancelled by the user" in m[3]["content"], m[3]["content"]


@case
def bad_shape_is_a_clear_error():
    r = run("bad_shape.json", ["a", "b", "c"])
    common(r)
    errs = [d["error"] for d in r.of("done")]
    eq(len(errs), 3, "three turns, the harness kept going")
    assert "not a chat completion stream" in errs[0] and "no choices" in errs[0], errs[0]
    assert "not an event stream" in errs[1], errs[1]
    assert "model overloaded mid-stream" in errs[2], errs[2]
    # failed turns that did nothing leave no trace: each request has only its own prompt
    eq([[x["role"] for x in q["body"]["messages"]] for q in r.reqs],
       [["system", "user"], ["system", "user"], ["system", "user"]], "rolled back")


@case
def connection_refused():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    r = run("text.json", ["go"], base_url="http://127.0.0.1:%d/v1" % port)
    common(r)
    d = r.of("done")[0]
    assert d["code"] == -32603 and "cannot reach the model server" in d["error"], d


@case
def libcurl_missing_is_a_clear_error():
    """libcurl is loaded when the backend first needs it (src/model/http.c): without it, the
    turn fails with the loader's reason and the harness goes on (bwrap puts an empty file where
    libcurl.so.4 is)."""
    import shutil
    lib = next((l.split("=>")[1].strip() for l in subprocess.run(
        ["ldconfig", "-p"], capture_output=True, text=True).stdout.splitlines()
        if l.strip().startswith("libcurl.so.4 ") and "x86-64" in l), None)
    assert lib and shutil.which("bwrap"), "ldconfig found no libcurl.so.4, or bwrap is missing"
    real = os.path.realpath(lib)
    r = run("text.json", ["go", "again"], wrap=["bwrap", "--ro-bind", "/", "/", "--dev", "/dev",
                                                "--proc", "/proc", "--tmpfs", "/run",
                                                "--bind", tempfile.gettempdir(), tempfile.gettempdir(),
                                                "--ro-bind", "/dev/null", real, "--"])
    common(r)
    done = r.of("done")
    eq(len(done), 2, "both prompts answered")
    for d in done:
        assert "cannot start libcurl" in d["error"] and "libcurl.so.4" in d["error"], d
    eq(len(r.reqs), 0, "no request reached the server")


@case
def stalled_stream_times_out():
    r = run("stall.json", ["go"], args=["--request-timeout", "1"])
    common(r)
    d = r.of("done")[0]
    eq(r.text(), "Starting", "text before the stall")
    assert d["code"] == -32603 and "broke off" in d["error"] and "timed out" in d["error"], d
    assert r.elapsed < 5, "gave up after about a second of silence (%.1fs)" % r.elapsed


@case
def long_output_is_clipped_for_the_model():
    r = run("big_output.json", ["go"], args=["--tool-output-limit", "4096"])
    common(r)
    c = r.msgs(1)[3]["content"]
    assert c.startswith("1\n2\n3\n"), "head kept: %r" % c[:20]
    assert c.endswith("\u00e9\u00e9\n[exit code: 0]"), "tail kept, whole characters: %r" % c[-40:]
    assert "bytes omitted ...]" in c, "marker"
    assert len(c.encode()) <= 4096 + 100, "clipped to the limit: %d bytes" % len(c.encode())


@case
def killed_by_signal_line():
    r = run("signal.json", ["go"])
    common(r)
    eq(r.msgs(1)[3]["content"], "before\n[killed by signal: SIGKILL]", "signal line")


@case
def local_server_without_key():
    r = run("text.json", ["hi"], env_key=None)
    eq(r.rc, 0, "rc")
    eq(r.reqs[0]["authorization"], None, "no Authorization header without a key")
    eq(r.text(), "Hello, world", "works")


@case
def system_prompt_file_and_config_file():
    d = tempfile.mkdtemp(prefix="shc-cfg-")
    with open(os.path.join(d, "prompt.md"), "w") as f:
        f.write("You are a test prompt.")
    cfg = os.path.join(d, "config")
    with open(cfg, "w") as f:
        f.write("# test\nmodel = from-file\nsystem_prompt_file = %s/prompt.md\n"
                "max_turn_requests = 7\n" % d)
    r = run("text.json", ["hi"], args=["--config", cfg])
    common(r)
    b = r.reqs[0]["body"]
    eq(b["model"], "from-file", "model from file")
    assert b["messages"][0]["content"].startswith("You are a test prompt."), b["messages"][0]
    r = run("text.json", ["hi"], args=["--config", cfg, "--model", "from-flag"])
    eq(r.reqs[0]["body"]["model"], "from-flag", "flags win")


print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
