#!/usr/bin/env python3
"""A fake OpenAI-compatible chat completions server for shcard's tests.

Real HTTP on 127.0.0.1 (an ephemeral port), real server-sent events.  It replays a scripted
conversation (a JSON file under tests/data/openai/): the Nth POST to .../chat/completions gets
the Nth entry of "responses".  Every request is recorded (path, the headers that matter, the
JSON body), and so is every client disconnect in the middle of a stream.

As a program:  fake_openai.py SCRIPT --port-file F --log F   (runs until SIGTERM / stdin EOF
when --stdin-eof).  As a module:  FakeServer(script_path).start() / .stop() / .requests.

A response entry:
  {"status": 200,                 HTTP status (default 200)
   "headers": {"Retry-After": "1"},
   "body": "...",                 a plain body (non-SSE; used for errors)
   "split": "bytes" | "event",    how to write the stream (default "event")
   "cut": true,                   close the connection after the events (no end)
   "events": [                    the stream, in order
      {"content": "text"}, {"reasoning": "text"},
      {"tool": {"index": 0, "id": "call_1", "name": "bash", "args": "{\\"command\\""}},
      {"tool": {"id": "call_2", "name_offered": "^mcp__srv__", "pick": 0, "args": "{}"}},
                                  the name of the request's offered function (body.tools) that
                                  matches the regex, the pick-th one in offered order (agents
                                  that rename tools: the test need not know the new names)
      {"finish": "stop"}, {"comment": "keep-alive"}, {"raw": "data: ...\\n\\n"},
      {"error": {"message": "..."}}, {"sleep_ms": 100}, {"done": true},
      {"bulk": {"bytes": 1048576, "per_event": 4096}},   many content events (benchmarks)
      {"usage": {"prompt_tokens": 10, "completion_tokens": 2}}   a usage chunk (empty choices),
      {"usage": "auto"}           the same, with prompt_tokens = request body bytes // 4
      {"forever": {"event": {...}, "interval_ms": 100}}   that event again and again until the
                                  client goes away (a server that sends without progress)
   ],
   "endless_body": {"chunk": "x", "interval_ms": 0}}   with a non-200 status: a body without a
                                  length that never ends

A script may also hold "refuse_functions": a regex. A request that offers a function whose
name matches is answered as OpenAI answers a function whose parameters it refuses (HTTP 400,
"Invalid schema for function 'NAME'", param "tools[N].function.parameters"; with
"refuse_by": "index" the message names only tools[N]), and takes no entry of "responses".

A script may also hold "models": [{"id": "m1", "max_model_len": 8192}, ...], the answer to
GET .../models (recorded with kind "get"; without "models" that GET is a 404).
"""
import argparse
import json
import os
import re
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def chunk(delta=None, finish=None):
    return {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0,
            "model": "fake", "choices": [{"index": 0, "delta": delta or {},
                                          "finish_reason": finish}]}


def offered_name(t, offered):
    """The pick-th offered function name matching t["name_offered"] (a regex), or a name that
    says none matched (the test then sees a call to a tool nobody offered)."""
    hits = [n for n in offered if re.search(t["name_offered"], n)]
    pick = t.get("pick", 0)
    return hits[pick] if pick < len(hits) else "no_offered_tool_matches"


