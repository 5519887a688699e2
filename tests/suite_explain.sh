#!/usr/bin/env bash
# shcard explain: text output, -v (reason, parse, caret), --json, --batch (order, error lines,
# the batch goes on), and exit statuses (0 for every verdict, 2 for usage errors).
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
S=$SHCARD
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3

# explain loads no more than it needs: libcurl (and the ~30 libraries behind it) is loaded only
# by the model backend (src/model/http.c), so a one-command `shcard explain` starts in ~1 ms
check "libcurl not linked" sh -c "! ldd '$S' | grep -q libcurl"
check "explain maps no libcurl" sh -c "! LD_DEBUG=files '$S' explain ls 2>&1 >/dev/null | grep -q libcurl"

# a path too long for the repository check names itself in the reason, never the text an
# earlier command left in the stack buffer the reason was printed from (red-team finding)
got=$("$PY" -c '
import json
print(json.dumps({"cmd": "sed -f a=/tok-" + "S3CR3T/" * 600 + "c f"}))
print(json.dumps({"cmd": "grep x /" + "a" * 4090}))' | "$S" explain --batch --cwd /tmp | tail -n 1 |
  "$PY" -c 'import json, sys; print(json.loads(sys.stdin.read())["reason"])')
check "too-long repository path named" grep -qE "^grep: (the repository's )?'/aaaaaaaa" <<<"$got"
check "no earlier command text in the reason" sh -c "! grep -q S3CR3T" <<<"$got"

out=$("$S" explain "sed -n '1,40p' src/foo.ts"); rc=$?
expect_eq "read exit" "$rc" 0
expect_eq "read line 1" "$(echo "$out" | sed -n 1p)" "read: Read file 'src/foo.ts' (lines 1-40)"
expect_eq "read path" "$(echo "$out" | sed -n 2p)" "  path: src/foo.ts"
expect_eq "read line" "$(echo "$out" | sed -n 3p)" "  line: 1"

out=$("$S" explain 'rg -n foo src' 'ls' 'rm -rf build'); rc=$?
expect_eq "several exit" "$rc" 0
expect_eq "search" "$(echo "$out" | sed -n 1p)" "search: Search for 'foo' in src"
expect_eq "list" "$(echo "$out" | grep '^list')" "list: List files"
expect_eq "terminal" "$(echo "$out" | grep '^terminal')" "terminal: rm -rf build"

out=$("$S" explain -v "bash -lc 'sed -n 1,5p f --in-place'")
expect_eq "verbose reason" "$(echo "$out" | grep 'reason:')" "  reason: sed: -i edits the file in place"
check "verbose parse" grep -q '^  parse: (list' <<<"$out"
expect_eq "caret source" "$(echo "$out" | tail -n2 | head -n1)" "  sed -n 1,5p f --in-place"
expect_eq "caret" "$(echo "$out" | tail -n1)" "                ^~~~~~~~~~"
check "verbose wrapper" grep -q 'wrapper: stripped' <<<"$out"

out=$("$S" explain -v 'cat $(id)')
check "parse error reason" grep -q 'reason: unsupported error: command substitution' <<<"$out"
expect_eq "parse error caret" "$(echo "$out" | tail -n1)" "      ^~"

