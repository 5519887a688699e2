#!/usr/bin/env bash
# shcard run: the CLI over the PTY executor, with real processes.  Exit statuses, --json events,
# spawn errors, timeout, cancel by SIGTERM/SIGINT, streaming, escaped processes.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
S=$SHCARD
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

gone() { ! kill -0 "$1" 2>/dev/null; }
# ms_since T0: milliseconds since T0 (date +%s%N)
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# plain mode: output on stdout, the command's status as ours
out=$("$S" run 'echo hello; exit 3' 2>"$T/err"); rc=$?
expect_eq "plain output" "$out" $'hello\r'
expect_eq "exit 3" "$rc" 3
"$S" run 'kill -9 $$' >/dev/null 2>&1; expect_eq "SIGKILL is 137" "$?" 137
"$S" run 'kill -TERM $$' >/dev/null 2>&1; expect_eq "SIGTERM is 143" "$?" 143
"$S" run echo several words >"$T/o" 2>/dev/null
expect_eq "several words" "$(tr -d '\r' <"$T/o")" "several words"

# the classifier's card goes to stderr, the output alone to stdout
printf 'line one\n' >"$T/f.txt"
out=$("$S" run "cat $T/f.txt" 2>"$T/err")
expect_eq "card: stdout is the output only" "$out" $'line one\r'
expect_eq "card: read" "$(cat "$T/err")" "[read] Read file '$T/f.txt'"
"$S" run "bash -lc 'ls $T'" >/dev/null 2>"$T/err"
expect_eq "card: wrapped list" "$(cat "$T/err")" "[list] List files in '$T'"
"$S" run "rm -f $T/nothing; echo ok" >/dev/null 2>"$T/err"
expect_eq "card: terminal" "$(cat "$T/err")" "[terminal] rm -f $T/nothing; echo ok"
"$S" run --json "cat $T/f.txt" >"$T/j" 2>"$T/err"
expect_eq "card: also with --json, on stderr" "$(cat "$T/err")" "[read] Read file '$T/f.txt'"
check "card: --json stdout is only events" python3 -c '
import json, sys
for l in open(sys.argv[1]): assert "event" in json.loads(l)' "$T/j"

# --json: one event per line
"$S" run --json 'printf "a\342\202"; sleep 0.1; printf "\254b"; exit 4' >"$T/j" 2>/dev/null; rc=$?
expect_eq "json rc" "$rc" 4
check "json: start has a pid" python3 - "$T/j" <<'EOF'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert ev[0]["event"] == "start" and isinstance(ev[0]["pid"], int) and ev[0]["pid"] > 0, ev[0]
assert all(e["event"] == "output" for e in ev[1:-1]), ev
data = "".join(e["data"] for e in ev[1:-1])
assert data == "a\u20acb", repr(data)
x = ev[-1]
assert x["event"] == "exit" and x["exit_code"] == 4 and x["signal"] is None, x
assert x["timed_out"] is False and x["cancelled"] is False, x
assert isinstance(x["duration_ms"], int) and x["duration_ms"] >= 100, x
assert list(x) == ["event", "exit_code", "signal", "timed_out", "cancelled", "duration_ms"], list(x)
EOF
"$S" run --json 'kill -9 $$' >"$T/j" 2>/dev/null
got=$(tail -n1 "$T/j" | sed -E 's/"duration_ms":[0-9]+/"duration_ms":N/')
expect_eq "json SIGKILL" "$got" \
  '{"event":"exit","exit_code":null,"signal":"SIGKILL","timed_out":false,"cancelled":false,"duration_ms":N}'
check "json SIGKILL shape" grep -q '"exit_code":null,"signal":"SIGKILL"' "$T/j"

