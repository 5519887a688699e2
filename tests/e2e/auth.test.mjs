// End-to-end: authentication with a real @agentclientprotocol/sdk client sending Zed's initialize.
// authMethods in their exact shapes, authenticate rejected (-32602) for a method never
// advertised and refused (-32000) before any setup, then a setup written by another process (as
// `shcard login` writes it: the config file, mode 0600) accepted by authenticate and used by the
// next session/new of the same running agent against the fake OpenAI server on loopback.
// Prints "N passed, N failed".
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SHCARD, ZED_INIT, ok, eq, finish, startAgent, connect, startFakeServer, tempDir } from "./lib.mjs";

const tmp = realpathSync(tempDir("shcard-auth-e2e-"));
const xdg = join(tmp, "config");
const env = { HOME: tmp, XDG_CONFIG_HOME: xdg, DEEPSEEK_API_KEY: "", OPENAI_API_KEY: "", SHCARD_CONFIG: "" };

async function codeOf(p) {
  try {
    await p;
    return "resolved";
  } catch (e) {
    return e.code;
  }
}

const server = await startFakeServer("text.json");
const agent = startAgent(["--no-store"], { env });
const { ctx, updates } = connect(agent);

const init = await ctx.request("initialize", ZED_INIT);
eq(init.authMethods, [
  {
    id: "shcard-login", name: "Set up shcard in a terminal",
    description: "Choose DeepSeek, another OpenAI-compatible server or shell mode, and type the API key (shcard login)",
    type: "terminal", args: ["login"],
    _meta: { "terminal-auth": { command: realpathSync(SHCARD), args: ["login"], label: "shcard login" } },
  },
  {
    id: "api-key-env", name: "API key in the environment",
    description: "Start shcard with DEEPSEEK_API_KEY (DeepSeek) or OPENAI_API_KEY (the server base_url names) set; one of them is enough",
    type: "env_var",
    vars: [
      { name: "DEEPSEEK_API_KEY", label: "DeepSeek API key", secret: true, optional: true },
      { name: "OPENAI_API_KEY", label: "OpenAI-compatible API key", secret: true, optional: true },
    ],
    link: "https://platform.deepseek.com/api_keys",
  },
], "initialize: authMethods (terminal with its _meta, env_var)");

eq(await codeOf(ctx.request("authenticate", { methodId: "made-up" })), -32602, "authenticate made-up: -32602");
eq(await codeOf(ctx.request("authenticate", { methodId: "shcard-login" })), -32000, "authenticate before any setup: -32000");
eq(await codeOf(ctx.request("authenticate", { methodId: "api-key-env" })), -32000, "authenticate env_var without the variables: -32000");

const s1 = await ctx.request("session/new", { cwd: tmp, mcpServers: [] });
eq((s1.configOptions || []).map((o) => o.id), ["mode", "sandbox", "network"], "before the setup: shell mode (no model option)");
eq((s1.configOptions || []).find((o) => o.id === "sandbox")?.currentValue, "off", "before the setup: shell mode runs commands as typed");

// what shcard login saves, written by another process
mkdirSync(join(xdg, "shcard"), { recursive: true, mode: 0o700 });
const cfg = join(xdg, "shcard", "config");
writeFileSync(cfg, `base_url = ${server.url}\nmodel = fake-model\napi_key = sk-e2e-login\n`, { mode: 0o600 });
chmodSync(cfg, 0o600);

eq(await ctx.request("authenticate", { methodId: "shcard-login" }), {}, "authenticate after the setup: {}");
const s2 = await ctx.request("session/new", { cwd: tmp, mcpServers: [] });
const model = (s2.configOptions || []).find((o) => o.id === "model");
eq(model?.currentValue, "fake-model", "the next session uses the new model, no restart");
eq((s2.configOptions || []).find((o) => o.id === "sandbox")?.currentValue, "workspace", "the model's session sandboxes its commands");
const r = await ctx.request("session/prompt", { sessionId: s2.sessionId, prompt: [{ type: "text", text: "hi" }] });
eq(r.stopReason, "end_turn", "the model's turn ends");
const said = (updates.get(s2.sessionId) || []).map(({ u }) => u.content?.text || "").join("");
eq(said, "Hello, world", "the model's answer");
eq(server.requests().map((q) => q.authorization), ["Bearer sk-e2e-login"], "the server got the saved key");
ok(!agent.stderrText.includes("sk-e2e-login"), "the key is not in the agent's log");

agent.stdin.end();
eq((await agent.exited).code, 0, "agent exits 0");
await server.stop();
finish();
