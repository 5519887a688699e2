// End-to-end: model-mode sessions across restarts of `shcard acp`, against the fake
// OpenAI-compatible server (tests/fake_openai.py): after a restart and a load the next request
// carries the earlier conversation; a kill -9 mid-tool-call leaves a conversation the server
// accepts; usage_update carries the server's usage; a long conversation stays under a small
// context window (older outputs elided, then older turns, with a notice); the model selector
// from GET /models; embedded context and images.  Prints "N passed, N failed".
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { descendants, startFakeServer, tempDir } from "./lib.mjs";

const ROOT = new URL("../..", import.meta.url).pathname;
const SHCARD = process.env.SHCARD || join(ROOT, "shcard");
const KEY = "sk-sess-SECRET-42";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let passed = 0;
let failed = 0;
function ok(cond, name, detail) {
  if (cond) passed++;
  else {
    failed++;
    console.log(`FAIL: ${name}${detail !== undefined ? ": " + JSON.stringify(detail).slice(0, 700) : ""}`);
  }
  return cond;
}
const eq = (got, want, name) => ok(JSON.stringify(got) === JSON.stringify(want), name, { got, want });


const store = realpathSync(tempDir("shc-msess-store-"));
const ws = realpathSync(tempDir("shc-msess-ws-"));
writeFileSync(join(ws, "notes.txt"), "alpha\nbeta\n");

async function agent(server, args = [], caps = { terminal: false, _meta: { terminal_output: true } }) {
  const home = tempDir("shc-home-");
  const child = spawn(SHCARD, ["acp", "--base-url", server.url, "--store", store, "--log-level", "debug", ...args], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, DEEPSEEK_API_KEY: KEY, OPENAI_API_KEY: "", HOME: home, XDG_CONFIG_HOME: home,
           SHCARD_CONFIG: "", NO_PROXY: "127.0.0.1,localhost", no_proxy: "127.0.0.1,localhost" },
  });
  child.stderrText = "";
  child.stderr.on("data", (d) => (child.stderrText += d.toString()));
  child.exited = new Promise((r) => child.on("exit", (code, sig) => r({ code, sig })));
  const log = [];
  const conn = acp.client({ name: "shcard-model-sessions" })
    .onNotification("session/update", (c) => { log.push({ u: c.params.update, sid: c.params.sessionId }); })
    .onRequest("session/request_permission", async () => ({ outcome: { outcome: "selected", optionId: "allow" } }))
    .connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
  const init = await conn.agent.request("initialize", { protocolVersion: 1, clientCapabilities: caps });
  const ctx = conn.agent;
  const prompt = (sessionId, text) => ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  const stop = async () => {
    child.stdin.end();
    const ex = await Promise.race([child.exited, sleep(8000).then(() => null)]);
    if (!ex) child.kill("SIGKILL");
    ok(!child.stderrText.includes(KEY), "the API key is not in stderr");
    ok(ex?.code === 0 && !/AddressSanitizer|LeakSanitizer|runtime error/.test(child.stderrText), "the agent exits 0, no sanitizer report", [ex, child.stderrText.slice(-1500)]);
    return ex;
  };
  const ups = (sid, kind) => log.filter((e) => e.sid === sid && (!kind || e.u.sessionUpdate === kind)).map((e) => e.u);
  return { child, ctx, init, log, prompt, stop, ups };
}
const roles = (req) => (req?.body?.messages || []).map((m) => m.role);