def render(ev, body_len=0, offered=()):
    """One scripted event -> bytes on the wire (or None for control events)."""
    if "usage" in ev:
        u = ev["usage"]
        if u == "auto":
            u = {"prompt_tokens": body_len // 4, "completion_tokens": 7}
        u = dict(u)
        u.setdefault("total_tokens", u.get("prompt_tokens", 0) + u.get("completion_tokens", 0))
        obj = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0,
               "model": "fake", "choices": [], "usage": u}
    elif "content" in ev:
        obj = chunk({"content": ev["content"]})
    elif "reasoning" in ev:
        obj = chunk({"reasoning_content": ev["reasoning"]})
    elif "tool" in ev:
        t = ev["tool"]
        tc = {"index": t.get("index", 0)}
        if "id" in t:
            tc["id"] = t["id"]
            tc["type"] = "function"
        fn = {}
        if "name" in t:
            fn["name"] = t["name"]
        elif "name_offered" in t:
            fn["name"] = offered_name(t, offered)
        if "args" in t:
            fn["arguments"] = t["args"]
        if fn:
            tc["function"] = fn
        obj = chunk({"tool_calls": [tc]})
    elif "finish" in ev:
        obj = chunk({}, ev["finish"])
    elif "error" in ev:
        obj = {"error": ev["error"]}
    elif "comment" in ev:
        return (": %s\n\n" % ev["comment"]).encode()
    elif "raw" in ev:
        return ev["raw"].encode()
    elif "done" in ev:
        return b"data: [DONE]\n\n"
    else:
        return None
    return ("data: %s\n\n" % json.dumps(obj, ensure_ascii=False)).encode()


