// End-to-end: `shcard acp` with the OpenAI-compatible model backend, driven by a real
// @agentclientprotocol/sdk client, against the fake server (tests/fake_openai.py: real HTTP and
// SSE on 127.0.0.1).  Checks the session updates, the permission flow (allow, always, reject,
// cancel while asking), what the server received (history, tool results with exit lines),
// errors, cancel, and that the API key never reaches stderr.  Prints "N passed, N failed".
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { startFakeServer, tempDir } from "./lib.mjs";

const ROOT = new URL("../..", import.meta.url).pathname;
const SHCARD = process.env.SHCARD || join(ROOT, "shcard");
const KEY = "sk-e2e-SECRET-987";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let passed = 0;
let failed = 0;
function ok(cond, name, detail) {
  if (cond) passed++;
  else {
    failed++;
    console.log(`FAIL: ${name}${detail !== undefined ? ": " + JSON.stringify(detail).slice(0, 600) : ""}`);
  }
  return cond;
}
const eq = (got, want, name) => ok(JSON.stringify(got) === JSON.stringify(want), name, { got, want });


// ---------------------------------------------------------------- agent + client
const stderrAll = [];
function startAgent(server, args = []) {
  const home = tempDir("shc-home-");
  const child = spawn(SHCARD, ["acp", "--base-url", server.url, "--log-level", "debug", ...args], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, DEEPSEEK_API_KEY: KEY, OPENAI_API_KEY: "", HOME: home,
           XDG_CONFIG_HOME: home, SHCARD_CONFIG: "", NO_PROXY: "127.0.0.1,localhost", no_proxy: "127.0.0.1,localhost" },
  });
  child.stderrText = "";
  child.stderr.on("data", (d) => (child.stderrText += d.toString()));
  child.exited = new Promise((r) => child.on("exit", (code, sig) => r({ code, sig })));
  return child;
}

// handlers.permission(params, log) -> outcome promise
function connect(child, handlers = {}) {
  const log = []; // every notification and permission request, in arrival order
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const conn = acp
    .client({ name: "shcard-model-e2e" })
    .onNotification("session/update", (c) => { log.push({ kind: "update", u: c.params.update, sid: c.params.sessionId }); })
    .onRequest("session/request_permission", async (c) => {
      log.push({ kind: "permission", p: c.params });
      if (handlers.permission) return handlers.permission(c.params, log);
      return { outcome: { outcome: "selected", optionId: "allow" } };
    })
    .connect(stream);
  return { ctx: conn.agent, log };
}

async function withAgent(script, args, handlers, body) {
  const server = await startFakeServer(script);
  const child = startAgent(server, args);
  const { ctx, log } = connect(child, handlers);
  const ws = realpathSync(tempDir("shc-ws-"));
  try {
    await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: { terminal: false, _meta: { terminal_output: true } } });
    const sid = (await ctx.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
    const prompt = (text) => ctx.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text }] });
    await body({ ctx, log, sid, ws, prompt, server, child });
  } catch (e) {
    ok(false, `${script}: exception`, String(e?.stack || e?.message || e));
  } finally {
    child.stdin.end();
    const ex = await Promise.race([child.exited, sleep(8000).then(() => null)]);
    if (!ok(ex && ex.code === 0, `${script}: agent exits 0 on stdin EOF`, ex))
      console.log(child.stderrText.slice(-4000));
    if (!ex) child.kill("SIGKILL");
    await server.stop();
    stderrAll.push(child.stderrText);
    ok(!child.stderrText.includes(KEY), `${script}: API key not in stderr`);
  }
}

const updates = (log, kind) => log.filter((e) => e.kind === "update" && (!kind || e.u.sessionUpdate === kind)).map((e) => e.u);
const chunks = (log, kind) => updates(log, kind).map((u) => u.content.text).join("");
const codeOf = async (p) => { try { await p; return "resolved"; } catch (e) { return e; } };

// ---------------------------------------------------------------- scenarios
await withAgent("reasoning.json", [], {}, async ({ log, prompt, server }) => {
  const r = await prompt("hello");
  eq(r.stopReason, "end_turn", "text: end_turn");
  eq(chunks(log, "agent_thought_chunk"), "The user greets; answer briefly.", "reasoning -> agent_thought_chunk");
  eq(chunks(log, "agent_message_chunk"), "Hi there.", "content -> agent_message_chunk");
  const order = updates(log).map((u) => u.sessionUpdate);
  ok(order.lastIndexOf("agent_thought_chunk") < order.indexOf("agent_message_chunk"), "thoughts before text", order);
  const q = server.requests()[0];
  eq(q.authorization, `Bearer ${KEY}`, "key sent as a bearer token");
  eq(q.body.messages.map((m) => m.role), ["system", "user"], "first request: system + user");
  eq(q.body.tools[0].function.name, "bash", "bash tool offered");
});

