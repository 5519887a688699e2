// The shcard classifier's JavaScript side, shared by every entry of the package: index.cjs
// (Node, CommonJS), index.mjs (Node, ESM: re-exports index.cjs) and browser.mjs (no Node APIs,
// an async init()).  This file holds no import and no top-level await; `make npm` turns it into
// api.cjs for index.cjs by dropping the `export` keywords (keep its exports to
// `export function` lines).
//
// classify() returns exactly what `shcard explain --json` prints for the same command (the same
// C code, built for wasm32-wasi): cmd, kind ("read" | "search" | "list" | "terminal"), title,
// path, query, line, locations [{path, line}], reason, span {start, end}, script, wrapped,
// argv; null where there is none.  The verdict is for display: it names the card an editor
// shows and never decides whether or how a command runs.
//
// The module imports no file system: the classifier's stat() and realpath() (with a cwd) are
// the host's, answered here with Node's fs when the entry passes it (host.fs); a browser has
// none, so there the cwd option is refused and every command is judged from its text alone.

const S_IFMT = 0o170000;
const ENOSYS = 52; // WASI errno: the module's few stdio imports are never used for I/O

/** The import object for one instance; state.memory is set by makeApi(). */
export function importObject(state) {
  const fs = state.fs;
  // stat(): the S_IFMT bits of the mode, following symlinks, or 0 when it cannot be stat()ed
  const shcardStat = (ptr, len) => {
    if (!fs) return 0;
    try {
      const st = fs.statSync(Buffer.from(new Uint8Array(state.memory.buffer, ptr, len)), { throwIfNoEntry: false });
      return st ? Number(st.mode) & S_IFMT : 0;
    } catch {
      return 0;
    }
  };
  // realpath(3) of the path into out[0..cap): the length (>= cap: it did not fit), or -1
  const shcardRealpath = (ptr, len, out, cap) => {
    if (!fs) return -1;
    try {
      const real = fs.realpathSync(Buffer.from(new Uint8Array(state.memory.buffer, ptr, len)), { encoding: "buffer" });
      if (real.length < cap) new Uint8Array(state.memory.buffer, out, cap).set(real);
      return real.length;
    } catch {
      return -1;
    }
  };
  const nosys = () => ENOSYS;
  return {
    env: { shcard_stat: shcardStat, shcard_realpath: shcardRealpath },
    wasi_snapshot_preview1: { fd_close: nosys, fd_seek: nosys, fd_write: nosys },
  };
}

/** The API over an instance made with importObject(state). */
export function makeApi(instance, state) {
  const ex = instance.exports;
  const memory = ex.memory;
  state.memory = memory;
  ex._initialize();
  const fs = state.fs;
  const decoder = new TextDecoder("utf-8");
  const encoder = new TextEncoder();

  function cString(ptr) {
    const m = new Uint8Array(memory.buffer);
    let end = ptr;
    while (m[end] !== 0) end++;
    return decoder.decode(m.subarray(ptr, end));
  }

  const contexts = Object.freeze(["any", "bridge"]);
  const version = cString(ex.shcw_version());

  function toBytes(command) {
    if (typeof command === "string") return encoder.encode(command);
    if (command instanceof Uint8Array) return command;
    throw new TypeError(`shcard: command must be a string or a Uint8Array, not ${typeof command}`);
  }

  // As `shcard explain --cwd DIR`: the real path of an existing directory.
  function realDir(cwd) {
    if (!fs) throw new Error("shcard: the cwd option needs Node's fs (it stat()s what the command would read); in a browser, commands are judged from their text alone");
    const real = fs.realpathSync(cwd);
    if (!fs.statSync(real).isDirectory()) throw new Error(`shcard: cwd is not a directory: ${cwd}`);
    return real;
  }

  /**
   * The verdict as one line of JSON: the bytes `shcard explain --json` prints, without the newline.
   * @param {string | Uint8Array} command
   * @param {{unwrap?: boolean, cwd?: string, context?: "any" | "bridge"}} [options]
   * @returns {string}
   */
  function classifyJSON(command, options = {}) {
    const cmd = toBytes(command);
    const unwrap = options.unwrap ?? true;
    const context = contexts.indexOf(options.context ?? "any");
    if (context < 0) throw new RangeError(`shcard: context must be "any" or "bridge", not ${options.context}`);
    const cwd = options.cwd == null ? null : encoder.encode(realDir(options.cwd));
    // one block: the command, the cwd (NUL-terminated) and the length out-parameter
    const cwdLen = cwd ? cwd.length + 1 : 0;
    const block = ex.shcw_alloc(cmd.length + cwdLen + 8);
    if (!block) throw new RangeError("shcard: out of memory");
    try {
      const lenPtr = (block + cmd.length + cwdLen + 3) & ~3;
      let m = new Uint8Array(memory.buffer);
      m.set(cmd, block);
      let cwdPtr = 0;
      if (cwd) {
        cwdPtr = block + cmd.length;
        m.set(cwd, cwdPtr);
        m[cwdPtr + cwd.length] = 0;
      }
      const out = ex.shcw_classify(block, cmd.length, unwrap ? 0 : 1, cwdPtr, context, lenPtr);
      if (!out) throw new RangeError("shcard: out of memory");
      const n = new DataView(memory.buffer).getUint32(lenPtr, true);
      m = new Uint8Array(memory.buffer, out, n); // memory may have grown: a new view
      const json = decoder.decode(m); // ASCII
      ex.shc_free(out);
      return json;
    } finally {
      ex.shcw_free(block);
    }
  }

  /**
   * Classifies a shell command into the card an editor shows.  Never throws for bad shell: a
   * command that does not parse is "terminal", with the diagnostic as its reason.
   * @param {string | Uint8Array} command  the command as the agent gave it (e.g. `bash -lc '...'`)
   * @param {{unwrap?: boolean, cwd?: string, context?: "any" | "bridge"}} [options]  unwrap
   *   (default true): judge `bash -lc SCRIPT` by SCRIPT; cwd: the directory it runs in (paths are
   *   judged from it and what it would read is stat()ed: a FIFO, device or socket makes it
   *   terminal); context: where it runs, "any" (unknown, the default) or "bridge" (shcard's
   *   executor: stdin /dev/null, a PTY, pagers set to cat)
   */
  function classify(command, options = {}) {
    return JSON.parse(classifyJSON(command, options));
  }

  return { classify, classifyJSON, contexts, version };
}
