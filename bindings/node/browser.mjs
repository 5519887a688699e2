// shcard for browsers and bundlers (the "browser" condition of package.json): no Node API.
// The WebAssembly module is fetched by `await init()`, from shcard.wasm next to this file
// (`new URL("./shcard.wasm", import.meta.url)`, which Vite, webpack 5, Parcel and Rollup's URL
// plugins turn into an asset), or from what init() is given: a URL, a Response, the bytes, or a
// compiled WebAssembly.Module (with esbuild: `import wasm from "shcard/shcard.wasm"` and the
// file loader, then `await init(wasm)`).  classify() before init() throws.
//
// There is no file system here: the cwd option is refused, and every command is judged from its
// text alone (as `shcard explain` without --cwd).
import { importObject, makeApi } from "./api.mjs";

let api = null;
let pending = null;

/** The library's version, e.g. "0.1.0" (empty until init() has finished). */
export let version = "";
/** Where a command may run (shc_context): "any" (unknown) or "bridge" (shcard's executor). */
export const contexts = Object.freeze(["any", "bridge"]);

async function instantiate(source, imports) {
  if (source instanceof WebAssembly.Module) return WebAssembly.instantiate(source, imports);
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source))
    return (await WebAssembly.instantiate(source, imports)).instance;
  const res = source instanceof Response ? source : await fetch(source);
  if (!res.ok) throw new Error(`shcard: cannot load the WebAssembly module ${res.url}: ${res.status}`);
  if (typeof WebAssembly.instantiateStreaming === "function" &&
      (res.headers.get("content-type") || "").startsWith("application/wasm"))
    return (await WebAssembly.instantiateStreaming(res, imports)).instance;
  return (await WebAssembly.instantiate(await res.arrayBuffer(), imports)).instance;
}

/**
 * Loads the classifier (once; later calls return the same promise).
 * @param {string | URL | Response | ArrayBuffer | ArrayBufferView | WebAssembly.Module} [source]
 */
export function init(source) {
  if (!pending) {
    const state = { fs: null, memory: null };
    pending = instantiate(source ?? new URL("./shcard.wasm", import.meta.url), importObject(state))
      .then((instance) => {
        api = makeApi(instance, state);
        version = api.version;
      })
      .catch((e) => {
        pending = null; // a failed load may be retried
        throw e;
      });
  }
  return pending;
}

function ready() {
  if (!api) throw new Error("shcard: call `await init()` before classify() in the browser");
  return api;
}

/** As index.d.ts: the verdict of `shcard explain --json` as an object. */
export function classify(command, options) {
  return ready().classify(command, options);
}

/** As index.d.ts: the verdict as the line `shcard explain --json` prints. */
export function classifyJSON(command, options) {
  return ready().classifyJSON(command, options);
}
