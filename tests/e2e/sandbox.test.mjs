// End-to-end: the sandbox through `shcard acp` (shell mode, a private store) and the pinned
// @agentclientprotocol/sdk client.  Shell mode runs what the user types as typed (`off`) unless
// configured; the `sandbox` and `network` config options change it for the next command; a
// terminal card's tool_call carries _meta.sandbox; in `workspace` a write outside the session's
// directory fails and one inside works, a TCP connection to a loopback listener fails until
// `network` is on; a command gets a private writable TMPDIR; --sandbox sets the default for new sessions; without Landlock
// (SHCARD_NO_LANDLOCK=1) the command is refused with a notice, or runs with
// --sandbox-fallback off; a model's blocked command gets a note in run-all mode and, in ask mode,
// the offer to run it again without the sandbox.  Prints "N passed, N failed".
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ZED_INIT, ok, eq, finish, startAgent, connect, within, startFakeServer } from "./lib.mjs";

const ws = realpathSync(mkdtempSync(join(tmpdir(), "shcard-sandbox-ws-")));
const out = realpathSync(mkdtempSync(join(tmpdir(), "shcard-sandbox-out-")));
const state = realpathSync(mkdtempSync(join(tmpdir(), "shcard-sandbox-state-")));
const env = { XDG_STATE_HOME: state };
const server = createServer((s) => s.end());
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const port = server.address().port;

async function agent(args = [], extraEnv = {}, handlers = {}) {
  const child = startAgent(["--input-wait", "0", ...args], { env: { ...env, ...extraEnv }, cwd: ws });
  const c = connect(child, handlers);
  await c.ctx.request("initialize", ZED_INIT);
  return { child, ...c };
}
async function stop(a) {
  a.child.stdin.end();
  const ex = await within(8000, a.child.exited).catch((e) => ({ error: e.message }));
  ok(ex.code === 0, "the agent exits 0", [ex, a.child.stderrText.slice(-800)]);
}
const ups = (a, sid) => (a.updates.get(sid) || []).map((x) => x.u);
// runs cmd as one prompt; returns the tool_call and the final update of its card
async function run(a, sid, cmd) {
  const before = ups(a, sid).length;
  const r = await a.ctx.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: cmd }] });
  eq(r.stopReason, "end_turn", `${cmd}: the turn ends`);
  const mine = ups(a, sid).slice(before);
  const tc = mine.find((u) => u.sessionUpdate === "tool_call");
  const calls = mine.filter((u) => u.toolCallId === tc?.toolCallId);
  const exit = calls.map((u) => u._meta?.terminal_exit).filter(Boolean).pop();
  return { tc, mine, exit, fin: calls[calls.length - 1] };
}
const opt = (r, id) => (r.configOptions || []).find((o) => o.id === id);

