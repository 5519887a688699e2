#!/usr/bin/env bash
# RED-TEAM REGRESSION SUITE (confinement): reproducers for findings RC1-RC5 of the confinement
# red team.  Every "finding" check FAILS on the code as it was when the suite was written and
# passes once its finding is fixed; every "control" check passes today and shows the harness can
# see the effect (the same act, unhidden or unsandboxed).  Merge it together with the fixes.
#   RC1 verified cards: the command takes the agent's seccomp listener (pidfd_getfd is not
#       watched, the agent is ptrace-able by its own commands) and answers its own
#       notifications: a write with no event, card held (shcard run and shcard acp)
#   RC2 verified cards: a path argument in a FUSE-backed page the command serves itself makes
#       the supervisor's read of /proc/PID/mem wait forever: the agent's loop hangs (root)
#   RC3 sandbox and watch: kernel state that is no file (SysV shared memory, the user keyring)
#       is written from a read-only sandbox / a held read card
#   RC4 sandbox and watch: resource limits and priority of processes outside (prlimit kills an
#       outside process with RLIMIT_CPU, renice), which Landlock's signal scope does not cover
#   RC5 sandbox: ioctls other than TIOCSTI/TIOCLINUX on another terminal opened for reading
#       (stty -F: echo turned off on a terminal outside the sandbox)
#   RC6 sandbox (root): the workspace rule grants MAKE_BLOCK/MAKE_CHAR: mknod of an outside block
#       device inside the workspace, then a raw write through it (a loop device's backing file)
#   RC7 sandbox (root, run as nobody): setpriority(PRIO_USER, 0) renices every process of the
#       command's uid, outside processes included
#   RC8 sandbox: setsid(), a read-only open of a terminal that has no session (it becomes the
#       controlling terminal), then /dev/tty: another terminal's echo turned off
#   RC9 sandbox: git control files the workspace check did not see: a hook in a submodule's
#       git dir, a slash-named or nested submodule's config, a linked worktree's commondir,
#       core.hooksPath from the global config or through a symlink, a repository past the
#       256th subdirectory (and nothing said when a cap is hit)
#   RC10 sandbox: a git directory with no .git name: the command turns an ordinary directory of
#       the repository into an implicit bare repository (HEAD, objects/, refs/ and a config with
#       core.fsmonitor, which git discovers before the .git above it), or leaves a "gitdir:"
#       .git file deeper than one level; nothing was reported, the user's next git status there
#       ran the fsmonitor
#   RC11 sandbox: what the command itself can create or the hooks run: a cache tag written at the
#       top hid the git directory planted below it; a work-tree config file the repository's
#       config includes, and the work-tree config a pre-commit hook runs, were not recorded
# Each check prints a PASS or FAIL line; the suite ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
R=$PWD
S=${SHCARD:-$R/shcard}
D=$PWD/tests/data/rt_confine
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
T=$(mktemp -d)
KEY=$((0x5c000000 + $$ % 65536))
LOOP=
T7=
VICTIMS=()
cleanup() {
  for v in "${VICTIMS[@]}"; do kill -KILL "$v" 2>/dev/null; done
  wait 2>/dev/null
  "$T/sysv" rm "$KEY" 2>/dev/null
  fuse_abort
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
  rm -rf "$T" ${T7:+"$T7"}
}
trap cleanup EXIT
_pass=0
_fail=0
pass() { _pass=$((_pass + 1)); echo "PASS: $*"; }
fail() { _fail=$((_fail + 1)); echo "FAIL: $*"; }
# verdict JSON-LINES: the verify event's held value ("true"/"false"/"" when none)
held() { grep '"event":"verify"' "$1" | grep -o '"held":[a-z]*' | head -1 | cut -d: -f2; }

[ -x "$S" ] || { fail "no shcard binary at $S"; echo "$_pass passed, $_fail failed"; exit 1; }
cc -O2 -o "$T/steal" "$D/steal.c" && cc -O2 -o "$T/sysv" "$D/sysv.c" ||
  { fail "cannot build the probes"; echo "$_pass passed, $_fail failed"; exit 1; }
mkdir -p "$T/ws"
cd "$T/ws"

