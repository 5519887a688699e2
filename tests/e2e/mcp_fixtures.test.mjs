// The hostile MCP servers (tests/mcp/hostile_mcp.py) checked against the reference MCP client
// (@modelcontextprotocol/sdk, pinned): each fixture really misbehaves the way mcp.test.mjs says,
// and speaks MCP correctly otherwise, over stdio and streamable HTTP (JSON and SSE answers).  A
// failure of the agent in mcp.test.mjs is then the agent's, not the fixture's.
// Prints "N passed, N failed".
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { tempDir } from "./lib.mjs";

const ROOT = new URL("../..", import.meta.url).pathname;
const HOSTILE = join(ROOT, "tests/mcp/hostile_mcp.py");
const PY = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let passed = 0;
let failed = 0;
function ok(cond, name, detail) {
  if (cond) passed++;
  else {
    failed++;
    console.log(`FAIL: fixture: ${name}${detail !== undefined ? ": " + JSON.stringify(detail).slice(0, 500) : ""}`);
  }
}
process.on("unhandledRejection", (e) => console.log(`note: fixture: unhandled rejection: ${e?.message || e}`));
const readLog = (f) => (existsSync(f) ? readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);
const settle = (p, ms) => Promise.race([p.then((v) => ({ v }), (e) => ({ e })), sleep(ms).then(() => ({ timeout: true }))]);
const text = (r) => (r?.content || []).map((c) => c.text || "").join("");

async function stdio(mode) {
  const log = join(tempDir("shc-fix-"), "log.jsonl");
  const transport = new StdioClientTransport({ command: PY, args: [HOSTILE, "--mode", mode, "--log", log], stderr: "pipe",
    maxBufferSize: 64 * 1024 * 1024 }); // the SDK drops a server whose line passes 10 MB by default
  const client = new Client({ name: "fixture-check", version: "1.0.0" });
  return { client, transport, log, connect: () => client.connect(transport, { timeout: 5000 }) };
}
async function http(mode, sse) {
  const dir = tempDir("shc-fix-http-");
  const log = join(dir, "log.jsonl");
  const portFile = join(dir, "port");
  const proc = spawn(PY, [HOSTILE, "--http", ...(sse ? ["--sse"] : []), "--mode", mode, "--log", log, "--port-file", portFile],
    { stdio: ["pipe", "inherit", "inherit"] });
  for (let i = 0; i < 2400 && !existsSync(portFile); i++) await sleep(25);
  const url = new URL(`http://127.0.0.1:${Number(readFileSync(portFile, "utf8"))}/mcp`);
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: "Bearer fixture" } } });
  const client = new Client({ name: "fixture-check", version: "1.0.0" });
  await client.connect(transport, { timeout: 5000 });
  return { client, log, stop: async () => {
    await client.close().catch(() => {});
    proc.stdin.end();
    // the crash case has ended the server already: its exit event may be gone
    await new Promise((r) => (proc.exitCode !== null || proc.signalCode !== null ? r() : proc.on("exit", r)));
  } };
}