// shell mode: off unless configured
const asked1 = [];
const a1 = await agent([], {}, { permission: async (p) => { asked1.push(p); return { outcome: { outcome: "selected", optionId: "allow" } }; } });
{
  const r = await a1.ctx.request("session/new", { cwd: ws, mcpServers: [] });
  const sid = r.sessionId;
  eq([opt(r, "sandbox")?.currentValue, opt(r, "network")?.currentValue], ["off", "off"], "shell mode: sandbox off by default");
  eq(opt(r, "sandbox")?.options?.map((o) => o.value), ["off", "read-only", "workspace"], "the sandbox option's values");
  let x = await run(a1, sid, `echo a > ${out}/typed`);
  eq(x.tc?._meta?.sandbox, { mode: "off", network: true }, "off: the card says so");
  ok(existsSync(join(out, "typed")), "off: the typed command wrote outside the workspace");

  const set = await a1.ctx.request("session/set_config_option", { sessionId: sid, configId: "sandbox", value: "workspace" });
  eq(opt(set, "sandbox")?.currentValue, "workspace", "set sandbox: the options come back");
  x = await run(a1, sid, `echo b > ${out}/blocked`);
  eq(x.tc?._meta?.sandbox, { mode: "workspace", network: false }, "workspace: the card says so");
  ok(!existsSync(join(out, "blocked")), "workspace: no write outside");
  eq(x.exit?.exit_code, 1, "workspace: the write failed", x.mine);
  x = await run(a1, sid, "echo c > inside && cat inside");
  eq(x.exit?.exit_code, 0, "workspace: a write inside works");
  ok(existsSync(join(ws, "inside")), "workspace: the file is there");
  x = await run(a1, sid, 'case "$TMPDIR" in */shcard-sandbox-*) echo t > "$TMPDIR/t" && cat <<< herestring ;; *) exit 3 ;; esac');
  eq(x.exit?.exit_code, 0, "workspace: a private TMPDIR, writable", x.mine);
  x = await run(a1, sid, `exec 3<>/dev/tcp/127.0.0.1/${port}`);
  ok(x.exit?.exit_code !== 0, "workspace: no TCP with the network off", x.exit);
  await a1.ctx.request("session/set_config_option", { sessionId: sid, configId: "network", value: "on" });
  x = await run(a1, sid, `exec 3<>/dev/tcp/127.0.0.1/${port}`);
  eq(x.exit?.exit_code, 0, "workspace + network on: TCP works");
  eq(x.tc?._meta?.sandbox, { mode: "workspace", network: true }, "network on: the card says so");
  // the repository's control files: a change is told on the card (Landlock cannot keep .git
  // read-only inside the writable workspace)
  execFileSync("git", ["init", "-q", join(ws, "gitrepo")]);
  x = await run(a1, sid, "git -C gitrepo config core.pager 'less -R'");
  const shown = x.mine.filter((u) => u._meta?.terminal_output).map((u) => u._meta.terminal_output.data).join("");
  ok(/\[shcard: this command, run in the sandbox, changed the repository's control files: 'gitrepo\/\.git\/config' \(changed\)/.test(shown), "workspace: a changed .git/config is told on the card", shown);
  x = await run(a1, sid, "echo a > gitrepo/a && git -C gitrepo add a && git -C gitrepo -c user.email=t@t -c user.name=t commit -qm one");
  eq(x.exit?.exit_code, 0, "workspace: git commit works", x.mine);
  const quiet = x.mine.filter((u) => u._meta?.terminal_output).map((u) => u._meta.terminal_output.data).join("");
  ok(!/control files/.test(quiet), "workspace: a commit changes no control file", quiet);
  const bad = await a1.ctx.request("session/set_config_option", { sessionId: sid, configId: "sandbox", value: "strict" }).then(() => 0, (e) => e.code);
  eq(bad, -32602, "an unknown sandbox: -32602");
  eq(asked1.length, 0, "shell mode runs what is typed without asking");
  await a1.ctx.request("session/set_config_option", { sessionId: sid, configId: "sandbox", value: "off" });
  x = await run(a1, sid, `echo d > ${out}/again`);
  ok(existsSync(join(out, "again")), "back to off: the write works again");
  eq(asked1.length, 1, "after a sandboxed change to .git/config, the next command outside the sandbox is asked for", asked1);
  ok(/control files/.test(asked1[0]?.options?.[0]?.name || ""), "the request says why", asked1[0]);
  x = await run(a1, sid, `echo e > ${out}/again2`);
  eq(asked1.length, 1, "once: the command after it runs as typed again", asked1);
}
await stop(a1);

// --sandbox read-only for new sessions
const a2 = await agent(["--sandbox", "read-only"]);
{
  const r = await a2.ctx.request("session/new", { cwd: ws, mcpServers: [] });
  eq(opt(r, "sandbox")?.currentValue, "read-only", "--sandbox read-only: the session starts there");
  rmSync(join(ws, "inside"), { force: true });
  const x = await run(a2, r.sessionId, "echo e > inside");
  ok(!existsSync(join(ws, "inside")), "read-only: not even in the workspace");
  const y = await run(a2, r.sessionId, "cat /etc/hostname > /dev/null && echo ok");
  eq(y.exit?.exit_code, 0, "read-only: reads work");
  ok(x.exit?.exit_code !== 0, "read-only: the write failed");
}
await stop(a2);

// no Landlock: refused with a notice once, or run with --sandbox-fallback off
const a3 = await agent(["--sandbox", "workspace"], { SHCARD_NO_LANDLOCK: "1" });
{
  const { sessionId } = await a3.ctx.request("session/new", { cwd: ws, mcpServers: [] });
  const x = await run(a3, sessionId, "echo f > refused");
  ok(!existsSync(join(ws, "refused")), "no Landlock: not run");
  eq(x.fin?.status, "failed", "no Landlock: the card fails", x.fin);
  const u = ups(a3, sessionId);
  ok(u.some((m) => m.sessionUpdate === "agent_message_chunk" && /no sandbox on this system \(SHCARD_NO_LANDLOCK=1\): commands are not run/.test(m.content?.text || "")), "no Landlock: said", u);
  await run(a3, sessionId, "echo g > refused2");
  eq(ups(a3, sessionId).filter((m) => /no sandbox on this system/.test(m.content?.text || "")).length, 1, "no Landlock: said once per session");
}
await stop(a3);
const a4 = await agent(["--sandbox", "workspace", "--sandbox-fallback", "off"], { SHCARD_NO_LANDLOCK: "1" });
{
  const { sessionId } = await a4.ctx.request("session/new", { cwd: ws, mcpServers: [] });
  await run(a4, sessionId, `echo h > ${out}/fallback`);
  ok(existsSync(join(out, "fallback")), "fallback off: ran unsandboxed");
  ok(ups(a4, sessionId).some((m) => /commands run unsandboxed/.test(m.content?.text || "")), "fallback off: said");
}
await stop(a4);
// a model's command: workspace with the network off by default; a write the sandbox stops gets
// the note in its tool result (the fake OpenAI server's second request carries it)
{
  rmSync("/etc/shcard-sandbox-e2e-probe", { force: true });
  const fake = await startFakeServer("sandbox_blocked.json");
  const a5 = await agent(["--base-url", fake.url, "--approve", "all"], { DEEPSEEK_API_KEY: "sk-test-sandbox", OPENAI_API_KEY: "", SHCARD_CONFIG: "", NO_PROXY: "127.0.0.1", no_proxy: "127.0.0.1" });
  const r = await a5.ctx.request("session/new", { cwd: ws, mcpServers: [] });
  eq([opt(r, "sandbox")?.currentValue, opt(r, "network")?.currentValue], ["workspace", "off"], "model: workspace, network off by default");
  const x = await run(a5, r.sessionId, "write outside");
  eq(x.tc?._meta?.sandbox, { mode: "workspace", network: false }, "model: the card says so");
  ok(!existsSync("/etc/shcard-sandbox-e2e-probe"), "model: the write outside was stopped");
  const desc = fake.requests()[0]?.body?.tools?.[0]?.function?.description || "";
  ok(/Commands run in the `workspace` sandbox: .*only under the working directory and \$TMPDIR, and have no network/.test(desc), "model: the tool's description says which sandbox is in force", desc);
  const m = fake.requests()[1]?.body?.messages || [];
  const res = m.find((x) => x.role === "tool")?.content || "";
  ok(/Permission denied/.test(res) && /\[shcard: this command ran in the `workspace` sandbox .*network off.*the sandbox may have blocked it.*`sandbox` option to `off`/s.test(res), "model: the tool result says the sandbox may have blocked it and how to allow it", res);
  ok(/\[exit code: 1\]$/.test(res), "model: the exit line stays last", res);
  await stop(a5);
  await fake.stop();
}
// a model's command that changes .git/config: the tool result tells the model
{
  const fake = await startFakeServer("sandbox_git.json");
  const a6 = await agent(["--base-url", fake.url, "--approve", "all"], { DEEPSEEK_API_KEY: "sk-test-sandbox", OPENAI_API_KEY: "", SHCARD_CONFIG: "", NO_PROXY: "127.0.0.1", no_proxy: "127.0.0.1" });
  const r = await a6.ctx.request("session/new", { cwd: ws, mcpServers: [] });
  await run(a6, r.sessionId, "set a git option");
  const m = fake.requests()[1]?.body?.messages || [];
  const res = m.find((x) => x.role === "tool")?.content || "";
  ok(/\[shcard: this command, run in the sandbox, changed the repository's control files: 'gitrepo\/\.git\/config' \(changed\)\. git runs hooks/.test(res), "model: the tool result names the changed .git/config", res);
  await stop(a6);
  await fake.stop();
}
// ask mode: a command the sandbox may have stopped gets a second permission request, to run it
// again without the sandbox as a new tool call.  allow once: the rerun writes and the model reads
// its success; reject: the model reads the sandboxed result and its note; a cancel while asked:
// the prompt is answered cancelled, once; always: the session's sandbox becomes off (a
// config_option_update) and a later command runs unsandboxed without that request; a stored
// session replays both calls.
{
  const fake = await startFakeServer("sandbox_rerun.json");
  const beside = (tag) => `${ws}.${tag}`;
  for (const t of ["once", "rejected", "cancelled", "always", "later"]) rmSync(beside(t), { force: true });
  const child = startAgent(["--input-wait", "0", "--base-url", fake.url, "--approve", "ask"], { env: { ...env, DEEPSEEK_API_KEY: "sk-test-sandbox", OPENAI_API_KEY: "", SHCARD_CONFIG: "", NO_PROXY: "127.0.0.1", no_proxy: "127.0.0.1" }, cwd: ws });
  const asked = []; // every request_permission, with whether it offered the rerun
  let rerunAnswer = null;
  const a = { child };
  Object.assign(a, connect(child, {
    permission: async (p) => {
      const rerun = p.options.some((o) => /without the sandbox/.test(o.name));
      asked.push({ rerun, p });
      if (!rerun) return { outcome: { outcome: "selected", optionId: "allow" } };
      return rerunAnswer(p);
    },
  }));
  await a.ctx.request("initialize", ZED_INIT);
  const pick = (id) => async () => ({ outcome: { outcome: "selected", optionId: id } });
  const toolMsgs = (i) => (fake.requests()[i]?.body?.messages || []).filter((m) => m.role === "tool").map((m) => m.content);
  const r = await a.ctx.request("session/new", { cwd: ws, mcpServers: [] });
  const sid = r.sessionId;

  rerunAnswer = pick("allow");
  let x = await run(a, sid, "once");
  let calls = x.mine.filter((u) => u.sessionUpdate === "tool_call");
  eq(calls.length, 2, "allow once: two tool calls (the sandboxed one, then the rerun)", x.mine);
  eq(asked.map((q) => q.rerun), [false, true], "allow once: the command's request, then the rerun's", asked);
  const rq = asked[1]?.p;
  eq(rq?.options?.map((o) => [o.optionId, o.kind]), [["allow", "allow_once"], ["allow_always", "allow_always"], ["reject", "reject_once"]], "the rerun's options");
  eq(rq?.toolCall?.toolCallId, calls[1]?.toolCallId, "the request is for the new call");
  eq(calls[1]?._meta?.sandbox, { mode: "off", network: true }, "the rerun's card says no sandbox");
  ok(/without the sandbox/.test(JSON.stringify(calls[1]?.content)), "the rerun's card says why", calls[1]);
  ok(existsSync(beside("once")), "allow once: the rerun wrote outside the workspace");
  let res = toolMsgs(1);
  eq(res.length, 1, "allow once: the model gets one tool result", res);
  ok(/wrote-once/.test(res[0]) && /\[exit code: 0\]$/.test(res[0]) && !/\[shcard:/.test(res[0]), "allow once: the model reads the rerun's success", res);

  rerunAnswer = pick("reject");
  x = await run(a, sid, "rejected");
  ok(!existsSync(beside("rejected")), "reject: nothing written");
  res = toolMsgs(3);
  ok(res.length === 2 && /Permission denied/.test(res[1]) && /the sandbox may have blocked it/.test(res[1]), "reject: the model reads the sandboxed result and the note", res);
  calls = x.mine.filter((u) => u.sessionUpdate === "tool_call");
  const rfin = x.mine.filter((u) => u.toolCallId === calls[1]?.toolCallId && u.status).pop();
  eq([calls.length, rfin?.status], [2, "failed"], "reject: the rerun's card fails", x.mine);

  let answered = 0;
  rerunAnswer = async () => {
    await a.ctx.notify("session/cancel", { sessionId: sid });
    return { outcome: { outcome: "cancelled" } };
  };
  const before = ups(a, sid).length;
  const pr = a.ctx.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "cancelled" }] }).then((v) => (answered++, v));
  const cr = await within(10000, pr).catch((e) => ({ error: e.message }));
  eq(cr.stopReason, "cancelled", "cancel while asked: the prompt is answered cancelled", cr);
  ok(!existsSync(beside("cancelled")), "cancel while asked: not rerun");
  const fins = ups(a, sid).slice(before).filter((u) => u.status === "failed" || u.status === "completed");
  ok(fins.length >= 2, "cancel while asked: both cards end", fins);
  eq(fake.requests().length, 5, "cancel while asked: the model is not asked again");

  rerunAnswer = pick("allow_always");
  x = await run(a, sid, "always");
  ok(existsSync(beside("always")), "always: the rerun wrote");
  const cu = x.mine.filter((u) => u.sessionUpdate === "config_option_update").pop();
  eq(opt(cu || {}, "sandbox")?.currentValue, "off", "always: the session's sandbox option says off", x.mine);
  const nAsked = asked.length;
  x = await run(a, sid, "later");
  ok(existsSync(beside("later")), "always: a later command writes outside, unsandboxed");
  eq(asked.slice(nAsked).map((q) => q.rerun), [false], "always: only the command's own request, no rerun request", asked.slice(nAsked));
  eq(x.tc?._meta?.sandbox, { mode: "off", network: true }, "always: the later card says no sandbox");
  eq(answered, 1, "the cancelled prompt was answered once");
  await stop(a);

  // the stored session replays the sandboxed call and its rerun
  const b = await agent(["--base-url", fake.url, "--approve", "ask"], { DEEPSEEK_API_KEY: "sk-test-sandbox", OPENAI_API_KEY: "", SHCARD_CONFIG: "", NO_PROXY: "127.0.0.1", no_proxy: "127.0.0.1" });
  const lr = await b.ctx.request("session/load", { sessionId: sid, cwd: ws, mcpServers: [] });
  eq(opt(lr, "sandbox")?.currentValue, "off", "load: the sandbox stays off");
  const rcalls = ups(b, sid).filter((u) => u.sessionUpdate === "tool_call");
  eq(rcalls.length, 9, "load: every call replays (2 + 2 + 2 + 2 + 1)", rcalls.map((c) => c.title));
  ok(rcalls.filter((c) => /without the sandbox/.test(JSON.stringify(c.content))).length === 4, "load: the reruns replay with why", rcalls);
  await stop(b);
  await fake.stop();
  for (const t of ["once", "rejected", "cancelled", "always", "later"]) rmSync(beside(t), { force: true });
}
server.close();
for (const d of [ws, out, state]) rmSync(d, { recursive: true, force: true });
finish();
