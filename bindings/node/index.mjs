// shcard for Node, ESM: `import { classify } from "shcard"`.  The same module instance as
// require("shcard") (this file re-exports index.cjs: one WebAssembly instance per process).
import cjs from "./index.cjs";

export const { classify, classifyJSON, contexts, version, init } = cjs;
