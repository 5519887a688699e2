#!/usr/bin/env python3
"""Hostile MCP servers for shcard's end-to-end tests (tests/e2e/mcp.test.mjs).

One program, one misbehaviour per run.  It speaks MCP (JSON-RPC 2.0) over stdio (newline-
delimited JSON, the default) or, with --http, over streamable HTTP on 127.0.0.1 (POST /mcp;
application/json answers, or server-sent events with --sse; an Mcp-Session-Id given at
initialize and required afterwards; Accept must name both JSON and event streams, as the
reference servers demand).  Everything it receives and does is appended to --log as JSON lines
({"t", "event", ...}), so a test can say what the client sent: the cancellation of a call, the
headers of each request, whether a tool was called at all.

Modes (--mode):
  ok            tools echo, upper, fail (a result with isError), rpcerr (a JSON-RPC error),
                slow (sleeps `seconds`, stops at notifications/cancelled), slow_ignore
                (sleeps `seconds`, answers even when cancelled), big (a 10 MB text result),
                garbage (stdio: lines that are not JSON-RPC, then silence; HTTP: a 200 text/html
                body), silent (never answers), crash (stdio: half a line, then exit 3; HTTP: the
                connection closed without an answer, and the server exits)
  garbage_init  every line it answers is garbage, initialize included
  silent        answers initialize, then nothing at all
  dead          exits 7 before reading anything (a server that does not start)
  pages         tools/list over three pages (nextCursor), one tool on each
  list_changed  tool echo; its first call sends notifications/tools/list_changed and adds the
                tool added_later before it answers
  bigschema     tools echo and huge (an inputSchema of about 1 MB)
  names         six tools whose names need sanitising or collide once sanitised; each answers
                its own name
  relist        (stdio) lists the tools of --tools (a JSON array of names or {name,
                description}); once the file --trigger exists it lists those of --later instead
                and sends notifications/tools/list_changed (logged as "relist_sent"); every
                tool answers "NAME:" + its arguments as JSON (a collision, a re-list between the
                permission and the call, hostile names in titles)
  stubborn      tool echo; ignores SIGTERM, SIGHUP and SIGINT, stays after stdin closes, and
                starts a grandchild that does the same (both carry --marker in their argv)

Every tool's answer begins with its own text (echo: "echo:" + message), so a test can check
what the model was given.  --marker is never read: it is in the argv so a process scan finds
every process a test started.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time

BIG_BYTES = 10 * 1024 * 1024

NAMES = ["read file", "a.b/c", "x.y", "x_y", "\u00fcml\u00e4ut", "t" * 100]


def schema(props=None):
    return {"type": "object", "properties": props or {}}


def tool(name, desc, props=None, annotations=None):
    t = {"name": name, "description": desc, "inputSchema": schema(props)}
    if annotations:
        t["annotations"] = annotations
    return t


OK_TOOLS = [
    tool("echo", "Echoes message back", {"message": {"type": "string"}}),
    tool("upper", "Upper-cases message", {"message": {"type": "string"}}),
    tool("fail", "Reports a failure as an isError result"),
    tool("rpcerr", "Answers with a JSON-RPC error"),
    tool("slow", "Sleeps `seconds`; honours cancellation", {"seconds": {"type": "number"}}),
    tool("slow_ignore", "Sleeps `seconds`; ignores cancellation", {"seconds": {"type": "number"}}),
    tool("big", "Answers 10 MB of text"),
    tool("big_stall", "Answers 10 MB of text over HTTP, stalling 3 s after the first 6 MB"),
    tool("garbage", "Answers with garbage"),
    tool("silent", "Never answers"),
    tool("crash", "Dies in the middle of the call"),
]


class Server:
    def __init__(self, a):
        self.a = a
        self.mode = a.mode
        self.log_lock = threading.Lock()
        self.out_lock = threading.Lock()
        self.cancelled = set()
        self.extra_tools = []
        self.lc_sent = False
        self.relisted = False

    # ------------------------------------------------------------------ log
    def log(self, event, **kw):
        rec = dict(kw, event=event, t=time.time(), pid=os.getpid())
        with self.log_lock:
            with open(self.a.log, "a") as f:
                f.write(json.dumps(rec) + "\n")

    # ------------------------------------------------------------------ tools
    def tools(self):
        m = self.mode
        if m == "pages":
            return None  # paged: see list_tools
        if m == "list_changed":
            return [tool("echo", "Echoes message back", {"message": {"type": "string"}})] + self.extra_tools
        if m == "bigschema":
            props = {"p%05d" % i: {"type": "string", "description": "x" * 90} for i in range(10000)}
            return [tool("echo", "Echoes message back", {"message": {"type": "string"}}),
                    tool("huge", "A tool whose schema is about 1 MB", props)]
        if m == "names":
            return [tool(n, "Answers its own name") for n in NAMES]
        if m == "stubborn":
            return [tool("echo", "Echoes message back", {"message": {"type": "string"}})]
        if m == "relist":
            spec = json.loads(self.a.later if self.relisted else self.a.tools)
            return [tool(t, "Answers its name and arguments", {"q": {"type": "string"}}) if isinstance(t, str)
                    else tool(t["name"], t.get("description", ""), {"q": {"type": "string"}}) for t in spec]
        return OK_TOOLS

    def list_tools(self, params):
        if self.mode == "pages":
            cursor = (params or {}).get("cursor")
            page = {None: 1, "page-2": 2, "page-3": 3}.get(cursor)
            if page is None:
                return None, {"code": -32602, "message": "bad cursor %r" % cursor}
            names = {1: "page1_a", 2: "page2_b", 3: "page3_c"}
            res = {"tools": [tool(names[page], "Tool on page %d" % page)]}
            if page < 3:
                res["nextCursor"] = "page-%d" % (page + 1)
            return res, None
        return {"tools": self.tools()}, None

    def call_tool(self, rid, params, send_note):
        """-> ("result", obj) | ("error", obj) | ("garbage", None) | ("silent", None) | ("crash", None)"""
        name = (params or {}).get("name")
        args = (params or {}).get("arguments") or {}
        self.log("call", id=rid, name=name, arguments=args)
        text = lambda s, err=False: ("result", {"content": [{"type": "text", "text": s}], "isError": err})
        if self.mode == "relist":
            if name in [t["name"] for t in self.tools()]:
                return text("%s:%s" % (name, json.dumps(args, sort_keys=True)))
        elif self.mode == "names":
            if name in NAMES:
                return text(name)
        elif self.mode == "pages":
            if name in ("page1_a", "page2_b", "page3_c"):
                return text(name)
        elif self.mode == "list_changed":
            if name == "echo":
                if not self.lc_sent:
                    self.lc_sent = True
                    self.extra_tools.append(tool("added_later", "Arrived with list_changed"))
                    send_note({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
                    self.log("list_changed_sent")
                    time.sleep(0.5)
                return text("echo:" + str(args.get("message", "")))
            if name == "added_later" and self.extra_tools:
                return text("added_later ran")
        elif name == "echo":
            return text("echo:" + str(args.get("message", "")))
        elif self.mode == "bigschema" and name == "huge":
            return text("huge ran")
        elif self.mode == "ok":
            if name == "upper":
                return text(str(args.get("message", "")).upper())
            if name == "fail":
                return text("fail: it broke", True)
            if name == "rpcerr":
                return "error", {"code": -32001, "message": "tool exploded"}
            if name in ("slow", "slow_ignore"):
                end = time.monotonic() + float(args.get("seconds", 30))
                while time.monotonic() < end:
                    if name == "slow" and rid in self.cancelled:
                        self.log("stopped", id=rid)
                        return "silent", None
                    time.sleep(0.02)
                self.log("slept", id=rid, name=name)
                return text("%s: done after %s s" % (name, args.get("seconds", 30)))
            if name == "big":
                line = "BIG-START " + "0123456789abcdef" * 64 + "\n"
                body = (line * (BIG_BYTES // len(line) + 1))[:BIG_BYTES]
                return text(body)
            if name == "big_stall":
                return "big_stall", None
            if name == "garbage":
                return "garbage", None
            if name == "silent":
                return "silent", None
            if name == "crash":
                return "crash", None
        return "error", {"code": -32602, "message": "unknown tool %r" % name}

    def initialize_result(self, params):
        caps = {"tools": {"listChanged": self.mode in ("list_changed", "relist")}}
        return {"protocolVersion": (params or {}).get("protocolVersion", "2025-06-18"),
                "capabilities": caps,
                "serverInfo": {"name": "hostile-" + self.mode, "version": "1.0.0"}}


# ---------------------------------------------------------------------- stdio
GARBAGE_LINES = [b"this is not json\n", b"{\"jsonrpc\": \"2.0\", \"id\": \n", b"\xff\xfe\x80 bytes\n",
                 b"[1, 2, 3]\n", b"{\"hello\": \"world\"}\n", b"\n", b"Content-Length: 42\r\n\r\n"]


def stdio_main(srv):
    out = sys.stdout.buffer

    def write(obj):
        with srv.out_lock:
            out.write((json.dumps(obj) + "\n").encode())
            out.flush()

    def raw(data):
        with srv.out_lock:
            out.write(data)
            out.flush()

    def handle_call(rid, params):
        kind, val = srv.call_tool(rid, params, write)
        if kind == "result":
            write({"jsonrpc": "2.0", "id": rid, "result": val})
        elif kind == "error":
            write({"jsonrpc": "2.0", "id": rid, "error": val})
        elif kind == "garbage":
            for g in GARBAGE_LINES:
                raw(g)
            srv.log("garbage_sent", id=rid)
        elif kind == "crash":
            raw(b'{"jsonrpc": "2.0", "id": %d, "result": {"content": [{"type": "te' % rid
                if isinstance(rid, int) else b'{"jsonrpc": "2.0", "resu')
            srv.log("crash", id=rid)
            os._exit(3)

    if srv.mode == "dead":
        sys.stderr.write("hostile dead: cannot start (exit 7)\n")
        srv.log("dead")
        sys.exit(7)
    if srv.mode == "stubborn":
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGPIPE):
            signal.signal(s, signal.SIG_IGN)
        if not srv.a.grandchild:
            child = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--mode", "stubborn",
                                      "--grandchild", "--log", srv.a.log, "--marker", srv.a.marker or ""],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
            srv.log("grandchild", child=child.pid)
        else:
            srv.log("start", mode="stubborn-grandchild")
            while True:
                time.sleep(1)
    sys.stderr.write("hostile %s started\n" % srv.mode)
    sys.stderr.flush()
    srv.log("start", mode=srv.mode, transport="stdio")
    if srv.mode == "relist" and srv.a.trigger:
        def watch():
            while not os.path.exists(srv.a.trigger):
                time.sleep(0.05)
            srv.relisted = True
            write({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            srv.log("relist_sent")
        threading.Thread(target=watch, daemon=True).start()
    initialized = False
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
        except ValueError:
            srv.log("unparsed", line=line.decode("utf-8", "replace")[:200])
            continue
        if not isinstance(msg, dict):
            srv.log("unparsed", line=repr(msg)[:200])
            continue
        srv.log("recv", msg=msg if len(line) < 4096 else {"method": msg.get("method"), "big": len(line)})
        method, rid, params = msg.get("method"), msg.get("id"), msg.get("params")
        if srv.mode == "garbage_init":
            for g in GARBAGE_LINES:
                raw(g)
            continue
        if method == "initialize":
            write({"jsonrpc": "2.0", "id": rid, "result": srv.initialize_result(params)})
            initialized = True
        elif srv.mode == "silent":
            continue
        elif method == "notifications/cancelled":
            srv.cancelled.add((params or {}).get("requestId"))
            srv.log("cancelled", requestId=(params or {}).get("requestId"), reason=(params or {}).get("reason"))
        elif method and method.startswith("notifications/"):
            continue
        elif rid is None:
            continue
        elif method == "ping":
            write({"jsonrpc": "2.0", "id": rid, "result": {}})
        elif method == "tools/list":
            res, err = srv.list_tools(params)
            write({"jsonrpc": "2.0", "id": rid, **({"result": res} if res is not None else {"error": err})})
            srv.log("listed", relisted=srv.relisted)
        elif method == "tools/call":
            threading.Thread(target=handle_call, args=(rid, params), daemon=True).start()
        elif method:
            write({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no method " + method}})
    srv.log("stdin_eof", initialized=initialized)
    if srv.mode == "stubborn":
        while True:
            time.sleep(1)
    # tools still running (slow_ignore) do not keep the process: EOF means the client is gone
    os._exit(0)


# ---------------------------------------------------------------------- streamable HTTP
def http_main(srv):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    import uuid
    sessions = set()

    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, status, body=b"", ctype="application/json", headers=None):
            self.send_response(status)
            if body or ctype:
                self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            try:
                self.wfile.write(body)
                self.wfile.flush()
            except OSError:  # the client stopped reading (an answer over its limit)
                srv.log("http_cut", status=status, size=len(body))
                self.close_connection = True

        def answer(self, obj, headers=None):
            body = json.dumps(obj).encode()
            if srv.a.sse:
                body = b"event: message\ndata: " + body + b"\n\n"
                self.reply(200, body, "text/event-stream", headers)
            else:
                self.reply(200, body, "application/json", headers)

        def heads(self):
            keep = ("authorization", "mcp-session-id", "mcp-protocol-version", "accept", "content-type",
                    "x-shc-test")
            return {k.lower(): v for k, v in self.headers.items() if k.lower() in keep}

        def do_GET(self):
            srv.log("http_get", path=self.path, headers=self.heads())
            self.reply(405, b"", "", {"Allow": "POST, DELETE"})

        def do_DELETE(self):
            srv.log("http_delete", path=self.path, headers=self.heads())
            sessions.discard(self.headers.get("Mcp-Session-Id"))
            self.reply(200, b"", "")

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n)
            heads = self.heads()
            try:
                msg = json.loads(raw)
            except ValueError:
                srv.log("http_unparsed", headers=heads)
                return self.reply(400, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}')
            srv.log("http_post", headers=heads, msg=msg)
            if self.path != "/mcp":
                return self.reply(404, b'{"error":"not found"}')
            accept = self.headers.get("Accept") or ""
            if "application/json" not in accept or "text/event-stream" not in accept:
                return self.reply(406, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":'
                                       b'"Not Acceptable: Client must accept both application/json and text/event-stream"}}')
            if not isinstance(msg, dict):
                return self.reply(400, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch not supported"}}')
            method, rid, params = msg.get("method"), msg.get("id"), msg.get("params")
            if method == "initialize":
                sid = uuid.uuid4().hex
                sessions.add(sid)
                return self.answer({"jsonrpc": "2.0", "id": rid, "result": srv.initialize_result(params)},
                                   {"Mcp-Session-Id": sid})
            sid = self.headers.get("Mcp-Session-Id")
            if not sid:
                srv.log("http_no_session", method=method)
                return self.reply(400, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Mcp-Session-Id header is required"}}')
            if sid not in sessions:
                return self.reply(404, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}')
            if rid is None:  # a notification
                if method == "notifications/cancelled":
                    srv.cancelled.add((params or {}).get("requestId"))
                    srv.log("cancelled", requestId=(params or {}).get("requestId"), reason=(params or {}).get("reason"))
                return self.reply(202, b"", "")
            if method == "ping":
                return self.answer({"jsonrpc": "2.0", "id": rid, "result": {}})
            if method == "tools/list":
                res, err = srv.list_tools(params)
                return self.answer({"jsonrpc": "2.0", "id": rid, **({"result": res} if res is not None else {"error": err})})
            if method == "tools/call":
                kind, val = srv.call_tool(rid, params, lambda note: None)
                if kind == "result":
                    return self.answer({"jsonrpc": "2.0", "id": rid, "result": val})
                if kind == "error":
                    return self.answer({"jsonrpc": "2.0", "id": rid, "error": val})
                if kind == "garbage":
                    srv.log("garbage_sent", id=rid)
                    return self.reply(200, b"<html><body>502 Bad Gateway\xff\xfe</body></html>", "text/html")
                if kind == "silent":
                    # hold the request open until the client goes away
                    while True:
                        time.sleep(0.05)
                        try:
                            self.connection.setblocking(False)
                            if self.connection.recv(1, 2) == b"":  # MSG_PEEK
                                srv.log("client_gone", id=rid)
                                return
                        except BlockingIOError:
                            pass
                        except OSError:
                            return
                        finally:
                            try:
                                self.connection.setblocking(True)
                            except OSError:
                                pass
                if kind == "big_stall":
                    # one JSON answer over the limit whose tail comes late: the client's next
                    # request is answered while this body still streams
                    body = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"content": [
                        {"type": "text", "text": "S" * BIG_BYTES}]}}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    cut = 6 * 1024 * 1024
                    try:
                        self.wfile.write(body[:cut])
                        self.wfile.flush()
                        time.sleep(3)
                        self.wfile.write(body[cut:])
                        self.wfile.flush()
                        srv.log("big_stall_sent", id=rid)
                    except OSError:
                        srv.log("big_stall_cut", id=rid)
                    self.close_connection = True
                    return
                if kind == "crash":
                    srv.log("crash", id=rid)
                    self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"jsonrpc\"")
                    self.wfile.flush()
                    os._exit(3)
            return self.answer({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no method %s" % method}})

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
    httpd.daemon_threads = True
    port = httpd.server_address[1]
    tmp = srv.a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.rename(tmp, srv.a.port_file)
    srv.log("start", mode=srv.mode, transport="http", port=port, sse=srv.a.sse)
    threading.Thread(target=lambda: httpd.serve_forever(poll_interval=0.05), daemon=True).start()
    # ends when its parent (the test) closes stdin
    sys.stdin.read()
    httpd.shutdown()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="ok")
    ap.add_argument("--log", required=True)
    ap.add_argument("--marker", default="")
    ap.add_argument("--http", action="store_true")
    ap.add_argument("--sse", action="store_true")
    ap.add_argument("--port-file")
    ap.add_argument("--grandchild", action="store_true")
    ap.add_argument("--tools", default="[]")
    ap.add_argument("--later", default="[]")
    ap.add_argument("--trigger")
    a = ap.parse_args()
    srv = Server(a)
    if a.http:
        http_main(srv)
    else:
        stdio_main(srv)


if __name__ == "__main__":
    main()