// allow: tool_call (pending) first, then the permission request, then the command runs
await withAgent("one_tool.json", [], {}, async ({ log, prompt, server, ws }) => {
  const r = await prompt("look");
  eq(r.stopReason, "end_turn", "allow: end_turn");
  const pi = log.findIndex((e) => e.kind === "permission");
  ok(pi >= 0, "allow: permission asked (--approve ask is the default)");
  const p = log[pi]?.p;
  const tc = log.findIndex((e) => e.kind === "update" && e.u.sessionUpdate === "tool_call" && e.u.toolCallId === p?.toolCall?.toolCallId);
  ok(tc >= 0 && tc < pi, "allow: tool_call sent before request_permission", { tc, pi });
  eq(log[tc]?.u?.status, "pending", "allow: tool_call status pending");
  eq(log[tc]?.u?.rawInput?.command, "printf 'hello\\n'; exit 3", "allow: the card shows the model's command");
  eq(p?.options?.map((o) => [o.optionId, o.kind]).map((x) => x[1]), ["allow_once", "allow_always", "reject_once"], "allow: the three options");
  const upd = updates(log, "tool_call_update").filter((u) => u.toolCallId === p?.toolCall?.toolCallId);
  eq(upd[upd.length - 1]?.status, "failed", "allow: exit 3 ends failed");
  ok(upd.some((u) => u.status === "in_progress"), "allow: in_progress after the answer", upd);
  const m = server.requests()[1]?.body?.messages || [];
  eq(m.map((x) => x.role), ["system", "user", "assistant", "tool"], "allow: history sent back");
  eq(m[2]?.tool_calls?.[0]?.id, "call_1", "allow: assistant tool call in history");
  eq(m[3]?.tool_call_id, "call_1", "allow: tool result id");
  ok(/hello\n\[exit code: 3\]$/.test(m[3]?.content || ""), "allow: model text ends with [exit code: 3]", m[3]?.content);
  eq(m[2]?.content, "Let me look.", "allow: assistant text in history");
  eq(m[0]?.content.includes(`The working directory is ${ws}.`), true, "allow: system prompt names the session cwd");
});

// always: the second command of the session is not asked about
await withAgent("always.json", [], {
  permission: () => ({ outcome: { outcome: "selected", optionId: "allow_always" } }),
}, async ({ log, prompt, server }) => {
  const r = await prompt("two commands");
  eq(r.stopReason, "end_turn", "always: end_turn");
  eq(log.filter((e) => e.kind === "permission").length, 1, "always: asked once");
  const m = server.requests()[2]?.body?.messages || [];
  const tools = m.filter((x) => x.role === "tool").map((x) => x.content);
  ok(/first\n\[exit code: 0\]$/.test(tools[0] || "") && /second\n\[exit code: 0\]$/.test(tools[1] || ""), "always: both ran", tools);
});

// reject: the command does not run, the call fails "rejected by the user", the model is told
await withAgent("reject_touch.json", [], {
  permission: (p) => ({ outcome: { outcome: "selected", optionId: p.options.find((o) => o.kind === "reject_once").optionId } }),
}, async ({ log, prompt, server, ws }) => {
  const r = await prompt("make a file");
  eq(r.stopReason, "end_turn", "reject: end_turn");
  ok(!existsSync(join(ws, "ran.txt")), "reject: the command did not run");
  const id = updates(log, "tool_call").find((u) => u.rawInput?.command === "touch ran.txt && echo created")?.toolCallId;
  ok(!!id, "reject: the tool_call card was sent");
  const fin = updates(log, "tool_call_update").filter((u) => u.toolCallId === id).pop();
  eq(fin?.status, "failed", "reject: call ends failed");
  ok(JSON.stringify(fin?.content || "").includes("rejected by the user"), "reject: says rejected by the user", fin);
  const m = server.requests()[1]?.body?.messages || [];
  ok((m[3]?.content || "").includes("rejected by the user"), "reject: the model is told", m[3]);
  eq(chunks(log, "agent_message_chunk"), "Creating a file.Understood, I will not create it.", "reject: the turn goes on");
});

