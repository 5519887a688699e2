#!/usr/bin/env bash
# Every option of every subcommand, from a table: both spellings (--opt=value, --opt value) give
# the same answer, the edges of each range are accepted and one past them refused, a missing
# value, a value given to a flag and an unknown option are exit status 2 with a message naming
# the option; every option --help lists is in the table (a new option needs its row here), and
# --help shows a default for each option that takes a value.  Then the GNU behaviours the
# parser promises: options after operands, `--`, prefixes, --version everywhere.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
S=$SHCARD
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
mkdir -p "$T/home"
# acp with stdin at EOF: it reads the options, starts in shell mode and ends (exit 0)
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" XDG_STATE_HOME="$T/home/.state"
unset DEEPSEEK_API_KEY OPENAI_API_KEY SHCARD_CONFIG

# how each command is run with an option: the operands that make a valid call (acp: none; it
# starts with stdin at EOF and ends)
operands() {
  case $1 in
    explain | parse) echo ls ;;
    run) echo true ;;
    acp) echo "" ;;
  esac
}
# rc and stderr of: shcard CMD ARGS... (stdin /dev/null)
call() { "$S" "$@" </dev/null >"$T/out" 2>"$T/err"; echo $?; }

# the table: command, option, kind, good values (space-separated), bad values
#   kind: flag | value  (a value's good and bad lists are tried in both spellings)
TABLE=$(cat <<EOF
explain verbose flag
explain json flag
explain batch flag
explain no-unwrap flag
explain cwd value /tmp|. /nonexistent/dir|
explain context value any|bridge tty|ANY|
parse json flag
parse batch flag
parse no-unwrap flag
run cwd value /tmp|/ |
run timeout value 0|0.5|2.5|1000000000 -1|abc|1e3|1000000001|inf|.|0x10|
run login flag
run json flag
run color value auto|always|never sometimes|yes|
acp approve value all|ask none|
acp client-terminals flag
acp log-level value error|warn|info|debug trace|
acp timeout value 0|1|31536000 -1|31536001|1.5|x|
acp input-wait value 0|86400 86401|-1|
acp mcp-timeout value 1|86400 0|86401|x|
acp login flag
acp color flag
acp max-line value 1024|4294967296 1023|4294967297|
acp output-limit value 0|4294967296 4294967297|
acp chunk-bytes value 0|16777216 16777217|
acp chunk-ms value 0|10000 10001|
acp max-commands value 1|4096 0|4097|
acp model value deepseek-chat|x |
acp base-url value http://127.0.0.1:9|https://x.example ftp://x|x|
acp api-key-env value SOME_VAR |
acp max-turn-requests value 1|100000 0|100001|
acp request-timeout value 1|86400 0|86401|
acp system-prompt-file value $T/prompt $T/missing|
acp tool-output-limit value 1024|67108864 1023|67108865|
acp context-window value 1024|67108864 1023|67108865|
acp images value yes|no maybe|
acp config value $T/config $T/missing-config|
acp shell flag
acp store value $T/store relative/dir|
acp store-max-mb value 1|1048576 0|1048577|
acp no-store flag
EOF
)
echo "a system prompt" >"$T/prompt"
echo "model = m" >"$T/config"

declare -A seen
while read -r cmd opt kind good bad; do
  [ -n "$cmd" ] || continue
  seen["$cmd --$opt"]=1
  ops=$(operands "$cmd")
  batch_in=/dev/null
  if [ "$kind" = flag ]; then
    # --batch reads stdin, takes no operands
    if [ "$opt" = batch ]; then ops=""; fi
    rc=$(call "$cmd" "--$opt" $ops); expect_eq "$cmd --$opt: accepted" "$rc" 0
    rc=$(call "$cmd" "--$opt=1" $ops); expect_eq "$cmd --$opt=1: usage error" "$rc" 2
    check "$cmd --$opt=1: says it takes no value" grep -q -- "option '--$opt' takes no value" "$T/err"
    continue
  fi
  IFS='|' read -r -a goods <<<"$good"
  IFS='|' read -r -a bads <<<"$bad"
  for v in "${goods[@]}"; do
    [ -n "$v" ] || continue
    rc1=$(call "$cmd" "--$opt=$v" $ops); cp "$T/out" "$T/out1"
    rc2=$(call "$cmd" "--$opt" "$v" $ops)
    expect_eq "$cmd --$opt=$v: accepted" "$rc1" 0
    expect_eq "$cmd --$opt $v: accepted" "$rc2" 0
    cmp -s "$T/out1" "$T/out" && ok || fail "$cmd --$opt: the two spellings answer differently for $v"
  done
  for v in "${bads[@]}"; do
    [ -n "$v" ] || continue
    rc1=$(call "$cmd" "--$opt=$v" $ops); cp "$T/err" "$T/err1"
    rc2=$(call "$cmd" "--$opt" "$v" $ops)
    expect_eq "$cmd --$opt=$v: refused" "$rc1" 2
    expect_eq "$cmd --$opt $v: refused" "$rc2" 2
    # (a file that cannot be read is named itself)
    grep -q -e "--$opt" -e "$v" "$T/err1" && ok || fail "$cmd --$opt=$v: the message names neither the option nor the value"
    cmp -s "$T/err1" "$T/err" && ok || fail "$cmd --$opt: the two spellings give different messages for '$v'"
  done
  # no value at all (the option last), and an empty value
  # (run: options stop at the command, so `run true --timeout` gives true an argument)
  case $cmd in run | acp) rc=$(call "$cmd" "--$opt") ;; *) rc=$(call "$cmd" $ops "--$opt") ;; esac
  expect_eq "$cmd --$opt (missing value): usage error" "$rc" 2
  check "$cmd --$opt (missing value): says so" grep -q -- "option '--$opt' needs a value" "$T/err"
  rc=$(call "$cmd" "--$opt=" $ops); expect_eq "$cmd --$opt= (empty): usage error" "$rc" 2
  # --help shows a default for it
  "$S" "$cmd" --help >"$T/help"
  awk -v o="--$opt=" 'index($0, o) {on = 1} on {print} on && /\(default: / {exit}' "$T/help" | grep -q '(default: ' \
    && ok || fail "$cmd --help shows no default for --$opt"
