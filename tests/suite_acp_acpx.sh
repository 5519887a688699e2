#!/usr/bin/env bash
# End-to-end: the acpx CLI client (npm, pinned in tests/e2e) runs prompts against `shcard acp`:
# default mode (console fallback: acpx has no _meta.terminal_output) and --client-terminals
# (acpx implements terminal/*).  Every raw frame is checked through --format json.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
ACPX=$PWD/tests/e2e/node_modules/.bin/acpx
if [ ! -x "$ACPX" ]; then
  fail "acpx is missing: run make npm-deps"
  finish
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/ws"
printf 'one\ntwo\n' > "$work/ws/file.txt"

acpx() { # args...: runs acpx in the workspace with a private HOME
  (cd "$work/ws" && HOME="$work/home" timeout 60 "$ACPX" "$@")
}

# frames FILE EXPR: evaluates a JS predicate over the NDJSON frames (array `f`); prints the result
frames() {
  node -e '
    const fs = require("fs");
    const f = fs.readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map((l) => { try { return JSON.parse(l); } catch { return {}; } });
    const ups = f.filter((m) => m.method === "session/update").map((m) => m.params.update);
    const out = (function () { return eval(process.argv[2]); })();
    process.stdout.write(String(out));
  ' "$1" "$2"
}

# 1. default mode, text output
out=$(acpx --agent "$SHCARD acp" --approve-all exec "echo hello-from-acpx" 2>&1)
rc=$?
expect_eq "acpx text: exit status" "$rc" 0
case "$out" in *'```console'*hello-from-acpx*'```'*) ok ;; *) fail "acpx text: console block: $out" ;; esac
case "$out" in *'[done] end_turn'*) ok ;; *) fail "acpx text: end_turn: $out" ;; esac

# 2. default mode, raw frames: console fallback, no terminal _meta, no terminal/* calls
acpx --agent "$SHCARD acp" --approve-all --format json exec "printf 'x\\n'; cat file.txt; exit 5" >"$work/j1" 2>"$work/e1"
expect_eq "acpx json: tool_call kind" "$(frames "$work/j1" 'ups.find((u) => u.sessionUpdate === "tool_call")?.kind')" execute
expect_eq "acpx json: failed on exit 5" "$(frames "$work/j1" 'ups.filter((u) => u.status).pop()?.status')" failed
expect_eq "acpx json: console text" "$(frames "$work/j1" 'JSON.stringify(ups.filter((u) => u.status).pop()?.content?.[0]?.content?.text)')" '"```console\nx\none\ntwo\n```"'
expect_eq "acpx json: no _meta without the flag" "$(frames "$work/j1" 'ups.some((u) => u._meta)')" false
expect_eq "acpx json: no terminal/* calls" "$(frames "$work/j1" 'f.some((m) => (m.method || "").startsWith("terminal/"))')" false
expect_eq "acpx json: stopReason" "$(frames "$work/j1" 'f.find((m) => m.result?.stopReason)?.result.stopReason')" end_turn

# 3. --client-terminals: terminal/create, embed, wait_for_exit, output, release
acpx --agent "$SHCARD acp --client-terminals" --approve-all --format json exec "echo via-client; exit 2" >"$work/j2" 2>"$work/e2"
rc=$?
expect_eq "client terminals: acpx exit status" "$rc" 0
create='f.find((m) => m.method === "terminal/create")'
expect_eq "client terminals: create command" "$(frames "$work/j2" "JSON.stringify([$create?.params.command, $create?.params.args])")" '["/bin/bash",["-c","echo via-client; exit 2"]]'
expect_eq "client terminals: create cwd is the session cwd" "$(frames "$work/j2" "$create?.params.cwd")" "$(cd "$work/ws" && pwd -P)"
expect_eq "client terminals: outputByteLimit set" "$(frames "$work/j2" "typeof $create?.params.outputByteLimit")" number
tid=$(frames "$work/j2" 'f.find((m) => m.result?.terminalId)?.result.terminalId')
[ -n "$tid" ] && ok || fail "client terminals: no terminal id"
expect_eq "client terminals: terminal embedded in the call" "$(frames "$work/j2" "ups.some((u) => u.content?.some((c) => c.type === 'terminal' && c.terminalId === '$tid'))")" true
order=$(frames "$work/j2" 'f.filter((m) => (m.method || "").startsWith("terminal/")).map((m) => m.method).join(",")')
expect_eq "client terminals: method order" "$order" "terminal/create,terminal/wait_for_exit,terminal/output,terminal/release"
expect_eq "client terminals: failed on exit 2" "$(frames "$work/j2" 'ups.filter((u) => u.status).pop()?.status')" failed
expect_eq "client terminals: exit code" "$(frames "$work/j2" 'ups.filter((u) => u.status).pop()?.rawOutput?.exit_code')" 2
expect_eq "client terminals: output reached the agent" "$(frames "$work/j2" 'f.find((m) => m.result && "output" in m.result)?.result.output')" "via-client"
expect_eq "client terminals: no _meta cards" "$(frames "$work/j2" 'ups.some((u) => u._meta)')" false

