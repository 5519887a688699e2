#!/usr/bin/env bash
# shcard parse: text and JSON output, --batch (bad lines answered, the batch goes on), exit codes.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
S=${SHCARD:-./shcard}
jq_() { python3 -c 'import json,sys; d=json.loads(sys.stdin.readline()); print(eval(sys.argv[1]))' "$1"; }

# exit codes: 0 parsed, 1 not parsed, 2 usage
$S parse 'ls -la' >/dev/null; expect_eq "exit 0 when parsed" $? 0
$S parse 'cat $(id)' >/dev/null; expect_eq "exit 1 when not parsed" $? 1
$S parse >/dev/null 2>&1; expect_eq "exit 2 without a command" $? 2
$S parse --bogus x >/dev/null 2>&1; expect_eq "exit 2 for an unknown option" $? 2
$S parse --batch 'ls' </dev/null >/dev/null 2>&1; expect_eq "exit 2 for --batch with arguments" $? 2
$S explain --batch 'ls' </dev/null >/dev/null 2>&1; expect_eq "explain: exit 2 for --batch with arguments" $? 2

# text: a tree, and the diagnostic with a caret under the construct
out=$($S parse 'nl -ba f | sed -n 1,5p')
check "text tree names the pipeline" grep -q '^  pipeline 0-22$' <<<"$out"
check "text tree shows decoded args" grep -q 'arg  "1,5p"' <<<"$out"
out=$($S parse 'cat $(id) x')
check "caret under \$(" grep -q '^    \^~$' <<<"$out"
check "diagnostic names the construct" grep -q 'command substitution `\$(` at 1:5 is outside the supported subset' <<<"$out"

# JSON: the documented fields
j=$($S parse --json "bash -lc 'FOO=1 cat \"a b\" 2>/dev/null | head -n 5'")
expect_eq "json ok" "$(jq_ 'd["ok"]' <<<"$j")" True
expect_eq "json wrapper" "$(jq_ 'd["wrapper"]["shell"], d["wrapper"]["flag"]' <<<"$j")" "('bash', '-lc')"
expect_eq "json argv" "$(jq_ 'd["commands"][0]["argv"]' <<<"$j")" "['cat', 'a b']"
expect_eq "json assigns" "$(jq_ 'd["commands"][0]["assigns"][0]["name"], d["commands"][0]["assigns"][0]["value"]' <<<"$j")" "('FOO', '1')"
expect_eq "json redirects" "$(jq_ 'd["commands"][0]["redirects"][0]["fd"], d["commands"][0]["redirects"][0]["op"], d["commands"][0]["redirects"][0]["target"]' <<<"$j")" "(2, '>', '/dev/null')"
expect_eq "json second command" "$(jq_ 'd["commands"][1]["argv"], d["commands"][1]["start"], d["commands"][1]["end"]' <<<"$j")" "(['head', '-n', '5'], 30, 39)"
expect_eq "json ast root" "$(jq_ 'd["ast"]["type"]' <<<"$j")" "list"
j=$($S parse --json 'echo $HOME "x"')
expect_eq "json null argv for an expansion" "$(jq_ 'd["commands"][0]["argv"]' <<<"$j")" "['echo', None, 'x']"
j=$($S parse --json 'cat $(id)')
expect_eq "json error object" "$(jq_ 'd["ok"], d["error"]["kind"], d["error"]["start"], d["error"]["end"]' <<<"$j")" "(False, 'unsupported', 4, 6)"

# batch: one line out per line in, in order; a bad line gets an error and the batch goes on
out=$(printf '%s\n' '{"cmd": "ls"}' 'not json' '{"nocmd": 1}' '{"cmd": "cat \u0000x"}' '{"cmd": "rg x | head"}' | $S parse --batch)
rc=$?
expect_eq "batch line count" "$(wc -l <<<"$out")" 5
expect_eq "batch exit 1 when a line failed" $rc 1
expect_eq "batch first" "$(sed -n 1p <<<"$out" | jq_ 'd["ok"]')" True
expect_eq "batch invalid JSON" "$(sed -n 2p <<<"$out" | jq_ 'd["error"]["kind"], d["line"]')" "('json', 2)"
expect_eq "batch missing cmd" "$(sed -n 3p <<<"$out" | jq_ 'd["error"]["kind"]')" "request"
expect_eq "batch NUL rejected with offset" "$(sed -n 4p <<<"$out" | jq_ 'd["error"]["kind"], d["error"]["start"]')" "('syntax', 4)"
expect_eq "batch goes on" "$(sed -n 5p <<<"$out" | jq_ 'd["commands"][1]["argv"]')" "['head']"
out=$(printf '%s\n' '{"cmd": "ls"}' | $S parse --batch); expect_eq "batch exit 0" $? 0
finish