# timeout: 124, the group is gone, within the grace
t0=$(date +%s%N)
"$S" run --json --timeout 0.3 'sleep 300 & echo $!; wait' >"$T/j" 2>/dev/null; rc=$?
t1=$(date +%s%N)
expect_eq "timeout rc" "$rc" 124
check "timeout event" grep -q '"signal":"SIGTERM","timed_out":true,"cancelled":false' "$T/j"
pid=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readlines()[1])["data"].strip())' "$T/j")
check "timeout: grandchild gone" gone "$pid"
check "timeout within 2.3 s" test $(( (t1 - t0) / 1000000 )) -lt 2300
# a command that ignores SIGTERM outlives neither its timeout nor the ladder's 2 s grace: the
# SIGKILL step ends it (the outer timeout only keeps a broken ladder from hanging the suite)
t0=$(date +%s%N)
timeout 20 "$S" run --timeout 0.2 "trap '' TERM; sleep 100" >/dev/null 2>&1; expect_eq "trap TERM: timeout rc" "$?" 124
ms=$(ms_since "$t0")
if [ "$ms" -lt 5000 ]; then ok; else fail "trap TERM: ended after ${ms} ms, want < 5000 (0.2 s timeout + 2 s grace)"; fi
"$S" run --timeout abc true >/dev/null 2>&1; expect_eq "bad timeout is a usage error" "$?" 2
"$S" run >/dev/null 2>&1; expect_eq "no command is a usage error" "$?" 2
"$S" run --bogus true >/dev/null 2>&1; expect_eq "unknown option" "$?" 2

# spawn errors: 127, structured
"$S" run --json --cwd /nonexistent/dir 'echo never' >"$T/j" 2>"$T/e"; rc=$?
expect_eq "missing cwd rc" "$rc" 127
expect_eq "missing cwd event" "$(cat "$T/j")" \
  '{"event":"error","message":"cannot change directory to '"'"'/nonexistent/dir'"'"': No such file or directory"}'
"$S" run --cwd /nonexistent/dir 'echo never' >"$T/o" 2>"$T/e"; rc=$?
expect_eq "missing cwd plain rc" "$rc" 127
expect_eq "missing cwd: nothing on stdout" "$(cat "$T/o")" ""
check "missing cwd: message on stderr" grep -q "cannot change directory to '/nonexistent/dir'" "$T/e"
env PATH=/nonexistent "$S" run --json true >"$T/j" 2>/dev/null; rc=$?
expect_eq "missing shell rc" "$rc" 127
check "missing shell event" grep -q '"event":"error","message":"cannot run the shell' "$T/j"

# --cwd and --login
expect_eq "cwd" "$("$S" run --cwd /tmp pwd 2>/dev/null | tr -d '\r')" "/tmp"
expect_eq "login" "$(HOME=$T "$S" run --login 'shopt -q login_shell && echo yes' 2>/dev/null | tr -d '\r')" "yes"

# SIGTERM (and SIGHUP) to shcard run cancel the command through the kill ladder
for sig in TERM HUP; do
  "$S" run --json 'sleep 300 & echo $!; wait' >"$T/j" 2>/dev/null &
  sp=$!
  for _ in $(seq 50); do [ "$(wc -l <"$T/j")" -ge 2 ] && break; sleep 0.05; done
  kill -"$sig" "$sp"
  wait "$sp"; rc=$?
  expect_eq "$sig cancels: rc" "$rc" 143
  check "$sig cancels: event" grep -q '"signal":"SIGTERM","timed_out":false,"cancelled":true' "$T/j"
  pid=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readlines()[1])["data"].strip())' "$T/j")
  check "$sig cancels: child gone" gone "$pid"
done

# Ctrl-C (SIGINT) is passed on: the command dies of SIGINT and shcard run exits 130, as in a
# shell; what it left running in the background is swept
"$S" run --json 'sleep 300 & echo $!; wait' >"$T/j" 2>/dev/null &
sp=$!
for _ in $(seq 50); do [ "$(wc -l <"$T/j")" -ge 2 ] && break; sleep 0.05; done
kill -INT "$sp"
wait "$sp"; rc=$?
expect_eq "SIGINT: rc 130" "$rc" 130
check "SIGINT: the command died of SIGINT" grep -q '"exit_code":null,"signal":"SIGINT","timed_out":false,"cancelled":false' "$T/j"
pid=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readlines()[1])["data"].strip())' "$T/j")
check "SIGINT: background child gone" gone "$pid"
# a command that ignores SIGINT: the second Ctrl-C cancels it (kill ladder: SIGTERM)
"$S" run --json "trap '' INT; echo ready; sleep 300" >"$T/j" 2>/dev/null &
sp=$!
for _ in $(seq 50); do [ "$(wc -l <"$T/j")" -ge 2 ] && break; sleep 0.05; done
kill -INT "$sp"; sleep 0.3
check "SIGINT ignored: still running" kill -0 "$sp"
kill -INT "$sp"
wait "$sp"; rc=$?
expect_eq "second SIGINT cancels: rc" "$rc" 143
check "second SIGINT cancels: event" grep -q '"signal":"SIGTERM","timed_out":false,"cancelled":true' "$T/j"

