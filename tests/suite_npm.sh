#!/usr/bin/env bash
# The npm package (make npm: $BUILD/npm/shcard-VERSION.tgz, the classifier as WebAssembly):
# what the tarball holds, publint and @arethetypeswrong/cli on it (pinned devDependencies of
# bindings/node, make npm-deps), then installed (offline) into fresh scratch projects and tested
# there against the CLI on the corpus: ESM (`node --test`), CommonJS (require, `node --test`),
# TypeScript with module nodenext (ESM and CommonJS projects) and commonjs, compiled by tsc and
# run; an esbuild browser bundle and the unbundled browser entry, run in headless Chromium; and
# the README's TypeScript ACP adapter example run (tsx) against the installed package.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
VERSION=$(sed -n 's/^#define SHC_VERSION "\(.*\)"/\1/p' include/shcard.h)
TGZ="$PWD/$BUILD/npm/shcard-$VERSION.tgz"
[ -f "$TGZ" ] || { echo "missing $TGZ (make npm)"; echo "0 passed, 1 failed"; exit 1; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

# ---- the tarball: ESM, types, the module, no native code, no install scripts, no dependencies
files=$(tar tzf "$TGZ" | sort | tr '\n' ' ')
expect_eq "tarball files" "$files" "package/LICENSE package/README.md package/api.cjs package/api.mjs package/browser.mjs package/index.cjs package/index.d.cts package/index.d.ts package/index.mjs package/package.json package/shcard.wasm "
tar xzf "$TGZ" -C "$T"
node -e '
const p = JSON.parse(require("fs").readFileSync(process.argv[1] + "/package/package.json"));
const bad = [];
if (p.name !== "shcard") bad.push("name " + p.name);
if (p.version !== process.argv[2]) bad.push("version " + p.version);
if (p.type !== "module") bad.push("not ESM");
if (p.license !== "Apache-2.0") bad.push("license " + p.license);
const e = p.exports["."];
if (e.import.types !== "./index.d.ts" || e.import.default !== "./index.mjs") bad.push("import condition");
if (e.require.types !== "./index.d.cts" || e.require.default !== "./index.cjs") bad.push("require condition");
if (e.browser.default !== "./browser.mjs" || Object.keys(e)[0] !== "browser") bad.push("browser condition first");
if (p.main !== "./index.cjs" || p.types !== "./index.d.cts") bad.push("main/types for node10");
for (const k of ["dependencies", "scripts", "gypfile", "binary"]) if (p[k]) bad.push("has " + k);
if (bad.length) { console.log(bad.join(", ")); process.exit(1); }' "$T" "$VERSION" && ok || fail "package.json"
cmp -s "$T/package/LICENSE" LICENSE && ok || fail "the package's LICENSE is not the repository's"
head -c 4 "$T/package/shcard.wasm" | od -An -c | grep -q 'a   s   m' && ok || fail "shcard.wasm is not WebAssembly"
node -e 'const m = new WebAssembly.Module(require("fs").readFileSync(process.argv[1]));
const imp = WebAssembly.Module.imports(m).map((i) => i.module + "." + i.name).sort().join(" ");
console.log(imp);' "$T/package/shcard.wasm" >"$T/imports"
expect_eq "the module imports no file system (only the host's stat and realpath, and unused stdio)" "$(cat "$T/imports")" \
  "env.shcard_realpath env.shcard_stat wasi_snapshot_preview1.fd_close wasi_snapshot_preview1.fd_seek wasi_snapshot_preview1.fd_write"
# the browser entry and what it imports use no Node API; no file has a top-level await
check "browser entry: no node: import, no require" bash -c "! grep -nE 'node:|require\\(' '$T/package/browser.mjs' '$T/package/api.mjs'"
check "no top-level await" node -e 'for (const f of ["index.mjs", "browser.mjs", "api.mjs"]) {
  const src = require("fs").readFileSync(process.argv[1] + "/package/" + f, "utf8");
  if (/^await |^(export )?(const|let) .*= await /m.test(src)) { console.log(f); process.exit(1); } }' "$T"
cmp -s "$T/package/index.d.ts" "$T/package/index.d.cts" && ok || fail "index.d.cts is not index.d.ts"