# ------------------------------------------------------------------ RC1 the listener taken
RT_NOSTEAL=1 timeout -s KILL 30 "$S" run --verify --as read --json "$T/steal $T/ws/ctl.txt" >"$T/j" 2>&1
if [ "$(held "$T/j")" = false ] && [ -s "$T/ws/ctl.txt" ]; then
  pass "RC1 control: the watch reports a read card's plain write (held:false)"
else
  fail "RC1 control: plain write not reported: $(tail -c 400 "$T/j")"
fi
hidden=0 # the listener is shared with the agent: who receives a notification is a race
for i in 1 2 3 4; do
  rm -f "$T/ws/out$i.txt"
  # --timeout: a stealing child killed while it holds a notification of the main process's
  # kill() leaves that call pending for ever (the probe deadlocks itself); the card flips anyway
  timeout -s KILL 30 "$S" run --verify --as read --json --timeout 10 "$T/steal $T/ws/out$i.txt" >"$T/j" 2>&1
  h=$(held "$T/j")
  [ -s "$T/ws/out$i.txt" ] && [ "$h" != false ] && hidden=$((hidden + 1))
done
if [ "$hidden" -gt 0 ]; then
  fail "RC1: the command took the agent's listener, wrote a file and the card held ($hidden of 4 runs)"
else
  pass "RC1: a write behind a taken listener is reported (4 of 4 runs)"
fi
if [ -d "$R/tests/e2e/node_modules/@agentclientprotocol/sdk" ]; then
  mkdir -p "$T/acp/.bin"
  cp "$T/steal" "$T/acp/.bin/cat"
  (cd "$R" && SHCARD="$S" RT_WS="$T/acp" timeout -s KILL 90 node tests/e2e/rt_confine.test.mjs) >"$T/node.txt" 2>&1
  cat "$T/node.txt" | grep -E '^(PASS|FAIL)'
  np=$(grep -c '^PASS' "$T/node.txt")
  nf=$(grep -c '^FAIL' "$T/node.txt")
  _pass=$((_pass + np))
  _fail=$((_fail + nf))
  [ $((np + nf)) -gt 0 ] || fail "RC1 acp: the ACP client test printed nothing: $(tail -c 600 "$T/node.txt")"
else
  fail "RC1 acp: tests/e2e/node_modules is missing (make npm-deps)"
fi

# ------------------------------------------------------------------ RC2 the supervisor held up
# root only: mount(2) of a FUSE file system (a user would need fusermount3 on the machine)
MNT= # set while the FUSE mount may exist: never stat it (a stat waits on the hung daemon)
fuse_abort() {
  [ -n "$MNT" ] || return 0
  local mm
  mm=$(awk -v m="$MNT" '$5 == m {print $3}' /proc/self/mountinfo | head -1)
  if [ -n "$mm" ]; then
    mountpoint -q /sys/fs/fuse/connections 2>/dev/null ||
      mount -t fusectl fusectl /sys/fs/fuse/connections 2>/dev/null
    [ -w "/sys/fs/fuse/connections/${mm#*:}/abort" ] && echo 1 >"/sys/fs/fuse/connections/${mm#*:}/abort"
    umount -l "$MNT" 2>/dev/null
  fi
  MNT=
}
if [ "$(id -u)" = 0 ] && [ -c /dev/fuse ]; then
  mkdir -p "$T/mnt"
  MNT=$T/mnt
  t0=$(date +%s)
  timeout -s KILL 20 "$S" run --verify --as read --timeout 3 --json "$PY $D/fusehang.py $T/mnt" >"$T/j" 2>&1
  rc=$?
  t1=$(date +%s)
  fuse_abort
  # 137: killed by the outer timeout, the agent never ended it (a command that deadlocks in
  # its own FUSE file system takes some seconds to go after SIGKILL: the time alone is no test)
  if [ "$rc" = 137 ]; then
    fail "RC2: a path in a FUSE page the command serves hung the agent (--timeout 3 never fired; killed after $((t1 - t0)) s)"
  else
    pass "RC2: the agent ended the command at its timeout (rc $rc after $((t1 - t0)) s)"
  fi
else
  echo "SKIP: RC2 needs root and /dev/fuse (a user reaches the same with fusermount3)"
fi