out=$("$S" explain --json 'nl -ba f | sed -n "10,20p"' 'cat f > g')
expect_eq "json lines" "$(echo "$out" | wc -l)" 2
got=$(echo "$out" | "$PY" -c '
import json, sys
a, b = [json.loads(l) for l in sys.stdin]
print(a["kind"], a["path"], a["line"], a["locations"][0]["line"], a["query"], a["title"], sep="|")
print(b["kind"], b["path"], b["line"], b["locations"], b["reason"], sep="|")')
expect_eq "json read" "$(echo "$got" | sed -n 1p)" "read|f|10|10|None|Read file 'f' (lines 10-20)"
expect_eq "json terminal" "$(echo "$got" | sed -n 2p)" "terminal|None|None|[]|redirection writes the file 'g'"

batch=$(printf '%s\n' '{"cmd":"ls src"}' 'not json' '{"nocmd":1}' '' '{"cmd":"rg -e TODO -e FIXME ."}' \
        '{"cmd":"cat f\u0000x"}' | "$S" explain --batch)
rc=$?
expect_eq "batch exit (bad lines)" "$rc" 1
expect_eq "batch count" "$(echo "$batch" | wc -l)" 5
got=$(echo "$batch" | "$PY" -c '
import json, sys
for l in sys.stdin:
    o = json.loads(l)
    if "error" in o:
        print("error", o["error"]["kind"], o["line"])
    else:
        print(o["kind"], o["cmd"].replace("\0", "<NUL>"), o["query"], sorted(o) == sorted(
            ["cmd","kind","title","path","query","line","locations","reason","span","script","wrapped","argv"]))')
expect_eq "batch 1" "$(echo "$got" | sed -n 1p)" "list ls src None True"
expect_eq "batch 2" "$(echo "$got" | sed -n 2p)" "error json 2"
expect_eq "batch 3" "$(echo "$got" | sed -n 3p)" "error request 3"
expect_eq "batch 4" "$(echo "$got" | sed -n 4p)" "search rg -e TODO -e FIXME . TODO True"
expect_eq "batch 5" "$(echo "$got" | sed -n 5p)" "terminal cat f<NUL>x None True"

printf '%s\n' '{"cmd":"ls"}' '{"cmd":"cat f"}' | "$S" explain --batch >/dev/null
expect_eq "batch exit (all good)" "$?" 0

expect_eq "no-unwrap" "$("$S" explain --no-unwrap "bash -lc 'cat f'" | head -n1)" "terminal: bash -lc 'cat f'"
expect_eq "unwrap" "$("$S" explain "bash -lc 'cat f'" | head -n1)" "read: Read file 'f'"

# --cwd: relative names are judged from DIR and what the command would read is stat()ed
d=$(mktemp -d); mkfifo "$d/fifo"; ln -s /dev/zero "$d/zero"; echo hi > "$d/ok.txt"
expect_eq "cwd fifo" "$("$S" explain --cwd "$d" 'cat fifo' | head -n1)" "terminal: cat fifo"
expect_eq "cwd fifo reason" "$("$S" explain -v --cwd "$d" 'cat fifo' | sed -n 's/^  reason: //p')" \
  "cat: file 'fifo' is a FIFO (reading it waits for a writer)"
expect_eq "cwd device link" "$("$S" explain --cwd="$d" 'head -n 1 zero' | head -n1)" "terminal: head -n 1 zero"
expect_eq "cwd regular" "$("$S" explain --cwd "$d" 'cat ok.txt' | head -n1)" "read: Read file 'ok.txt'"
expect_eq "cwd batch" "$(echo '{"cmd":"cat fifo"}' | "$S" explain --batch --cwd "$d" | python3 -c 'import json,sys; print(json.load(sys.stdin)["kind"])')" "terminal"
expect_eq "no cwd: text only" "$(cd "$d" && "$S" explain 'cat fifo' | head -n1)" "read: Read file 'fifo'"
"$S" explain --cwd "$d/missing" ls >/dev/null 2>&1; expect_eq "cwd missing" "$?" 2
rm -rf "$d"

# --context: rg without a path may read an open stdin where stdin is unknown
expect_eq "context any" "$("$S" explain 'rg foo' | head -n1)" "terminal: rg foo"
expect_eq "context bridge" "$("$S" explain --context bridge 'rg foo' | head -n1)" "search: Search for 'foo'"
expect_eq "context= form" "$("$S" explain --context=any 'rg foo .' | head -n1)" "search: Search for 'foo' in ."
"$S" explain --context nope ls >/dev/null 2>&1; expect_eq "bad context" "$?" 2

"$S" explain >/dev/null 2>&1; expect_eq "no args" "$?" 2
"$S" explain --bogus x >/dev/null 2>&1; expect_eq "bad option" "$?" 2
"$S" explain --batch x </dev/null >/dev/null 2>&1; expect_eq "batch with args" "$?" 2
"$S" explain -- -v >/dev/null; expect_eq "command after --" "$?" 0
finish