# ---- publint and @arethetypeswrong/cli (pinned in bindings/node, make npm-deps)
NMB="$PWD/bindings/node/node_modules/.bin"
if [ -x "$NMB/publint" ] && [ -x "$NMB/attw" ] && [ -x "$NMB/tsc" ] && [ -x "$NMB/esbuild" ]; then ok
else fail "no publint, attw, tsc or esbuild in bindings/node/node_modules (make npm-deps)"; fi
(cd "$T/package" && "$NMB/publint" --strict .) >"$T/publint.log" 2>&1 && grep -q "All good" "$T/publint.log" \
  && ok || { fail "publint --strict"; cat "$T/publint.log"; }
# (shcard.wasm is an asset, exported for bundlers' file loaders, not a module with types)
"$NMB/attw" --exclude-entrypoints shcard.wasm --format table-flipped "$TGZ" >"$T/attw.log" 2>&1 \
  && grep -q "No problems found" "$T/attw.log" && ok || { fail "attw (are the types wrong)"; cat "$T/attw.log"; }

nodever=$(node -p 'process.versions.node.split(".")[0]')
[ "$nodever" -ge 18 ] && ok || fail "node $nodever is older than 18"

# ---- installed into a scratch project, offline, and tested there
mkdir "$T/proj"
echo '{"name": "scratch", "private": true, "type": "module"}' >"$T/proj/package.json"
if (cd "$T/proj" && npm install --offline --no-audit --no-fund --loglevel=error "$TGZ") >"$T/npm.log" 2>&1; then ok
else fail "npm install of the tarball: $(tail -5 "$T/npm.log")"; fi
cp bindings/node/test/*.test.mjs "$T/proj/"
(cd "$T/proj" && SHCARD="$SHCARD" SHCARD_ROOT="$OLDPWD" node --test) >"$T/test.log" 2>&1
p=$(sed -nE 's/^# pass ([0-9]+)$/\1/p' "$T/test.log"); f=$(sed -nE 's/^# fail ([0-9]+)$/\1/p' "$T/test.log")
if [ -z "$p" ] || [ "${p:-0}" -eq 0 ]; then fail "node --test ran no test"; tail -30 "$T/test.log"
else _pass=$((_pass + p)); _fail=$((_fail + ${f:-0})); [ "${f:-0}" -eq 0 ] || tail -60 "$T/test.log"; fi

# ---- CommonJS: require("shcard") in a project without "type": "module"
mkdir "$T/cjs"
echo '{"name": "scratch-cjs", "private": true}' >"$T/cjs/package.json"
(cd "$T/cjs" && npm install --offline --no-audit --no-fund --loglevel=error "$TGZ") >"$T/npm.log" 2>&1 && ok \
  || fail "npm install (CommonJS project): $(tail -5 "$T/npm.log")"
cp bindings/node/test/require.test.cjs "$T/cjs/"
(cd "$T/cjs" && SHCARD="$SHCARD" SHCARD_ROOT="$OLDPWD" node --test) >"$T/cjs.log" 2>&1
p=$(sed -nE 's/^# pass ([0-9]+)$/\1/p' "$T/cjs.log"); f=$(sed -nE 's/^# fail ([0-9]+)$/\1/p' "$T/cjs.log")
if [ -z "$p" ] || [ "${p:-0}" -eq 0 ]; then fail "node --test (CommonJS) ran no test"; tail -30 "$T/cjs.log"
else _pass=$((_pass + p)); _fail=$((_fail + ${f:-0})); [ "${f:-0}" -eq 0 ] || tail -60 "$T/cjs.log"; fi

# a sample of the corpus (every third command) and the CLI's answers, for the builds below
node -e '
const fs = require("fs"), path = require("path"), dir = process.argv[1] + "/corpus";
const cmds = fs.readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort()
  .flatMap((f) => fs.readFileSync(path.join(dir, f), "utf8").split("\n").filter(Boolean))
  .map((l) => JSON.parse(l).cmd).filter((c, i) => i % 3 == 0);
fs.writeFileSync(process.argv[2] + "/cmds.json", JSON.stringify(cmds));
fs.writeFileSync(process.argv[2] + "/cmds.ts", "export const cmds: string[] = " + JSON.stringify(cmds) + ";\n");
fs.writeFileSync(process.argv[2] + "/requests", cmds.map((c) => JSON.stringify({ cmd: c })).join("\n") + "\n");
' "$PWD" "$T"
"$SHCARD" explain --batch <"$T/requests" >"$T/want"
check "the sample has 200 commands or more" test "$(wc -l <"$T/want")" -ge 200

# ---- TypeScript: tsc (pinned), three module systems, compiled and run
ts_project() { # name, package.json "type" (or ""), tsconfig compilerOptions (JSON)
  local d="$T/ts-$1"
  mkdir -p "$d/src"
  if [ -n "$2" ]; then echo "{\"name\": \"ts-$1\", \"private\": true, \"type\": \"$2\"}" >"$d/package.json"
  else echo "{\"name\": \"ts-$1\", \"private\": true}" >"$d/package.json"; fi
  echo "{\"compilerOptions\": $3, \"include\": [\"src\"]}" >"$d/tsconfig.json"
  (cd "$d" && npm install --offline --no-audit --no-fund --loglevel=error "$TGZ") >"$T/npm.log" 2>&1 \
    || { fail "npm install (ts-$1): $(tail -3 "$T/npm.log")"; return; }
  cp bindings/node/test/ts/main.ts "$T/cmds.ts" "$d/src/"
  if (cd "$d" && "$NMB/tsc" -p .) >"$T/tsc.log" 2>&1; then ok; else fail "tsc (ts-$1): $(head -20 "$T/tsc.log")"; return; fi
  (cd "$d" && node dist/main.js) >"$T/ts-$1.out" 2>"$T/ts-$1.err"
  expect_eq "ts-$1: runs" "$(head -1 "$T/ts-$1.out")" "$VERSION search 1"
  tail -n +2 "$T/ts-$1.out" | cmp -s - "$T/want" && ok || { fail "ts-$1: answers differ from the CLI's"; head -5 "$T/ts-$1.err"; }
  # and the declarations catch a wrong call (once: the same declarations serve every project)
  [ "$1" = nodenext-cjs ] || return 0
  cp bindings/node/test/ts/bad.ts "$d/src/"
  if (cd "$d" && "$NMB/tsc" -p . --noEmit) >"$T/tsc.log" 2>&1; then fail "ts-$1: bad.ts type-checked"
  else grep -q "bad.ts.*TS2345" "$T/tsc.log" && ok || fail "ts-$1: bad.ts: $(head -3 "$T/tsc.log")"; fi
  rm "$d/src/bad.ts"
}
strict='"strict": true, "outDir": "dist", "skipLibCheck": false, "target": "es2020"'
ts_project nodenext-esm module "{$strict, \"module\": \"nodenext\", \"moduleResolution\": \"nodenext\"}"
ts_project nodenext-cjs "" "{$strict, \"module\": \"nodenext\", \"moduleResolution\": \"nodenext\"}"
ts_project commonjs "" "{$strict, \"module\": \"commonjs\", \"moduleResolution\": \"node10\"}"
check "ts-nodenext-cjs compiled to require()" grep -q 'require("shcard")' "$T/ts-nodenext-cjs/dist/main.js"
check "ts-nodenext-esm compiled to import" grep -q 'from "shcard"' "$T/ts-nodenext-esm/dist/main.js"

# ---- the browser: an esbuild bundle and the unbundled entry, in headless Chromium
B="$T/web"
mkdir -p "$B"
echo '{"name": "scratch-web", "private": true, "type": "module"}' >"$B/package.json"
(cd "$B" && npm install --offline --no-audit --no-fund --loglevel=error "$TGZ") >"$T/npm.log" 2>&1 && ok \
  || fail "npm install (browser project): $(tail -3 "$T/npm.log")"
cp bindings/node/test/browser/*.mjs "$T/cmds.json" "$B/"
if (cd "$B" && "$NMB/esbuild" entry.mjs --bundle --format=esm --platform=browser --outdir=dist \
      --loader:.wasm=file --log-level=warning) >"$T/esbuild.log" 2>&1; then ok
else fail "esbuild: $(cat "$T/esbuild.log")"; fi
check "the bundle has no node: import" bash -c "! grep -q 'node:' '$B/dist/entry.js'"
check "esbuild emitted the module" bash -c "ls '$B'/dist/*.wasm >/dev/null"
cp "$T/cmds.json" "$B/dist/"
printf '<!doctype html><meta charset="utf-8"><pre id="out">pending</pre><script type="module" src="entry.js"></script>\n' >"$B/dist/index.html"
printf '<!doctype html><meta charset="utf-8"><pre id="out">pending</pre>
<script type="importmap">{"imports": {"shcard": "./node_modules/shcard/browser.mjs"}}</script>
<script type="module">import { run } from "./page.mjs"; run();</script>\n' >"$B/plain.html"
python3 -u -m http.server --bind 127.0.0.1 0 --directory "$B" >"$T/http.log" 2>&1 &
hp=$!
port=""
for _ in $(seq 100); do port=$(sed -nE 's/.*port ([0-9]+).*/\1/p' "$T/http.log" | head -1); [ -n "$port" ] && break; sleep 0.1; done
browser_page() { # name, path
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --user-data-dir="$T/chrome-$1" --virtual-time-budget=30000 --dump-dom "http://127.0.0.1:$port/$2" \
    >"$T/$1.html" 2>"$T/$1.chromium.log"
  node -e '
const fs = require("fs");
const html = fs.readFileSync(process.argv[1], "utf8");
const m = /<pre id="out">([\s\S]*?)<\/pre>/.exec(html);
if (!m) { console.log("no output element"); process.exit(1); }
const text = m[1].replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"").replace(/&amp;/g, "&");
let r; try { r = JSON.parse(text); } catch { console.log("page says: " + text.slice(0, 300)); process.exit(1); }
if (r.error) { console.log("page error: " + r.error); process.exit(1); }
fs.writeFileSync(process.argv[2] + ".answers", r.answers.join("\n") + "\n");
console.log([r.version, /await init\(\)/.test(r.early), /Node.s fs/.test(r.cwd)].join(" "));
' "$T/$1.html" "$T/$1" >"$T/$1.summary" 2>&1
  expect_eq "browser ($1): version, classify() before init() refused, cwd refused" "$(cat "$T/$1.summary")" "$VERSION true true"
  cmp -s "$T/$1.answers" "$T/want" && ok || fail "browser ($1): answers differ from the CLI's"
}
if [ -n "$port" ] && command -v chromium >/dev/null; then
  browser_page bundle dist/index.html
  browser_page plain plain.html
  check "the unbundled page fetched shcard.wasm next to the entry" grep -q 'GET /node_modules/shcard/shcard.wasm' "$T/http.log"
