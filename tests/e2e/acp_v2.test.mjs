// End-to-end: `shcard acp` speaking ACP v2 (Preview) to the v2 client of the pinned SDK
// (@agentclientprotocol/sdk/experimental/v2) and to raw NDJSON clients, plus the v1 clients that
// declare `_meta.terminal_output_delta`.  Every frame shcard sends on a v2 connection is checked
// against the v2 JSON schema (v2lib.mjs).  Prints "N passed, N failed".
import { mkdtempSync, writeFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ok, eq, finish, startAgent, startFakeServer, connect, raw, sleep, text, within, tempDir } from "./lib.mjs";
import { connectV2, tap, checkFrame, V2_INIT, idle, b64 } from "./v2lib.mjs";

const ws = realpathSync(tempDir("shcard-v2-"));
writeFileSync(join(ws, "notes.txt"), "alpha\nbeta\n");
const recorders = []; // every v2 connection's frames, validated at the end

const kinds = (ups) => ups.map((x) => x.u.sessionUpdate);
const ofKind = (ups, k) => ups.filter((x) => x.u.sessionUpdate === k).map((x) => x.u);
const chunksOf = (ups, tid) => ofKind(ups, "terminal_output_chunk").filter((u) => u.terminalId === tid);
const decoded = (ups, tid) => Buffer.concat(chunksOf(ups, tid).map((u) => b64(u.data)));
async function rejectionOf(p) {
  try {
    await p;
    return "resolved";
  } catch (e) {
    return e.code;
  }
}

// Ends an agent by closing its stdin: it must exit 0 (under ASan, also with no leak).
async function stop(child, name) {
  child.stdin.end();
  const ex = await within(10000, child.exited).catch(() => null);
  if (!ok(ex && ex.code === 0, `${name}: exits 0 on stdin EOF`, ex)) console.log(child.stderrText.slice(-3000));
}

// The session's updates after `since`, once one matching pred has arrived (a response may
// overtake the notifications sent before it on their way through the SDK).
async function until(updates, sessionId, since, pred, ms = 5000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const ups = (updates.get(sessionId) || []).slice(since);
    if (ups.some((x) => pred(x.u)) || Date.now() > deadline) return ups;
    await sleep(20);
  }
}
const isState = (u) => u.sessionUpdate === "state_update";

// Runs one prompt on a v2 session and returns the session's updates of that turn (to idle).
async function turn(ctx, updates, sessionId, line) {
  const since = (updates.get(sessionId) || []).length;
  const r = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: line }] });
  const ups = await idle(updates, sessionId, since);
  return { r, ups };
}

// ---------------------------------------------------------------- the validator can fail
{
  const sent = new Map([[1, "session/prompt"]]);
  const bad = [
    { jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "tool_call", toolCallId: "c" } } },
    { jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "terminal_update", terminalId: "t", size: { cols: 0, rows: 1 } } } },
    { jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } } } },
    { jsonrpc: "2.0", id: 1, result: { stopReason: "end_turn" } },
    { jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "terminal_output_chunk", terminalId: "t", data: "x", terminal_id: "t" } } },
  ];
  bad.forEach((f, i) => ok(checkFrame(f, sent).length > 0, `validator rejects bad frame ${i}`, f));
  ok(checkFrame({ jsonrpc: "2.0", id: 1, result: { messageId: "m" } }, sent).length === 0, "validator accepts a prompt answer");
}