// ---------------------------------------------------------------- restart, load, the model remembers
let sid;
{
  const srv = await startFakeServer("sess_tool.json");
  const a = await agent(srv, ["--approve", "all"]);
  sid = (await a.ctx.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
  eq((await a.prompt(sid, "look at one")).stopReason, "end_turn", "model: turn 1");
  const usage = a.ups(sid, "usage_update");
  eq(usage.map((u) => [u.used, u.size]), [[1290, 131072], [1320, 131072]], "usage_update: the server's total tokens and deepseek-chat's window");
  const q = srv.requests()[0];
  eq(q?.body?.stream_options, { include_usage: true }, "requests ask for usage (stream_options.include_usage)");
  eq(srv.gets().map((g) => [g.path.endsWith("/models"), g.authorization === `Bearer ${KEY}`]), [[true, true]], "GET /models once, with the key");
  eq((await a.stop())?.code, 0, "model agent 1 exits 0");
  await srv.stop();
}
{
  const srv = await startFakeServer("sess_next.json");
  const a = await agent(srv);
  const lr = await a.ctx.request("session/load", { sessionId: sid, cwd: ws, mcpServers: [] });
  eq(lr.modes?.currentModeId, "all", "model load: the session keeps its mode (--approve all when it was made)");
  const rep = a.ups(sid);
  eq(rep.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text), ["look at one"], "model replay: the prompt");
  eq(rep.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join(""), "Looking.Saw one.", "model replay: the answers");
  const tc = rep.find((u) => u.sessionUpdate === "tool_call");
  eq([tc?.title, tc?.kind], ["printf 'one\\n'", "execute"], "model replay: the tool call card");
  ok(rep.some((u) => u._meta?.terminal_output?.data === "one\r\n"), "model replay: its output", rep);
  const lu = rep.filter((u) => u.sessionUpdate === "usage_update").pop();
  eq([lu?.used, lu?.size], [1320, 131072], "model replay: the last usage");
  eq((await a.prompt(sid, "and now?")).stopReason, "end_turn", "model: prompt after load");
  const m = srv.requests()[0]?.body?.messages || [];
  eq(roles(srv.requests()[0]), ["system", "user", "assistant", "tool", "assistant", "user"], "after load: the request carries the earlier conversation");
  eq([m[1]?.content, m[2]?.tool_calls?.[0]?.id, m[3]?.tool_call_id, m[4]?.content, m[5]?.content], ["look at one", "call_1", "call_1", "Saw one.", "and now?"], "after load: message by message");
  ok(/^one\n\[exit code: 0\]$/.test(m[3]?.content || ""), "after load: the tool result as the model saw it", m[3]);
  eq((await a.stop())?.code, 0, "model agent 2 exits 0");
  await srv.stop();
}

