#!/usr/bin/env bash
# The ACP Registry's CI, replayed (tests/registry_check.py, rules in tests/registry/README.md) on
# the entry `make dist` wrote (build/dist/registry/shcard: the committed dist/registry/shcard with
# each archive's sha256) and the archives it built: schema, version in the URLs, no latest, the
# icon, the sha256, then each archive unpacked and started (linux-aarch64 under qemu-user): the
# launch check and the authentication check with the validator's own initialize.  Then broken
# copies of the entry and a misbehaving agent, each of which must fail the check it breaks.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
DIST=build/dist
SCHEMA=tests/registry/agent.schema.json
# Debian's python3 (python3-jsonschema, in make dist-deps), whatever python3 comes first in PATH
PY=/usr/bin/python3
ENTRY=$DIST/registry/shcard
QEMU="linux-aarch64=qemu-aarch64-static -L /usr/aarch64-linux-gnu"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_check NAME ARGS...: the checker passes
run_check() {
  local name=$1 out; shift
  out=$("$PY" tests/registry_check.py --schema "$SCHEMA" "$@" 2>&1)
  local rc=$? n_ok n_fail
  n_ok=$(printf '%s\n' "$out" | grep -c '^ok: ')
  n_fail=$(printf '%s\n' "$out" | grep -c '^FAIL')
  printf '%s\n' "$out" | grep -v '^ok: ' | sed "s/^/  [$name] /"
  _pass=$((_pass + n_ok)); _fail=$((_fail + n_fail))
  if [ "$rc" -ne 0 ] && [ "$n_fail" -eq 0 ]; then fail "$name: checker exited $rc"; fi
}
# must_fail NAME WANT ARGS...: the checker fails, and says WANT
must_fail() {
  local name=$1 want=$2 out; shift 2
  out=$("$PY" tests/registry_check.py --schema "$SCHEMA" "$@" 2>&1)
  if [ $? -ne 0 ] && printf '%s\n' "$out" | grep -q "^FAIL: .*$want"; then ok
  else fail "$name: the checker did not fail with '$want': $(printf '%s\n' "$out" | grep FAIL | head -3)"; fi
}

[ -f "$ENTRY/agent.json" ] || { fail "no $ENTRY/agent.json: run make dist"; finish; exit 1; }

# the committed entry is valid on its own (no sha256 yet), and make dist's copy only adds them
run_check committed --static --archives "$DIST" dist/registry/shcard
got=$("$PY" -c 'import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
for t in b["distribution"]["binary"].values(): t.pop("sha256")
print(a == b)' dist/registry/shcard/agent.json "$ENTRY/agent.json")
expect_eq "make dist's entry is the committed one plus sha256" "$got" "True"
# the entry make dist wrote, on the archives it built, as the registry's CI would run it
run_check built --archives "$DIST" --runner "$QEMU" "$ENTRY"

# ---- each rule can fail: broken copies of the entry
mutate() { # NAME PYTHON-STATEMENT-ON-e (the entry) / on icon (the svg text)
  local d="$tmp/$1/shcard"
  mkdir -p "$d" && cp "$ENTRY/agent.json" "$ENTRY/icon.svg" "$d/"
  "$PY" - "$d" "$2" <<'PY'
import json, sys
d, code = sys.argv[1], sys.argv[2]
e = json.load(open(d + "/agent.json")); icon = open(d + "/icon.svg").read()
x64 = e["distribution"]["binary"]["linux-x86_64"]
exec(code)
json.dump(e, open(d + "/agent.json", "w")); open(d + "/icon.svg", "w").write(icon)
PY
  echo "$d"
}
must_fail version "release version is the entry's" --static --archives "$DIST" "$(mutate version 'e["version"] = "0.0.9"')"
must_fail latest "no 'latest'" --static --archives "$DIST" \
  "$(mutate latest 'x64["archive"] = x64["archive"].replace("/download/v" + e["version"] + "/", "/latest/download/")')"
must_fail sha256 "sha256 matches" --static --archives "$DIST" "$(mutate sha 'x64["sha256"] = "0" * 64')"
must_fail schema "matches agent.schema.json" --static --archives "$DIST" \
  "$(mutate schema 'e["distribution"]["binary"]["linux-riscv64"] = dict(x64)')"
must_fail installer "not an installer" --static --archives "$DIST" \
  "$(mutate deb 'x64["archive"] = x64["archive"][:-len(".tar.gz")] + ".deb"')"
must_fail colour "colours are currentColor" --static --archives "$DIST" \
  "$(mutate colour 'icon = icon.replace("stroke=\"currentColor\"", "stroke=\"#ff0000\"", 1)')"
must_fail comment "has no comments" --static --archives "$DIST" \
  "$(mutate comment 'icon = icon.replace("<rect", "<!-- a terminal --><rect", 1)')"
must_fail size "is 16x16" --static --archives "$DIST" \
  "$(mutate size 'icon = icon.replace("width=\"16\" height=\"16\" viewBox=\"0 0 16 16\"", "width=\"24\" height=\"24\" viewBox=\"0 0 24 24\"")')"
must_fail dirname "names the directory" --static --archives "$DIST" "$(mutate idname 'e["id"] = "shcard-x"')"

# ---- the launch and auth checks can fail: an agent that exits 3, one that prints a banner
agent_archive() { # NAME SCRIPT: an archive with ./shcard = SCRIPT, and an entry pointing at it
  local d="$tmp/agent-$1" v
  v=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$ENTRY/agent.json")
  mkdir -p "$d/pkg" "$d/archives" "$d/entry/shcard"
  printf '%s\n' "$2" > "$d/pkg/shcard" && chmod 755 "$d/pkg/shcard"
  tar -C "$d/pkg" -czf "$d/archives/shcard-$v-linux-x86_64.tar.gz" shcard
  "$PY" - "$ENTRY" "$d/entry/shcard" <<'PY'
import json, sys
e = json.load(open(sys.argv[1] + "/agent.json"))
del e["distribution"]["binary"]["linux-aarch64"]
e["distribution"]["binary"]["linux-x86_64"].pop("sha256")
json.dump(e, open(sys.argv[2] + "/agent.json", "w"))
PY
  cp "$ENTRY/icon.svg" "$d/entry/shcard/"
  echo "$d"
}
d=$(agent_archive exits '#!/bin/sh
exit 3')
must_fail launch "launch with stdin /dev/null exits 0" --archives "$d/archives" "$d/entry/shcard"
d=$(agent_archive banner '#!/bin/sh
echo "starting shcard"
read -r line
echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":1,\"authMethods\":[{\"id\":\"login\",\"name\":\"Log in\",\"type\":\"terminal\",\"args\":[\"login\"]}]}}"
exec sleep 5')
must_fail banner "nothing but JSON on stdout" --archives "$d/archives" "$d/entry/shcard"
d=$(agent_archive noauth '#!/bin/sh
read -r line
echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":1,\"authMethods\":[{\"id\":\"k\",\"name\":\"Key\",\"type\":\"env_var\",\"vars\":[{\"name\":\"K\"}]}]}}"
exec sleep 5')
must_fail env-var-only "authMethods has an agent or terminal method" --archives "$d/archives" "$d/entry/shcard"
finish