# 4. several lines, one turn
acpx --agent "$SHCARD acp" --approve-all --format json exec "$(printf 'echo a\necho b\n\necho c')" >"$work/j3" 2>&1
expect_eq "multi-line: three calls" "$(frames "$work/j3" 'ups.filter((u) => u.sessionUpdate === "tool_call").length')" 3
expect_eq "multi-line: summary" "$(frames "$work/j3" 'ups.find((u) => u.sessionUpdate === "agent_message_chunk")?.content.text')" "Ran 3 of 3 commands: 3 succeeded, 0 failed."

# 5. --deny-all with --approve ask: rejected, not run
acpx --agent "$SHCARD acp --approve ask" --deny-all --format json exec "touch denied-file" >"$work/j4" 2>&1
[ ! -e "$work/ws/denied-file" ] && ok || fail "deny: the command ran"
expect_eq "deny: permission asked" "$(frames "$work/j4" 'f.some((m) => m.method === "session/request_permission")')" true
expect_eq "deny: failed, rejected by the user" "$(frames "$work/j4" 'JSON.stringify([ups.filter((u) => u.status).pop()?.status, ups.filter((u) => u.status).pop()?.content?.[0]?.content?.text])')" '["failed","rejected by the user"]'

# 6. sessions across a restart of the agent: acpx keeps a session, its queue owner exits (--ttl 1)
# and so does the agent; the next prompt starts a new agent that resumes the stored session
# (session/resume), and `acpx sessions list` reads session/list.
mkdir -p "$work/state"
sacpx() { (cd "$work/ws" && HOME="$work/home" XDG_STATE_HOME="$work/state" timeout 60 "$ACPX" --agent "$SHCARD acp" --approve-all --ttl 1 "$@"); }
sacpx sessions new >"$work/s1" 2>&1
sid=$(grep -o 'sess_[0-9a-f]\{32\}' "$work/s1" | head -n1)
[ -n "$sid" ] && ok || fail "acpx sessions new: no session id: $(cat "$work/s1")"
sacpx --format json prompt "cat file.txt" >"$work/s2" 2>&1
expect_eq "acpx session: first prompt" "$(frames "$work/s2" 'f.find((m) => m.result?.stopReason)?.result.stopReason')" end_turn
sleep 2.5 # the queue owner's --ttl 1 runs out, and the agent with it
sacpx --format json --verbose prompt "echo second" >"$work/s3" 2>&1
expect_eq "acpx session: a new agent was started (initialize)" "$(frames "$work/s3" 'f.some((m) => m.result?.protocolVersion === 1)')" true
expect_eq "acpx session: it resumed the stored session" "$(frames "$work/s3" "f.find((m) => m.method === 'session/resume')?.params.sessionId")" "$sid"
expect_eq "acpx session: the prompt ran in it" "$(frames "$work/s3" "ups.find((u) => u.sessionUpdate === 'tool_call')?.toolCallId")" call_2
expect_eq "acpx session: end_turn" "$(frames "$work/s3" 'f.find((m) => m.result?.stopReason)?.result.stopReason')" end_turn
list=$(sacpx --format json sessions list 2>/dev/null)
expect_eq "acpx sessions list: session/list with the title" "$(node -e 'const j = JSON.parse(process.argv[1]); const s = j.sessions.find((x) => x.sessionId === process.argv[2]); process.stdout.write(String(s && s.title))' "$list" "$sid")" "cat file.txt"

finish
