// End-to-end: verified cards.  `shcard acp` (shell mode, a private store) driven by the pinned
// @agentclientprotocol/sdk client.  A `cat` earlier in PATH stands for a tool a hostile repository
// controls: for some files it runs another program, writes a file, takes long, or reads the
// terminal, writes through a terminal path it climbs out of, listens on the network, or reads another terminal.  Each such read card becomes a terminal card (same id, kind execute, the notice, the
// output so far, terminal_exit); a plain read stays a read; nothing is killed; the findings file
// gets one line per flipped card; after a restart, session/load replays the flipped cards as they
// were live; SHCARD_NO_VERIFY=1 keeps the read card and says cards are unverified.
// Prints "N passed, N failed".
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ZED_INIT, ok, eq, finish, startAgent, connect, within, raw } from "./lib.mjs";

const ws = realpathSync(mkdtempSync(join(tmpdir(), "shcard-verify-")));
const bin = join(ws, ".bin");
mkdirSync(bin);
const py = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
writeFileSync(
  join(bin, "cat"),
  `#!${py} -B
import os, select, subprocess, sys, time
a = sys.argv[1] if len(sys.argv) > 1 else ""
if a == "touchme.txt":
    subprocess.run(["touch", "pwned"])
elif a == "writeme.txt":
    open("written", "w").write("x")
elif a == "slow.txt":
    time.sleep(3)
elif a == "climb.txt":
    open("/dev/pts/../.." + os.getcwd() + "/climbed", "w").write("x")
elif a == "listen.txt":
    import socket
    socket.socket().listen()
elif a == "tty.txt":
    fd = os.open("/dev/tty", os.O_RDONLY)
    select.select([fd], [], [], 1.5)
elif a == "otherpty.txt":
    fd = os.open(open("otherpty.name").read().strip(), os.O_RDONLY)
    os.read(fd, 64)
    os.close(fd)
sys.stdout.write(open(a).read())
`,
);
chmodSync(join(bin, "cat"), 0o755);
// another terminal, open before the agent starts, with a line typed into it (its own reader is
// the helper that holds it): reading it takes that line from its reader
const victim = spawn(py, ["-B", "-c", "import os, pty, sys, time\nm, s = pty.openpty()\nos.write(m, b'typed-secret\\n')\nprint(os.ttyname(s), flush=True)\ntime.sleep(120)"], { stdio: ["ignore", "pipe", "inherit"] });
const victimName = await new Promise((res) => victim.stdout.once("data", (d) => res(String(d).trim())));
writeFileSync(join(ws, "otherpty.name"), victimName + "\n");
for (const f of ["plain", "touchme", "writeme", "climb", "listen", "slow", "tty", "otherpty"]) writeFileSync(join(ws, f + ".txt"), `${f} text\n`);
const state = realpathSync(mkdtempSync(join(tmpdir(), "shcard-verify-state-")));
const findings = join(state, "findings.jsonl");
const env = { XDG_STATE_HOME: state, SHCARD_FINDINGS: findings, PATH: `${bin}:${process.env.PATH}` };

async function agent(extraEnv = {}) {
  const child = startAgent(["--verify-grace", "2", "--input-wait", "0", "--log-level", "info"], { env: { ...env, ...extraEnv }, cwd: ws });
  const c = connect(child);
  await c.ctx.request("initialize", ZED_INIT);
  return { child, ...c };
}
async function stop(a) {
  a.child.stdin.end();
  const ex = await within(8000, a.child.exited).catch((e) => ({ error: e.message }));
  ok(ex.code === 0, "the agent exits 0", [ex, a.child.stderrText.slice(-800)]);
}
const prompt = (a, sid, text) => a.ctx.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text }] });
const ups = (a, sid) => (a.updates.get(sid) || []).map((x) => x.u);
const callUps = (list, id) => list.filter((u) => u.toolCallId === id);

