#!/usr/bin/env python3
"""A small streamable-HTTP MCP server for shcard's own MCP tests, on 127.0.0.1 (an ephemeral
port, written to argv[1]).  initialize answers as JSON with an Mcp-Session-Id; tools/list as
JSON; tools/call of echo as an event stream; boom answers HTTP 500; flood answers with an
endless event stream of notifications/message (1 KB each; `pause` seconds after every ten) and never the answer, until the
client goes (then it logs {"flood_ended": events sent}).  Every POST is logged to argv[2] as
{"headers": {...}, "body": {...}}.  With argv[3] "reqflood", tools/list answers with an event
stream of 400 ping requests before the list, and a POST that carries an answer is held open
30 s; with "reqdrip", the list comes first and the stream goes on with 25 pings a second for
15 s (answers held the same way)."""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port_file, log_file = sys.argv[1], sys.argv[2]
mode = sys.argv[3] if len(sys.argv) > 3 else "ok"
lock = threading.Lock()
TOOLS = [{"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
         {"name": "boom", "inputSchema": {"type": "object"}},
         {"name": "flood", "inputSchema": {"type": "object"}}]


class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def reply(self, status, obj=None, sse=False, headers=()):
        body = b""
        if obj is not None:
            text = json.dumps(obj, indent=1)  # newlines in the JSON: the client must cope
            body = ("event: message\ndata: " + json.dumps(obj) + "\n\n").encode() if sse else text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/event-stream" if sse else "application/json")
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def flood(self, pause=0):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        note = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                           "params": {"level": "info", "data": "x" * 1000}})
        event = ("event: message\ndata: " + note + "\n\n").encode()
        sent = 0
        try:
            while True:
                self.wfile.write(event * 10)
                self.wfile.flush()
                sent += 10
                if pause:
                    time.sleep(pause)
        except OSError:
            with lock, open(log_file, "a") as f:
                f.write(json.dumps({"flood_ended": sent}) + "\n")

    def do_POST(self):
        msg = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with lock, open(log_file, "a") as f:
            f.write(json.dumps({"headers": {k.lower(): v for k, v in self.headers.items()}, "body": msg}) + "\n")
        mid, method = msg.get("id"), msg.get("method")
        if method is None and mode in ("reqflood", "reqdrip"):
            time.sleep(30)
            return
        if mid is None:
            return self.reply(202)
        if method == "initialize":
            return self.reply(200, {"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "tinyhttp", "version": "1"}}}, headers=[("Mcp-Session-Id", "sess-42")])
        if method == "tools/list" and mode == "reqdrip":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(("data: " + json.dumps({"jsonrpc": "2.0", "id": mid, "result": {"tools": TOOLS}}) + "\n\n").encode())
            try:
                for i in range(25 * 15):
                    self.wfile.write(("data: " + json.dumps({"jsonrpc": "2.0", "id": "d%d" % i, "method": "ping"}) + "\n\n").encode())
                    self.wfile.flush()
                    time.sleep(0.04)
            except OSError:
                pass
            self.close_connection = True
            return
        if method == "tools/list" and mode == "reqflood":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for i in range(400):
                self.wfile.write(("data: " + json.dumps({"jsonrpc": "2.0", "id": "r%d" % i, "method": "ping"}) + "\n\n").encode())
            self.wfile.write(("data: " + json.dumps({"jsonrpc": "2.0", "id": mid, "result": {"tools": TOOLS}}) + "\n\n").encode())
            self.close_connection = True
            return
        if method == "tools/list":
            return self.reply(200, {"jsonrpc": "2.0", "id": mid, "result": {"tools": TOOLS}})
        if method == "tools/call" and msg["params"]["name"] == "echo":
            return self.reply(200, {"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": "http echo: " + msg["params"]["arguments"].get("text", "")}]}}, sse=True)
        if method == "tools/call" and msg["params"]["name"] == "flood":
            return self.flood(float(msg["params"]["arguments"].get("pause", 0)))
        if method == "tools/call":
            self.send_response(500)
            self.send_header("Content-Length", "13")
            self.end_headers()
            return self.wfile.write(b"server broke\n")
        return self.reply(200, {"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no"}})


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(port_file + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os  # noqa: E402
os.rename(port_file + ".tmp", port_file)
srv.serve_forever()