// cancel while asking: the permission is answered cancelled, the prompt answers cancelled,
// the command never runs, and the next prompt continues with a coherent history
{
  let release;
  await withAgent("tool_then_next.json", [], {
    permission: () => new Promise((r) => { release = r; }),
  }, async ({ ctx, log, sid, prompt, server }) => {
    const p1 = prompt("run it");
    for (let i = 0; i < 200 && !release; i++) await sleep(25);
    ok(!!release, "cancel-ask: permission requested");
    const t0 = Date.now();
    await ctx.notify("session/cancel", { sessionId: sid });
    release?.({ outcome: { outcome: "cancelled" } });
    const r = await p1;
    eq(r.stopReason, "cancelled", "cancel-ask: stopReason cancelled");
    ok(Date.now() - t0 < 3000, "cancel-ask: answered at once", Date.now() - t0);
    const r2 = await prompt("next");
    eq(r2.stopReason, "end_turn", "cancel-ask: next prompt runs");
    const m = server.requests()[1]?.body?.messages || [];
    eq(m.map((x) => x.role), ["system", "user", "assistant", "tool", "user"], "cancel-ask: valid history");
    ok((m[3]?.content || "").includes("cancelled by the user"), "cancel-ask: the model is told", m[3]);
  });
}

// --approve all: no questions
await withAgent("one_tool.json", ["--approve", "all"], {}, async ({ log, prompt }) => {
  eq((await prompt("look")).stopReason, "end_turn", "approve all: end_turn");
  eq(log.filter((e) => e.kind === "permission").length, 0, "approve all: nothing asked");
});

// a slow stream cancelled mid-way: the transfer is aborted at once
await withAgent("slow.json", [], {}, async ({ ctx, log, sid, prompt, server }) => {
  const p1 = prompt("slow");
  for (let i = 0; i < 200 && !chunks(log, "agent_message_chunk"); i++) await sleep(25);
  eq(chunks(log, "agent_message_chunk"), "Thinking slowly", "slow: first chunk streamed");
  const t0 = Date.now();
  await ctx.notify("session/cancel", { sessionId: sid });
  const r = await p1;
  eq(r.stopReason, "cancelled", "slow: cancelled");
  ok(Date.now() - t0 < 2500, "slow: answered at once", Date.now() - t0);
  for (let i = 0; i < 40 && server.disconnects().length === 0; i++) await sleep(25);
  eq(server.disconnects().map((d) => d.request), [0], "slow: the server saw the transfer aborted");
  eq((await prompt("again")).stopReason, "end_turn", "slow: next prompt works");
  const m = server.requests()[1]?.body?.messages || [];
  eq(m.slice(1).map((x) => [x.role, x.content]), [["user", "slow"], ["assistant", "Thinking slowly\n\n[cancelled by the user]"], ["user", "again"]], "slow: history records the cancel");
});

// errors: 401, a stream cut mid-event, 5xx three times; the bridge keeps serving after each
await withAgent("errors_then_ok.json", [], {}, async ({ ctx, prompt, server }) => {
  const e1 = await codeOf(prompt("a"));
  ok(e1?.code === -32603 && /refused the API key/.test(e1?.message) && /401/.test(e1?.message), "401: JSON-RPC error says the key was refused", e1?.message);
  ok(!JSON.stringify(e1).includes(KEY), "401: the key is not in the error", e1?.message);
  const e2 = await codeOf(prompt("b"));
  ok(e2?.code === -32603 && /ended before the message was complete/.test(e2?.message), "cut: clear error", e2?.message);
  const e3 = await codeOf(prompt("c"));
  ok(e3?.code === -32603 && /HTTP 500 3 times/.test(e3?.message), "5xx: bounded retries then a clear error", e3?.message);
  eq(server.requests().length, 5, "5xx: three attempts");
  const r = await prompt("d");
  eq(r.stopReason, "end_turn", "errors: the bridge keeps serving");
  const s2 = await ctx.request("session/new", { cwd: "/tmp", mcpServers: [] });
  ok(typeof s2.sessionId === "string", "errors: new sessions still work");
});

await withAgent("retry_429.json", [], {}, async ({ log, prompt, server }) => {
  eq((await prompt("go")).stopReason, "end_turn", "429: retried and succeeded");
  eq(server.requests().length, 2, "429: two requests");
  eq(chunks(log, "agent_message_chunk"), "After the wait.", "429: text");
});

