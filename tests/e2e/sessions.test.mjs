// End-to-end: sessions that survive the agent.  `shcard acp` (shell mode) driven by the pinned
// @agentclientprotocol/sdk client across real restarts of the agent process, on a private store
// (XDG_STATE_HOME): create, prompt (read, search, list and terminal cards), exit, restart, list,
// load, compare the replayed updates with the live ones field by field, prompt again; a client
// without terminal_output; kill -9 mid-turn then load; resume; close then prompt; delete then
// list; pagination; modes and config options; and what a hostile client or a hostile store can
// do (ids with paths, symlinks, FIFOs, corrupt, torn and huge files, cursor tampering, two
// agents on one store, load while a turn runs).  Prints "N passed, N failed".
import { execFileSync } from "node:child_process";
import {
  appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync,
  statSync, symlinkSync, truncateSync, writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ZED_INIT, ok, eq, finish, startAgent, connect, descendants, alive, raw, within, sleep, tempDir } from "./lib.mjs";

const ws = realpathSync(tempDir("shcard-sess-"));
mkdirSync(join(ws, "src"));
writeFileSync(join(ws, "src", "main.c"), "int main(void)\n{\n    return open_pty();\n}\n");
writeFileSync(join(ws, "notes.txt"), "alpha\nbeta\ngamma\n");
writeFileSync(join(ws, "it's here.txt"), "quoted\n");
const state = realpathSync(tempDir("shcard-state-"));
const store = join(state, "shcard", "sessions");
const env = { XDG_STATE_HOME: state };
const PLAIN_INIT = { protocolVersion: 1, clientCapabilities: { terminal: false } };

const prompt = (ctx, sessionId, text) => ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
const codeOf = async (p) => {
  try {
    await p;
    return "resolved";
  } catch (e) {
    return e.code;
  }
};
const msgOf = async (p) => {
  try {
    await p;
    return "resolved";
  } catch (e) {
    return String(e.message || "") + " " + JSON.stringify(e.data || "");
  }
};

async function agent(init = ZED_INIT, args = []) {
  const child = startAgent(["--log-level", "info", ...args], { env });
  const c = connect(child, { permission: (p) => (child.onPermission ? child.onPermission(p) : { outcome: { outcome: "selected", optionId: "allow" } }) });
  const res = await c.ctx.request("initialize", init);
  return { child, ...c, init: res };
}
async function stop(a) {
  a.child.stdin.end();
  const ex = await within(8000, a.child.exited).catch((e) => ({ error: e.message }));
  ok(ex.code === 0 && !/AddressSanitizer|LeakSanitizer|runtime error/.test(a.child.stderrText), "the agent exits 0, no sanitizer report", [ex, a.child.stderrText.slice(-1500)]);
  return ex;
}
const trace = (s) => process.env.E2E_TRACE && console.error("--", s);
const ups = (a, sid) => (a.updates.get(sid) || []).map((x) => x.u);
const files = () => (existsSync(store) ? readdirSync(store) : []);

// ---------------------------------------------------------------- create, prompt, exit
trace('create, prompt, exit');
const a1 = await agent();
eq(a1.init.agentCapabilities.loadSession, true, "initialize: loadSession");
eq(a1.init.agentCapabilities.sessionCapabilities, { close: {}, list: {}, resume: {}, delete: {} }, "initialize: list, resume, close, delete");
const n1 = await a1.ctx.request("session/new", { cwd: ws, mcpServers: [] });
const sid = n1.sessionId;
ok(/^sess_[0-9a-f]{32}$/.test(sid), "session ids: sess_ + 128 random bits", sid);
eq(n1.modes?.currentModeId, "all", "new: shell mode starts in mode all");
eq(n1.modes?.availableModes?.map((m) => m.id), ["ask", "all"], "new: modes ask and all");
eq(n1.configOptions?.map((o) => [o.id, o.category, o.type, o.currentValue]), [["mode", "mode", "select", "all"], ["sandbox", undefined, "select", "off"], ["network", undefined, "select", "off"]], "new: the approval and sandbox config options (no model option in shell mode)");
eq(statSync(store).mode & 0o777, 0o700, "store directory is 0700");
ok(!existsSync(join(store, sid + ".jsonl")), "a session nothing happened in has no file yet");