// ---------------------------------------------------------------- negotiation
{
  const a = startAgent();
  const t = tap(a);
  const r = raw(a);
  const init = async (id, pv, extra = {}) => {
    const params = { ...extra };
    if (pv !== undefined) params.protocolVersion = pv;
    r.send(JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params }) + "\n");
    return r.next((m) => m.id === id);
  };
  let m = await init(1, 1, { clientCapabilities: {} });
  eq(m.result?.protocolVersion, 1, "negotiate: 1 -> 1");
  ok(m.result?.agentCapabilities && m.result?.agentInfo && !m.result?.info, "negotiate: v1 answer shape", m.result);
  m = await init(2, 2, { info: { name: "x", version: "1" } });
  eq(m.result?.protocolVersion, 2, "negotiate: 2 -> 2");
  eq([m.result?.info?.name, m.result?.capabilities?.session, m.result?.authMethods], ["shcard", { delete: {} }, []], "negotiate: v2 info and capabilities.session (baseline + delete)");
  ok(!m.result?.agentCapabilities && !m.result?.agentInfo, "negotiate: no v1 fields in the v2 answer", m.result);
  eq((await init(3, 3)).result?.protocolVersion, 2, "negotiate: 3 -> 2");
  eq((await init(4, 65535)).result?.protocolVersion, 2, "negotiate: 65535 -> 2");
  eq((await init(5, 65536)).error?.code, -32602, "negotiate: past the schema's uint16 -> -32602");
  m = await init(6, 0);
  eq([m.error?.code, m.error?.data?.supported], [-32022, [1, 2]], "negotiate: 0 -> -32022 with the supported versions");
  eq((await init(7, -7)).error?.code, -32602, "negotiate: negative -> -32602");
  eq((await init(8, "2")).error?.code, -32602, "negotiate: a string version -> -32602");
  eq((await init(9, 2.5)).error?.code, -32602, "negotiate: a fraction -> -32602");
  eq((await init(10, null)).error?.code, -32602, "negotiate: null -> -32602");
  eq((await init(11, undefined)).error?.code, -32602, "negotiate: no version -> -32602");
  // switching is free until a session exists; then the version is pinned
  eq((await init(12, 2)).result?.protocolVersion, 2, "re-initialize: back to 2");
  r.send('{"jsonrpc":"2.0","id":13,"method":"session/new","params":{"cwd":"/"}}\n');
  ok((await r.next((x) => x.id === 13))?.result?.sessionId, "re-initialize: a v2 session");
  m = await init(14, 1);
  eq(m.error?.code, -32600, "re-initialize: v2 with sessions refuses v1");
  eq((await init(15, 9)).result?.protocolVersion, 2, "re-initialize: 9 -> 2 (pinned)");
  r.send('{"jsonrpc":"2.0","id":16,"method":"authenticate","params":{}}\n');
  eq((await r.next((x) => x.id === 16))?.error?.code, -32601, "v1 method authenticate on v2: -32601");
  for (const [i, meth] of [[17, "session/load"], [18, "session/set_mode"], [19, "fs/read_text_file"], [20, "terminal/create"]]) {
    r.send(JSON.stringify({ jsonrpc: "2.0", id: i, method: meth, params: { sessionId: "x" } }) + "\n");
    eq((await r.next((x) => x.id === i))?.error?.code, -32601, `v1 method ${meth} on v2: -32601`);
  }
  await stop(a, "a");
  // frames after the switch to v2 (from id 12 on) are v2 frames
  const first = t.frames.findIndex((f) => f.id === 12);
  const v2frames = { validate: () => t.frames.slice(first).flatMap((f, i) => checkFrame(f, t.sent).map((e) => `frame ${i}: ${e}`)) };
  recorders.push(["negotiation", v2frames]);

  // a v1 connection with sessions keeps v1 when asked for more (the Zed suite's re-initialize)
  const b = startAgent();
  const rb = raw(b);
  rb.send('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/"}}\n');
  await rb.next((x) => x.id === 2);
  rb.send('{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":2}}\n{"jsonrpc":"2.0","id":4,"method":"terminal/cancel","params":{"sessionId":"x","terminalId":"y"}}\n');
  eq((await rb.next((x) => x.id === 3))?.result?.protocolVersion, 1, "re-initialize: v1 with sessions stays v1");
  eq((await rb.next((x) => x.id === 4))?.error?.code, -32601, "v2 method terminal/cancel on v1: -32601");
  // session/list and close are v1 methods too since the session store (issue 12): v1's answers
  rb.send('{"jsonrpc":"2.0","id":5,"method":"session/list","params":{}}\n{"jsonrpc":"2.0","id":6,"method":"session/close","params":{"sessionId":"x"}}\n');
  ok(Array.isArray((await rb.next((x) => x.id === 5))?.result?.sessions), "session/list on v1: v1's listing");
  eq((await rb.next((x) => x.id === 6))?.error?.code, -32602, "session/close of an unknown session on v1: v1's -32602");
  await stop(b, "b");
}

// ---------------------------------------------------------------- the v2 SDK client, shell mode
const agent = startAgent(["--log-level", "info"]);
const { ctx, updates, recorder } = connectV2(agent);
recorders.push(["sdk", recorder]);
eq((await ctx.request("initialize", V2_INIT)).protocolVersion, 2, "sdk: initialize 2");
const s1 = (await ctx.request("session/new", { cwd: ws })).sessionId;
ok(typeof s1 === "string", "sdk: session/new");