else
  fail "no HTTP server ($(head -3 "$T/http.log")) or no chromium (make deps)"
fi
kill "$hp" 2>/dev/null; wait "$hp" 2>/dev/null

# ---- the README's TypeScript adapter example, as written, against the installed package
TSX=tests/e2e/node_modules/.bin/tsx
if [ -x "$TSX" ]; then
  awk '/^```ts$/ {n++; on = 1; next} /^```$/ {on = 0} on && n == 2' bindings/node/README.md >"$T/proj/adapter.ts"
  # docs/library.md shows the same example
  awk '/^```ts$/ {on = 1; blk = ""; next} /^```$/ {if (on && blk ~ /toolCallFor/) printf "%s", blk; on = 0; next} on {blk = blk $0 "\n"}' docs/library.md >"$T/readme.ts"
  cmp -s "$T/readme.ts" "$T/proj/adapter.ts" && ok || fail "docs/library.md's adapter example differs from bindings/node/README.md's"
  cat >"$T/proj/run.ts" <<'TS'
import { toolCallFor } from "./adapter.ts";
const cwd = process.cwd();
const a = toolCallFor("call_1", "bash -lc \"sed -n '10,40p' src/main.c\"", cwd);
const b = toolCallFor("call_2", "make -j2", cwd);
console.log(JSON.stringify([a.kind, a.title, a.locations, b.kind, b.title, b.locations, a.rawInput.command]));
TS
  got=$(cd "$T/proj" && TMPDIR="$T" "$OLDPWD/$TSX" run.ts 2>&1)  # tsx keeps a cache in TMPDIR
  want="[\"read\",\"Read file 'src/main.c' (lines 10-40)\",[{\"path\":\"$T/proj/src/main.c\",\"line\":10}],\"execute\",\"make -j2\",[],\"bash -lc \\\"sed -n '10,40p' src/main.c\\\"\"]"
  expect_eq "README adapter example" "$got" "$want"
else
  fail "no $TSX (make npm-deps)"
fi
finish