// max_turn_requests from the flag
await withAgent("loop_tools.json", ["--approve", "all", "--max-turn-requests", "2"], {}, async ({ prompt, server }) => {
  eq((await prompt("loop")).stopReason, "max_turn_requests", "limit: max_turn_requests");
  eq(server.requests().length, 2, "limit: two requests");
});

// stdin EOF in the middle of a stream: the bridge tears down (aborting the transfer) and exits 0
await withAgent("slow.json", [], {}, async ({ log, prompt, server, child }) => {
  const p1 = prompt("slow").catch((e) => e);
  for (let i = 0; i < 200 && !chunks(log, "agent_message_chunk"); i++) await sleep(25);
  child.stdin.end();
  const ex = await Promise.race([child.exited, sleep(5000).then(() => null)]);
  ok(ex && ex.code === 0, "EOF mid-stream: exits 0 at once", ex);
  for (let i = 0; i < 40 && server.disconnects().length === 0; i++) await sleep(25);
  eq(server.disconnects().length, 1, "EOF mid-stream: the transfer was aborted");
  await p1;
});

// a keep-alive connection left in curl's cache at exit (an error response keeps it open)
await withAgent("error_401.json", [], {}, async ({ prompt }) => {
  const e = await codeOf(prompt("a"));
  ok(/refused the API key/.test(e?.message), "keep-alive: 401 error", e?.message);
});

// two sessions stream at once; cancelling one leaves the other alone
await withAgent("concurrent.json", [], {}, async ({ ctx, log, sid }) => {
  const s2 = (await ctx.request("session/new", { cwd: "/tmp", mcpServers: [] })).sessionId;
  const ask = (id, text) => ctx.request("session/prompt", { sessionId: id, prompt: [{ type: "text", text }] });
  const p1 = ask(sid, "one");
  const p2 = ask(s2, "two");
  const text = (id) => log.filter((e) => e.sid === id && e.u.sessionUpdate === "agent_message_chunk").map((e) => e.u.content.text).join("");
  for (let i = 0; i < 200 && !(text(sid) && text(s2)); i++) await sleep(25);
  eq([text(sid), text(s2)], ["A", "A"], "concurrent: both streaming");
  await ctx.notify("session/cancel", { sessionId: sid });
  eq((await p1).stopReason, "cancelled", "concurrent: the cancelled session");
  eq((await p2).stopReason, "end_turn", "concurrent: the other session finishes");
  eq(text(s2), "AB", "concurrent: the other session's text is whole");
  eq(text(sid), "A", "concurrent: nothing more for the cancelled one");
});

// --timeout: the command is killed and the model sees [timed out]
await withAgent("timeout.json", ["--approve", "all", "--timeout", "1"], {}, async ({ prompt, server }) => {
  const t0 = Date.now();
  eq((await prompt("slow command")).stopReason, "end_turn", "timeout: end_turn");
  ok(Date.now() - t0 < 10000, "timeout: the command was stopped", Date.now() - t0);
  const m = server.requests()[1]?.body?.messages || [];
  ok(/start\n[\s\S]*\[timed out\]$/.test(m[3]?.content || ""), "timeout: model text ends with [timed out]", m[3]?.content);
});

await withAgent("length.json", [], {}, async ({ prompt }) => {
  eq((await prompt("long")).stopReason, "max_tokens", "length -> max_tokens");
});

// without a key and without --base-url: shell mode, said on stderr
{
  const home = tempDir("shc-home-");
  const child = spawn(SHCARD, ["acp"], { stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, DEEPSEEK_API_KEY: "", OPENAI_API_KEY: "", HOME: home, XDG_CONFIG_HOME: home, SHCARD_CONFIG: "" } });
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  child.stdin.end();
  await new Promise((r) => child.on("exit", r));
  ok(/shell mode/.test(err), "no key: shell mode on stderr", err);
}

// --shell: shell mode even with a key in the environment
{
  const home = tempDir("shc-home-");
  const child = spawn(SHCARD, ["acp", "--shell"], { stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, DEEPSEEK_API_KEY: KEY, HOME: home, XDG_CONFIG_HOME: home, SHCARD_CONFIG: "" } });
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  child.stdin.end();
  await new Promise((r) => child.on("exit", r));
  ok(/--shell: shell mode/.test(err) && !err.includes(KEY), "--shell: shell mode despite the key", err);
}

ok(stderrAll.some((s) => /model .* at http:\/\/127\.0\.0\.1/.test(s)), "stderr names the model backend", stderrAll[0]);
ok(stderrAll.every((s) => !s.includes(KEY)), "no API key in any stderr");
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
