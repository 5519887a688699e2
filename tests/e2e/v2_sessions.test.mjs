// End-to-end: ACP v2 sessions on the durable store, across a real restart of the agent process
// (private XDG_STATE_HOME).  A v2 SDK client creates a session, runs a terminal command and a read
// command, the agent exits; a new agent lists the session, resumes it with
// replayFrom {type: start} (each terminal as one terminal_update with the stored output
// snapshot, the message ids it had live), then prompts again; close keeps it listed, delete
// removes it.  A v1 Zed client loads the session a v2 client made.  Every frame the agents send
// on a v2 connection is checked against the SDK's v2 schema.  Prints "N passed, N failed".
import { existsSync, mkdtempSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ZED_INIT, ok, eq, finish, startAgent, connect, within, sleep, text, tempDir } from "./lib.mjs";
import { connectV2, V2_INIT, idle, b64 } from "./v2lib.mjs";

const ws = realpathSync(tempDir("shcard-v2s-"));
writeFileSync(join(ws, "notes.txt"), "alpha\nbeta\n");
const state = realpathSync(tempDir("shcard-v2state-"));
const store = join(state, "shcard", "sessions");
const env = { XDG_STATE_HOME: state };

const ofKind = (ups, k) => ups.filter((x) => x.u.sessionUpdate === k).map((x) => x.u);
async function codeOf(p) {
  try {
    await p;
    return "resolved";
  } catch (e) {
    return e.code;
  }
}

function agentV2() {
  const child = startAgent(["--log-level", "info"], { env });
  return { child, ...connectV2(child) };
}
async function stop(a, name) {
  a.child.stdin.end();
  const ex = await within(10000, a.child.exited).catch((e) => ({ error: e.message }));
  ok(ex.code === 0 && !/AddressSanitizer|LeakSanitizer|runtime error/.test(a.child.stderrText), `${name}: exits 0 on stdin EOF, no sanitizer report`, [ex, a.child.stderrText.slice(-1500)]);
}
function schemaOk(a, name) {
  const errs = a.recorder.validate();
  ok(errs.length === 0, `${name}: every frame is valid v2 (${a.recorder.frames.length} frames)`, errs.slice(0, 5));
}
async function turn(a, sessionId, line) {
  const since = (a.updates.get(sessionId) || []).length;
  const r = await a.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: line }] });
  return { r, ups: await idle(a.updates, sessionId, since) };
}

// ---------------------------------------------------------------- agent 1: create, run, exit
const CMD = "printf 'caf\\303'; sleep 0.2; printf '\\251 \\033[1mbold\\033[0m\\n'; exit 3";
const a1 = agentV2();
eq((await a1.ctx.request("initialize", V2_INIT)).protocolVersion, 2, "agent 1: initialize 2");
const created = await a1.ctx.request("session/new", { cwd: ws });
const sid = created.sessionId;
ok(/^sess_[0-9a-f]{32}$/.test(sid), "new: a store id", sid);
eq([created.modes, created.configOptions?.map((o) => o.configId)], [undefined, ["mode", "sandbox", "network"]], "new: config options (configId), no modes");
const t1 = await turn(a1, sid, CMD);
const liveCall = ofKind(t1.ups, "tool_call_update")[0];
const liveTid = liveCall?.content?.find((c) => c.type === "terminal")?.terminalId;
const liveBytes = Buffer.concat(ofKind(t1.ups, "terminal_output_chunk").filter((u) => u.terminalId === liveTid).map((u) => b64(u.data)));
eq(liveBytes.toString(), "caf\u00e9 \u001b[1mbold\u001b[0m\r\n", "live: the terminal's bytes");
eq(ofKind(t1.ups, "terminal_update").at(-1)?.exitStatus, { exitCode: 3 }, "live: exit 3");
const t2 = await turn(a1, sid, "cat notes.txt");
const liveRead = ofKind(t2.ups, "tool_call_update");
eq(liveRead[0]?.kind, "read", "live: the read card");
const liveAgentIds = ofKind(t1.ups, "agent_message_chunk").concat(ofKind(t2.ups, "agent_message_chunk")).map((u) => u.messageId);
ok(existsSync(join(store, sid + ".jsonl")), "the session is in the store");
schemaOk(a1, "agent 1");
await stop(a1, "agent 1");