# ------------------------------------------------------------------ RC3 state that is no file
"$T/sysv" mk "$KEY"
timeout -s KILL 30 "$S" run --sandbox off "$T/sysv write $KEY control" >/dev/null 2>&1
if [ "$("$T/sysv" read "$KEY")" = control ]; then pass "RC3 control: sandbox off writes the segment"; else fail "RC3 control: the unsandboxed write did not land"; fi
"$T/sysv" write "$KEY" orig
timeout -s KILL 30 "$S" run --sandbox read-only "$T/sysv write $KEY pwned" >/dev/null 2>&1
got=$("$T/sysv" read "$KEY")
if [ "$got" = orig ]; then pass "RC3 shm: read-only sandbox cannot write another program's SysV segment"
else fail "RC3 shm: a read-only sandboxed command rewrote an outside SysV shared memory segment (now '$got')"; fi
"$T/sysv" write "$KEY" orig
timeout -s KILL 30 "$S" run --verify --as read --json "$T/sysv write $KEY pwned" >"$T/j" 2>&1
got=$("$T/sysv" read "$KEY")
h=$(held "$T/j")
if [ "$got" != orig ] && [ "$h" != false ]; then fail "RC3 shm watch: a read card rewrote a SysV segment and held (held:$h)"
else pass "RC3 shm watch: reported (held:$h)"; fi
"$T/sysv" rm "$KEY"
kname=rt_confine_$$
timeout -s KILL 30 "$S" run --sandbox read-only "$PY $D/addkey.py $kname" >/dev/null 2>&1
if grep -q " $kname: " /proc/keys; then fail "RC3 keyring: a read-only sandboxed command added a key to the user keyring"
else pass "RC3 keyring: no key added from the read-only sandbox"; fi
$PY - "$kname" <<'X'
import ctypes, sys
l = ctypes.CDLL(None, use_errno=True)
k = l.syscall(250, 10, -4, b"user", sys.argv[1].encode(), 0)  # KEYCTL_SEARCH in @u
if k > 0:
    l.syscall(250, 21, k)  # KEYCTL_INVALIDATE
X

# ------------------------------------------------------------------ RC4 limits of outside processes
# The limit is read back from /proc/V/limits (deterministic on a loaded machine); what it does
# was observed by hand: RLIMIT_CPU 1:1 on a busy outside loop gets it SIGKILLed ~1 s of CPU later,
# while `kill -TERM` of the same process from the sandbox is EPERM.
cpu_limit() { awk '/^Max cpu time/ {print $4 ":" $5}' "/proc/$1/limits"; }
sleep 300 & VICTIMS+=($!); V=$!
timeout -s KILL 30 "$S" run --sandbox off "prlimit --pid $V --cpu=1:1" >/dev/null 2>&1
if [ "$(cpu_limit "$V")" = 1:1 ]; then pass "RC4 control: prlimit without the sandbox sets an outside process's RLIMIT_CPU"
else fail "RC4 control: prlimit without the sandbox did not change the limit ($(cpu_limit "$V"))"; fi
{ kill -KILL "$V"; wait "$V"; } 2>/dev/null
sleep 300 & VICTIMS+=($!); V=$!
timeout -s KILL 30 "$S" run --sandbox read-only "kill -TERM $V" >/dev/null 2>&1
sleep 0.2
if kill -0 "$V" 2>/dev/null; then pass "RC4 control: kill of an outside process from the sandbox is denied"
else fail "RC4 control: the sandbox let kill through"; sleep 300 & VICTIMS+=($!); V=$!; fi
timeout -s KILL 30 "$S" run --sandbox read-only "prlimit --pid $V --cpu=1:1" >/dev/null 2>&1
got=$(cpu_limit "$V")
if [ "$got" = 1:1 ]; then fail "RC4 prlimit: a read-only sandboxed command set an outside process's RLIMIT_CPU to 1 s (the kernel then kills it)"
else pass "RC4 prlimit: the outside process keeps its limits ($got)"; fi
{ kill -KILL "$V"; wait "$V"; } 2>/dev/null
sleep 300 & VICTIMS+=($!); V=$!
timeout -s KILL 30 "$S" run --sandbox read-only "renice -n 19 -p $V" >/dev/null 2>&1
nice=$(awk '{print $19}' "/proc/$V/stat")
if [ "$nice" = 0 ]; then pass "RC4 renice: the outside process keeps its priority"
else fail "RC4 renice: a read-only sandboxed command reniced an outside process (nice $nice)"; fi
timeout -s KILL 30 "$S" run --verify --as read --json "prlimit --pid $V --nofile=7:7" >"$T/j" 2>&1
h=$(held "$T/j")
if grep -q 'Max open files *7 *7' "/proc/$V/limits" && [ "$h" != false ]; then
  fail "RC4 watch: a read card changed an outside process's limits and held (held:$h)"
