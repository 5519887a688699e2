// ACP v2 helpers for the end-to-end tests: a v2 SDK client connection on `shcard acp` that
// records every frame in both directions, and the validator that checks every frame shcard sends
// against the v2 JSON schema of the pinned SDK (@agentclientprotocol/sdk 2.4.0,
// schema/v2/schema.json) with ajv.
import { createRequire } from "node:module";
import { Readable, Writable } from "node:stream";
import * as acp2 from "@agentclientprotocol/sdk/experimental/v2";

const require = createRequire(import.meta.url);
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats");
const SCHEMA = require("@agentclientprotocol/sdk/schema/v2/schema.json");

// ---------------------------------------------------------------- the validator

let ajv;
function compiled() {
  if (ajv) return ajv;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // the schema's integer formats (Rust types), checked for what they say
  const ranges = { int32: [-(2 ** 31), 2 ** 31 - 1], int64: [-(2 ** 63), 2 ** 63], uint16: [0, 65535],
    uint32: [0, 2 ** 32 - 1], uint64: [0, 2 ** 64] };
  for (const [name, [lo, hi]] of Object.entries(ranges))
    ajv.addFormat(name, { type: "number", validate: (x) => Number.isInteger(x) && x >= lo && x <= hi });
  ajv.addSchema(SCHEMA, "acp");
  return ajv;
}
const def = (name) => compiled().getSchema(`acp#/$defs/${name}`);

// The answer type of each agent method a client may call.
const RESULT = {
  initialize: "InitializeResponse", "session/new": "NewSessionResponse", "session/prompt": "PromptResponse",
  "session/list": "ListSessionsResponse", "session/resume": "ResumeSessionResponse",
  "session/close": "CloseSessionResponse", "session/delete": "DeleteSessionResponse",
  "session/set_config_option": "SetSessionConfigOptionResponse", "terminal/cancel": "CancelTerminalResponse",
};
const AGENT_REQUEST = { "session/request_permission": "RequestPermissionRequest" };
const AGENT_NOTIFICATION = { "session/update": "UpdateSessionNotification", "$/cancel_request": "CancelRequestNotification" };

// Properties the schema gives a def (through allOf), for the "no custom fields at the root" check.
function propsOf(name, seen = new Set()) {
  const d = SCHEMA.$defs[name];
  const keys = new Set(Object.keys(d?.properties || {}));
  for (const part of [...(d?.allOf || []), ...(d?.anyOf || [])]) {
    const ref = part.$ref || part.allOf?.[0]?.$ref;
    if (ref && !seen.has(ref)) {
      seen.add(ref);
      for (const k of propsOf(ref.split("/").pop(), seen)) keys.add(k);
    }
    for (const k of Object.keys(part.properties || {})) keys.add(k);
  }
  return keys;
}
const updateDefs = Object.fromEntries(
  SCHEMA.$defs.SessionUpdate.anyOf.filter((v) => v.properties?.sessionUpdate?.const)
    .map((v) => [v.properties.sessionUpdate.const, v.allOf[0].$ref.split("/").pop()]));

