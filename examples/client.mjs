#!/usr/bin/env node
// A tiny ACP client (no dependencies) that starts an agent, sends each prompt, and prints every
// card the way an editor shows it: read / search / list rows with their locations, live terminal
// cards with an exit pill, and the console fallback.  Used by `make run` (examples/demo.sh).
//
//   node examples/client.mjs [--cwd DIR] [--no-terminal-output] [--prompt-file F]... -- AGENT ARGS...
//
// Each --prompt-file (or each --prompt TEXT) is one session/prompt turn.  It advertises exactly
// what Zed 1.13 advertises, unless --no-terminal-output drops the _meta.terminal_output flag.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const prompts = [];
let cwd = process.cwd();
let termOutput = true;
let agentArgv = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === "--") { agentArgv = args.slice(i + 1); break; }
  else if (a === "--cwd") cwd = args[++i];
  else if (a === "--prompt") prompts.push(args[++i]);
  else if (a === "--prompt-file") prompts.push(readFileSync(args[++i], "utf8"));
  else if (a === "--no-terminal-output") termOutput = false;
  else { console.error(`client.mjs: unknown option ${a}`); process.exit(2); }
}
if (!agentArgv.length || !prompts.length) {
  console.error("usage: client.mjs [--cwd DIR] [--no-terminal-output] (--prompt TEXT | --prompt-file F)... -- AGENT ARGS...");
  process.exit(2);
}

const tty = process.stdout.isTTY;
const c = (code, s) => (tty ? `\x1b[${code}m${s}\x1b[0m` : s);
const out = (s) => process.stdout.write(s);

const agent = spawn(agentArgv[0], agentArgv.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
let nextId = 1;
const pending = new Map();
const send = (msg) => agent.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\n");
const request = (method, params) =>
  new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    send({ id, method, params });
  });

// ---------------------------------------------------------------- rendering
const cards = new Map(); // toolCallId -> { kind, title, terminal, midLine }
function bar(card) {
  return card.terminal ? c("36", "│ ") : c("2", "│ ");
}
function printBody(card, textIn) {
  // Terminal data keeps CRLF and ANSI; print line by line behind the card's bar.
  const t = textIn.replace(/\r\n/g, "\n");
  for (const ch of t.split(/(\n)/)) {
    if (ch === "\n") {
      out((card.midLine ? "" : bar(card)) + "\n");
      card.midLine = false;
      continue;
    }
    if (!ch) continue;
    if (!card.midLine) out(bar(card));
    out(ch);
    card.midLine = true;
  }
}
function onUpdate(u) {
  switch (u.sessionUpdate) {
    case "agent_message_chunk":
      out(c("1", "agent: ") + (u.content?.text ?? "") + "\n");
      break;
    case "tool_call": {
      const terminal = !!u._meta?.terminal_info;
      const card = { kind: u.kind, title: u.title, terminal, midLine: false };
      cards.set(u.toolCallId, card);
      const where = (u.locations || []).map((l) => l.path + (l.line ? `:${l.line}` : "")).join(", ");
      const label = terminal ? "terminal" : u.kind;
      out(`\n${c("1;35", "┌ " + label)} ${c("1", u.title)}${where ? c("2", "  → " + where) : ""}\n`);
      if (terminal) out(c("2", `│ (live terminal ${u._meta.terminal_info.terminal_id} in ${u._meta.terminal_info.cwd})\n`));
      break;
    }
    case "tool_call_update": {
      const card = cards.get(u.toolCallId) || { terminal: false };
      const data = u._meta?.terminal_output?.data;
      if (data) printBody(card, data);
      if (u.content) {
        for (const b of u.content) {
          if (b.type === "content" && b.content?.type === "text") printBody(card, b.content.text + "\n");
          else if (b.type === "terminal" && !card.terminal) out(bar(card) + c("2", `[client terminal ${b.terminalId}]`) + "\n");
        }
      }
      if (u.status === "completed" || u.status === "failed") {
        if (card.midLine) out("\n");
        const ex = u._meta?.terminal_exit;
        const pill = ex ? (ex.signal ? ` ${ex.signal} ` : ` exit ${ex.exit_code} `) : "";
        const col = u.status === "completed" ? "42;30" : "41;37";
        out(`${c("2", "└")} ${pill ? c(col, pill) + " " : ""}${c(u.status === "completed" ? "32" : "31", u.status)}\n`);
      }
      break;
    }
    default:
      break;
  }
}

// ---------------------------------------------------------------- transport
let buf = "";
agent.stdout.on("data", (d) => {
  buf += d.toString("utf8");
  let i;
  while ((i = buf.indexOf("\n")) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    const msg = JSON.parse(line);
    if (msg.method === "session/update") onUpdate(msg.params.update);
    else if (msg.method === "session/request_permission") {
      out(c("33", `? permission for "${msg.params.toolCall?.title}": allowing once\n`));
      send({ id: msg.id, result: { outcome: { outcome: "selected", optionId: "allow" } } });
    } else if (msg.method !== undefined && msg.id !== undefined) {
      send({ id: msg.id, error: { code: -32601, message: "Method not found" } });
    } else if (msg.id !== undefined && pending.has(msg.id)) {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      msg.error ? p.reject(Object.assign(new Error(msg.error.message), msg.error)) : p.resolve(msg.result);
    }
  }
});

const caps = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: true,
  auth: { terminal: true },
  session: { configOptions: { boolean: {} } },
  elicitation: { form: {}, url: {} },
  _meta: termOutput ? { terminal_output: true, "terminal-auth": true } : { "terminal-auth": true },
};
try {
  const init = await request("initialize", { protocolVersion: 1, clientCapabilities: caps, clientInfo: { name: "shcard-example", version: "1" } });
  out(c("2", `connected to ${init.agentInfo?.name} ${init.agentInfo?.version} (protocol ${init.protocolVersion})\n`));
  const { sessionId } = await request("session/new", { cwd, mcpServers: [] });
  for (const p of prompts) {
    out(c("1;34", "\n> ") + p.trim().split("\n").join(c("1;34", "\n> ")) + "\n");
    const r = await request("session/prompt", { sessionId, prompt: [{ type: "text", text: p }] });
    out(c("2", `[turn ended: ${r.stopReason}]\n`));
  }
} catch (e) {
  console.error(`client.mjs: ${e.message}`);
  process.exitCode = 1;
}
agent.stdin.end();
agent.on("exit", (code) => {
  if (code !== 0) {
    console.error(`client.mjs: agent exited with ${code}`);
    process.exitCode = 1;
  }
});
