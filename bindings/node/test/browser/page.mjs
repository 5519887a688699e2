// Run in headless Chromium by tests/suite_npm.sh, twice: bundled by esbuild (pinned; entry.mjs
// hands init() the URL of shcard.wasm that esbuild's file loader emitted) and unbundled (an
// import map names the package's browser entry; init() with no argument loads shcard.wasm next
// to it through `new URL("./shcard.wasm", import.meta.url)`).  The page classifies every command
// of cmds.json and writes the answers into the DOM, which `chromium --dump-dom` prints.
import { init, classify, classifyJSON, version } from "shcard";

export async function run(source) {
  const out = document.getElementById("out");
  try {
    let early = "";
    try {
      classify("ls");
    } catch (e) {
      early = String(e.message);
    }
    await init(source);
    let cwd = "";
    try {
      classify("cat x", { cwd: "/" });
    } catch (e) {
      cwd = String(e.message);
    }
    const cmds = await (await fetch(new URL("./cmds.json", document.baseURI))).json();
    const answers = cmds.map((c) => classifyJSON(c));
    out.textContent = JSON.stringify({ version, early, cwd, answers });
  } catch (e) {
    out.textContent = JSON.stringify({ error: String((e && e.stack) || e) });
  }
}
