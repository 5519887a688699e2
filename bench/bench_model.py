#!/usr/bin/env python3
"""Model backend benchmarks (issue 6), each against an anchor measured in the same run:

 1. latency: time from the first SSE byte the fake server writes to the first
    agent_message_chunk line on shcard acp's stdout; anchor: the same stream read by the curl
    CLI (time from the first SSE byte to curl's first stdout byte).
 2. CPU: shcard acp's CPU time (user+sys of the bridge process) per MB of streamed model text,
    in small deltas as real models send them; anchor: the curl CLI's CPU receiving the same
    bytes (no parsing, no JSON, no ACP).

Both use the fake server (tests/fake_openai.py) on loopback.  Prints numbers and ratios."""
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from fake_openai import FakeServer  # noqa: E402

SHCARD = os.environ.get("SHCARD", os.path.join(ROOT, "shcard"))
N_LAT = int(os.environ.get("BENCH_MODEL_N", "40"))
MB = int(os.environ.get("BENCH_MODEL_MB", "4"))
DELTA = 16  # bytes of text per SSE event (typical token deltas are 2-20 bytes)
TICK = os.sysconf("SC_CLK_TCK")


def script(path, responses):
    with open(path, "w") as f:
        json.dump({"responses": responses}, f)


def cpu_of(pid):
    with open("/proc/%d/stat" % pid) as f:
        st = f.read()
    fields = st[st.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class Agent:
    def __init__(self, url):
        home = tempfile.mkdtemp(prefix="shc-bench-home-")
        env = dict(os.environ, DEEPSEEK_API_KEY="sk-bench", HOME=home, XDG_CONFIG_HOME=home,
                   SHCARD_CONFIG="", NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
        self.p = subprocess.Popen([SHCARD, "acp", "--base-url", url, "--approve", "all"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env)
        self.id = 0
        self.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        self.sid = self.call("session/new", {"cwd": "/tmp", "mcpServers": []})["sessionId"]

    def send(self, method, params):
        self.id += 1
        msg = {"jsonrpc": "2.0", "id": self.id, "method": method, "params": params}
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        return self.id

    def call(self, method, params, on_line=None):
        rid = self.send(method, params)
        want = b'"id":%d,' % rid
        want2 = b'"id":%d}' % rid
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("shcard acp closed stdout")
            if on_line:
                on_line(line)
            if (want in line or want2 in line) and (b'"result"' in line or b'"error"' in line):
                obj = json.loads(line)
                if "error" in obj:
                    raise RuntimeError(obj["error"])
                return obj["result"]

    def prompt(self, text, on_line=None):
        return self.call("session/prompt", {"sessionId": self.sid,
                                            "prompt": [{"type": "text", "text": text}]}, on_line)

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=10)


def latency():
    d = tempfile.mkdtemp(prefix="shc-bench-")
    resp = {"events": [{"content": "first"}, {"content": " rest"}, {"finish": "stop"},
                       {"done": True}]}
    script(os.path.join(d, "s.json"), [resp] * (2 * N_LAT + 4))
    srv = FakeServer(os.path.join(d, "s.json")).start()
    try:
        agent = Agent(srv.base_url)
        ours = []
        for i in range(N_LAT):
            seen = []

            def on_line(line):
                if not seen and b'"agent_message_chunk"' in line:
                    seen.append(time.monotonic())
            n_before = len(srv.requests)
            agent.prompt("hi %d" % i, on_line)
            ours.append(seen[0] - srv.first_byte[n_before])
        agent.close()
        curl = []
        for i in range(N_LAT):
            n_before = len(srv.requests)
            p = subprocess.Popen(["curl", "--noproxy", "*", "-sN", "-X", "POST", "-H", "Content-Type: application/json",
                                  "-d", "{}", srv.base_url + "/chat/completions"],
                                 stdout=subprocess.PIPE)
            os.read(p.stdout.fileno(), 1)
            t = time.monotonic()
            p.stdout.read()
            p.wait()
            curl.append(t - srv.first_byte[n_before])
    finally:
        srv.stop()
    return ours, curl


def cpu():
    d = tempfile.mkdtemp(prefix="shc-bench-")
    total = MB * 1024 * 1024
    resp = {"events": [{"bulk": {"bytes": total, "per_event": DELTA}}, {"finish": "stop"},
                       {"done": True}]}
    script(os.path.join(d, "s.json"), [resp, resp])
    srv = FakeServer(os.path.join(d, "s.json")).start()
    try:
        agent = Agent(srv.base_url)
        c0 = cpu_of(agent.p.pid)
        chunks = [0]

        def on_line(line):
            if b'"agent_message_chunk"' in line:
                chunks[0] += 1
        t0 = time.monotonic()
        agent.prompt("stream", on_line)
        wall = time.monotonic() - t0
        ours = cpu_of(agent.p.pid) - c0
        agent.close()
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(["curl", "--noproxy", "*", "-sN", "-o", "/dev/null", "-X", "POST", "-H",
                        "Content-Type: application/json", "-d", "{}",
                        srv.base_url + "/chat/completions"], check=True)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        curl = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    finally:
        srv.stop()
    # anchor 2: the least any client must do, parse every event's JSON (Python's C json)
    from fake_openai import render
    text = ("lorem ipsum dolor sit amet " * (DELTA // 27 + 1))[:DELTA]
    ev = render({"content": text})[len(b"data: "):-2]
    n = total // DELTA
    t0 = time.process_time()
    for _ in range(n):
        json.loads(ev)
    pyjson = time.process_time() - t0
    return ours, curl, wall, chunks[0], pyjson


def ms(x):
    return x * 1000.0


def main():
    ours, curl = latency()
    o50, c50 = statistics.median(ours), statistics.median(curl)
    o90 = sorted(ours)[int(len(ours) * 0.9) - 1]
    print("first SSE byte -> first agent_message_chunk on stdout: median %.2f ms, p90 %.2f ms (n=%d)"
          % (ms(o50), ms(o90), len(ours)))
    print("anchor curl CLI, first SSE byte -> first stdout byte: median %.2f ms" % ms(c50))
    print("ratio: shcard/curl first-byte latency %.2fx" % (o50 / c50 if c50 > 0 else float("nan")))
    cpu_ours, cpu_curl, wall, nchunks, pyjson = cpu()
    print("bridge CPU per MB of streamed model text (%d-byte deltas, %d MB, %d chunks): %.1f ms/MB "
          "(wall %.2f s)" % (DELTA, MB, nchunks, ms(cpu_ours) / MB, wall))
    print("anchor curl CLI receiving the same stream: %.1f ms/MB" % (ms(cpu_curl) / MB))
    print("anchor Python json.loads of every event's data: %.1f ms/MB" % (ms(pyjson) / MB))
    print("ratio: shcard/json.loads CPU per MB %.1fx" % (cpu_ours / pyjson))
    if cpu_curl > 0:
        print("ratio: shcard/curl CPU per MB %.1fx" % (cpu_ours / cpu_curl))
    else:
        print("ratio: curl CPU below clock resolution")


if __name__ == "__main__":
    main()