class FakeServer:
    def __init__(self, script_path, log_path=None):
        with open(script_path) as f:
            self.script = json.load(f)
        self.responses = self.script["responses"]
        self.requests = []      # recorded requests (dicts)
        self.disconnects = []   # {"request": n, "t": monotonic}
        self.first_byte = {}    # request n -> monotonic time of the first SSE byte
        self.log_path = log_path
        self.lock = threading.Lock()
        self.refuse = self.script.get("refuse_functions")
        self.refuse_by = self.script.get("refuse_by")
        self.refusals = 0       # requests answered so by refuse_functions
        self.httpd = None
        self.port = None

    def record(self, kind, obj):
        with self.lock:
            if self.log_path:
                with open(self.log_path, "a") as f:
                    f.write(json.dumps(dict(obj, kind=kind)) + "\n")

    def start(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                server.record("get", {"path": self.path,
                                      "authorization": self.headers.get("Authorization")})
                if self.path.endswith("/models") and "models" in server.script:
                    time.sleep(server.script.get("models_delay_s", 0))  # a slow server
                    return self.plain(200, json.dumps({"object": "list",
                                                       "data": server.script["models"]}), {})
                return self.plain(404, '{"error":{"message":"not found"}}', {})

            def do_POST(self):
                n_bytes = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n_bytes)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"unparsed": raw.decode("utf-8", "replace")}
                with server.lock:
                    n = len(server.requests)
                    rec = {"n": n, "path": self.path, "bytes": len(raw),
                           "authorization": self.headers.get("Authorization"),
                           "content_type": self.headers.get("Content-Type"),
                           "accept": self.headers.get("Accept"), "body": body,
                           "t": time.monotonic()}
                    server.requests.append(rec)
                server.record("request", rec)
                if not self.path.endswith("/chat/completions"):
                    return self.plain(404, '{"error":{"message":"not found"}}', {})
                refuse = self.refused(body)
                if refuse:
                    with server.lock:
                        server.refusals += 1
                    return self.plain(400, json.dumps(refuse), {})
                if n - server.refusals >= len(server.responses):
                    return self.plain(400, '{"error":{"message":"fake server: script exhausted"}}', {})
                r = server.responses[n - server.refusals]
                status = r.get("status", 200)
                if "endless_body" in r:
                    return self.endless(status, r["endless_body"])
                if "body" in r or status != 200:
                    return self.plain(status, r.get("body", ""), r.get("headers", {}))
                tools = body.get("tools") if isinstance(body, dict) else None
                offered = [((x or {}).get("function") or {}).get("name", "") for x in (tools or [])
                           if isinstance(x, dict)]
                self.stream(n, r, len(raw), offered)

            def refused(self, body):
                """OpenAI's answer to the first offered function matching refuse_functions."""
                if not server.refuse or not isinstance(body, dict):
                    return None
                for i, x in enumerate(body.get("tools") or []):
                    name = ((x or {}).get("function") or {}).get("name", "")
                    if re.search(server.refuse, name):
                        where = "tools[%d].function.parameters" % i
                        if server.refuse_by == "index":
                            return {"error": {"message": "Invalid schema for %s: schema must have type "
                                              "'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' "
                                              "at the top level." % where, "type": "invalid_request_error",
                                              "param": None, "code": "invalid_function_parameters"}}
                        return {"error": {"message": "Invalid schema for function '%s': schema must have "
                                          "type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' "
                                          "at the top level." % name, "type": "invalid_request_error",
                                          "param": where, "code": "invalid_function_parameters"}}
                return None

            def endless(self, status, spec):
                self.close_connection = True
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Connection", "close")
                self.end_headers()
                data = spec.get("chunk", "x").encode()
                try:
                    while True:
                        self.wfile.write(data)
                        self.wfile.flush()
                        if spec.get("interval_ms"):
                            time.sleep(spec["interval_ms"] / 1000.0)
                except (BrokenPipeError, ConnectionResetError, OSError):
                    pass

            def plain(self, status, body, headers):
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()

            def stream(self, n, r, body_len=0, offered=()):
                self.close_connection = True
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                for k, v in r.get("headers", {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.flush()
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                split = r.get("split", "event")
                try:
                    for ev in r.get("events", []):
                        if "sleep_ms" in ev:
                            self.sleep(ev["sleep_ms"] / 1000.0)
                            continue
                        if "forever" in ev:
                            data = render(ev["forever"]["event"], body_len)
                            while True:
                                self.wfile.write(data)
                                self.wfile.flush()
                                if ev["forever"].get("interval_ms"):
                                    time.sleep(ev["forever"]["interval_ms"] / 1000.0)
                        if "bulk" in ev:
                            self.bulk(n, ev["bulk"])
                            continue
                        data = render(ev, body_len, offered)
                        if data is None:
                            continue
                        if n not in server.first_byte:
                            server.first_byte[n] = time.monotonic()
                        if split == "bytes":
                            for i in range(len(data)):
                                self.wfile.write(data[i:i + 1])
                                self.wfile.flush()
                        else:
                            self.wfile.write(data)
                            self.wfile.flush()
                    if r.get("cut"):
                        self.connection.shutdown(socket.SHUT_RDWR)
                except (BrokenPipeError, ConnectionResetError):
                    with server.lock:
                        server.disconnects.append({"request": n, "t": time.monotonic()})
                    server.record("disconnect", {"request": n})

            def sleep(self, secs):
                """Sleeps, probing the socket so a client disconnect is seen at once."""
                end = time.monotonic() + secs
                while True:
                    left = end - time.monotonic()
                    if left <= 0:
                        return
                    time.sleep(min(left, 0.02))
                    self.connection.setblocking(False)
                    try:
                        peek = self.connection.recv(1, socket.MSG_PEEK)
                        if peek == b"":
                            raise BrokenPipeError()
                    except BlockingIOError:
                        pass
                    finally:
                        self.connection.setblocking(True)

            def bulk(self, n, spec):
                total, per = spec["bytes"], spec.get("per_event", 4096)
                text = ("lorem ipsum dolor sit amet " * (per // 27 + 1))[:per]
                ev = render({"content": text})
                sent, buf = 0, []
                if n not in server.first_byte:
                    server.first_byte[n] = time.monotonic()
                while sent < total:
                    buf.append(ev)
                    sent += per
                    if len(buf) >= 16:
                        self.wfile.write(b"".join(buf))
                        buf = []
                if buf:
                    self.wfile.write(b"".join(buf))
                self.wfile.flush()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        threading.Thread(target=lambda: self.httpd.serve_forever(poll_interval=0.05), daemon=True).start()
        return self

    @property
    def base_url(self):
        return "http://127.0.0.1:%d/v1" % self.port

    def stop(self):
        if self.httpd:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.httpd = None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("script")
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log")
    ap.add_argument("--stdin-eof", action="store_true", help="stop when stdin closes")
    a = ap.parse_args()
    srv = FakeServer(a.script, a.log).start()
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.port)
    os.rename(tmp, a.port_file)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    if a.stdin_eof:
        threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    stop.wait()
    srv.stop()


if __name__ == "__main__":
    main()
