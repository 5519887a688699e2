// Compiled by tsc (pinned) in scratch projects: module nodenext with "type": "module" and
// without it (CommonJS), and module commonjs; each build then runs with node and prints the
// verdicts of cmds.ts, one line each (tests/suite_npm.sh compares them with the CLI's).
import { classify, classifyJSON, contexts, init, version } from "shcard";
import type { ClassifyOptions, Kind, Verdict } from "shcard";
import { cmds } from "./cmds.js";

const opts: ClassifyOptions = { context: contexts[0] };
const v: Verdict = classify("rg -n foo src", opts);
const k: Kind = v.kind;
const ready: Promise<void> = init();
void ready;
const lines: string[] = cmds.map((c: string) => classifyJSON(c));
console.log(`${version} ${k} ${v.locations.length}`);
console.log(lines.join("\n"));