// ---- a classified card
{
  const { r, ups } = await turn(ctx, updates, s1, "cat notes.txt");
  ok(typeof r.messageId === "string" && r.messageId.length > 0, "prompt: answered with a messageId", r);
  const um = ofKind(ups, "user_message")[0];
  eq([um?.messageId, um?.content], [r.messageId, [{ type: "text", text: "cat notes.txt" }]], "prompt: user_message echoes it with the same id");
  const states = ofKind(ups, "state_update").map((u) => u.state + (u.stopReason ? ":" + u.stopReason : ""));
  eq(states, ["running", "idle:end_turn"], "prompt: running, then idle end_turn");
  const calls = ofKind(ups, "tool_call_update");
  eq([calls[0]?.kind, calls[0]?.locations], ["read", [{ path: join(ws, "notes.txt") }]], "classified: read card", calls[0]);
  ok(/notes\.txt/.test(calls[0]?.title), "classified: the title names the file", calls[0]?.title);
  ok(calls.at(-1)?.status === "completed" && /```text\nalpha\nbeta\n```/.test(text(calls.at(-1)?.content?.[0])), "classified: fenced output", calls.at(-1));
  eq(ofKind(ups, "terminal_update").length + ofKind(ups, "terminal_output_chunk").length, 0, "classified: no terminal");
  ok(!calls.some((u) => u._meta), "classified: no _meta", calls);
  const msg = ofKind(ups, "agent_message_chunk");
  ok(msg.length === 1 && msg[0].messageId && msg[0].messageId !== r.messageId, "agent message chunk carries its own messageId", msg);
}

// ---- a terminal: live bytes, UTF-8 split across reads, exit status
{
  const cmd = "printf 'caf\\303'; sleep 0.3; printf '\\251 \\033[1mbold\\033[0m\\n'";
  const { ups } = await turn(ctx, updates, s1, cmd);
  const call = ofKind(ups, "tool_call_update")[0];
  const anchor = call?.content?.find((c) => c.type === "terminal");
  const tid = anchor?.terminalId;
  ok(tid && call.kind === "execute" && call.status === "in_progress", "terminal: the card anchors a terminal", call);
  const tus = ofKind(ups, "terminal_update").filter((u) => u.terminalId === tid);
  eq([tus[0]?.command, tus[0]?.cwd, tus[0]?.size, tus[0]?.capabilities], [cmd, ws, { cols: 120, rows: 40 }, { cancel: {} }], "terminal: terminal_update with command, cwd, size, cancel");
  const ch = chunksOf(ups, tid);
  ok(ch.length >= 2, "terminal: output in several chunks", ch.length);
  ok(ch.every((u) => b64(u.data).toString("base64") === u.data), "terminal: each chunk is canonical base64 on its own");
  eq(decoded(ups, tid).toString("hex"), Buffer.from("caf\u00e9 \u001b[1mbold\u001b[0m\r\n").toString("hex"), "terminal: decoded chunks equal the PTY output byte for byte");
  eq([tus.at(-1)?.exitStatus, tus.at(-1)?.capabilities], [{ exitCode: 0 }, null], "terminal: exitStatus 0, cancel withdrawn");
  eq(ofKind(ups, "tool_call_update").at(-1)?.status, "completed", "terminal: completed");
  ok(kinds(ups).indexOf("terminal_output_chunk") > kinds(ups).indexOf("terminal_update"), "terminal: created before its bytes");

  const e3 = await turn(ctx, updates, s1, "echo x; exit 3");
  const tid3 = ofKind(e3.ups, "tool_call_update")[0]?.content?.find((c) => c.type === "terminal")?.terminalId;
  ok(tid3 && tid3 !== tid, "terminal ids are fresh per command", [tid, tid3]);
  eq(ofKind(e3.ups, "terminal_update").at(-1)?.exitStatus, { exitCode: 3 }, "exit 3: exitCode 3");
  eq(ofKind(e3.ups, "tool_call_update").at(-1)?.status, "failed", "exit 3: failed");
  const k = await turn(ctx, updates, s1, "kill -KILL $$");
  eq(ofKind(k.ups, "terminal_update").at(-1)?.exitStatus, { signal: "SIGKILL" }, "signal: exitStatus names SIGKILL");

  const bad = await turn(ctx, updates, s1, "printf '\\377ok\\n'");
  const tb = ofKind(bad.ups, "terminal_update")[0]?.terminalId;
  eq(decoded(bad.ups, tb).toString(), "\ufffdok\r\n", "terminal: an invalid byte is U+FFFD, as in v1's display stream");
}

