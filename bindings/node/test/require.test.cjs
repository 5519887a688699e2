// The npm package from CommonJS (tests/suite_npm.sh installs the packed tarball into a scratch
// project without "type": "module" and runs `node --test` there): require() works (no top-level
// await), gives the CLI's bytes on the whole corpus, and the same instance as import().
"use strict";
const { test } = require("node:test");
const assert = require("node:assert/strict");
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const shcard = require("shcard");
const { SHCARD, SHCARD_ROOT } = process.env;

function corpus() {
  const dir = path.join(SHCARD_ROOT, "corpus");
  return fs.readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort()
    .flatMap((f) => fs.readFileSync(path.join(dir, f), "utf8").split("\n").filter(Boolean))
    .map((l) => JSON.parse(l).cmd);
}

function cliBatch(cmds, ...flags) {
  const input = cmds.map((c) => JSON.stringify({ cmd: c }) + "\n").join("");
  const out = execFileSync(SHCARD, ["explain", "--batch", ...flags], { input, maxBuffer: 1 << 28 });
  return out.toString("latin1").split("\n").slice(0, -1);
}

test("require() resolves to the CommonJS entry, synchronously ready", () => {
  assert.match(require.resolve("shcard"), /index\.cjs$/);
  assert.equal(typeof shcard.classify, "function");
  assert.equal(shcard.classify("ls src").kind, "list");
  assert.ok(shcard.init() instanceof Promise);
});

test("every corpus command: the CLI's bytes", () => {
  const cmds = corpus();
  assert.ok(cmds.length >= 600);
  const want = cliBatch(cmds);
  cmds.forEach((c, i) => assert.equal(shcard.classifyJSON(c), want[i], c));
  const bridge = cliBatch(cmds, "--context", "bridge");
  cmds.forEach((c, i) => assert.equal(shcard.classifyJSON(c, { context: "bridge" }), bridge[i], c));
});

test("import() of the package from CommonJS is the same instance", async () => {
  const esm = await import("shcard");
  assert.equal(esm.classify, shcard.classify);
  assert.equal(esm.version, shcard.version);
});

test("version", () => {
  assert.equal(`shcard ${shcard.version}\n`, execFileSync(SHCARD, ["--version"]).toString());
});