else pass "RC4 watch: reported (held:$h)"; fi
{ kill -KILL "$V"; wait "$V"; } 2>/dev/null

# ------------------------------------------------------------------ RC5 another terminal's settings
tty_case() { # MODE -> prints echo/noecho as the outside terminal ends up
  rm -f "$T/tname"
  $PY "$D/ttyvictim.py" "$T/tname" 2 >"$T/tres" & local v=$!
  for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$T/tname" ] && break; sleep 0.1; done
  timeout -s KILL 30 "$S" run --sandbox "$1" "stty -F $(cat "$T/tname") -echo" >/dev/null 2>&1
  wait "$v"
  cat "$T/tres"
}
if [ "$(tty_case off)" = noecho ]; then pass "RC5 control: stty -F outside the sandbox turns echo off"; else fail "RC5 control: stty -F did not change the terminal"; fi
got=$(tty_case read-only)
if [ "$got" = echo ]; then pass "RC5 tty: a terminal outside keeps its settings"
else fail "RC5 tty: a read-only sandboxed command changed another terminal's settings (stty -F -echo: $got)"; fi

# ------------------------------------------------------------------ RC6 device nodes in the workspace
if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null && truncate -s 1M "$T/disk" &&
  LOOP=$(losetup -f --show "$T/disk" 2>/dev/null) && [ -b "$LOOP" ]; then
  mm=$(stat -c '%t %T' "$LOOP")
  maj=$((16#${mm% *}))
  min=$((16#${mm#* }))
  mkdir -p "$T/ws6"
  timeout -s KILL 30 "$S" run --sandbox workspace --cwd "$T/ws6" "printf direct | dd of=$LOOP conv=notrunc status=none" >/dev/null 2>&1
  if [ "$(head -c 6 "$T/disk")" != direct ]; then pass "RC6 control: the workspace sandbox cannot open the outside device itself"
  else fail "RC6 control: the outside device was written directly"; fi
  timeout -s KILL 30 "$S" run --sandbox workspace --cwd "$T/ws6" "mknod blk b $maj $min && printf pwned | dd of=blk conv=notrunc status=none" >/dev/null 2>&1
  sync
  if [ "$(head -c 5 "$T/disk")" = pwned ]; then fail "RC6: a workspace command made a block device node and wrote an outside device through it"
  else pass "RC6: no device node write from the workspace"; fi
  losetup -d "$LOOP"
  LOOP=
else
  echo "SKIP: RC6 needs root and a free loop device"
fi

# ------------------------------------------------------------------ RC7 the priority of the uid's processes
# As root only: the command and the outside process run as nobody, so a renice that gets through
# reaches nobody's processes alone (run as root it would renice every root process).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  NB=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  # nobody must reach its directory: not under the suite's TMPDIR, which may be private
  # nor may the binary sit in a checkout under a private directory (a CI clone in a mktemp -d):
  # nobody runs a copy
  T7=$(TMPDIR=/tmp mktemp -d) && chmod 777 "$T7" && mkdir -p "$T/ws7"
  cp "$S" "$T7/shcard" && chmod 755 "$T7/shcard"
  "${NB[@]}" sleep 300 & VICTIMS+=($!); V=$!
  sleep 0.2
  nice0=$(awk '{print $19}' "/proc/$V/stat")
  (cd "$T7" && timeout -s KILL 30 "${NB[@]}" env HOME="$T7" XDG_CONFIG_HOME="$T7" XDG_STATE_HOME="$T7" TMPDIR="$T7" "$T7/shcard" run --sandbox read-only \
    "$PY -c 'import os; n = min(os.getpriority(os.PRIO_PROCESS, 0) + 1, 19); os.setpriority(os.PRIO_PROCESS, 0, n); print(\"own\", os.getpriority(os.PRIO_PROCESS, 0) == n); os.setpriority(os.PRIO_USER, 0, 19)'" >"$T/o7" 2>&1)
  nice=$(awk '{print $19}' "/proc/$V/stat")
  if grep -q "own True" "$T/o7"; then pass "RC7 control: the command may renice itself (PRIO_PROCESS, who 0)"
  else fail "RC7 control: renicing itself failed: $(tail -c 300 "$T/o7")"; fi
  if [ "$nice" = "$nice0" ] && grep -q "Operation not permitted" "$T/o7"; then pass "RC7 renice user: refused, the outside process keeps its priority"
  else fail "RC7 renice user: setpriority(PRIO_USER, 0, 19) from a read-only sandbox (outside process nice $nice0 -> $nice)"; fi
  { kill -KILL "$V"; wait "$V"; } 2>/dev/null
  rm -rf "$T7"
else
  echo "SKIP: RC7 needs root (the command runs as nobody) and setpriv"
fi
# ioprio_set(IOPRIO_WHO_USER, 0) with an invalid class: EINVAL when the call reaches the kernel
# (which then changes nothing), EPERM when the filter refuses it
cat >"$T/ioprio.py" <<'X'
import ctypes, os
l = ctypes.CDLL(None, use_errno=True)
r = l.syscall(251, 3, 0, 7 << 13)  # x86_64 ioprio_set(IOPRIO_WHO_USER, 0, class 7)
print("errno", os.strerror(ctypes.get_errno()) if r < 0 else "none")
X
if [ "$(uname -m)" = x86_64 ]; then
  timeout -s KILL 30 "$S" run --sandbox read-only "$PY $T/ioprio.py" >"$T/o7" 2>&1
  if grep -q "errno Operation not permitted" "$T/o7"; then pass "RC7 ionice user: ioprio_set(IOPRIO_WHO_USER, 0) refused"
  else fail "RC7 ionice user: ioprio_set(IOPRIO_WHO_USER, 0) from a read-only sandbox reached the kernel: $(grep errno "$T/o7")"; fi
fi
timeout -s KILL 30 "$S" run --sandbox read-only 'ionice -c 3 true && nice -n 2 true && echo ok' >"$T/o7" 2>&1
if grep -q '^ok' "$T/o7"; then pass "RC7 control: ionice CMD and nice CMD still work"
else fail "RC7 control: ionice CMD or nice CMD failed: $(tail -c 300 "$T/o7")"; fi

# ------------------------------------------------------------------ RC8 another terminal through /dev/tty
steal_case() { # MODE -> what the stealer said, then echo/noecho as the outside terminal ends up
  rm -f "$T/tname"
  $PY "$D/ttyvictim.py" "$T/tname" 3 >"$T/tres" & local v=$!
  for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$T/tname" ] && break; sleep 0.1; done
  timeout -s KILL 30 "$S" run --sandbox "$1" "$PY $D/ttysteal.py $(cat "$T/tname")" 2>&1 | tr -d '\r' | grep -E '^(stolen|refused)'
  wait "$v"
  cat "$T/tres"
}
got=$(steal_case off)
case "$got" in stolen*noecho) pass "RC8 control: off the sandbox, setsid + open + /dev/tty turns another terminal's echo off" ;;
*) fail "RC8 control: the stealer did not reach the terminal off the sandbox: $got" ;; esac
got=$(steal_case read-only)
case "$got" in refused*echo) pass "RC8 tty: the read-only sandbox keeps another terminal out of /dev/tty ($(echo $got | head -c 80))" ;;
*) fail "RC8 tty: a read-only sandboxed command changed another terminal through /dev/tty: $got" ;; esac
timeout -s KILL 30 "$S" run --sandbox read-only 'echo to-tty > /dev/tty && stty -g </dev/tty >/dev/null && echo ok' >"$T/o8" 2>&1
if grep -q '^ok' "$T/o8"; then pass "RC8 control: the command's own /dev/tty still works"
else fail "RC8 control: /dev/tty of the command itself: $(tail -c 300 "$T/o8")"; fi