// ---- terminal/cancel
{
  const since = (updates.get(s1) || []).length;
  const p = ctx.request("session/prompt", { sessionId: s1, prompt: [{ type: "text", text: "echo go; sleep 30" }] });
  await p;
  let tid;
  for (let i = 0; i < 100 && !tid; i++) {
    await sleep(30);
    tid = ofKind((updates.get(s1) || []).slice(since), "terminal_update")[0]?.terminalId;
  }
  ok(tid, "terminal/cancel: a running terminal");
  const t0 = Date.now();
  eq(await ctx.request("terminal/cancel", { sessionId: s1, terminalId: tid }), {}, "terminal/cancel: accepted with {}");
  const ups = await idle(updates, s1, since, 10000);
  const ex = ofKind(ups, "terminal_update").filter((u) => u.terminalId === tid && u.exitStatus).at(0);
  eq(ex?.exitStatus, { signal: "SIGTERM" }, "terminal/cancel: confirmed by exitStatus SIGTERM");
  ok(Date.now() - t0 < 3000, "terminal/cancel: within 3 s", Date.now() - t0);
  eq(ofKind(ups, "tool_call_update").at(-1)?.status, "cancelled", "terminal/cancel: the tool call ends cancelled");
  eq(await rejectionOf(ctx.request("terminal/cancel", { sessionId: s1, terminalId: tid })), -32602, "terminal/cancel: an exited terminal -> -32602");
  eq(await rejectionOf(ctx.request("terminal/cancel", { sessionId: s1, terminalId: "term_999" })), -32602, "terminal/cancel: an unknown terminal -> -32602");
  eq(await rejectionOf(ctx.request("terminal/cancel", { sessionId: "nope", terminalId: tid })), -32602, "terminal/cancel: an unknown session -> -32602");
}

// ---- terminal/cancel on another session's terminal; session/cancel with a held prompt
{
  const s2 = (await ctx.request("session/new", { cwd: ws })).sessionId;
  const since = (updates.get(s1) || []).length;
  await ctx.request("session/prompt", { sessionId: s1, prompt: [{ type: "text", text: "sleep 30" }] });
  let tid;
  for (let i = 0; i < 100 && !tid; i++) {
    await sleep(30);
    tid = ofKind((updates.get(s1) || []).slice(since), "terminal_update")[0]?.terminalId;
  }
  eq(await rejectionOf(ctx.request("terminal/cancel", { sessionId: s2, terminalId: tid })), -32602, "terminal/cancel: another session's terminal -> -32602");
  await sleep(200);
  ok(!ofKind((updates.get(s1) || []).slice(since), "terminal_update").some((u) => u.exitStatus), "terminal/cancel: the other session's command still runs");
  // a prompt sent while the session works is held, then answered -32800 by session/cancel
  const held = ctx.request("session/prompt", { sessionId: s1, prompt: [{ type: "text", text: "echo never" }] });
  let settled = false;
  held.then(() => (settled = true), () => (settled = true));
  await sleep(300);
  ok(!settled, "held: a prompt during work is not answered yet");
  await ctx.notify("session/cancel", { sessionId: s1 });
  eq(await rejectionOf(held), -32800, "held: session/cancel answers it -32800");
  const ups = await idle(updates, s1, since, 10000);
  eq(ofKind(ups, "state_update").at(-1)?.stopReason, "cancelled", "session/cancel: idle with stopReason cancelled");
  eq(ofKind(ups, "tool_call_update").at(-1)?.status, "cancelled", "session/cancel: the running tool call ends cancelled");
  ok(ofKind(ups, "terminal_update").some((u) => u.terminalId === tid && u.exitStatus), "session/cancel: the terminal reports its exit before idle");
  ok(!ofKind(ups, "user_message").some((u) => u.content?.[0]?.text === "echo never"), "held: the cancelled prompt was never inserted");
  // a prompt held behind a running one is inserted when it ends, in order
  const since2 = (updates.get(s1) || []).length;
  const pa = ctx.request("session/prompt", { sessionId: s1, prompt: [{ type: "text", text: "sleep 0.5; echo A" }] });
  const pb = ctx.request("session/prompt", { sessionId: s1, prompt: [{ type: "text", text: "echo B" }] });
  const [ra, rb] = await within(10000, Promise.all([pa, pb]));
  ok(ra.messageId && rb.messageId && ra.messageId !== rb.messageId, "held: both inserted with their own ids");
  const aDone = await idle(updates, s1, since2);
  const bDone = await idle(updates, s1, since2 + aDone.length);
  ok(ofKind(aDone, "user_message")[0]?.messageId === ra.messageId, "held: A inserted first");
  ok(ofKind(bDone, "user_message")[0]?.messageId === rb.messageId && decoded(bDone, ofKind(bDone, "terminal_update")[0]?.terminalId).toString() === "B\r\n", "held: B inserted after A's idle, and ran");
}