done <<<"$TABLE"

# every option --help lists is in the table; unknown options are refused by name
for cmd in explain parse run acp; do
  for o in $("$S" "$cmd" --help | grep -oE '^  (-[A-Za-z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z-]+'); do
    case $o in --help | --version) continue ;; esac
    [ -n "${seen["$cmd $o"]:-}" ] && ok || fail "$cmd $o is in --help but not in this table"
  done
  rc=$(call "$cmd" --bogus-option $(operands "$cmd")); expect_eq "$cmd --bogus-option: usage error" "$rc" 2
  check "$cmd --bogus-option: named" grep -q "shcard $cmd: unknown option '--bogus-option'" "$T/err"
  check "$cmd --bogus-option: points at --help" grep -q "Try 'shcard $cmd --help'" "$T/err"
  rc=$(call "$cmd" -Q $(operands "$cmd")); expect_eq "$cmd -Q: usage error" "$rc" 2
  check "$cmd -Q: named" grep -q "unknown option '-Q'" "$T/err"
  for f in --version -V; do
    expect_eq "$cmd $f" "$("$S" "$cmd" "$f")" "$("$S" --version)"
  done
  "$S" "$cmd" --help >/dev/null; expect_eq "$cmd --help: exit 0" "$?" 0
  "$S" "$cmd" -h >/dev/null; expect_eq "$cmd -h: exit 0" "$?" 0
done
expect_eq "shcard -V" "$("$S" -V)" "$("$S" --version)"

# options after operands (GNU permutation) for explain and parse
expect_eq "explain ls --json = explain --json ls" "$("$S" explain ls --json)" "$("$S" explain --json ls)"
expect_eq "parse ls --json = parse --json ls" "$("$S" parse ls --json)" "$("$S" parse --json ls)"
expect_eq "explain 'rg x' --context bridge" "$("$S" explain 'rg x' --context bridge --json | grep -o '"kind":"[a-z]*"')" '"kind":"search"'
rc=$(call explain ls -la); expect_eq "explain ls -la: usage error" "$rc" 2
check "explain ls -la: says to quote" grep -q "quote it, as in shcard explain 'ls -la'" "$T/err"
expect_eq "explain -- -la: a command" "$("$S" explain --json -- -la | grep -o '"cmd":"[^"]*"')" '"cmd":"-la"'
expect_eq "explain -- ls --json: a command" "$("$S" explain -- --json | head -c 9)" "terminal:"
expect_eq "a unique prefix: --js" "$("$S" explain --js ls | head -c 1)" "{"
rc=$(call explain --c x ls); expect_eq "an ambiguous prefix (--c: cwd, context)" "$rc" 2
check "ambiguous: says so" grep -q "option '--c' is ambiguous" "$T/err"
expect_eq "-v in a cluster with the command after" "$("$S" explain -v ls | grep -c 'reason:')" 1
rc=$(call explain); expect_eq "explain without a command: usage error" "$rc" 2
rc=$(call run); expect_eq "run without a command: usage error" "$rc" 2
check "run without a command: says so" grep -q "shcard run: no command given" "$T/err"
rc=$(call acp stray); expect_eq "acp with an operand: usage error" "$rc" 2

# the values take effect (one per kind)
expect_eq "run --timeout=0.2: 124" "$(call run --timeout=0.2 'sleep 5')" 124
expect_eq "run --cwd=/tmp" "$("$S" run --cwd=/tmp pwd 2>/dev/null | tr -d '\r')" /tmp
expect_eq "explain --cwd=DIR stat()s there" "$(mkfifo "$T/p"; "$S" explain --cwd="$T" 'cat p' | head -c 8)" "terminal"
# acp starts and ends (stdin at EOF) with values in both spellings
expect_eq "acp starts with --timeout=0 --max-line 2048 --approve=ask" "$(call acp --timeout=0 --max-line 2048 --approve=ask --no-store)" 0
# acp: --timeout=0 and --timeout 0 are one option with one range (a config file's timeout too)
printf 'timeout = 0\n' >"$T/c0"
expect_eq "acp config timeout = 0 accepted" "$(call acp --config="$T/c0")" 0
printf 'timeout = 31536001\n' >"$T/c1"
expect_eq "acp config timeout past the range" "$(call acp --config="$T/c1")" 2
check "acp config timeout: message" grep -q "expected seconds from 0 (none) to 31536000" "$T/err"
finish