# ------------------------------------------------------------------ RC9 git control files
G=(git -c user.email=t@t -c user.name=t -c protocol.file.allow=always -c init.defaultBranch=main)
W9=$T/ws9
gsnap() { # DIR CMD: run CMD in the workspace sandbox at DIR, stderr in $T/g9
  timeout -s KILL 60 env HOME="${H9:-$HOME}" "$S" run --sandbox workspace --cwd "$1" "$2" >/dev/null 2>"$T/g9"
}
noticed() { # NAME WHAT: the notice names WHAT
  if grep -q "control files.*$2" "$T/g9"; then pass "RC9 $1: reported"
  else fail "RC9 $1: no control-file notice ($(tail -c 300 "$T/g9"))"; fi
}
mkdir -p "$W9" && cd "$W9"
"${G[@]}" init -q src && "${G[@]}" -C src commit -q --allow-empty -m init
"${G[@]}" init -q src/inner && "${G[@]}" -C src/inner commit -q --allow-empty -m init
"${G[@]}" -C src submodule add -q ./inner inner >/dev/null 2>&1
"${G[@]}" -C src commit -q -m inner
"${G[@]}" init -q proj && "${G[@]}" -C proj commit -q --allow-empty -m init
"${G[@]}" -C proj submodule add -q "$W9/src/inner" sub >/dev/null 2>&1
"${G[@]}" -C proj submodule add -q "$W9/src/inner" libs/foo >/dev/null 2>&1
"${G[@]}" -C proj submodule add -q "$W9/src" nest >/dev/null 2>&1
"${G[@]}" -C proj/nest submodule update -q --init >/dev/null 2>&1
"${G[@]}" -C proj commit -q -m subs
"${G[@]}" -C proj worktree add -q "$T/wt9" 2>/dev/null
if [ -d proj/.git/modules/sub ] && [ -d proj/.git/modules/libs/foo ] && [ -d proj/.git/modules/nest/modules/inner ] &&
  [ -d proj/.git/worktrees/wt9 ]; then
  pass "RC9 control: submodules (sub, libs/foo, nest/inner) and a linked worktree are set up"