// ---- session/list, resume (with and without replay), close, delete
{
  const listed = await ctx.request("session/list", {});
  ok(listed.sessions.some((x) => x.sessionId === s1 && x.cwd === ws), "list: the session with its cwd", listed);
  eq((await ctx.request("session/list", { cwd: "/nowhere" })).sessions, [], "list: filtered by cwd");
  eq(await rejectionOf(ctx.request("session/list", { cursor: "c1" })), -32602, "list: an unknown cursor -> -32602");
  // a fresh session with two turns, then a resume that replays it
  const s3 = (await ctx.request("session/new", { cwd: ws })).sessionId;
  const t1 = await turn(ctx, updates, s3, "printf 'caf\\303'; sleep 0.2; printf '\\251\\n'; exit 4");
  const t2 = await turn(ctx, updates, s3, "cat notes.txt");
  const liveTid = ofKind(t1.ups, "terminal_update")[0]?.terminalId;
  const since = (updates.get(s3) || []).length;
  const answer = await ctx.request("session/resume", { sessionId: s3, cwd: ws });
  eq(answer.configOptions?.map((o) => o.configId), ["mode", "sandbox", "network"], "resume: answered with the config options (no modes in v2)");
  const plain = await until(updates, s3, since, isState);
  eq(kinds(plain), ["state_update"], "resume without replay: only the current state");
  eq(plain[0]?.u.state, "idle", "resume: the state is idle");
  const since2 = (updates.get(s3) || []).length;
  ok(!("modes" in (await ctx.request("session/resume", { sessionId: s3, cwd: ws, replayFrom: { type: "start" } }))), "resume with replay: answered, without modes");
  const rep = (await until(updates, s3, since2, isState)).map((x) => x.u);
  // replayed from the store: each prompt as user_message_chunk blocks, with the id it had live
  eq([...new Set(rep.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.messageId))], [t1.r.messageId, t2.r.messageId], "replay: the user messages keep their ids");
  eq(rep.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content?.text), ["printf 'caf\\303'; sleep 0.2; printf '\\251\\n'; exit 4", "cat notes.txt"], "replay: the user messages' text");
  const tus = rep.filter((u) => u.sessionUpdate === "terminal_update");
  eq(tus.length, 1, "replay: one terminal_update for the terminal");
  eq([tus[0]?.terminalId, tus[0]?.command, tus[0]?.exitStatus], [liveTid, "printf 'caf\\303'; sleep 0.2; printf '\\251\\n'; exit 4", { exitCode: 4 }], "replay: the terminal's id, command and exit");
  eq(b64(tus[0]?.output?.data || "").toString(), "café\r\n", "replay: the stored output snapshot");
  eq(rep.filter((u) => u.sessionUpdate === "terminal_output_chunk").length, 0, "replay: no chunks");
  const liveMsgs = ofKind(t1.ups, "agent_message_chunk").concat(ofKind(t2.ups, "agent_message_chunk")).map((u) => u.messageId);
  eq(rep.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.messageId), liveMsgs, "replay: agent messages keep their ids");
  ok(rep.some((u) => u.sessionUpdate === "tool_call_update" && u.kind === "read"), "replay: the classified card");
  eq(rep.at(-1)?.sessionUpdate + ":" + rep.at(-1)?.state, "state_update:idle", "replay: ends with the current state");
  eq(await rejectionOf(ctx.request("session/resume", { sessionId: s3, cwd: ws, replayFrom: { type: "message", messageId: "x" } })), -32602, "resume: an unsupported cursor -> -32602");
  eq(await rejectionOf(ctx.request("session/resume", { sessionId: s3, cwd: join(ws, "notes.txt") })), -32602, "resume: a cwd that is not a directory -> -32602");
  eq(await rejectionOf(ctx.request("session/resume", { sessionId: "sess_none", cwd: ws })), -32002, "resume: an unknown session -> -32002");
  // close while a command runs: its final updates and idle come before the answer
  const s4 = (await ctx.request("session/new", { cwd: ws })).sessionId;
  const since4 = (updates.get(s4) || []).length;
  await ctx.request("session/prompt", { sessionId: s4, prompt: [{ type: "text", text: "sleep 30" }] });
  for (let i = 0; i < 100 && !ofKind((updates.get(s4) || []).slice(since4), "terminal_update").length; i++) await sleep(30);
  const heldOnClose = rejectionOf(ctx.request("session/prompt", { sessionId: s4, prompt: [{ type: "text", text: "echo never" }] }));
  const more = Array.from({ length: 7 }, (_, i) => rejectionOf(ctx.request("session/prompt", { sessionId: s4, prompt: [{ type: "text", text: `echo held${i}` }] })));
  eq(await rejectionOf(ctx.request("session/prompt", { sessionId: s4, prompt: [{ type: "text", text: "echo ninth" }] })), -32602, "held: a ninth held prompt is refused");
  const t0 = Date.now();
  eq(await ctx.request("session/close", { sessionId: s4 }), {}, "close: answered {}");
  eq(await Promise.all(more), Array(7).fill(-32800), "close: every held prompt is answered -32800");
  ok(Date.now() - t0 < 3000, "close: within 3 s", Date.now() - t0);
  eq(await heldOnClose, -32800, "close: a held prompt is answered -32800");
  const c4 = (await until(updates, s4, since4, (u) => isState(u) && u.state === "idle")).map((x) => x.u);
  eq(c4.at(-1)?.sessionUpdate + ":" + c4.at(-1)?.stopReason, "state_update:cancelled", "close: idle cancelled was the last update");
  ok(c4.some((u) => u.sessionUpdate === "terminal_update" && u.exitStatus), "close: the command's exit was reported");
  await sleep(200);
  eq((updates.get(s4) || []).length, since4 + c4.length, "close: nothing for the session after the answer");
  eq(await rejectionOf(ctx.request("session/prompt", { sessionId: s4, prompt: [{ type: "text", text: "echo x" }] })), -32602, "close: the session is gone");
  eq(await ctx.request("session/close", { sessionId: s4 }), {}, "close: closing again succeeds");
  ok((await ctx.request("session/list", {})).sessions.some((x) => x.sessionId === s4), "close: still listed (the store keeps it; v1's close)");
  eq(await ctx.request("session/delete", { sessionId: s3 }), {}, "delete: answered {}");
  ok(!(await ctx.request("session/list", {})).sessions.some((x) => x.sessionId === s3), "delete: not listed any more");
  eq(await rejectionOf(ctx.request("session/resume", { sessionId: s3, cwd: ws })), -32002, "delete: cannot be resumed");
}