// ---------------------------------------------------------------- stdio, mode ok
{
  const s = await stdio("ok");
  await s.connect();
  const tools = (await s.client.listTools()).tools.map((t) => t.name);
  ok(tools.length === 11 && tools.includes("slow_ignore") && tools.includes("big_stall"), "ok: eleven tools", tools);
  ok(text(await s.client.callTool({ name: "echo", arguments: { message: "x" } })) === "echo:x", "ok: echo");
  const f = await s.client.callTool({ name: "fail", arguments: {} });
  ok(f.isError === true && text(f) === "fail: it broke", "ok: fail is an isError result", f);
  const e = await settle(s.client.callTool({ name: "rpcerr", arguments: {} }), 5000);
  ok(e.e && /tool exploded/.test(String(e.e.message)), "ok: rpcerr is a JSON-RPC error", String(e.e?.message));
  const b = await s.client.callTool({ name: "big", arguments: {} });
  ok(text(b).length === 10 * 1024 * 1024 && text(b).startsWith("BIG-START"), "ok: big is 10 MB", text(b).length);
  // cancellation: the SDK sends notifications/cancelled when the call is aborted
  const ac = new AbortController();
  const slow = settle(s.client.callTool({ name: "slow", arguments: { seconds: 30 } }, undefined, { signal: ac.signal, timeout: 60000 }), 10000);
  await sleep(500);
  ac.abort("test");
  await slow;
  await sleep(500);
  const lg = readLog(s.log);
  const call = lg.find((x) => x.event === "call" && x.name === "slow");
  ok(lg.some((x) => x.event === "cancelled" && x.requestId === call?.id) && lg.some((x) => x.event === "stopped"), "ok: slow stops at notifications/cancelled", lg.slice(-3));
  const g = await settle(s.client.callTool({ name: "garbage", arguments: {} }, undefined, { timeout: 2000 }), 8000);
  ok(!!g.e, "ok: garbage never gives an answer the reference client accepts", g);
  ok(readLog(s.log).some((x) => x.event === "garbage_sent"), "ok: garbage lines were sent");
  const c = await settle(s.client.callTool({ name: "crash", arguments: {} }, undefined, { timeout: 5000 }), 8000);
  ok(!!c.e, "ok: crash fails the call", c);
  await sleep(300);
  ok(readLog(s.log).some((x) => x.event === "crash"), "ok: the server died mid-call");
  await s.client.close().catch(() => {});
}
// ---------------------------------------------------------------- stdio, other modes
{
  const s = await stdio("pages");
  await s.connect();
  const p1 = await s.client.listTools();
  const p2 = await s.client.listTools({ cursor: p1.nextCursor });
  const p3 = await s.client.listTools({ cursor: p2.nextCursor });
  ok(JSON.stringify([p1, p2, p3].map((p) => [p.tools.map((t) => t.name), p.nextCursor ?? null])) ===
    JSON.stringify([[["page1_a"], "page-2"], [["page2_b"], "page-3"], [["page3_c"], null]]), "pages: three pages", [p1, p2, p3]);
  await s.client.close();
}
{
  const s = await stdio("list_changed");
  let notified = 0;
  s.client.setNotificationHandler(ToolListChangedNotificationSchema, () => notified++);
  await s.connect();
  ok((await s.client.listTools()).tools.length === 1, "list_changed: one tool at first");
  await s.client.callTool({ name: "echo", arguments: { message: "a" } });
  ok(notified === 1 && (await s.client.listTools()).tools.map((t) => t.name).includes("added_later"), "list_changed: the notification, then added_later", notified);
  await s.client.close();
}
{
  const s = await stdio("names");
  await s.connect();
  const names = (await s.client.listTools()).tools.map((t) => t.name);
  ok(names.length === 6 && new Set(names.map((n) => n.replace(/[^A-Za-z0-9_-]/g, "_"))).size < 6, "names: six names, colliding once sanitised naively", names);
  await s.client.close();
}
{
  const s = await stdio("bigschema");
  await s.connect();
  const huge = (await s.client.listTools()).tools.find((t) => t.name === "huge");
  ok(JSON.stringify(huge?.inputSchema || {}).length > 1000000, "bigschema: a schema over 1 MB", JSON.stringify(huge?.inputSchema || {}).length);
  await s.client.close();
}
for (const mode of ["garbage_init", "silent", "dead"]) {
  const s = await stdio(mode);
  const r = await settle(s.connect().then(() => s.client.listTools({}, { timeout: 2000 })), 12000);
  ok(!!r.e, `${mode}: the reference client cannot list its tools`, r.timeout ? "hung" : String(r.v ? "listed" : ""));
  await s.client.close().catch(() => {});
}
// ---------------------------------------------------------------- streamable HTTP
for (const sse of [false, true]) {
  const label = sse ? "http sse" : "http json";
  const h = await http("ok", sse);
  ok((await h.client.listTools()).tools.length === 11, `${label}: tools listed`);
  ok(text(await h.client.callTool({ name: "echo", arguments: { message: "h" } })) === "echo:h", `${label}: echo`);
  const ac = new AbortController();
  const slow = settle(h.client.callTool({ name: "slow", arguments: { seconds: 30 } }, undefined, { signal: ac.signal, timeout: 60000 }), 10000);
  await sleep(500);
  ac.abort("test");
  await slow;
  await sleep(500);
  const lg = readLog(h.log);
  const posts = lg.filter((x) => x.event === "http_post");
  ok(posts.length >= 4 && posts.slice(1).every((x) => x.headers["mcp-session-id"] && x.headers.authorization === "Bearer fixture"), `${label}: session id and headers on every request`, posts.map((x) => x.headers));
  ok(lg.some((x) => x.event === "cancelled"), `${label}: notifications/cancelled arrives as a POST`);
  const c = await settle(h.client.callTool({ name: "crash", arguments: {} }, undefined, { timeout: 5000 }), 8000);
  ok(!!c.e, `${label}: crash fails the call`, c);
  await h.stop();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