// Checks one frame shcard sent.  sent: Map of our request id -> method.  Returns error strings.
export function checkFrame(frame, sent) {
  const errs = [];
  const run = (name, value, where) => {
    const v = def(name);
    if (!v(value)) errs.push(`${where}: not a ${name}: ${ajv.errorsText(v.errors?.slice(0, 4))}`);
  };
  const envelope = compiled().getSchema("acp");
  if (!envelope(frame)) errs.push(`envelope: ${ajv.errorsText(envelope.errors?.slice(0, 4))}`);
  if (frame.jsonrpc !== "2.0") errs.push("jsonrpc is not 2.0");
  if ("result" in frame || "error" in frame) {
    if (frame.error) run("Error", frame.error, "error");
    else {
      const method = sent.get(frame.id);
      if (!method) errs.push(`a result for id ${frame.id}, which we never sent`);
      else if (RESULT[method]) run(RESULT[method], frame.result, `result of ${method}`);
      else errs.push(`a result for ${method}, which has no v2 result type`);
    }
  } else if ("id" in frame) {
    if (AGENT_REQUEST[frame.method]) run(AGENT_REQUEST[frame.method], frame.params, frame.method);
    else errs.push(`request ${frame.method} is not a v2 agent request`);
  } else {
    if (AGENT_NOTIFICATION[frame.method]) run(AGENT_NOTIFICATION[frame.method], frame.params, frame.method);
    else errs.push(`notification ${frame.method} is not a v2 agent notification`);
    const u = frame.params?.update;
    if (frame.method === "session/update" && u) {
      const name = updateDefs[u.sessionUpdate];
      if (!name) errs.push(`unknown sessionUpdate ${u.sessionUpdate}`);
      else {
        const allowed = propsOf(name);
        if (u.sessionUpdate === "state_update") for (const s of ["Running", "Idle", "RequiresAction"]) for (const k of propsOf(`${s}StateUpdate`)) allowed.add(k);
        if (u.sessionUpdate === "state_update") ["state", "error"].forEach((k) => allowed.add(k));
        for (const k of Object.keys(u)) if (k !== "sessionUpdate" && !allowed.has(k)) errs.push(`${u.sessionUpdate} has a field the schema does not know: ${k}`);
      }
    }
  }
  return errs;
}

// ---------------------------------------------------------------- connections

// Taps both directions of a child's stdio: frames we send (request ids -> methods) and every
// line shcard writes, parsed.
export function tap(child) {
  const sent = new Map();
  const frames = [];
  const bad = [];
  const write = child.stdin.write.bind(child.stdin);
  child.stdin.write = (chunk, ...rest) => {
    for (const line of Buffer.from(chunk).toString().split("\n")) {
      try {
        const m = JSON.parse(line);
        if (m && m.method && "id" in m) sent.set(m.id, m.method);
      } catch {}
    }
    return write(chunk, ...rest);
  };
  let buf = "";
  child.stdout.on("data", (d) => {
    buf += d.toString();
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        frames.push(JSON.parse(line));
      } catch {
        bad.push(line);
      }
    }
  });
  return {
    sent, frames, bad,
    // Every frame so far against the schema: [] when all are valid.
    validate() {
      const out = bad.map((l) => `not JSON: ${l.slice(0, 200)}`);
      frames.forEach((f, i) => {
        for (const e of checkFrame(f, sent)) out.push(`frame ${i} (${JSON.stringify(f).slice(0, 160)}): ${e}`);
      });
      return out;
    },
  };
}

// A v2 SDK client on a running agent.  Every session/update is recorded per session (with a
// timestamp); handlers.permission(params) answers session/request_permission.
export function connectV2(child, handlers = {}) {
  const recorder = tap(child);
  const updates = new Map();
  const permissions = [];
  const stream = acp2.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const app = acp2
    .client({ name: "shcard-e2e-v2" })
    .onNotification("session/update", (ctx) => {
      const p = ctx.params;
      if (!updates.has(p.sessionId)) updates.set(p.sessionId, []);
      updates.get(p.sessionId).push({ t: Date.now(), u: p.update });
    })
    .onRequest("session/request_permission", async (ctx) => {
      permissions.push(ctx.params);
      if (handlers.permission) return handlers.permission(ctx.params, ctx);
      return { outcome: { outcome: "selected", optionId: "allow" } };
    });
  const conn = app.connect(stream);
  return { conn, ctx: conn.agent, updates, permissions, recorder };
}

export const V2_INIT = { protocolVersion: 2, info: { name: "shcard-e2e-v2", version: "1.0.0" }, capabilities: {} };

// Resolves once the session reports idle after `since` updates (the end of a turn in v2).
export async function idle(updates, sessionId, since = 0, ms = 15000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const ups = (updates.get(sessionId) || []).slice(since);
    const i = ups.findIndex((x) => x.u.sessionUpdate === "state_update" && x.u.state === "idle");
    if (i >= 0) return ups.slice(0, i + 1);
    if (Date.now() > deadline) throw new Error(`no idle state_update within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const b64 = (s) => Buffer.from(s, "base64");
