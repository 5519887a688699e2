// RED-TEAM REGRESSION (finding RC1, run by tests/suite_rt_confine.sh): through `shcard acp` and
// the pinned @agentclientprotocol/sdk client, a read card whose `cat` (a hostile tool earlier in
// PATH, as in verify.test.mjs) takes the agent's seccomp listener with pidfd_getfd and answers
// its own notifications, then rewrites the file it was asked to read.  Expected: the card flips
// to a terminal card.  Control (RT_NOSTEAL=1): the same write without taking the listener flips.
// RT_WS: a workspace whose .bin/cat is the compiled tests/data/rt_confine/steal.c.
// Prints PASS/FAIL lines and "N passed, N failed".
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ZED_INIT, startAgent, connect, within, tempDir } from "./lib.mjs";

const ws = process.env.RT_WS;
let passed = 0;
let failed = 0;
const check = (cond, name, detail) => {
  if (cond) passed++;
  else failed++;
  console.log(`${cond ? "PASS" : "FAIL"}: ${name}${!cond && detail !== undefined ? ": " + JSON.stringify(detail).slice(0, 600) : ""}`);
};

async function oneCard(extraEnv, file) {
  const state = tempDir("rt-confine-state-");
  writeFileSync(join(ws, file), "plain text\n");
  // --timeout 10: a stealing child killed while it holds a notification of the main process's
  // kill() leaves that call pending, so the probe can deadlock itself (as in the run case); the
  // card flips either way, and the turn then ends when the command is timed out
  const child = startAgent(["--verify-grace", "5", "--input-wait", "0", "--timeout", "10"], {
    env: { XDG_STATE_HOME: state, SHCARD_FINDINGS: join(state, "findings.jsonl"), PATH: `${ws}/.bin:${process.env.PATH}`, ...extraEnv },
    cwd: ws,
  });
  const c = connect(child);
  await c.ctx.request("initialize", ZED_INIT);
  const { sessionId } = await c.ctx.request("session/new", { cwd: ws, mcpServers: [] });
  await within(45000, c.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `cat ${file}` }] }));
  const ups = (c.updates.get(sessionId) || []).map((x) => x.u);
  const calls = ups.filter((u) => u.sessionUpdate === "tool_call");
  child.stdin.end();
  // a slow exit (a busy machine) is killed and waited for: the agent writes its state dir until
  // it is gone, and the suite fails on what is left in the temp dir
  await within(15000, child.exited).catch(async () => {
    child.kill("SIGKILL");
    await within(10000, child.exited).catch(() => {});
  });
  return { kinds: calls.map((u) => u.kind), content: readFileSync(join(ws, file), "utf8") };
}

const ctl = await oneCard({ RT_NOSTEAL: "1" }, "control.txt");
check(
  ctl.content === "stolen\n" && ctl.kinds[0] === "read" && ctl.kinds.includes("execute"),
  "RC1 acp control: a read card whose tool writes the file flips to a terminal card",
  ctl,
);
const got = await oneCard({}, "plain.txt");
check(
  !(got.content === "stolen\n" && !got.kinds.includes("execute")),
  "RC1 acp: a read card whose tool took the agent's listener and rewrote the file flips",
  got,
);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