# the operands: one is a script; after --, or several, each word exactly (quoted)
expect_eq "one operand is a script" "$("$S" run 'echo "a  b" | tr a x' 2>/dev/null | tr -d '\r')" "x  b"
expect_eq "several operands keep their quoting" "$("$S" run printf '[%s]' 'a  b' '$HOME' '*' 2>/dev/null)" '[a  b][$HOME][*]'
expect_eq "-- CMD ARG...: exactly those words" "$("$S" run -- printf '[%s]' '--json' "it's" ';ls' 2>/dev/null)" "[--json][it's][;ls]"
"$S" run -- 'echo a; echo b' >/dev/null 2>&1; expect_eq "-- 'two words' is one command name" "$?" 127
"$S" run -- printf '%s' x >/dev/null 2>"$T/err"
expect_eq "-- CMD: the card shows the quoted command" "$(cat "$T/err")" "[terminal] printf %s x"
expect_eq "options stop at the command" "$("$S" run echo --json 2>/dev/null | tr -d '\r')" "--json"

# --color: TERM as the user's terminal has it, or dumb
expect_eq "color=never: TERM=dumb" "$(TERM=xterm-kitty "$S" run --color=never 'echo $TERM $NO_COLOR' 2>/dev/null | tr -d '\r')" "dumb 1"
expect_eq "color=always: the user's TERM" "$(TERM=xterm-kitty COLORTERM= "$S" run --color always 'echo $TERM ${NO_COLOR-unset} ${COLORTERM-unset}' 2>/dev/null | tr -d '\r')" "xterm-kitty unset unset"
expect_eq "color=always without TERM: xterm-256color" "$(env -u TERM "$S" run --color=always 'echo $TERM $COLORTERM' 2>/dev/null | tr -d '\r')" "xterm-256color truecolor"
expect_eq "color=auto, stdout a pipe: TERM=dumb" "$(TERM=xterm-kitty "$S" run 'echo $TERM' 2>/dev/null | tr -d '\r')" "dumb"
TERM=screen-256color script -qec "'$S' run 'echo T=\$TERM'" /dev/null </dev/null >"$T/tty" 2>&1
check "color=auto, stdout a terminal: the user's TERM" grep -q 'T=screen-256color' "$T/tty"
TERM=screen-256color script -qec "'$S' run --color=never 'echo T=\$TERM'" /dev/null </dev/null >"$T/tty" 2>&1
check "color=never on a terminal: dumb" grep -q 'T=dumb' "$T/tty"

# SIGTERM to shcard run while its command ignores SIGTERM: the ladder's SIGKILL ends it
"$S" run --json "trap '' TERM; echo \$\$; sleep 100" >"$T/j" 2>/dev/null &
sp=$!
for _ in $(seq 50); do [ "$(wc -l <"$T/j")" -ge 2 ] && break; sleep 0.05; done
t0=$(date +%s%N)
kill -TERM "$sp"
for _ in $(seq 200); do gone "$sp" && break; sleep 0.05; done
ms=$(ms_since "$t0")
if gone "$sp"; then wait "$sp"; expect_eq "cancel, TERM ignored: rc" "$?" 137; else
  kill -KILL "$sp"; wait "$sp"; fail "cancel, TERM ignored: shcard run still there after 10 s"; fi
if [ "$ms" -lt 5000 ]; then ok; else fail "cancel, TERM ignored: ended after ${ms} ms, want < 5000"; fi

# streaming: the first line arrives long before the command ends
"$S" run 'echo first; sleep 1.5; echo second' 2>/dev/null | while IFS= read -r l; do
  echo "$(date +%s%N) $l"; done >"$T/ts"
f=$(awk 'NR==1{print $1}' "$T/ts"); s=$(awk 'NR==2{print $1}' "$T/ts")
check "streams before exit" test $(( (s - f) / 1000000 )) -ge 1000

# escaped processes do not outlive the command
"$S" run 'setsid sleep 300 & echo $!; nohup sleep 300 >/dev/null 2>&1 & echo $!' >"$T/o" 2>/dev/null
for p in $(tr -d '\r' <"$T/o"); do check "escaped $p gone" gone "$p"; done

# stdout closed early: the command still ends and shcard exits
timeout 10 bash -c "'$S' run 'yes | head -c 5000000' | head -c 10 >/dev/null"
expect_eq "closed stdout" "$?" 0

finish