// ---- the frames of this connection
await stop(agent, "agent");

// ---------------------------------------------------------------- permission (--approve ask)
{
  const a = startAgent(["--approve", "ask"]);
  let answer = "allow";
  const c = connectV2(a, {
    permission: (params, pctx) => {
      if (answer !== "wait") return { outcome: { outcome: "selected", optionId: answer } };
      // wait for the agent to withdraw the request ($/cancel_request aborts the handler)
      return new Promise((resolve) => {
        const done = () => resolve({ outcome: { outcome: "cancelled" } });
        pctx.signal.addEventListener("abort", done);
        setTimeout(done, 8000);
      });
    },
  });
  recorders.push(["permission", c.recorder]);
  await c.ctx.request("initialize", V2_INIT);
  const s = (await c.ctx.request("session/new", { cwd: ws })).sessionId;
  const { ups } = await turn(c.ctx, c.updates, s, "echo allowed");
  const p = c.permissions[0];
  eq(p?.subject, { type: "command", command: "echo allowed", cwd: ws, toolCallId: "call_1", terminalId: "term_1" }, "permission: the command subject");
  ok(typeof p?.title === "string" && p.options?.length === 3, "permission: a title and three options", p);
  const states = ofKind(ups, "state_update").map((u) => u.state);
  eq(states, ["running", "requires_action", "running", "idle"], "permission: requires_action while asked, running after");
  const calls = ofKind(ups, "tool_call_update");
  eq([calls[0]?.status, calls[0]?.content], ["pending", undefined], "permission: pending card, no terminal yet");
  eq(calls[1]?.status, "in_progress", "permission: in progress once allowed");
  eq(calls[1]?.content, [{ type: "terminal", terminalId: "term_1" }], "permission: the terminal appears when it runs");
  eq(decoded(ups, "term_1").toString(), "allowed\r\n", "permission: its output");
  answer = "reject";
  const rj = await turn(c.ctx, c.updates, s, "echo denied");
  const rc = ofKind(rj.ups, "tool_call_update");
  eq(rc.at(-1)?.status, "failed", "reject: the call failed");
  eq(text(rc.at(-1)?.content?.[0]), "rejected by the user", "reject: says why");
  eq(ofKind(rj.ups, "terminal_update").length, 0, "reject: no terminal was created");
  // cancel while asked: the request is withdrawn, the call is cancelled, no running in between
  answer = "wait";
  const since = (c.updates.get(s) || []).length;
  await c.ctx.request("session/prompt", { sessionId: s, prompt: [{ type: "text", text: "echo cancelled" }] });
  for (let i = 0; i < 100 && c.permissions.length < 3; i++) await sleep(20);
  await c.ctx.notify("session/cancel", { sessionId: s });
  const cu = await idle(c.updates, s, since);
  eq(ofKind(cu, "state_update").map((u) => u.state + (u.stopReason ? ":" + u.stopReason : "")), ["running", "requires_action", "idle:cancelled"], "cancel while asked: no running before idle");
  eq(ofKind(cu, "tool_call_update").at(-1)?.status, "cancelled", "cancel while asked: the call is cancelled");
  await stop(a, "a");
}