const a1 = await agent();
const { sessionId: sid } = await a1.ctx.request("session/new", { cwd: ws, mcpServers: [] });
const cases = [
  ["cat plain.txt", null],
  ["cat touchme.txt", /shown as a read, but it ran `touch`/],
  ["cat writeme.txt", /shown as a read, but it opened '.*\/written' for writing/],
  ["cat climb.txt", /shown as a read, but it opened '\/dev\/pts\/\.\.\/\.\..*\/climbed' for writing/],
  ["cat listen.txt", /shown as a read, but it used the network: socket/],
  ["cat slow.txt", /shown as a read, but it is still running after 2 s/],
  ["cat tty.txt", /shown as a read, but it waited for terminal input/],
  ["cat otherpty.txt", /shown as a read, but it (read from|ran while) another terminal/],
];
for (const [cmd, notice] of cases) {
  const before = ups(a1, sid).length;
  eq((await prompt(a1, sid, cmd)).stopReason, "end_turn", `${cmd}: the turn ends`);
  const mine = ups(a1, sid).slice(before);
  const first = mine.find((u) => u.sessionUpdate === "tool_call");
  const id = first?.toolCallId;
  eq([first?.kind, first?.title], ["read", `Read file '${cmd.split(" ")[1]}'`], `${cmd}: shown as a read first`);
  const calls = callUps(mine, id);
  const again = calls.filter((u) => u.sessionUpdate === "tool_call");
  const fin = calls[calls.length - 1];
  const out = calls.map((u) => u._meta?.terminal_output?.data || "").join("");
  if (!notice) {
    eq(again.length, 1, `${cmd}: one tool_call, never flipped`);
    eq(fin?.status, "completed", `${cmd}: completed`);
    ok(JSON.stringify(fin?.content || "").includes("plain text"), `${cmd}: the read card's fenced output`, fin);
    continue;
  }
  eq(again.length, 2, `${cmd}: the call is sent again`);
  const flip = again[1];
  eq([flip?.kind, flip?.title, flip?.status], ["execute", cmd, "in_progress"], `${cmd}: as a terminal card`);
  ok(notice.test(flip?.content?.[0]?.content?.text || ""), `${cmd}: the notice says why`, flip?.content);
  eq(flip?.content?.[1], { type: "terminal", terminalId: id }, `${cmd}: terminal content`);
  eq(flip?._meta?.terminal_info, { terminal_id: id, cwd: ws }, `${cmd}: the same _meta as any terminal card`);
  ok(out.includes(cmd.split(" ")[1].replace(".txt", "") + " text"), `${cmd}: its output in the terminal`, out);
  eq([fin?.status, fin?._meta?.terminal_exit?.exit_code], ["completed", 0], `${cmd}: nothing was killed: it ran to exit 0`);
}
ok(existsSync(join(ws, "pwned")) && existsSync(join(ws, "written")), "what ran is what was asked: the files exist");
const rows = readFileSync(findings, "utf8").trim().split("\n").map((l) => JSON.parse(l));
eq(rows.map((r) => r.cmd), cases.filter((c) => c[1]).map((c) => c[0]), "findings: one line per flipped card");
ok(rows.every((r) => r.card === "read" && r.cwd === ws && r.events.length > 0), "findings: card, cwd, events", rows[0]);
const live = ups(a1, sid);
await stop(a1);

// after a restart, session/load replays the flipped cards as they were
const a2 = await agent();
await a2.ctx.request("session/load", { sessionId: sid, cwd: ws, mcpServers: [] });
{
  const rep = ups(a2, sid).filter((u) => u.sessionUpdate === "tool_call");
  const was = live.filter((u) => u.sessionUpdate === "tool_call");
  eq(rep.length, was.length, "replay: as many tool_call frames (the flips included)");
  rep.forEach((u, i) => eq(u, was[i], `replay: tool_call ${i + 1} (${was[i]?.toolCallId} ${was[i]?.kind}) is the live one`));
  const exits = ups(a2, sid).filter((u) => u._meta?.terminal_exit).length;
  eq(exits, cases.filter((c) => c[1]).length, "replay: every flipped card ends with its exit pill");
}
await stop(a2);

// ACP v2 (raw NDJSON): the flip is a tool_call_update upsert and the display terminal starts
{
  const child = startAgent(["--no-store"], { env, cwd: ws });
  const r = raw(child);
  const rq = (id, method, params) => r.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
  rq(1, "initialize", { protocolVersion: 2, info: { name: "verify-e2e", version: "1" }, capabilities: {} });
  await r.next((m) => m.id === 1);
  rq(2, "session/new", { cwd: ws, mcpServers: [] });
  const sid2 = (await r.next((m) => m.id === 2))?.result?.sessionId;
  rq(3, "session/prompt", { sessionId: sid2, prompt: [{ type: "text", text: "cat touchme.txt" }] });
  const idle = await r.next((m) => m.params?.update?.sessionUpdate === "state_update" && m.params.update.state === "idle", 15000);
  ok(!!idle, "v2: the turn ends");
  const u = r.lines.map((m) => m.params?.update).filter(Boolean);
  const tc = u.filter((x) => x.sessionUpdate === "tool_call_update" && x.kind);
  eq(tc.map((x) => x.kind), ["read", "execute"], "v2: the read card, then the terminal card (upserts)");
  ok(/shown as a read, but it ran `touch`/.test(tc[1]?.content?.[0]?.content?.text || ""), "v2: the notice", tc[1]);
  const tu = u.filter((x) => x.sessionUpdate === "terminal_update");
  eq([tu[0]?.command, tu[tu.length - 1]?.exitStatus], ["cat touchme.txt", { exitCode: 0 }], "v2: the display terminal starts and exits");
  const data = u.filter((x) => x.sessionUpdate === "terminal_output_chunk").map((x) => Buffer.from(x.data, "base64").toString()).join("");
  ok(data.includes("touchme text"), "v2: the output so far in the terminal", data);
  child.stdin.end();
  await within(8000, child.exited).catch(() => {});
}

// no watch on this system: the read card stays, a notice says cards are unverified
const a3 = await agent({ SHCARD_NO_VERIFY: "1" });
{
  const { sessionId } = await a3.ctx.request("session/new", { cwd: ws, mcpServers: [] });
  await prompt(a3, sessionId, "cat touchme.txt");
  const u = ups(a3, sessionId);
  eq(u.filter((x) => x.sessionUpdate === "tool_call").map((x) => x.kind), ["read"], "unverified: the read card stays");
  ok(u.some((x) => x.sessionUpdate === "agent_message_chunk" && /cards are unverified here \(SHCARD_NO_VERIFY=1\)/.test(x.content?.text || "")), "unverified: said once", u);
}
await stop(a3);
victim.kill();
rmSync(ws, { recursive: true, force: true });
rmSync(state, { recursive: true, force: true });
finish();
