#!/usr/bin/env bash
# The npm package (make npm: $BUILD/npm/shcard-VERSION.tgz, the classifier as WebAssembly):
# what the tarball holds, then installed into a scratch project (offline) and tested there with
# `node --test` against the CLI on the whole corpus (bindings/node/test), and the README's
# TypeScript ACP adapter example run (tsx) against the installed package.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
VERSION=$(sed -n 's/^#define SHC_VERSION "\(.*\)"/\1/p' include/shcard.h)
TGZ="$PWD/$BUILD/npm/shcard-$VERSION.tgz"
[ -f "$TGZ" ] || { echo "missing $TGZ (make npm)"; echo "0 passed, 1 failed"; exit 1; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

# ---- the tarball: ESM, types, the module, no native code, no install scripts, no dependencies
files=$(tar tzf "$TGZ" | sort | tr '\n' ' ')
expect_eq "tarball files" "$files" "package/LICENSE package/README.md package/index.d.ts package/index.js package/package.json package/shcard.wasm "
tar xzf "$TGZ" -C "$T"
node -e '
const p = JSON.parse(require("fs").readFileSync(process.argv[1] + "/package/package.json"));
const bad = [];
if (p.name !== "shcard") bad.push("name " + p.name);
if (p.version !== process.argv[2]) bad.push("version " + p.version);
if (p.type !== "module") bad.push("not ESM");
if (p.license !== "Apache-2.0") bad.push("license " + p.license);
if (p.exports["."].types !== "./index.d.ts") bad.push("no types");
for (const k of ["dependencies", "scripts", "gypfile", "binary"]) if (p[k]) bad.push("has " + k);
if (bad.length) { console.log(bad.join(", ")); process.exit(1); }' "$T" "$VERSION" && ok || fail "package.json"
cmp -s "$T/package/LICENSE" LICENSE && ok || fail "the package's LICENSE is not the repository's"
head -c 4 "$T/package/shcard.wasm" | od -An -c | grep -q 'a   s   m' && ok || fail "shcard.wasm is not WebAssembly"
node -e 'const m = new WebAssembly.Module(require("fs").readFileSync(process.argv[1]));
const imp = WebAssembly.Module.imports(m).map((i) => i.module + "." + i.name).sort().join(" ");
console.log(imp);' "$T/package/shcard.wasm" >"$T/imports"
expect_eq "the module imports no file system (only the host's stat and realpath, and unused stdio)" "$(cat "$T/imports")" \
  "env.shcard_realpath env.shcard_stat wasi_snapshot_preview1.fd_close wasi_snapshot_preview1.fd_seek wasi_snapshot_preview1.fd_write"
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

# ---- the README's TypeScript adapter example, as written, against the installed package
TSX=tests/e2e/node_modules/.bin/tsx
if [ -x "$TSX" ]; then
  awk '/^```ts$/ {n++; on = 1; next} /^```$/ {on = 0} on && n == 2' bindings/node/README.md >"$T/proj/adapter.ts"
  # the top-level README shows the same example
  awk '/^```ts$/ {on = 1; blk = ""; next} /^```$/ {if (on && blk ~ /toolCallFor/) printf "%s", blk; on = 0; next} on {blk = blk $0 "\n"}' README.md >"$T/readme.ts"
  cmp -s "$T/readme.ts" "$T/proj/adapter.ts" && ok || fail "README.md's adapter example differs from bindings/node/README.md's"
  cat >"$T/proj/run.ts" <<'TS'
import { toolCallFor } from "./adapter.ts";
const cwd = process.cwd();
const a = toolCallFor("call_1", "bash -lc \"sed -n '10,40p' src/main.c\"", cwd);
const b = toolCallFor("call_2", "make -j2", cwd);
console.log(JSON.stringify([a.kind, a.title, a.locations, b.kind, b.title, b.locations, a.rawInput.command]));
TS
  got=$(cd "$T/proj" && "$OLDPWD/$TSX" run.ts 2>&1)
  want="[\"read\",\"Read file 'src/main.c' (lines 10-40)\",[{\"path\":\"$T/proj/src/main.c\",\"line\":10}],\"execute\",\"make -j2\",[],\"bash -lc \\\"sed -n '10,40p' src/main.c\\\"\"]"
  expect_eq "README adapter example" "$got" "$want"
else
  fail "no $TSX (make npm-deps)"
fi
finish
