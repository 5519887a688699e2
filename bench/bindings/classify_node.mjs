// bench_bindings.sh: the npm package (WebAssembly) over the same records as classify_c.c.
// Prints commands_per_s for classifyJSON (string) and classify (object), best of three.
import * as fs from "node:fs";
import { classify, classifyJSON } from "shcard";

const minMs = Number(process.argv[2] ?? 1000);
const cmds = process.argv.slice(3).flatMap((p) => fs.readFileSync(p, "utf8").split("\n").filter(Boolean))
  .map((l) => JSON.parse(l).cmd);

function rate(fn) {
  let best = 0;
  for (let pass = 0; pass < 3; pass++) {
    let done = 0, t;
    const t0 = performance.now();
    do {
      for (const c of cmds) fn(c);
      done += cmds.length;
      t = performance.now() - t0;
    } while (t < minMs);
    best = Math.max(best, (done * 1000) / t);
  }
  return best;
}

console.log(`json_per_s=${rate(classifyJSON).toFixed(0)} dict_per_s=${rate(classify).toFixed(0)}`);