const P1 = "cat notes.txt\ngrep -rn open_pty src\nls src\necho start; sleep 0.3; echo end\nexit 3";
eq((await prompt(a1.ctx, sid, P1)).stopReason, "end_turn", "live: turn 1");
const blocks2 = [{ type: "text", text: "cat " }, { type: "resource_link", uri: "file://" + encodeURI(join(ws, "it's here.txt")), name: "it's here.txt" }];
eq((await a1.ctx.request("session/prompt", { sessionId: sid, prompt: blocks2 })).stopReason, "end_turn", "live: turn 2 (a mention)");
eq(statSync(join(store, sid + ".jsonl")).mode & 0o777, 0o600, "session file is 0600");
const live = ups(a1, sid);
{
  const info = live.find((u) => u.sessionUpdate === "session_info_update");
  eq(info?.title, "cat notes.txt", "title: the first line of the first prompt");
  ok(/^\d{4}-\d\d-\d\dT/.test(info?.updatedAt || ""), "title: with updatedAt", info);
  const calls = live.filter((u) => u.sessionUpdate === "tool_call");
  eq(calls.map((c) => c.kind), ["read", "search", "read", "execute", "execute", "read"], "live: read, search, list, terminal cards and the mention's read");
  eq(calls[5]?.rawInput?.command, "cat 'it'\\''s here.txt'", "mention: one quoted path, relative to the cwd");
  const fin = live.filter((u) => u.toolCallId === calls[5]?.toolCallId).pop();
  ok(/quoted/.test(JSON.stringify(fin?.content)), "mention: cat printed the file", fin);
}
ok(live.every((u) => u.sessionUpdate !== "user_message_chunk"), "live: no user_message_chunk (the client has the prompt)");
eq((await stop(a1)).code, 0, "agent 1 exits 0");

