// Shared helpers for the end-to-end tests: spawn `shcard acp`, connect an
// @agentclientprotocol/sdk client (or a raw NDJSON pipe), find descendants.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

// A fresh directory under the temp dir, removed when the test process exits (however it ends
// short of SIGKILL): tests/run.sh fails a suite that leaves anything in the temp dir.
const tempDirs = [];
process.on("exit", () => {
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});
export function tempDir(prefix) {
  const d = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(d);
  return d;
}

export const SHCARD = process.env.SHCARD || new URL("../../shcard", import.meta.url).pathname;

// Exactly the initialize Zed 1.13.2 sends (acp-protocol.md §1.3 / §6.1).
export const ZED_INIT = {
  protocolVersion: 1,
  clientCapabilities: {
    fs: { readTextFile: true, writeTextFile: true },
    terminal: true,
    auth: { terminal: true },
    session: { configOptions: { boolean: {} } },
    elicitation: { form: {}, url: {} },
    _meta: { terminal_output: true, "terminal-auth": true },
  },
  clientInfo: { name: "zed", title: "Zed", version: "1.13.2+stable" },
};

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let passed = 0;
let failed = 0;
export function ok(cond, name, detail) {
  if (cond) {
    passed++;
  } else {
    failed++;
    console.log(`FAIL: ${name}${detail !== undefined ? ": " + JSON.stringify(detail).slice(0, 800) : ""}`);
  }
  return cond;
}
// Key order does not matter.
export function canon(v) {
  if (Array.isArray(v)) return v.map(canon);
  if (v && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])]));
  return v;
}
export function eq(got, want, name) {
  return ok(JSON.stringify(canon(got)) === JSON.stringify(canon(want)), name, { got, want });
}
export function finish() {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

export function startAgent(args = [], opts = {}) {
  const child = spawn(SHCARD, ["acp", ...args], {
    stdio: ["pipe", "pipe", "pipe"],
    cwd: opts.cwd,
    env: { ...process.env, ...(opts.env || {}) },
  });
  child.stderrText = "";
  child.stderr.on("data", (d) => (child.stderrText += d.toString()));
  child.exited = new Promise((resolve) => child.on("exit", (code, sig) => resolve({ code, sig, t: Date.now() })));
  return child;
}

// An SDK client connection.  Records every session/update per session with a timestamp.
// handlers: { permission: (params) => outcome }
export function connect(child, handlers = {}) {
  const updates = new Map();
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  let app = acp
    .client({ name: "shcard-e2e" })
    .onNotification("session/update", (ctx) => {
      const p = ctx.params;
      if (!updates.has(p.sessionId)) updates.set(p.sessionId, []);
      updates.get(p.sessionId).push({ t: Date.now(), u: p.update });
    })
    .onRequest("session/request_permission", async (ctx) => {
      if (handlers.permission) return handlers.permission(ctx.params);
      return { outcome: { outcome: "selected", optionId: "allow" } };
    });
  const conn = app.connect(stream);
  return { conn, ctx: conn.agent, updates };
}

// All descendants of pid (from /proc), as numbers.  With { commandsOnly: true } the agent's
// guardian process (comm "shcard-guard", the commands' parent) is walked through but left out.
export function descendants(pid, opts = {}) {
  const children = new Map();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(d));
    } catch {}
  }
  const out = [];
  const isGuard = (p) => {
    try {
      return readFileSync(`/proc/${p}/comm`, "utf8").trim() === "shcard-guard";
    } catch {
      return false;
    }
  };
  const walk = (p) => {
    for (const c of children.get(p) || []) {
      if (!(opts.commandsOnly && isGuard(c))) out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

export function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

// A raw NDJSON connection: send strings, await parsed lines.
export function raw(child) {
  let buf = "";
  const lines = [];
  const waiters = [];
  child.stdout.on("data", (d) => {
    buf += d.toString();
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      lines.push(JSON.parse(line));
      while (waiters.length) waiters.shift()();
    }
  });
  return {
    lines,
    send(s) {
      child.stdin.write(s);
    },
    async next(pred, ms = 5000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const i = lines.findIndex(pred);
        if (i >= 0) return lines.splice(i, 1)[0];
        if (Date.now() > deadline) return undefined;
        await Promise.race([new Promise((r) => waiters.push(r)), sleep(50)]);
      }
    },
  };
}

export async function within(ms, p) {
  let timer;
  const t = new Promise((_, rej) => (timer = setTimeout(() => rej(new Error(`timed out after ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}

export function text(block) {
  return block?.content?.text;
}

// The fake OpenAI-compatible server (tests/fake_openai.py: real HTTP and SSE on 127.0.0.1)
// playing tests/data/openai/SCRIPT (or SCRIPT itself when it is an absolute path).  Its log gives what it received: requests, GETs, clients
// that went away.  stop() closes its stdin (it exits on EOF) and waits for it.
export async function startFakeServer(script) {
  const root = new URL("../..", import.meta.url).pathname;
  const dir = tempDir("shc-fake-");
  const portFile = join(dir, "port");
  const log = join(dir, "log.jsonl");
  const scriptPath = script.startsWith("/") ? script : join(root, "tests/data/openai", script);
  const proc = spawn("python3", [join(root, "tests/fake_openai.py"), scriptPath,
    "--port-file", portFile, "--log", log, "--stdin-eof"], { stdio: ["pipe", "inherit", "inherit"] });
  // a loaded machine can take seconds to start python3: wait up to 60 s, then say what went wrong
  for (let i = 0; i < 2400 && !existsSync(portFile) && proc.exitCode === null; i++) await sleep(25);
  if (!existsSync(portFile)) throw new Error(`the fake OpenAI server did not start (exit ${proc.exitCode})`);
  const port = Number(readFileSync(portFile, "utf8"));
  const entries = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean).map(JSON.parse) : []);
  return {
    dir,
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => entries().filter((e) => e.kind === "request"),
    gets: () => entries().filter((e) => e.kind === "get"),
    disconnects: () => entries().filter((e) => e.kind === "disconnect"),
    stop: () => new Promise((r) => { proc.on("exit", r); proc.stdin.end(); }),
  };
}