// ---------------------------------------------------------------- chunking and big output
{
  const a = startAgent(["--chunk-bytes", "7"]);
  const c = connectV2(a);
  recorders.push(["chunks", c.recorder]);
  await c.ctx.request("initialize", V2_INIT);
  const s = (await c.ctx.request("session/new", { cwd: ws })).sessionId;
  const { ups } = await turn(c.ctx, c.updates, s, "printf '\\303'; sleep 0.2; printf '\\251%.0s' 1; printf '\\342\\202\\254%.0s' $(seq 30); echo");
  const tid = ofKind(ups, "terminal_update")[0]?.terminalId;
  const ch = chunksOf(ups, tid);
  ok(ch.length >= 10, "small chunks: many chunks", ch.length);
  ok(ch.every((u) => Buffer.from(b64(u.data).toString("utf8")).equals(b64(u.data))), "small chunks: each decodes alone to whole UTF-8", ch.map((u) => b64(u.data).toString("hex")));
  eq(decoded(ups, tid).toString(), "é" + "€".repeat(30) + "\r\n", "small chunks: the bytes, a character split across reads included");
  await stop(a, "a");
  const a2 = startAgent();
  const c2 = connectV2(a2);
  recorders.push(["big", c2.recorder]);
  await c2.ctx.request("initialize", V2_INIT);
  const s2 = (await c2.ctx.request("session/new", { cwd: ws })).sessionId;
  const big = await turn(c2.ctx, c2.updates, s2, "seq 1 100000");
  const tb = ofKind(big.ups, "terminal_update")[0]?.terminalId;
  const want = Array.from({ length: 100000 }, (_, i) => `${i + 1}\r\n`).join("");
  ok(decoded(big.ups, tb).toString() === want, "big output: 100000 lines byte for byte", decoded(big.ups, tb).length);
  ok(chunksOf(big.ups, tb).length < 200, "big output: coalesced into few chunks", chunksOf(big.ups, tb).length);
  await stop(a2, "a2");
}

