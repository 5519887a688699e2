// End-to-end: `shcard acp` in shell mode driven by a real @agentclientprotocol/sdk client that
// sends Zed 1.13's initialize.  Prints "N passed, N failed".
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, realpathSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  SHCARD, ZED_INIT, ok, eq, finish, startAgent, connect, descendants, alive, raw, within, sleep, text, tempDir } from "./lib.mjs";

const ws = realpathSync(tempDir("shcard-e2e-"));
mkdirSync(join(ws, "src"));
writeFileSync(join(ws, "src", "main.c"), "#include <stdio.h>\nint main(void)\n{\n    return open_pty();\n}\n");
writeFileSync(join(ws, "notes.txt"), "alpha\nbeta\ngamma\n");
symlinkSync("/dev/zero", join(ws, "zeros")); // a device behind a harmless-looking name

const byCall = (ups) => {
  const m = new Map();
  for (const { t, u } of ups) {
    if (!u.toolCallId) continue;
    if (!m.has(u.toolCallId)) m.set(u.toolCallId, []);
    m.get(u.toolCallId).push({ t, u });
  }
  return [...m.values()];
};

async function prompt(ctx, sessionId, textIn) {
  return ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: textIn }] });
}

async function codeOf(p) {
  try {
    await p;
    return "resolved";
  } catch (e) {
    return e.code;
  }
}

// ---------------------------------------------------------------- Zed client
const agent = startAgent(["--log-level", "info"]);
const { conn, ctx, updates } = connect(agent);

{
  const init = await ctx.request("initialize", ZED_INIT);
  eq(init.protocolVersion, 1, "initialize: protocolVersion 1");
  eq(init.agentInfo?.name, "shcard", "initialize: agentInfo.name");
  ok(typeof init.agentInfo?.version === "string", "initialize: agentInfo.version");
  eq(init.agentCapabilities?.loadSession, true, "initialize: loadSession advertised (the store)");
  eq(init.agentCapabilities?.sessionCapabilities, { close: {}, list: {}, resume: {}, delete: {} }, "initialize: session capabilities");
  eq(init.agentCapabilities?.promptCapabilities, { image: false, audio: false, embeddedContext: true }, "initialize: prompt capabilities (no images in shell mode)");
  eq(init.authMethods?.map((m) => [m.id, m.type]), [["shcard-login", "terminal"], ["api-key-env", "env_var"]], "initialize: authMethods (auth.e2e checks their shapes)");
  eq(await codeOf(ctx.request("authenticate", { methodId: "x" })), -32602, "authenticate x: -32602 (never advertised)");
}

