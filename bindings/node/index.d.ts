/** The card an editor shows for a command. */
export type Kind = "read" | "search" | "list" | "terminal";

export interface Location {
  /** as written, joined onto a preceding `cd DIR &&` */
  path: string;
  /** 1-based first line, or null */
  line: number | null;
}

/** Exactly the object `shcard explain --json` prints. */
export interface Verdict {
  /** the command as given */
  cmd: string;
  kind: Kind;
  /** e.g. "Read file 'src/foo.ts' (lines 1-40)"; for terminal, the command without its bash -lc wrapper */
  title: string;
  /** file read, search root or listed directory */
  path: string | null;
  /** search pattern after quote removal */
  query: string | null;
  /** first line shown */
  line: number | null;
  /** every path, for an editor's follow-along */
  locations: Location[];
  /** for terminal, the rule that decided; otherwise the rule that accepted */
  reason: string;
  /** byte offsets in `script` of the word or construct that decided */
  span: { start: number; end: number };
  /** the text spans refer to (the unwrapped script) */
  script: string;
  /** the bash -lc / sh -c wrapper was stripped */
  wrapped: boolean;
  /** the primary command's decoded argv */
  argv: string[] | null;
}

export interface ClassifyOptions {
  /** judge `bash -lc 'SCRIPT'` (and `sh -c`) by SCRIPT (default true); false: as written (terminal) */
  unwrap?: boolean;
  /** the directory the command will run in (Node only; the browser entry refuses it): relative
   * paths are judged from it, and every file it would read is stat()ed (a FIFO, device or
   * socket makes it terminal) */
  cwd?: string;
  /** where it will run: "any" (unknown, the default: stdin may be open, a pager may start) or
   * "bridge" (shcard's executor: stdin /dev/null, a PTY, pagers set to cat) */
  context?: "any" | "bridge";
}

/** Classifies a shell command. Never throws for bad shell (that is a terminal verdict). */
export function classify(command: string | Uint8Array, options?: ClassifyOptions): Verdict;
/** The verdict as the exact line `shcard explain --json` prints (without the newline). */
export function classifyJSON(command: string | Uint8Array, options?: ClassifyOptions): string;
/** The contexts a command may run in. */
export const contexts: readonly ["any", "bridge"];
/** The library's version, e.g. "0.1.0" (in a browser, "" until init() has finished). */
export const version: string;
/**
 * Loads the WebAssembly module.  In Node it is loaded when the package is (this resolves at
 * once); in a browser, call `await init()` before classify(): it fetches shcard.wasm next to
 * the package's browser entry, or what it is given (a URL, a Response, the bytes or a compiled
 * module).  Later calls return the same promise.
 */
export function init(
  source?: string | URL | Response | ArrayBuffer | ArrayBufferView | WebAssembly.Module,
): Promise<void>;