// ---------------------------------------------------------------- the model backend on v2
// The fake OpenAI-compatible server (tests/fake_openai.py) playing a script, and an agent on it.
async function modelAgent(script) {
  const srv = await startFakeServer(script);
  const dir = srv.dir;
  const a = startAgent(["--base-url", srv.url], { env: { DEEPSEEK_API_KEY: "sk-v2", OPENAI_API_KEY: "", HOME: dir, XDG_CONFIG_HOME: dir, SHCARD_CONFIG: "", NO_PROXY: "127.0.0.1", no_proxy: "127.0.0.1" } });
  return { a, server: srv };
}
{
  const { a, server } = await modelAgent("error_401.json");
  const c = connectV2(a);
  recorders.push(["model error", c.recorder]);
  await c.ctx.request("initialize", V2_INIT);
  const s = (await c.ctx.request("session/new", { cwd: ws })).sessionId;
  const { r, ups } = await turn(c.ctx, c.updates, s, "hello");
  ok(r.messageId, "model error: the prompt was inserted (answered with its messageId)");
  const last = ofKind(ups, "state_update").at(-1);
  eq([last?.state, last?.stopReason, typeof last?.error?.message, last?.error?.code], ["idle", "error", "string", -32603], "model error: idle with stopReason error and the error");
  await stop(a, "model error agent");
  await server.stop();
}
{
  const { a, server } = await modelAgent("reasoning_tool.json");
  const c = connectV2(a);
  recorders.push(["model", c.recorder]);
  await c.ctx.request("initialize", V2_INIT);
  const s = (await c.ctx.request("session/new", { cwd: ws })).sessionId;
  const { r, ups } = await turn(c.ctx, c.updates, s, "list things");
  ok(r.messageId, "model: the prompt is answered with a messageId");
  eq(c.permissions[0]?.subject?.command, "echo listed", "model: the permission names the command");
  const thoughts = ofKind(ups, "agent_thought_chunk");
  const msgs = ofKind(ups, "agent_message_chunk");
  ok(thoughts.length === 2 && thoughts[0].messageId !== thoughts[1].messageId, "model: thoughts before and after the tool call are two messages", thoughts);
  eq(msgs.map((u) => u.content.text).join(""), "Listed.", "model: the answer");
  ok(msgs.every((u) => u.messageId && u.messageId !== thoughts[1].messageId && u.messageId !== r.messageId), "model: the answer has its own messageId", msgs);
  eq(ofKind(ups, "state_update").map((u) => u.state), ["running", "requires_action", "running", "idle"], "model: states");
  const tid = ofKind(ups, "terminal_update")[0]?.terminalId;
  eq(decoded(ups, tid).toString(), "listed\r\n", "model: the command's terminal");
  await stop(a, "a");
  await server.stop();
}

// ---------------------------------------------------------------- v1 clients with terminal_output_delta
async function v1Terminal(meta) {
  const a = startAgent();
  const { ctx: v1, updates: u1 } = connect(a);
  await v1.request("initialize", { protocolVersion: 1, clientCapabilities: { terminal: false, _meta: meta } });
  const s = (await v1.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
  await v1.request("session/prompt", { sessionId: s, prompt: [{ type: "text", text: "echo one; sleep 0.2; echo two" }] });
  await stop(a, "a");
  return (u1.get(s) || []).map((x) => x.u);
}
{
  const ups = await v1Terminal({ terminal_output_delta: true });
  const first = ups.find((u) => u.sessionUpdate === "tool_call");
  eq(first?._meta?.terminal_info, { terminal_id: first?.toolCallId, cwd: ws }, "v1 delta: terminal_info");
  eq(first?.content, [{ type: "terminal", terminalId: first?.toolCallId }], "v1 delta: terminal content");
  const outs = ups.filter((u) => u._meta?.terminal_output_delta);
  ok(outs.length >= 2 && outs.every((u) => u._meta.terminal_output_delta.terminal_id === first.toolCallId), "v1 delta: appends under terminal_output_delta", outs);
  eq(outs.map((u) => u._meta.terminal_output_delta.data).join(""), "one\r\ntwo\r\n", "v1 delta: the appends make the output");
  ok(!ups.some((u) => u._meta?.terminal_output), "v1 delta: no terminal_output key");
  eq(ups.at(-1)?._meta?.terminal_exit ?? ups.find((u) => u._meta?.terminal_exit)?._meta?.terminal_exit, { terminal_id: first.toolCallId, exit_code: 0, signal: null }, "v1 delta: terminal_exit");
  ok(!ups.some((u) => ["terminal_update", "terminal_output_chunk", "state_update"].includes(u.sessionUpdate)), "v1 delta: no v2 frames");

  const both = await v1Terminal({ terminal_output: true, terminal_output_delta: true });
  ok(both.some((u) => u._meta?.terminal_output) && !both.some((u) => u._meta?.terminal_output_delta), "v1 both flags: terminal_output (Zed's behaviour)");
  const none = await v1Terminal({});
  ok(!none.some((u) => u._meta), "v1 no flag: console card, no _meta");
}

// ---------------------------------------------------------------- every v2 frame validates
for (const [name, rec] of recorders) {
  const errs = rec.validate();
  ok(errs.length === 0, `schema: every frame of the ${name} connection is valid v2`, errs.slice(0, 5));
  if (rec.frames) ok(rec.frames.length > 0, `schema: the ${name} connection sent frames`, rec.frames.length);
}
finish();