const s1 = (await ctx.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
ok(typeof s1 === "string" && s1.length > 0, "session/new returns an id");

// ---- classified cards
{
  const r = await prompt(ctx, s1, "cat notes.txt\ngrep -rn open_pty src\nls src");
  eq(r.stopReason, "end_turn", "classified: end_turn");
  const calls = byCall(updates.get(s1) || []);
  eq(calls.length, 3, "classified: three calls");
  const [read, search, list] = calls.map((c) => c[0].u);
  const finals = calls.map((c) => c[c.length - 1].u);
  {
    eq(read.kind, "read", "read card kind");
    ok(/notes\.txt/.test(read.title), "read card title names the file", read.title);
    eq(read.locations?.[0]?.path, join(ws, "notes.txt"), "read card absolute location");
    ok(text(finals[0].content?.[0]).startsWith("```text\nalpha\nbeta\ngamma"), "read output fenced with language", finals[0].content);
    eq(search.kind, "search", "search card kind");
    ok(/open_pty/.test(search.title), "search card title has the query", search.title);
    ok(search.locations?.every((l) => l.path.startsWith("/")), "search locations absolute", search.locations);
    ok(/main\.c/.test(text(finals[1].content?.[0]) || ""), "search output fenced", finals[1].content);
    eq(list.kind, "read", "list card kind read");
    eq(list.locations?.[0]?.path, join(ws, "src"), "list card absolute location");
    for (const c of [read, search, list]) ok(!c._meta, "classified cards carry no terminal _meta", c);
  }
  finals.forEach((f, i) => eq(f.status, "completed", `classified: call ${i + 1} completed`));

  eq(read.rawInput, { command: "cat notes.txt", cwd: ws }, "rawInput {command, cwd}");
  const msgs = (updates.get(s1) || []).filter((x) => x.u.sessionUpdate === "agent_message_chunk");
  ok(msgs.length === 1 && /3/.test(msgs[0].u.content.text), "one-line summary message", msgs);
  ok(new Set(calls.map((c) => c[0].u.toolCallId)).size === 3, "tool call ids unique");
  updates.delete(s1);
  // a line range read inside the agents' usual bash -lc wrapper: 1-based line, C fence
  await prompt(ctx, s1, "bash -lc 'sed -n 2,3p src/main.c'");
  const rc = byCall(updates.get(s1))[0];
  eq(rc[0].u.kind, "read", "wrapped sed read: kind read");
  eq(rc[0].u.locations, [{ path: join(ws, "src/main.c"), line: 2 }], "wrapped sed read: location with 1-based line");
  eq(text(rc[rc.length - 1].u.content?.[0]), "```c\nint main(void)\n{\n```", "wrapped sed read: fenced with the file's language");
  updates.delete(s1);
}

// ---- live terminal card
{
  const cmd = "echo start; sleep 1; echo end";
  const r = await prompt(ctx, s1, cmd);
  eq(r.stopReason, "end_turn", "terminal: end_turn");
  const ups = updates.get(s1);
  const calls = byCall(ups);
  eq(calls.length, 1, "terminal: one call");
  const c = calls[0];
  const first = c[0].u;
  eq(first.sessionUpdate, "tool_call", "terminal: tool_call first");
  eq(first.kind, "execute", "terminal: kind execute");
  eq(first.title, cmd, "terminal: title is the command");
  eq(first.content, [{ type: "terminal", terminalId: first.toolCallId }], "terminal: content block");
  eq(first._meta?.terminal_info, { terminal_id: first.toolCallId, cwd: ws }, "terminal: terminal_info");
  const outs = c.filter((x) => x.u._meta?.terminal_output);
  const last = c[c.length - 1];
  ok(outs.length >= 2, "terminal: streamed in several updates", outs.length);
  ok(outs.length && last.t - outs[0].t >= 700, "terminal: first output arrived before the command ended",
    outs.length && last.t - outs[0].t);
  eq(outs.map((x) => x.u._meta.terminal_output.data).join(""), "start\r\nend\r\n", "terminal: concatenated data equals the output");
  ok(outs.every((x) => !x.u.content && !x.u.status), "terminal: output updates carry only _meta");
  eq(last.u.status, "completed", "terminal: completed");
  eq(last.u._meta?.terminal_exit, { exit_code: 0, signal: null, terminal_id: first.toolCallId }, "terminal: exit pill");
  ok(!last.u.content, "terminal: final update has no content");
  updates.delete(s1);

  await prompt(ctx, s1, "exit 3");
  const f = byCall(updates.get(s1))[0];
  const fl = f[f.length - 1].u;
  eq(fl.status, "failed", "exit 3: failed");
  eq(fl._meta?.terminal_exit?.exit_code, 3, "exit 3: exit_code 3");
  ok(f[0].u.toolCallId !== first.toolCallId, "ids never reused across turns");
  updates.delete(s1);

  // an agent's bash -lc wrapper: the card title is the script, rawInput the exact command
  await prompt(ctx, s1, "bash -lc 'echo wrapped && true'");
  const w = byCall(updates.get(s1))[0][0].u;
  eq([w.title, w.rawInput.command], ["echo wrapped && true", "bash -lc 'echo wrapped && true'"], "wrapped: title is the script");
  updates.delete(s1);

  // UTF-8 split across reads, raw ANSI and CRLF kept
  await prompt(ctx, s1, "printf 'caf\\303'; sleep 0.2; printf '\\251 \\033[1mbold\\033[0m\\n'");
  const u8 = byCall(updates.get(s1))[0].filter((x) => x.u._meta?.terminal_output).map((x) => x.u._meta.terminal_output.data).join("");
  eq(u8, "café \u001b[1mbold\u001b[0m\r\n", "terminal: UTF-8 re-joined, ANSI and CRLF kept");
  updates.delete(s1);
}

// ---- resource_link accepted; errors
{
  const r = await ctx.request("session/prompt", {
    sessionId: s1,
    prompt: [{ type: "text", text: "true" }, { type: "resource_link", uri: "file:///dev/null", name: "null" }],
  });
  eq(r.stopReason, "end_turn", "resource_link accepted");
  updates.delete(s1);
  eq(await codeOf(ctx.request("session/new", { cwd: "relative/dir", mcpServers: [] })), -32602, "relative cwd -32602");
  ok(typeof (await ctx.request("session/new", { cwd: ws, mcpServers: [{ name: "x", command: "/bin/true", args: [], env: [] }] })).sessionId === "string", "non-empty mcpServers accepted (not used)");
  for (let i = 0; i < 40 && !/MCP server\(s\) offered/.test(agent.stderrText); i++) await sleep(25);
  ok(/MCP server\(s\) offered; shell mode does not use them/.test(agent.stderrText), "non-empty mcpServers: shell mode logs them as not used", agent.stderrText.slice(-300));
  eq(await codeOf(prompt(ctx, "sess_nope", "ls")), -32602, "unknown session -32602");
  eq(await codeOf(prompt(ctx, s1, "  \n\t ")), -32602, "empty prompt -32602");
  eq(await codeOf(ctx.request("session/prompt", { sessionId: s1, prompt: [{ type: "image", data: "AA==", mimeType: "image/png" }] })), -32602, "image block -32602");
  eq(await codeOf(ctx.request("session/prompt", { sessionId: s1, prompt: [] })), -32602, "no blocks -32602");
  eq(await codeOf(ctx.request("frobnicate", {})), -32601, "unknown method -32601");
  const busy = prompt(ctx, s1, "sleep 0.5");
  await sleep(100);
  eq(await codeOf(prompt(ctx, s1, "echo second")), -32602, "second prompt in flight -32602");
  eq((await busy).stopReason, "end_turn", "first prompt undisturbed");
  updates.delete(s1);
  // cancel of an idle or unknown session: no effect
  await ctx.notify("session/cancel", { sessionId: s1 });
  await ctx.notify("session/cancel", { sessionId: "sess_nope" });
  eq((await prompt(ctx, s1, "true")).stopReason, "end_turn", "prompt after idle cancel runs");
  updates.delete(s1);
}

// ---- the session's directory is real: a read of a device behind a symlink is a terminal card
{
  const sz = (await ctx.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
  const r = await prompt(ctx, sz, "head -c 4 zeros");
  eq(r.stopReason, "end_turn", "stat: end_turn");
  const calls = byCall(updates.get(sz) || []);
  eq(calls[0]?.[0]?.u.kind, "execute", "stat: a symlink to /dev/zero gets the terminal card", calls[0]?.[0]?.u);
}

// ---- cancel
{
  const p = prompt(ctx, s1, "sleep 100");
  let procs = [];
  for (let i = 0; i < 50 && !procs.some((pid) => alive(pid)); i++) {
    await sleep(50);
    procs = descendants(agent.pid, { commandsOnly: true });
  }
  ok(procs.length > 0, "cancel: the command is running", procs);
  const t0 = Date.now();
  await ctx.notify("session/cancel", { sessionId: s1 });
  const after = prompt(ctx, s1, "echo after"); // right after the cancel, no wait
  let r;
  try {
    r = await within(3000, p);
  } catch (e) {
    r = { error: e.message };
  }
  const dt = Date.now() - t0;
  eq(r.stopReason, "cancelled", "cancel: stopReason cancelled");
  ok(dt < 3000, "cancel: answered within 3 s", dt);
  await sleep(100);
  ok(procs.every((pid) => !alive(pid)), "cancel: no surviving process", procs.filter(alive));
  const r2 = await within(5000, after).catch((e) => ({ error: e.message }));
  eq(r2.stopReason, "end_turn", "prompt right after a cancel runs");
  const calls = byCall(updates.get(s1));
  eq(calls.length, 2, "cancel: two calls");
  const cl = calls[0][calls[0].length - 1].u;
  eq(cl.status, "failed", "cancelled call ends failed");
  ok(cl._meta?.terminal_exit?.signal, "cancelled call reports the signal", cl._meta);
  const outAfter = calls[1].filter((x) => x.u._meta?.terminal_output).map((x) => x.u._meta.terminal_output.data).join("");
  eq(outAfter, "after\r\n", "the next prompt's command ran");
  updates.delete(s1);
}

// ---- two concurrent sessions
{
  const a = (await ctx.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
  const b = (await ctx.request("session/new", { cwd: join(ws, "src"), mcpServers: [] })).sessionId;
  ok(a !== b && a !== s1, "session ids unique");
  const loop = (tag) => `for i in 1 2 3; do echo ${tag}$i; sleep 0.3; done`;
  const [ra, rb] = await Promise.all([prompt(ctx, a, loop("A")), prompt(ctx, b, loop("B"))]);
  eq([ra.stopReason, rb.stopReason], ["end_turn", "end_turn"], "concurrent: both end_turn");
  const data = (sid) => (updates.get(sid) || []).filter((x) => x.u._meta?.terminal_output).map((x) => x.u._meta.terminal_output.data).join("");
  eq(data(a), "A1\r\nA2\r\nA3\r\n", "concurrent: session A sees only its output");
  eq(data(b), "B1\r\nB2\r\nB3\r\n", "concurrent: session B sees only its output");
  const ta = updates.get(a).map((x) => x.t), tb = updates.get(b).map((x) => x.t);
  ok(Math.min(...tb) < Math.max(...ta) && Math.min(...ta) < Math.max(...tb), "concurrent: the sessions ran at the same time");
  eq(updates.get(b).find((x) => x.u.sessionUpdate === "tool_call")?.u._meta?.terminal_info?.cwd, join(ws, "src"), "concurrent: per-session cwd");
  // cancel in one session does not disturb the other
  const pa = prompt(ctx, a, "sleep 100");
  const pb = prompt(ctx, b, "sleep 0.5; echo fine");
  await sleep(200);
  await ctx.notify("session/cancel", { sessionId: a });
  eq((await pa).stopReason, "cancelled", "cancel isolation: A cancelled");
  eq((await pb).stopReason, "end_turn", "cancel isolation: B unaffected");
}

// ---- capability snapshot: a later initialize without the flag doesn't change s1
{
  await ctx.request("initialize", { protocolVersion: 999, clientCapabilities: {} }).then(
    (r) => eq(r.protocolVersion, 1, "initialize 999 -> 1"));
  updates.delete(s1);
  await prompt(ctx, s1, "echo snap");
  ok(byCall(updates.get(s1))[0][0].u._meta?.terminal_info, "capabilities snapshotted per session");
  const s2 = (await ctx.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
  // console fallback: no _meta.terminal_output in the latest initialize
  await prompt(ctx, s2, "printf 'a\\033[31mred\\033[0m\\r\\n50%%\\r100%%\\n'; exit 4");
  const c = byCall(updates.get(s2))[0];
  ok(c.every((x) => !x.u._meta), "fallback: no terminal _meta", c);
  eq(c[0].u.kind, "execute", "fallback: kind execute");
  const fl = c[c.length - 1].u;
  eq(fl.status, "failed", "fallback: failed on exit 4");
  eq(text(fl.content?.[0]), "```console\nared\n100%\n```", "fallback: one console block, ANSI stripped, CR applied");
  eq(c.length, 2, "fallback: just the call and its final update");
  eq(fl.rawOutput?.exit_code, 4, "fallback: rawOutput exit_code");
}

// ---- stdin closed mid-command -> exit 0 within 3 s, no orphan
{
  const before = Date.now();
  const p = prompt(ctx, s1, "sleep 100");
  p.catch(() => {});
  let procs = [];
  for (let i = 0; i < 50 && !procs.some(alive); i++) {
    await sleep(50);
    procs = descendants(agent.pid);
  }
  ok(procs.some(alive), "eof: command running", procs);
  const t0 = Date.now();
  agent.stdin.end();
  const ex = await within(5000, agent.exited).catch((e) => ({ error: e.message }));
  eq(ex.code, 0, "eof: exit 0");
  ok(ex.t - t0 < 3000, "eof: exited within 3 s", ex.t - t0);
  await sleep(100);
  ok(procs.every((pid) => !alive(pid)), "eof: no orphan", procs.filter(alive));
  ok(before > 0, "eof: done");
}
conn.close();

// ---- raw protocol errors (not expressible through the SDK)
{
  const a2 = startAgent(["--max-line", "1024"]);
  const r = raw(a2);
  r.send("{this is not json\n");
  let m = await r.next(() => true);
  eq([m?.error?.code, m?.id], [-32700, null], "malformed JSON -32700 id null");
  r.send('[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}]\n');
  m = await r.next(() => true);
  eq([m?.error?.code, m?.id], [-32600, null], "batch array -32600");
  r.send('{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}\n');
  m = await r.next((x) => x.id === 2);
  eq(m?.result?.protocolVersion, 1, "still reading after errors");
  r.send('{"jsonrpc":"2.0","id":3,"method":"session/new","params":"oops"}\n');
  m = await r.next((x) => x.id === 3);
  eq(m?.error?.code, -32602, "non-object params -32602");
  r.send(`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"pad":"${"x".repeat(3000)}"}}\n`);
  m = await r.next(() => true);
  eq(m?.error?.code, -32600, "over-long line -32600");
  r.send('{"jsonrpc":"2.0","method":"made/up","params":{}}\n{"jsonrpc":"2.0","id":5,"method":"authenticate","params":{}}\n');
  m = await r.next(() => true);
  eq(m?.id, 5, "unknown notification ignored, resynchronised after the long line");
  r.send('{"jsonrpc":"2.0","id":6,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}\n');
  m = await r.next((x) => x.id === 6);
  const sid = m?.result?.sessionId;
  r.send(`{"jsonrpc":"2.0","id":"str-7","method":"session/prompt","params":{"sessionId":"${sid}","prompt":[{"type":"text","text":"sleep 100"}]}}\n`);
  m = await r.next((x) => x.method === "session/update");
  ok(m, "sigterm: command started");
  const procs = descendants(a2.pid);
  const t0 = Date.now();
  a2.kill("SIGTERM");
  const resp = await r.next((x) => x.id === "str-7");
  eq(resp?.result?.stopReason, "cancelled", "SIGTERM: the prompt is answered cancelled (string id echoed)");
  const ex = await within(5000, a2.exited).catch((e) => ({ error: e.message }));
  eq(ex.code, 0, "SIGTERM: exit 0");
  ok(ex.t - t0 < 3000, "SIGTERM: within 3 s", ex.t - t0);
  ok(procs.every((pid) => !alive(pid)), "SIGTERM: no orphan");
}

// ---- permissions: --approve ask
{
  const a3 = startAgent(["--approve", "ask"]);
  const asked = [];
  let answer = "reject";
  const { conn: c3, ctx: x3, updates: u3 } = connect(a3, {
    permission: (p) => {
      asked.push(p);
      return { outcome: { outcome: "selected", optionId: answer } };
    },
  });
  await x3.request("initialize", ZED_INIT);
  const s = (await x3.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
  await prompt(x3, s, `touch ${ws}/created`);
  eq(asked.length, 1, "ask: permission requested");
  eq(asked[0]?.options?.map((o) => o.kind), ["allow_once", "allow_always", "reject_once"], "ask: the three options");
  const calls = byCall(u3.get(s));
  eq(calls[0][0].u.status, "pending", "ask: tool_call pending before the request");
  const fl = calls[0][calls[0].length - 1].u;
  eq(fl.status, "failed", "reject: call failed");
  eq(text(fl.content?.[0]), "rejected by the user", "reject: says rejected by the user");
  ok(spawnSync("test", ["-e", `${ws}/created`]).status !== 0, "reject: the command did not run");
  u3.delete(s);
  answer = "allow_always";
  await prompt(x3, s, "echo yes");
  await prompt(x3, s, "echo again");
  eq(asked.length, 2, "allow_always: asked once, remembered for the session");
  const all = byCall(u3.get(s));
  eq(all.map((c) => c[c.length - 1].u.status), ["completed", "completed"], "allowed calls ran");
  ok(all[0].some((x) => x.u.status === "in_progress"), "allow: in_progress after the answer");
  c3.close();
  a3.stdin.end();
  eq((await a3.exited).code, 0, "ask agent exits 0");
}

// ---- cancel while a permission request is open: the command never runs
{
  const a4 = startAgent(["--approve", "ask"]);
  let askedAt = 0;
  const { conn: c4, ctx: x4, updates: u4 } = connect(a4, {
    permission: () => {
      askedAt = Date.now();
      return new Promise(() => {}); // the user never answers
    },
  });
  await x4.request("initialize", ZED_INIT);
  const s = (await x4.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
  const p = prompt(x4, s, `touch ${ws}/never`);
  for (let i = 0; i < 100 && !askedAt; i++) await sleep(20);
  ok(askedAt > 0, "permission cancel: asked");
  await x4.notify("session/cancel", { sessionId: s });
  const r = await within(3000, p).catch((e) => ({ error: e.message }));
  eq(r.stopReason, "cancelled", "permission cancel: prompt cancelled");
  const c = byCall(u4.get(s))[0];
  eq(c[c.length - 1].u.status, "failed", "permission cancel: call failed");
  ok(spawnSync("test", ["-e", `${ws}/never`]).status !== 0, "permission cancel: the command did not run");
  c4.close();
  a4.stdin.end();
  eq((await a4.exited).code, 0, "permission cancel: agent exits 0");
}

// ---- a client that stops reading: EPIPE on stdout tears down cleanly
{
  const a5 = startAgent();
  const r = raw(a5);
  r.send('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"_meta":{"terminal_output":true}}}}\n');
  await r.next((x) => x.id === 1);
  r.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"${ws}","mcpServers":[]}}\n`);
  const sid = (await r.next((x) => x.id === 2))?.result?.sessionId;
  r.send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"${sid}","prompt":[{"type":"text","text":"while :; do echo spam; done"}]}}\n`);
  await r.next((x) => x.method === "session/update");
  const procs = descendants(a5.pid);
  a5.stdout.destroy(); // the read end goes away: the next write fails with EPIPE
  const t0 = Date.now();
  const ex = await within(5000, a5.exited).catch((e) => ({ error: e.message }));
  eq([ex.code, ex.sig], [0, null], "EPIPE: exit 0, no crash");
  ok(ex.t - t0 < 3000, "EPIPE: within 3 s", ex.t - t0);
  await sleep(100);
  ok(procs.every((pid) => !alive(pid)), "EPIPE: no orphan", procs.filter(alive));
  ok(!/AddressSanitizer|runtime error/.test(a5.stderrText), "EPIPE: no sanitizer report", a5.stderrText.slice(0, 400));
}

finish();