else
  fail "RC9 control: the repository layout could not be made: $(ls -R proj/.git/modules 2>&1 | head -5)"
fi
gsnap "$W9/proj" "printf '#!/bin/sh\ntouch $T/pwned9\n' > .git/modules/sub/hooks/post-checkout && chmod +x .git/modules/sub/hooks/post-checkout"
noticed "a hook in .git/modules/sub/hooks" "modules/sub/hooks/post-checkout' (created)"
rm -f proj/.git/modules/sub/hooks/post-checkout
gsnap "$W9/proj" "git config -f .git/modules/libs/foo/config core.fsmonitor 'touch $T/pwned9; false'"
noticed "a slash-named submodule's config" "modules/libs/foo/config' (changed)"
gsnap "$W9/proj" "git config -f .git/modules/nest/modules/inner/config core.fsmonitor 'touch $T/pwned9; false'"
noticed "a nested submodule's config" "modules/nest/modules/inner/config' (changed)"
gsnap "$W9/proj" "git config -f .git/modules/sub/config.worktree core.fsmonitor 'touch $T/pwned9; false'"
noticed "a submodule's config.worktree" "modules/sub/config.worktree' (created)"
gsnap "$W9/proj" "cp -r .git .evil && echo ../../../.evil > .git/worktrees/wt9/commondir"
noticed "a linked worktree's commondir" "worktrees/wt9/commondir' (changed)"
gsnap "$W9/proj" "echo a > a && git add a && git -c user.email=t@t -c user.name=t commit -qm a && git status >/dev/null && git -C sub status >/dev/null && git checkout -q -b topic && git checkout -q - && git -C libs/foo checkout -q -b t2"
if grep -q "control files" "$T/g9"; then fail "RC9 control: ordinary git work (add, commit, status, checkout, in submodules too) was reported: $(tail -c 300 "$T/g9")"
else pass "RC9 control: ordinary git work (add, commit, status, checkout, in submodules too) is not reported"; fi
# core.hooksPath from the global config (relative: each repository's .githooks), and through a
# symlinked spelling of the workspace
mkdir -p "$T/h9" "$W9/hp/.githooks" && printf '[core]\n\thooksPath = .githooks\n' >"$T/h9/.gitconfig"
git init -q "$W9/hp"
H9=$T/h9 gsnap "$W9/hp" "printf '#!/bin/sh\n' > .githooks/pre-commit"
noticed "core.hooksPath in the global config" ".githooks/pre-commit' (created)"
ln -s "$W9" "$T/ln9"
git -C "$W9/proj" config core.hooksPath "$T/ln9/proj/.hooks9" && mkdir -p "$W9/proj/.hooks9"
gsnap "$W9/proj" "printf '#!/bin/sh\n' > .hooks9/pre-commit"
noticed "core.hooksPath through a symlink" ".hooks9/pre-commit' (created)"
git -C "$W9/proj" config --unset core.hooksPath
# many repositories: one past the 256th subdirectory, then more than the check covers
mkdir -p "$T/many" && cd "$T/many"
for i in $(seq 1 300); do mkdir -p "d$i/.git"; done
rm -rf d12 && git init -q d12
gsnap "$T/many" "git config -f d12/.git/config core.fsmonitor 'touch $T/pwned9; false'"
noticed "a repository among 300" "d12/.git/config' (changed)"
for i in $(seq 301 600); do mkdir -p "d$i/.git"; done
gsnap "$T/many" "true"
if grep -q "were not checked" "$T/g9"; then pass "RC9 caps: the notice says how many repositories were not checked ($(grep -o 'control files of [0-9]* [a-z]*' "$T/g9"))"
else fail "RC9 caps: 600 repositories, no word of those not checked ($(tail -c 300 "$T/g9"))"; fi

