// The npm package as its users get it (tests/suite_npm.sh installs the packed tarball into a
// scratch project and runs `node --test` there): every corpus command gets the bytes
// `shcard explain --batch` prints, with and without unwrapping; options, bytes, errors.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";

import { classify, classifyJSON, version } from "shcard";

const SHCARD = process.env.SHCARD;
const ROOT = process.env.SHCARD_ROOT;
assert.ok(SHCARD && ROOT, "SHCARD (the CLI) and SHCARD_ROOT (the source tree) must be set");

const corpus = fs.readdirSync(path.join(ROOT, "corpus"))
  .filter((f) => f.endsWith(".jsonl")).sort()
  .flatMap((f) => fs.readFileSync(path.join(ROOT, "corpus", f), "utf8").split("\n").filter(Boolean))
  .map((l) => JSON.parse(l).cmd);

function cliBatch(cmds, ...flags) {
  const input = cmds.map((c) => JSON.stringify({ cmd: c }) + "\n").join("");
  const out = execFileSync(SHCARD, ["explain", "--batch", ...flags], { input, maxBuffer: 1 << 28 });
  return out.toString("latin1").split("\n").slice(0, -1);
}

test("the corpus is there", () => {
  assert.ok(corpus.length >= 600, `${corpus.length} commands`);
});

test("every corpus command: the CLI's bytes and object", () => {
  const want = cliBatch(corpus);
  assert.equal(want.length, corpus.length);
  corpus.forEach((cmd, i) => {
    assert.equal(classifyJSON(cmd), want[i], cmd);
    assert.deepEqual(classify(cmd), JSON.parse(want[i]), cmd);
  });
});

test("every corpus command with unwrap: false equals --no-unwrap", () => {
  const want = cliBatch(corpus, "--no-unwrap");
  corpus.forEach((cmd, i) => assert.equal(classifyJSON(cmd, { unwrap: false }), want[i], cmd));
});

test("every corpus command with context: bridge equals --context bridge", () => {
  const want = cliBatch(corpus, "--context", "bridge");
  corpus.forEach((cmd, i) => assert.equal(classifyJSON(cmd, { context: "bridge" }), want[i], cmd));
  assert.equal(classify("rg foo", { context: "bridge" }).kind, "search");
  assert.equal(classify("rg foo").kind, "terminal");
  assert.throws(() => classify("ls", { context: "tty" }), RangeError);
});

test("fields, names and order", () => {
  const v = classify("rg -n foo src");
  assert.deepEqual(Object.keys(v), ["cmd", "kind", "title", "path", "query", "line", "locations",
    "reason", "span", "script", "wrapped", "argv"]);
  assert.equal(v.kind, "search");
  assert.equal(v.title, "Search for 'foo' in src");
  assert.deepEqual([v.path, v.query, v.line], ["src", "foo", null]);
  assert.deepEqual(v.argv, ["rg", "-n", "foo", "src"]);
});

test("fails closed", () => {
  for (const cmd of ["rm -rf /", "sed -i s/a/b/ f", "cat $(ls)", "ls > out", "unterminated '"]) {
    const v = classify(cmd);
    assert.equal(v.kind, "terminal", cmd);
    assert.ok(v.reason.length > 0);
  }
});

test("non-ASCII, NUL and bytes", () => {
  const cmds = ["cat 'café.txt'", "rg '😀' src", "cat a\0b"];
  const want = cliBatch(cmds);
  cmds.forEach((c, i) => assert.equal(classifyJSON(c), want[i]));
  assert.equal(classifyJSON(new TextEncoder().encode("cat 'café.txt'")), want[0]);
  assert.match(classify(new Uint8Array([0x63, 0x61, 0x74, 0x20, 0xff])).cmd, /\ufffd/);
  assert.throws(() => classify(42), TypeError);
});

test("a long command grows the module's memory", () => {
  const cmd = "cat " + Array.from({ length: 3000 }, (_, i) => `f${i}.txt`).join(" ");
  assert.equal(classifyJSON(cmd), cliBatch([cmd])[0]);
});

test("cwd: what the command would read is stat()ed", async () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "shcard-npm-"));
  const server = net.createServer();
  await new Promise((resolve) => server.listen(path.join(d, "sock"), resolve));
  try {
    execFileSync("mkfifo", [path.join(d, "pipe")]);
    fs.writeFileSync(path.join(d, "file"), "x\n");
    fs.symlinkSync("pipe", path.join(d, "link"));
    fs.symlinkSync("/", path.join(d, "root"));
    fs.symlinkSync("/proc/self/status", path.join(d, "self"));
    assert.equal(classify("cat pipe", { cwd: d }).kind, "terminal");
    assert.equal(classify("cat link", { cwd: d }).kind, "terminal");
    assert.equal(classify("cat file", { cwd: d }).kind, "read");
    assert.equal(classify("cat pipe").kind, "read"); // no cwd: no stat
    assert.match(classify("cat sock", { cwd: d }).reason, /socket/);
    assert.equal(classify("ls root", { cwd: d }).kind, "terminal"); // realpath: leads to /
    const cmds = ["cat pipe", "cat link", "cat file", "cat sock", "ls .", "ls root", "cat self", "cat /dev/null"];
    const cli = execFileSync(SHCARD, ["explain", "--json", "--cwd", d, ...cmds]).toString().split("\n").slice(0, -1);
    assert.deepEqual(cmds.map((c) => classifyJSON(c, { cwd: d })), cli);
    assert.throws(() => classify("cat x", { cwd: path.join(d, "nope") }));
  } finally {
    server.close();
    fs.rmSync(d, { recursive: true, force: true });
  }
});

test("version", () => {
  assert.equal(`shcard ${version}\n`, execFileSync(SHCARD, ["--version"]).toString());
});