// ---------------------------------------------------------------- kill -9 while a command runs
{
  const srv = await startFakeServer("sess_crash.json");
  const a = await agent(srv, ["--approve", "all"]);
  const s = (await a.ctx.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
  a.prompt(s, "start something").catch(() => {});
  for (let i = 0; i < 200 && !a.ups(s).some((u) => u._meta?.terminal_output); i++) await sleep(25);
  const left = descendants(a.child.pid);
  a.child.kill("SIGKILL");
  await a.child.exited;
  for (const pid of left) try { process.kill(pid, "SIGKILL"); } catch {} // what the killed agent left
  await srv.stop();
  const srv2 = await startFakeServer("sess_next.json");
  const b = await agent(srv2);
  await b.ctx.request("session/load", { sessionId: s, cwd: ws, mcpServers: [] });
  eq((await b.prompt(s, "what happened?")).stopReason, "end_turn", "kill -9: the next prompt works");
  const m = srv2.requests()[0]?.body?.messages || [];
  eq(roles(srv2.requests()[0]), ["system", "user", "assistant", "tool", "user"], "kill -9: the conversation is repaired (every tool call answered)");
  ok(/shcard stopped before this command finished/.test(m[3]?.content || ""), "kill -9: the model is told the command was interrupted", m[3]);
  await b.stop();
  await srv2.stop();
}

// ---------------------------------------------------------------- a small context window
{
  const srv = await startFakeServer("sess_trim.json");
  const a = await agent(srv, ["--approve", "all", "--context-window", "2048"], { terminal: false, session: { notices: {} } });
  const s = (await a.ctx.request("session/new", { cwd: ws, mcpServers: [] })).sessionId;
  for (let i = 0; i < 6; i++) eq((await a.prompt(s, `turn ${i}: count`)).stopReason, "end_turn", `trim: turn ${i}`);
  const reqs = srv.requests();
  eq(reqs.length, 12, "trim: every request was made");
  const over = reqs.filter((r) => r.bytes / 4 > 2048).map((r) => [r.n, r.bytes]);
  eq(over, [], "trim: every request fits the window by the server's own count (bytes / 4)");
  const tools = reqs.flatMap((r) => (r.body.messages || []).filter((m) => m.role === "tool").map((m) => m.content));
  ok(tools.some((t) => /output elided/.test(t)), "trim: older command outputs are elided with a marker the model understands");
  ok(reqs.some((r) => /oldest turn\(s\) of this conversation were left out/.test(r.body.messages[0].content)), "trim: then older turns are dropped, and the system prompt says so");
  const last = reqs[reqs.length - 1].body.messages;
  eq(last[last.length - 1].role, "tool", "trim: the current turn's last tool output is kept");
  ok(/^1\n2\n3/.test(last[last.length - 1].content), "trim: in full", last[last.length - 1].content.slice(0, 40));
  const notices = a.ups(s, "notice");
  ok(notices.length >= 1 && notices.every((n) => n.severity === "warning" && /context window of deepseek-chat \(2048 tokens\)/.test(n.title)), "trim: a notice for a client with session.notices", notices);
  ok(notices.length <= 2, "trim: said when outputs are first left out and when turns are, not on every request", notices.length);
  ok(a.ups(s, "usage_update").every((u) => u.size === 2048), "trim: usage_update size is the configured window");
  await a.stop();
  // the notice is live, not history: a replay does not repeat it
  const b = await agent(srv, [], { terminal: false, session: { notices: {} } });
  await b.ctx.request("session/load", { sessionId: s, cwd: ws, mcpServers: [] });
  eq(b.ups(s, "notice"), [], "trim: notices are not replayed");
  await b.stop();
  await srv.stop();
}

// ---------------------------------------------------------------- the model selector, context, images
{
  const srv = await startFakeServer("sess_models.json");
  const a = await agent(srv, ["--approve", "all", "--images", "yes"]);
  eq(a.init.agentCapabilities.promptCapabilities, { image: true, audio: false, embeddedContext: true }, "--images yes: images advertised");
  const n = await a.ctx.request("session/new", { cwd: ws, mcpServers: [] });
  const s = n.sessionId;
  let opts = n.configOptions.find((o) => o.id === "model");
  for (let i = 0; i < 100 && (opts?.options?.length || 0) < 2; i++) {
    await sleep(20);
    const upd = a.ups(s, "config_option_update").pop();
    if (upd) opts = upd.configOptions.find((o) => o.id === "model");
  }
  eq([opts?.category, opts?.type, opts?.currentValue], ["model", "select", "deepseek-chat"], "model option: a select on the configured model");
  eq(opts?.options?.map((o) => o.value), ["deepseek-chat", "deepseek-reasoner"], "model option: the server's models (GET /models)");
  const r = await a.ctx.request("session/set_config_option", { sessionId: s, configId: "model", value: "deepseek-reasoner" });
  eq(r.configOptions.find((o) => o.id === "model")?.currentValue, "deepseek-reasoner", "set model: answered with the options");
  eq(a.ups(s, "config_option_update").pop()?.configOptions?.find((o) => o.id === "model")?.currentValue, "deepseek-reasoner", "set model: config_option_update");
  await a.ctx.request("session/prompt", {
    sessionId: s,
    prompt: [
      { type: "text", text: "explain" },
      { type: "resource", resource: { uri: "file://" + join(ws, "notes.txt"), mimeType: "text/plain", text: "alpha\nbeta\n" } },
      { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
    ],
  });
  const q = srv.requests()[0].body;
  eq(q.model, "deepseek-reasoner", "set model: the next request uses it");
  const content = q.messages[1].content;
  ok(Array.isArray(content) && content[0].type === "text" && /explain notes\.txt/.test(content[0].text) && /\[attached: notes\.txt, text\/plain\]\n```\nalpha\nbeta\n```/.test(content[0].text), "embedded context: its text goes to the model", content);
  eq(content[1], { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }, "image: an image_url part");
  await a.prompt(s, "usage?");
  const u2 = a.ups(s, "usage_update").pop();
  eq([u2?.used, u2?.size], [105, 65536], "usage size: the window GET /models gave for the model");
  eq(await a.ctx.request("session/set_config_option", { sessionId: s, configId: "model", value: "nope" }).then(() => 0, (e) => e.code), -32602, "set model: an unknown model -32602");
  await a.stop();
  // the choice survives a restart
  const b = await agent(srv);
  const lr = await b.ctx.request("session/load", { sessionId: s, cwd: ws, mcpServers: [] });
  eq(lr.configOptions.find((o) => o.id === "model")?.currentValue, "deepseek-reasoner", "the model choice survives a restart");
  await b.prompt(s, "again");
  eq(srv.requests().pop()?.body?.model, "deepseek-reasoner", "and is used after it");
  await b.stop();
  await srv.stop();
  const c = await agent(srv);
  eq(c.init.agentCapabilities.promptCapabilities.image, false, "without --images: no images");
  await c.stop();
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