# ------------------------------------------------------------------ RC10 git directories by content
W10=$T/ws10
mkdir -p "$W10" && cd "$W10" && "${G[@]}" init -q . && mkdir -p src e/f/g && echo 'int main(){}' >src/main.c
"${G[@]}" add -A && "${G[@]}" commit -q -m init
"${G[@]}" init -q --bare fixtures/remote.git
gsnap "$W10" "mkdir -p src/objects src/refs && echo 'ref: refs/heads/main' > src/HEAD && printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = \"touch $T/pwned10; false\"\n' > src/config"
rm -f "$T/pwned10"
(cd src && git status >/dev/null 2>&1)
if [ -e "$T/pwned10" ]; then pass "RC10 control: git status in the planted src/ runs its fsmonitor (git takes src/ as a git directory)"
else fail "RC10 control: git status in src/ did not run the planted fsmonitor"; fi
if grep -q "control files.*'src' (became a git directory).*'src/config' (created)" "$T/g9"; then pass "RC10 implicit bare: reported"
else fail "RC10 implicit bare: an ordinary directory made a git directory by its content, no notice ($(tail -c 300 "$T/g9"))"; fi
rm -rf src/objects src/refs src/HEAD src/config "$T/pwned10"
gsnap "$W10" "mkdir -p .x/objects .x/refs && echo 'ref: refs/heads/main' > .x/HEAD && printf '[core]\n\tworktree = ../e/f/g\n\tfsmonitor = \"touch $T/pwned10; false\"\n' > .x/config && echo 'gitdir: ../../../.x' > e/f/g/.git"
rm -f "$T/pwned10"
(cd e/f/g && git status >/dev/null 2>&1)
if [ -e "$T/pwned10" ]; then pass "RC10 control: git status in e/f/g follows its planted gitdir: file and runs the fsmonitor"
else fail "RC10 control: git status in e/f/g did not run the planted fsmonitor"; fi
if grep -q "control files.*'e/f/g/.git' (created)" "$T/g9"; then pass "RC10 gitdir file three levels down: reported"
else fail "RC10 gitdir file three levels down: no notice ($(tail -c 300 "$T/g9"))"; fi
rm -rf .x e/f/g/.git "$T/pwned10"
deep=$(printf 'd/%.0s' $(seq 20))
mkdir -p "$W10/$deep"
gsnap "$W10" "cd $deep && mkdir objects refs && echo 'ref: refs/heads/main' > HEAD && printf '[core]\n\tfsmonitor = x\n' > config"
if grep -q "control files.*'${deep}config' (created)" "$T/g9"; then pass "RC10 implicit bare 20 directories down: reported"
else fail "RC10 implicit bare 20 directories down: no notice ($(tail -c 300 "$T/g9"))"; fi
rm -rf "$W10/d"
mkdir -p "$T/deep10/$(printf 'e/%.0s' $(seq 34))"
gsnap "$T/deep10" "true"
if grep -q "control files.*not searched for git directories" "$T/g9"; then pass "RC10 caps: the notice says directories past the search's depth were not searched"
else fail "RC10 caps: a tree 34 deep, no word of the directories not searched ($(tail -c 300 "$T/g9"))"; fi
cd "$W10"
gsnap "$W10" "git push -q fixtures/remote.git main && git -C fixtures/remote.git log --oneline >/dev/null && git status >/dev/null"
if grep -q "control files" "$T/g9"; then fail "RC10 control: a push to a bare repository in the workspace was reported: $(tail -c 300 "$T/g9")"
else pass "RC10 control: a push to a bare repository in the workspace is not reported"; fi
cd "$T/ws"