// ---------------------------------------------------------------- agent 2: list, resume with replay
const a2 = agentV2();
const init2 = await a2.ctx.request("initialize", V2_INIT);
eq(init2.capabilities?.session, { delete: {} }, "agent 2: capabilities.session (baseline + delete)");
const listed = await a2.ctx.request("session/list", {});
const entry = listed.sessions.find((x) => x.sessionId === sid);
ok(entry && entry.cwd === ws && typeof entry.updatedAt === "string", "list after the restart: the session, its cwd and updatedAt", listed);
eq(entry?.title, CMD, "list: the title from the first prompt");
eq((await a2.ctx.request("session/list", { cwd: "/nowhere" })).sessions, [], "list: filtered by cwd");
ok(listed.sessions.length === 1, "list: only the sessions of this store", listed.sessions.length);

const resumed = await a2.ctx.request("session/resume", { sessionId: sid, cwd: ws, replayFrom: { type: "start" } });
eq(resumed.configOptions?.map((o) => o.configId), ["mode", "sandbox", "network"], "resume: answered with the config options");
// the replay is over before the answer: look at the order of the frames on the wire
{
  const frames = a2.recorder.frames;
  const rid = [...a2.recorder.sent].find(([, m]) => m === "session/resume")?.[0];
  const answerAt = frames.findIndex((f) => f.id === rid && "result" in f);
  const updatesBefore = frames.slice(0, answerAt).filter((f) => f.method === "session/update" && f.params.sessionId === sid).map((f) => f.params.update);
  const updatesAfter = frames.slice(answerAt + 1).filter((f) => f.method === "session/update" && f.params.sessionId === sid);
  ok(answerAt > 0 && updatesAfter.length === 0, "resume: every replayed update comes before the answer", { answerAt, after: updatesAfter.length });
  const rep = updatesBefore;
  // the SDK may hand notifications over after the answer it resolved: wait for all of them
  for (let i = 0; i < 250 && (a2.updates.get(sid) || []).length < rep.length; i++) await sleep(20);
  eq((a2.updates.get(sid) || []).length, rep.length, "replay: the client got every replayed update");
  eq(rep.at(-1)?.sessionUpdate + ":" + rep.at(-1)?.state, "state_update:idle", "replay: ends with the current state (idle)");
  eq([...new Set(rep.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.messageId))], [t1.r.messageId, t2.r.messageId], "replay: the prompts with the message ids they were answered with");
  eq(rep.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content?.text), [CMD, "cat notes.txt"], "replay: the prompts' text");
  eq(rep.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.messageId), liveAgentIds, "replay: the agent's messages with their live ids");
  const tus = rep.filter((u) => u.sessionUpdate === "terminal_update");
  eq(tus.length, 1, "replay: one terminal_update for the terminal");
  eq([tus[0]?.terminalId, tus[0]?.command, tus[0]?.cwd, tus[0]?.size, tus[0]?.exitStatus], [liveTid, CMD, ws, { cols: 120, rows: 40 }, { exitCode: 3 }], "replay: the terminal's id, command, cwd, size and exit");
  eq(b64(tus[0]?.output?.data || "").toString("hex"), liveBytes.toString("hex"), "replay: the stored output snapshot equals the live bytes");
  eq(rep.filter((u) => u.sessionUpdate === "terminal_output_chunk").length, 0, "replay: no output chunks");
  const card = rep.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === liveCall.toolCallId);
  ok(card.some((u) => u.content?.some((c) => c.type === "terminal" && c.terminalId === liveTid)), "replay: the terminal card anchors the same terminal", card);
  eq(card.at(-1)?.status, "failed", "replay: the terminal card's final status (exit 3)");
  const read = rep.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === liveRead[0].toolCallId);
  eq([read[0]?.kind, read[0]?.title, read[0]?.locations], [liveRead[0].kind, liveRead[0].title, liveRead[0].locations], "replay: the read card's kind, title and locations");
  ok(/```text\nalpha\nbeta\n```/.test(text(read.at(-1)?.content?.[0])), "replay: the read card's fenced output", read.at(-1));
}

// ---------------------------------------------------------------- prompt again
{
  const t3 = await turn(a2, sid, "echo again");
  globalThis.t3id = t3.r.messageId;
  const call = ofKind(t3.ups, "tool_call_update")[0];
  const tid = call?.content?.find((c) => c.type === "terminal")?.terminalId;
  ok(tid && tid !== liveTid, "prompt after the restart: a fresh terminal id", [tid, liveTid]);
  ok(call?.toolCallId !== liveCall.toolCallId && call?.toolCallId !== liveRead[0].toolCallId, "prompt after the restart: a fresh tool call id", call?.toolCallId);
  eq(Buffer.concat(ofKind(t3.ups, "terminal_output_chunk").filter((u) => u.terminalId === tid).map((u) => b64(u.data))).toString(), "again\r\n", "prompt after the restart: the command runs");
  ok(![t1.r.messageId, t2.r.messageId].includes(t3.r.messageId), "prompt after the restart: a new message id", t3.r.messageId);
  eq(ofKind(t3.ups, "state_update").map((u) => u.state + (u.stopReason ? ":" + u.stopReason : "")), ["running", "idle:end_turn"], "prompt after the restart: running, idle");
}