// ---------------------------------------------------------------- restart, list, load, compare
trace('restart, list, load, compare');
const a2 = await agent();
{
  const l = await a2.ctx.request("session/list", {});
  const me = l.sessions.find((s) => s.sessionId === sid);
  ok(!!me, "list after restart: the session is there", l);
  eq([me?.cwd, me?.title], [ws, "cat notes.txt"], "list: cwd and title");
  ok(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(me?.updatedAt || ""), "list: updatedAt ISO 8601", me);
  const empty = (await a2.ctx.request("session/list", { cwd: "/nonexistent-dir" })).sessions;
  eq(empty, [], "list: filtered by cwd");
}
const lr = await a2.ctx.request("session/load", { sessionId: sid, cwd: ws, mcpServers: [] });
eq(lr.modes?.currentModeId, "all", "load: answers with the modes");
eq(lr.configOptions?.[0]?.id, "mode", "load: and the config options");
{
  const rep = ups(a2, sid);
  const users = rep.filter((u) => u.sessionUpdate === "user_message_chunk");
  eq(users.map((u) => u.content), [{ type: "text", text: P1 }, ...blocks2], "replay: user_message_chunk for every prompt block");
  const rest = rep.filter((u) => u.sessionUpdate !== "user_message_chunk");
  eq(rest.length, live.length, "replay: as many updates as live");
  // the sandbox a command ran in is shown while it runs; a replay does not repeat it
  const noSandbox = (u) => (u?._meta?.sandbox ? { ...u, _meta: Object.fromEntries(Object.entries(u._meta).filter(([k]) => k !== "sandbox")) } : u);
  rest.forEach((u, i) => eq(noSandbox(u), noSandbox(live[i]), `replay: update ${i + 1} (${live[i]?.sessionUpdate} ${live[i]?.toolCallId || ""}) is the live one`));
  ok(rep.indexOf(users[0]) < rep.findIndex((u) => u.sessionUpdate === "tool_call"), "replay: the prompt comes before its calls");
}
a2.updates.delete(sid);
trace("prompt after load");
eq((await prompt(a2.ctx, sid, "echo after-load")).stopReason, "end_turn", "prompt after load");
{
  const c = ups(a2, sid).find((u) => u.sessionUpdate === "tool_call");
  ok(!live.some((u) => u.toolCallId === c?.toolCallId), "after load: a new call id, never a reused one", c?.toolCallId);
}
// a second agent on the same store: the session is held by agent 2
trace("second agent");
{
  const a3 = await agent();
  const m = await msgOf(a3.ctx.request("session/load", { sessionId: sid, cwd: ws, mcpServers: [] }));
  ok(/open in another shcard process/.test(m), "two agents: a session open in one cannot be loaded in the other", m);
  eq(await codeOf(a3.ctx.request("session/delete", { sessionId: sid })), -32602, "two agents: nor deleted");
  ok((await a3.ctx.request("session/list", {})).sessions.some((s) => s.sessionId === sid), "two agents: listing works while another writes");
  const other = (await a3.ctx.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
  eq((await prompt(a3.ctx, other, "true")).stopReason, "end_turn", "two agents: each writes its own sessions");
  eq((await stop(a3)).code, 0, "agent 3 exits 0");
}
// load while a turn runs; close then prompt
trace("load while a turn runs");
{
  const p = prompt(a2.ctx, sid, "sleep 1");
  await sleep(200);
  const m = await msgOf(a2.ctx.request("session/load", { sessionId: sid, cwd: ws, mcpServers: [] }));
  ok(/running a prompt/.test(m), "load while a turn runs: refused", m);
  eq((await p).stopReason, "end_turn", "the running turn is undisturbed");
  const slow = prompt(a2.ctx, sid, "sleep 100");
  await sleep(200);
  const t0 = Date.now();
  eq(await a2.ctx.request("session/close", { sessionId: sid }), {}, "close: answered");
  eq((await within(4000, slow).catch((e) => ({ error: e.message }))).stopReason, "cancelled", "close: the running turn ends cancelled");
  ok(Date.now() - t0 < 4000, "close: within the kill grace", Date.now() - t0);
  eq(await codeOf(prompt(a2.ctx, sid, "true")), -32602, "close then prompt: error");
  ok(existsSync(join(store, sid + ".jsonl")), "close: the file stays");
}
// the same process loads it again, now for a client without terminal_output (console cards)
eq((await stop(a2)).code, 0, "agent 2 exits 0");
const a4 = await agent(PLAIN_INIT);
await a4.ctx.request("session/load", { sessionId: sid, cwd: ws, mcpServers: [] });
{
  const rep = ups(a4, sid);
  ok(rep.every((u) => !u._meta), "console client: no terminal _meta in the replay", rep.filter((u) => u._meta));
  const calls = rep.filter((u) => u.sessionUpdate === "tool_call");
  const term = calls.find((c) => c.title === "echo start; sleep 0.3; echo end");
  eq(term?.kind, "execute", "console client: the terminal call is an execute card");
  const fin = rep.filter((u) => u.toolCallId === term?.toolCallId).pop();
  eq(fin?.content?.[0]?.content?.text, "```console\nstart\nend\n```", "console client: its output as one console block");
  const ex = rep.filter((u) => u.toolCallId === calls.find((c) => c.title === "exit 3")?.toolCallId).pop();
  eq([ex?.status, ex?.rawOutput?.exit_code], ["failed", 3], "console client: exit 3 failed with its code");
  const cancelled = rep.filter((u) => u.toolCallId === calls.find((c) => c.title === "sleep 100")?.toolCallId).pop();
  eq(cancelled?.status, "failed", "replay: the call stopped by close ended failed");
}
eq((await stop(a4)).code, 0, "agent 4 exits 0");

// ---------------------------------------------------------------- resume
trace('resume');
{
  const a = await agent();
  const r = await a.ctx.request("session/resume", { sessionId: sid, cwd: ws, mcpServers: [] });
  eq(r.modes?.currentModeId, "all", "resume: answers with the state");
  eq(ups(a, sid), [], "resume: nothing replayed");
  eq((await prompt(a.ctx, sid, "echo resumed")).stopReason, "end_turn", "resume: prompts continue");
  ok(ups(a, sid).some((u) => u._meta?.terminal_output?.data === "resumed\r\n"), "resume: the command ran");
  eq((await stop(a)).code, 0, "resume agent exits 0");
}

// ---------------------------------------------------------------- a session nothing happened in
trace("empty session");
{
  const a = await agent();
  const empty = (await a.ctx.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
  await stop(a);
  ok(!existsSync(join(store, empty + ".jsonl")), "empty session: no file");
  const b = await agent();
  eq((await b.ctx.request("session/resume", { sessionId: empty, cwd: ws, mcpServers: [] })).modes?.currentModeId, "all", "empty session: resumed after a restart (its id is this store's)");
  eq((await prompt(b.ctx, empty, "echo first")).stopReason, "end_turn", "empty session: its first prompt");
  ok(existsSync(join(store, empty + ".jsonl")), "empty session: the file comes with the first record");
  const forged = "sess_" + empty.slice(5, 21) + "0".repeat(16);
  ok(/unknown session/.test(await msgOf(b.ctx.request("session/resume", { sessionId: forged, cwd: ws, mcpServers: [] }))), "a well-formed id this store did not make: unknown");
  ok(/unknown session/.test(await msgOf(b.ctx.request("session/load", { sessionId: "sess_" + "5".repeat(32), cwd: ws, mcpServers: [] }))), "a random id: unknown");
  await stop(b);
}

// ---------------------------------------------------------------- kill -9 mid-turn, torn line
trace('kill -9 mid-turn, torn line');
let sidK;
{
  const a = await agent();
  sidK = (await a.ctx.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
  const p = prompt(a.ctx, sidK, "echo before-kill; sleep 100");
  p.catch(() => {});
  for (let i = 0; i < 100 && !ups(a, sidK).some((u) => u._meta?.terminal_output); i++) await sleep(30);
  const procs = descendants(a.child.pid);
  a.child.kill("SIGKILL");
  await a.child.exited;
  for (const pid of procs) try { process.kill(pid, "SIGKILL"); } catch {}
  // a crash in the middle of a write leaves a partial last line
  appendFileSync(join(store, sidK + ".jsonl"), '{"t":"text","kind":"message","text":"torn');
  const b = await agent();
  await b.ctx.request("session/load", { sessionId: sidK, cwd: ws, mcpServers: [] });
  const rep = ups(b, sidK);
  ok(rep.some((u) => u._meta?.terminal_output?.data === "before-kill\r\n"), "kill -9: the output streamed before the kill is replayed", rep);
  const fin = rep.filter((u) => u.toolCallId && u.status).pop();
  eq(fin?.status, "failed", "kill -9: the interrupted call ends failed");
  ok(/interrupted/.test(JSON.stringify(fin?.rawOutput)), "kill -9: and says it was interrupted", fin);
  ok(rep.every((u) => !/torn/.test(JSON.stringify(u))), "torn last line: skipped");
  eq((await prompt(b.ctx, sidK, "echo after-crash")).stopReason, "end_turn", "kill -9: the session goes on");
  await stop(b);
  const lines = readFileSync(join(store, sidK + ".jsonl"), "utf8").split("\n").filter(Boolean);
  ok(lines.every((l) => { try { JSON.parse(l); return true; } catch { return false; } }), "torn last line: cut off, later records start on a clean line");
}

// ---------------------------------------------------------------- modes and config options
trace('modes and config options');
{
  const a = await agent();
  const s = (await a.ctx.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
  eq(await a.ctx.request("session/set_mode", { sessionId: s, modeId: "ask" }), {}, "set_mode ask");
  const u = ups(a, s);
  eq(u.find((x) => x.sessionUpdate === "current_mode_update")?.currentModeId, "ask", "set_mode: current_mode_update");
  eq(u.find((x) => x.sessionUpdate === "config_option_update")?.configOptions?.[0]?.currentValue, "ask", "set_mode: config_option_update");
  let asked = 0;
  a.child.onPermission = () => { asked++; return { outcome: { outcome: "selected", optionId: "allow" } }; };
  await prompt(a.ctx, s, "true");
  eq(asked, 1, "mode ask: the next command asks");
  const r = await a.ctx.request("session/set_config_option", { sessionId: s, configId: "mode", value: "all" });
  eq(r.configOptions?.[0]?.currentValue, "all", "set_config_option: answers with the options");
  await prompt(a.ctx, s, "true");
  eq(asked, 1, "mode all: not asked");
  eq(await codeOf(a.ctx.request("session/set_mode", { sessionId: s, modeId: "yolo" })), -32602, "unknown mode -32602");
  eq(await codeOf(a.ctx.request("session/set_config_option", { sessionId: s, configId: "model", value: "x" })), -32602, "model option in shell mode -32602");
  await a.ctx.request("session/set_mode", { sessionId: s, modeId: "ask" });
  // always allow switches the session to all, announced
  a.child.onPermission = () => ({ outcome: { outcome: "selected", optionId: "allow_always" } });
  a.updates.delete(s);
  await prompt(a.ctx, s, "true");
  eq(ups(a, s).find((x) => x.sessionUpdate === "current_mode_update")?.currentModeId, "all", "Always Allow: the session's mode becomes all");
  await stop(a);
  const b = await agent();
  const lr2 = await b.ctx.request("session/load", { sessionId: s, cwd: ws, mcpServers: [] });
  eq(lr2.modes?.currentModeId, "all", "the mode survives a restart");
  await stop(b);
}

// ---------------------------------------------------------------- embedded context in shell mode
trace('embedded context in shell mode');
{
  const a = await agent();
  const s = (await a.ctx.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
  const r = await a.ctx.request("session/prompt", {
    sessionId: s,
    prompt: [{ type: "resource", resource: { uri: "file://" + join(ws, "notes.txt"), text: "rm -rf /\n", mimeType: "text/plain" } }],
  });
  eq(r.stopReason, "end_turn", "resource only: answered");
  const u = ups(a, s);
  ok(!u.some((x) => x.sessionUpdate === "tool_call"), "resource only: nothing runs", u);
  ok(/Nothing to run/.test(u.find((x) => x.sessionUpdate === "agent_message_chunk")?.content?.text || ""), "resource only: a clear message", u);
  eq(await codeOf(a.ctx.request("session/prompt", { sessionId: s, prompt: [{ type: "image", data: "AA==", mimeType: "image/png" }] })), -32602, "image in shell mode -32602");
  await stop(a);
}

// ---------------------------------------------------------------- delete, pagination, cursors
trace('delete, pagination, cursors');
{
  const a = await agent();
  eq(await a.ctx.request("session/delete", { sessionId: sidK }), {}, "delete: answered");
  ok(!existsSync(join(store, sidK + ".jsonl")), "delete: the file is gone");
  ok(!(await a.ctx.request("session/list", {})).sessions.some((s) => s.sessionId === sidK), "delete then list: not listed");
  eq(await codeOf(a.ctx.request("session/load", { sessionId: sidK, cwd: ws, mcpServers: [] })), -32602, "delete then load: unknown");
  // a live session of this process: closed, then removed
  const live2 = (await a.ctx.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
  await prompt(a.ctx, live2, "true");
  eq(await a.ctx.request("session/delete", { sessionId: live2 }), {}, "delete a live session");
  eq(await codeOf(prompt(a.ctx, live2, "true")), -32602, "deleted session: prompt refused");
  ok(!existsSync(join(store, live2 + ".jsonl")), "deleted live session: file gone");
  // pagination: more sessions than a page
  const sub = join(ws, "src");
  const made = [];
  for (let i = 0; i < 53; i++) {
    const s = (await a.ctx.request("session/new", { cwd: sub, mcpServers: [] })).sessionId;
    await prompt(a.ctx, s, `true ${i}`);
    made.push(s);
  }
  const p1 = await a.ctx.request("session/list", { cwd: sub });
  eq(p1.sessions.length, 50, "list: a page of 50");
  ok(typeof p1.nextCursor === "string", "list: nextCursor on a full page");
  const p2 = await a.ctx.request("session/list", { cwd: sub, cursor: p1.nextCursor });
  eq(p2.sessions.length, 3, "list: the rest on the next page");
  ok(!("nextCursor" in p2) || p2.nextCursor == null, "list: no nextCursor on the last page", p2.nextCursor);
  const all = [...p1.sessions, ...p2.sessions];
  eq(new Set(all.map((s) => s.sessionId)).size, 53, "list: every session once");
  ok(all.every((s, i) => i === 0 || s.updatedAt <= all[i - 1].updatedAt), "list: newest first");
  eq(all[0].sessionId, made[52], "list: the last prompted first");
  for (const bad of ["garbage", "1:../../etc/passwd", "-5:" + sid, "99999999999999999999:" + sid, p1.nextCursor + "x", ""]) {
    eq(await codeOf(a.ctx.request("session/list", { cursor: bad })), -32602, `list: tampered cursor ${JSON.stringify(bad).slice(0, 30)} -32602`);
  }
  await stop(a);
}

// ---------------------------------------------------------------- a hostile client and store
trace('a hostile client and store');
{
  const outside = realpathSync(tempDir("shcard-outside-"));
  writeFileSync(join(outside, "secret.jsonl"), '{"t":"session","v":1,"id":"x","cwd":"/"}\n');
  writeFileSync(join(outside, "victim"), "keep me\n");
  const hex = (c) => "sess_" + c.repeat(32);
  symlinkSync(join(outside, "victim"), join(store, hex("a") + ".jsonl")); // a planted symlink
  execFileSync("mkfifo", [join(store, hex("b") + ".jsonl")]); // a FIFO: must never block
  writeFileSync(join(store, hex("c") + ".jsonl"), `{"t":"session","v":1,"id":"${hex("c")}","cwd":"${ws}"}\n{"t":"prompt","blocks":[]}\nnot json at all\n`);
  writeFileSync(join(store, hex("d") + ".jsonl"), "");
  truncateSync(join(store, hex("d") + ".jsonl"), 200 * 1024 * 1024); // huge (sparse)
  writeFileSync(join(store, hex("e") + ".jsonl"), `{"t":"session","v":1,"id":"${hex("f")}","cwd":"${ws}"}\n{"t":"prompt","blocks":[]}\n`); // another session's record
  const a = await agent();
  const t0 = Date.now();
  const l = await within(5000, a.ctx.request("session/list", {})).catch((e) => ({ error: e.message }));
  ok(Array.isArray(l.sessions) && Date.now() - t0 < 5000, "hostile store: list answers (no FIFO hang, huge file scanned by its head)", l);
  ok(!l.sessions?.some((s) => [hex("a"), hex("b"), hex("c"), hex("d")].includes(s.sessionId) && s.sessionId !== hex("c")), "hostile store: symlink, FIFO and huge files are not listed", l.sessions?.map((s) => s.sessionId));
  const load = (sessionId) => msgOf(a.ctx.request("session/load", { sessionId, cwd: ws, mcpServers: [] }));
  for (const id of ["../../../../etc/passwd", "sess_../../x", join(outside, "secret"), "../" + sid, sid + "/../" + sid, hex("A"), "sess_" + "0".repeat(31)]) {
    ok(/unknown session/.test(await load(id)), `hostile id ${JSON.stringify(id).slice(0, 40)}: unknown session`);
    ok(/unknown session/.test(await msgOf(a.ctx.request("session/delete", { sessionId: id }))), `hostile id ${JSON.stringify(id).slice(0, 40)}: delete refused`);
  }
  ok(/unknown session/.test(await load(hex("a"))), "symlink in the store: never followed");
  ok(/unknown session/.test(await msgOf(a.ctx.request("session/delete", { sessionId: hex("a") }))), "symlink in the store: delete refused");
  eq(readFileSync(join(outside, "victim"), "utf8"), "keep me\n", "symlink target untouched");
  ok(/unknown session/.test(await within(3000, load(hex("b"))).catch((e) => e.message)), "FIFO in the store: refused without blocking");
  const corrupt = await load(hex("c"));
  ok(/corrupt|line 3/.test(corrupt) && /line 3/.test(corrupt), "corrupt file: the error names the line", corrupt);
  ok(/too large/.test(await load(hex("d"))), "huge file: refused before reading");
  ok(/not this session/.test(await load(hex("e"))), "a file holding another session's record: refused");
  // well-formed JSON with every field of the wrong type: skipped record by record, never a crash
  const g = hex("9");
  const junk = [
    { t: "session", v: 1, id: g, cwd: ws }, { t: "title", title: 5 }, { t: "prompt", blocks: "x" },
    { t: "prompt", blocks: [{ type: "text", text: "ok prompt" }] }, { t: "text", kind: 5, text: "hello" },
    { t: "call" }, { t: "call", id: 5, command: "x" }, { t: "status", id: "call_1", status: 5 },
    { t: "call", id: "call_1", command: "ls", kind: 5, title: ["x"], line: "x", locations: "no", status: "completed", cwd: ws },
    { t: "call", id: "call_1", command: "again" }, { t: "out", id: "call_1", data: 123 }, { t: "out", id: "nope", data: "x" },
    { t: "status", id: "call_1", status: "weird" }, { t: "end", id: "call_1", ran: "yes", exit_code: 1e300, signal: 7, text: ["x"] },
    { t: "call", id: "call_99999999999999999999999", command: "big", locations: [{ path: 5 }, 7, { path: "a", line: "x" }] },
    { t: "end", id: "call_99999999999999999999999", ran: true, exit_code: 2 },
    { t: "model", i: -1, entry: {} }, { t: "model", i: 99999999999, entry: {} }, { t: "model", i: 0, entry: "str" },
    { t: "usage", used: "x", size: 1 }, { t: "config", id: "mode", value: "weird" }, { t: "config", id: 5, value: null },
    { t: "turn" }, { t: "skipped", what: "prompt" }, { t: "capped" }, { t: "from-the-future", x: 1 },
  ];
  writeFileSync(join(store, g + ".jsonl"), junk.map((j) => JSON.stringify(j)).join("\n") + "\n");
  a.updates.delete(g);
  const jr = await a.ctx.request("session/load", { sessionId: g, cwd: ws, mcpServers: [] }).catch((e) => ({ error: e.message }));
  eq(jr.modes?.currentModeId, "all", "junk records: the load still answers (a bad mode value is ignored)");
  const ju = ups(a, g);
  ok(ju.some((u) => u.sessionUpdate === "user_message_chunk" && u.content?.text === "ok prompt"), "junk records: the good ones replay", ju);
  eq(ju.filter((u) => u.sessionUpdate === "tool_call").map((u) => [u.toolCallId, u.status]), [["call_1", "in_progress"], ["call_99999999999999999999999", "in_progress"]], "junk records: calls with an id and a command, statuses only from the known set");
  ok(ju.filter((u) => u.status).every((u) => ["in_progress", "completed", "failed"].includes(u.status)), "junk records: no invented status");
  ok(ju.some((u) => /capped|size limit/.test(JSON.stringify(u))), "junk records: the capped record is said");
  eq((await prompt(a.ctx, g, "echo fine")).stopReason, "end_turn", "junk records: the session runs");
  const jc = ups(a, g).filter((u) => u.sessionUpdate === "tool_call").pop();
  ok(/^call_\d+$/.test(jc?.toolCallId) && jc.toolCallId !== "call_1", "junk records: a fresh call id", jc?.toolCallId);
  // the corrupt file is that session's problem only
  eq((await a.ctx.request("session/load", { sessionId: sid, cwd: ws, mcpServers: [] })).modes?.currentModeId, "all", "corrupt neighbours: another session still loads");
  eq((await prompt(a.ctx, sid, "true")).stopReason, "end_turn", "corrupt neighbours: and runs");
  ok(a.child.stderrText.length < 200000, "bounded logging");
  await stop(a);
}

// ---------------------------------------------------------------- requests that race a load
// (raw NDJSON: the requests go out in one write, so the load has not read a record yet when the
// next one arrives)
{
  const a = await agent();
  const big = (await a.ctx.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
  await prompt(a.ctx, big, Array.from({ length: 300 }, (_, i) => `true ${i}`).join("\n"));
  await stop(a);
  const child = startAgent(["--log-level", "info"], { env });
  const r = raw(child);
  const send = (...msgs) => r.send(msgs.map((m) => JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n").join(""));
  send({ id: 1, method: "initialize", params: ZED_INIT });
  await r.next((m) => m.id === 1);
  const load = (id) => ({ id, method: "session/load", params: { sessionId: big, cwd: ws, mcpServers: [] } });
  send(load(2), { id: 3, method: "session/close", params: { sessionId: big } });
  const l2 = await r.next((m) => m.id === 2), c3 = await r.next((m) => m.id === 3);
  ok(l2?.error?.code === -32603 && /closed/.test(l2?.error?.message), "close during a load: the load fails, saying why", l2);
  eq(c3?.result, {}, "close during a load: answered");
  send(load(4), { id: 5, method: "session/prompt", params: { sessionId: big, prompt: [{ type: "text", text: "echo x" }] } });
  const p5 = await r.next((m) => m.id === 5), l4 = await r.next((m) => m.id === 4, 10000);
  ok(/still loading/.test(p5?.error?.message || ""), "prompt during a load: refused", p5);
  eq(l4?.result?.modes?.currentModeId, "all", "after a failed load the session loads again");
  eq(r.lines.filter((m) => m.params?.update?.sessionUpdate === "tool_call").length, 300, "the load replayed every call");
  send(load(6), { id: 7, method: "session/delete", params: { sessionId: big } });
  const l6 = await r.next((m) => m.id === 6), d7 = await r.next((m) => m.id === 7);
  ok(l6?.error && d7?.result && !existsSync(join(store, big + ".jsonl")), "delete during a load: the load fails, the file is gone", [l6, d7]);
  const other = (await (async () => { send({ id: 8, method: "session/list", params: {} }); return r.next((m) => m.id === 8); })())?.result?.sessions?.[0]?.sessionId;
  send({ id: 9, method: "session/load", params: { sessionId: other, cwd: ws, mcpServers: [] } });
  child.stdin.end(); // EOF while the load runs
  const l9 = await r.next((m) => m.id === 9);
  ok(l9?.result || /shutting down/.test(l9?.error?.message || ""), "EOF during a load: answered", l9);
  const ex = await within(5000, child.exited).catch((e) => ({ error: e.message }));
  ok(ex.code === 0 && !/Sanitizer|runtime error/.test(child.stderrText), "EOF during a load: exit 0", [ex, child.stderrText.slice(-800)]);
}

// ---------------------------------------------------------------- pruning (a small total cap)
trace('pruning (a small total cap)');
{
  const before = files().filter((f) => f.endsWith(".jsonl"));
  const a = await agent(ZED_INIT, ["--store-max-mb", "1"]);
  // two sessions of about 0.5 MiB each (the stored output's cap): over the cap together
  const s0 = (await a.ctx.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
  await prompt(a.ctx, s0, "head -c 900000 /dev/zero | tr '\\0' x; echo");
  const s = (await a.ctx.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
  await prompt(a.ctx, s, "head -c 900000 /dev/zero | tr '\\0' x; echo");
  await stop(a);
  const b = await agent(ZED_INIT, ["--store-max-mb", "1"]); // prunes at start
  const after = files().filter((f) => f.endsWith(".jsonl"));
  const total = after.reduce((n, f) => { try { return n + statSync(join(store, f)).size; } catch { return n; } }, 0);
  ok(!existsSync(join(store, "sess_" + "d".repeat(32) + ".jsonl")), "prune: the file too large to load goes first");
  ok(after.length < before.length, "prune: old sessions removed", [before.length, after.length]);
  ok(total <= 1024 * 1024 || after.length === 1, "prune: the store is back under its cap", total);
  ok(after.includes(s + ".jsonl"), "prune: the newest session stays", after.length);
  ok(!after.includes(s0 + ".jsonl"), "prune: an older real session went", after.length);
  ok(existsSync(join(store, "sess_" + "a".repeat(32) + ".jsonl")), "prune: a planted symlink is not a session (left alone)");
  await stop(b);
}

finish();