# ------------------------------------------------------------------ RC11 what the command can create
# (a) a cache tag the command writes at the top does not hide the git directory it plants below;
# (b) a config file the repository's config includes from the work tree; (c) a work-tree file a
# hook runs (a pre-commit-style launcher reading .pre-commit-config.yaml).  Each: git, run by
# the user afterwards, really runs the planted program, and the notice names the file.
noticed11() { # NAME WHAT: the notice names WHAT
  if grep -q "control files.*$2" "$T/g9"; then pass "RC11 $1: reported"
  else fail "RC11 $1: no control-file notice ($(tail -c 300 "$T/g9"))"; fi
}
W11=$T/ws11
mkdir -p "$W11" && cd "$W11" && "${G[@]}" init -q . && mkdir src && echo 'int main(){}' >src/main.c
"${G[@]}" add -A && "${G[@]}" commit -q -m init
gsnap "$W11" "echo 'Signature: 8a477f597d28d172789f06886806bc55' > CACHEDIR.TAG && mkdir -p src/objects src/refs && echo 'ref: refs/heads/main' > src/HEAD && printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = \"touch $T/pwned11; false\"\n' > src/config"
rm -f "$T/pwned11"; (cd src && git status >/dev/null 2>&1)
if [ -e "$T/pwned11" ]; then pass "RC11 control: git status in the planted src/ runs its fsmonitor"
else fail "RC11 control: the planted src/ did not run its fsmonitor"; fi
noticed11 "a git directory planted under a cache tag the command wrote" "'CACHEDIR.TAG' (created.*'src' (became a git directory)"
rm -rf CACHEDIR.TAG src/objects src/refs src/HEAD src/config "$T/pwned11"
printf '[alias]\n\tst = status\n' >.gitconfig && git config include.path ../.gitconfig
gsnap "$W11" "printf '[core]\n\tfsmonitor = \"touch $T/pwned11; false\"\n' >> .gitconfig"
rm -f "$T/pwned11"; git status >/dev/null 2>&1
if [ -e "$T/pwned11" ]; then pass "RC11 control: git status runs the fsmonitor of the included .gitconfig"
else fail "RC11 control: the included .gitconfig's fsmonitor did not run"; fi
noticed11 "a work-tree config file the repository's config includes" "'.gitconfig' (changed)"
git config --unset include.path; rm -f .gitconfig "$T/pwned11"
printf 'repos:\n- repo: local\n  hooks:\n  - id: lint\n    entry: "true"\n' >.pre-commit-config.yaml
printf '#!/bin/sh\nsed -n "s/^ *entry: *\\"\\(.*\\)\\"$/\\1/p" .pre-commit-config.yaml | while read -r e; do sh -c "$e" || exit 1; done\n' >.git/hooks/pre-commit
chmod +x .git/hooks/pre-commit && "${G[@]}" add -A && "${G[@]}" commit -q -m hooks
gsnap "$W11" "sed -i 's|entry: \"true\"|entry: \"touch $T/pwned11; true\"|' .pre-commit-config.yaml"
rm -f "$T/pwned11"; echo y >>src/main.c; "${G[@]}" commit -q -am next
if [ -e "$T/pwned11" ]; then pass "RC11 control: git commit runs the hook's entry from .pre-commit-config.yaml"
else fail "RC11 control: the hook did not run the planted entry"; fi
noticed11 "a work-tree file the pre-commit hook runs" "'.pre-commit-config.yaml' (changed)"
gsnap "$W11" "echo '{\"name\":\"x\"}' > package.json && mkdir -p node_modules/a && echo b >> src/main.c"
if grep -q "control files.*package.json" "$T/g9"; then fail "RC11 control: package.json, which no hook names, was reported: $(tail -c 300 "$T/g9")"
else pass "RC11 control: package.json, which no hook names, is not reported"; fi
noticed11 "a dependency directory the command made" "'node_modules' (created"
cd "$T/ws"

echo "$_pass passed, $_fail failed"
[ "$_fail" -eq 0 ]
