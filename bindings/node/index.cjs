// shcard for Node, CommonJS: `const { classify } = require("shcard")`.  The WebAssembly module
// is compiled and instantiated synchronously when the package is first required (no top-level
// await, so require() works, and so does import: index.mjs re-exports this file).
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { importObject, makeApi } = require("./api.cjs");

const state = { fs, memory: null };
const wasm = new WebAssembly.Module(fs.readFileSync(path.join(__dirname, "shcard.wasm")));
const api = makeApi(new WebAssembly.Instance(wasm, importObject(state)), state);

exports.classify = api.classify;
exports.classifyJSON = api.classifyJSON;
exports.contexts = api.contexts;
exports.version = api.version;
/** Ready at once in Node: for code shared with the browser entry, which must be initialised. */
exports.init = function init() {
  return Promise.resolve();
};