// ---------------------------------------------------------------- close, resume, delete
{
  eq(await a2.ctx.request("session/close", { sessionId: sid }), {}, "close: answered {}");
  eq(await codeOf(a2.ctx.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "echo x" }] })), -32602, "close: a prompt gets -32602");
  ok((await a2.ctx.request("session/list", {})).sessions.some((x) => x.sessionId === sid), "close: still listed (the file stays)");
  const since = (a2.updates.get(sid) || []).length;
  ok(!("modes" in (await a2.ctx.request("session/resume", { sessionId: sid, cwd: ws }))), "resume after close: answered");
  for (let i = 0; i < 250 && !ofKind((a2.updates.get(sid) || []).slice(since), "state_update").length; i++) await sleep(20);
  eq(ofKind((a2.updates.get(sid) || []).slice(since), "state_update").map((u) => u.state), ["idle"], "resume without replay: only the current state");
  eq(ofKind((a2.updates.get(sid) || []).slice(since), "user_message_chunk").length, 0, "resume without replay: nothing replayed");
}
schemaOk(a2, "agent 2");
await stop(a2, "agent 2");

// ---------------------------------------------------------------- a v1 client loads it
{
  const child = startAgent(["--log-level", "info"], { env });
  const c = connect(child);
  await c.ctx.request("initialize", ZED_INIT);
  await c.ctx.request("session/load", { sessionId: sid, cwd: ws, mcpServers: [] });
  const ups = (c.updates.get(sid) || []).map((x) => x.u);
  eq(ups.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => [u.content?.text, "messageId" in u]), [[CMD, false], ["cat notes.txt", false], ["echo again", false]], "v1 load of a v2 session: the prompts, in v1 form");
  const out = ups.filter((u) => u._meta?.terminal_output?.terminal_id === liveCall.toolCallId).map((u) => u._meta.terminal_output.data).join("");
  eq(out, liveBytes.toString(), "v1 load of a v2 session: the terminal's stream as _meta.terminal_output");
  eq((await c.ctx.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "echo from v1" }] })).stopReason, "end_turn", "v1 client: prompts the session");
  child.stdin.end();
  const ex = await within(10000, child.exited).catch((e) => ({ error: e.message }));
  ok(ex.code === 0, "v1 agent: exits 0", ex);
}

// ---------------------------------------------------------------- delete (agent 3)
{
  const a3 = agentV2();
  await a3.ctx.request("initialize", V2_INIT);
  // a session continued by a v1 client: its v1 prompt replays with an id of its own
  await a3.ctx.request("session/resume", { sessionId: sid, cwd: ws, replayFrom: { type: "start" } });
  const frames = a3.recorder.frames.filter((f) => f.method === "session/update").map((f) => f.params.update);
  const users = [...new Set(frames.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.messageId))];
  eq([users.length, users.slice(0, 3)], [4, [t1.r.messageId, t2.r.messageId, globalThis.t3id]], "mixed replay: three kept prompt ids and one of its own");
  const agentIds = frames.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.messageId);
  eq(new Set([...agentIds, ...users]).size, agentIds.length + users.length, "mixed replay: every message id distinct", [agentIds, users]);
  eq(frames.filter((u) => u.sessionUpdate === "terminal_update").length, 3, "mixed replay: one terminal_update per terminal (v2's two, v1's one)");
  eq(await a3.ctx.request("session/delete", { sessionId: sid }), {}, "delete: answered {}");
  ok(!existsSync(join(store, sid + ".jsonl")), "delete: the file is gone");
  eq((await a3.ctx.request("session/list", {})).sessions, [], "delete: not listed");
  eq(await codeOf(a3.ctx.request("session/resume", { sessionId: sid, cwd: ws })), -32002, "delete: resume gets -32002");
  eq(await a3.ctx.request("session/delete", { sessionId: sid }), {}, "delete again: {} (gone already)");
  eq(await codeOf(a3.ctx.request("session/resume", { sessionId: "sess_nothing", cwd: ws })), -32002, "resume: a malformed id gets -32002");
  schemaOk(a3, "agent 3");
  await stop(a3, "agent 3");
  ok(readdirSync(store).every((f) => !f.endsWith(".jsonl")), "the store holds no session file");
}

finish();
