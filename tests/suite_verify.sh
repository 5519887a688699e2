#!/usr/bin/env bash
# Verified cards through `shcard run --verify`: real processes on a real PTY under the seccomp
# watch (src/confine/).  Each kind of event ends the card (a write, a removal, a directory, a
# connection to a loopback listener, another program, a FIFO that blocks past the grace, reading
# the terminal, another terminal or a named pipe still open at a process's end); benign read/search/list commands on a benign repository never do; a terminal
# card is never watched; SHCARD_NO_VERIFY=1 says the card is unverified; the findings file; the
# JSON line's shape.  The bridge's side is tests/e2e/verify.test.mjs (suite_verify_e2e).
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
S=$SHCARD
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
export SHCARD_FINDINGS=$T/findings.jsonl
PY=python3 # a version manager's shim costs seconds a call: the system's python when there is one
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

# the last line of `shcard run --verify --json`, and one field of it
verify() { "$S" run --verify --json "$@" 2>"$T/err" | tail -n 1; }
field() { $PY -c 'import json,sys; d=json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"; }

mkdir -p "$T/home" "$T/repo/src" && cd "$T/repo" && git init -q . && printf 'int main(void) { return 0; }\n' >src/main.c &&
  printf 'alpha\nbeta\n' >notes.txt && git add -A && git -c user.email=t@t -c user.name=t commit -qm init && cd - >/dev/null

# -------------------------------------------------------------- each kind of event flips the card
j=$(verify --as read "touch $T/a")
expect_eq "touch: held" "$(field "$j" 'd["held"]')" False
expect_eq "touch: a write" "$(field "$j" 'd["events"][0]["what"], d["events"][0]["detail"]')" "('write', '$T/a')"
check "touch: it still ran" test -e "$T/a"
expect_eq "touch: utimensat on its descriptor names the file" \
  "$(field "$j" '[e["detail"] for e in d["events"] if e["syscall"] == "utimensat"]')" "['$T/a']"
j=$(verify --as read "/usr/bin/python3 -B -c 'import os; os.fchmod(os.open(\"$T/a\", os.O_RDONLY), 0o644)'")
expect_eq "fchmod names its descriptor's file" "$(field "$j" '[(e["syscall"], e["detail"]) for e in d["events"]]')" "[('fchmod', '$T/a')]"
j=$(verify --as read "rm $T/a")
expect_eq "rm: a change" "$(field "$j" 'd["events"][0]["what"], d["events"][0]["syscall"], d["events"][0]["detail"]')" "('change', 'unlinkat', '$T/a')"
check "rm: it still ran" test ! -e "$T/a"
j=$(verify --as list "mkdir $T/d")
expect_eq "mkdir: a change" "$(field "$j" 'd["events"][0]["what"], d["events"][0]["detail"]')" "('change', '$T/d')"
j=$(verify --as read "mv $T/d $T/e")
expect_eq "mv: a rename" "$(field "$j" 'd["events"][0]["syscall"].startswith("rename")')" True
j=$(verify --as read "printf x > $T/redirected")
expect_eq "a redirection by the shell itself" "$(field "$j" 'd["events"][0]["what"], d["events"][0]["detail"]')" "('write', '$T/redirected')"
j=$(verify --as read "cat $T/repo/notes.txt 2>/dev/null")
expect_eq "2>/dev/null is output, not a change" "$(field "$j" 'd["held"]')" True

# a connection to a loopback listener
$PY -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
s.settimeout(30)
while True:
    try: c, _ = s.accept(); c.close()
    except Exception: break' >"$T/port" &
for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
port=$(cat "$T/port")
j=$(verify --as search "/usr/bin/python3 -B -c 'import socket; socket.create_connection((\"127.0.0.1\", $port)).close()'")
expect_eq "connect: the network" "$(field "$j" '[(e["what"], e["syscall"], e["detail"]) for e in d["events"]]')" "[('network', 'socket', 'a socket of address family 2'), ('network', 'connect', '127.0.0.1:$port')]"

# another program than the ones the command names
j=$(verify --as read "cat $T/repo/notes.txt | env touch $T/b")
expect_eq "exec of an unnamed program" "$(field "$j" '[e["detail"].rsplit("/")[-1] for e in d["events"] if e["what"] == "exec"][:1]')" "['touch']"
printf '#!/bin/bash\nexec /usr/bin/id >/dev/null\n' >"$T/cat" && chmod +x "$T/cat"
j=$(PATH=$T:$PATH verify --as read "cat $T/repo/notes.txt")
expect_eq "a named program that runs another" "$(field "$j" 'd["events"][0]["what"], d["events"][0]["detail"]')" "('exec', '/usr/bin/id')"

# a named program run by a process with another thread (which could rewrite the path after
# shcard read it): no named program then, an event; the same exec from one thread is named
exec_py="import os, sys, threading, time
if sys.argv[1] == 't': threading.Thread(target=time.sleep, args=(3,), daemon=True).start()
os.execv('/usr/bin/cat', ['cat', sys.argv[2]])"
j=$(verify --as read "/usr/bin/python3 -c \"$exec_py\" t $T/repo/notes.txt; cat $T/repo/notes.txt")
expect_eq "an exec from a process with threads" "$(field "$j" '[(e["what"], e["detail"]) for e in d["events"]]')" "[('exec', 'ran a program from a process that shares its memory: /usr/bin/cat')]"
j=$(verify --as read "/usr/bin/python3 -c \"$exec_py\" 1 $T/repo/notes.txt; cat $T/repo/notes.txt")
expect_eq "the same exec from one thread" "$(field "$j" 'd["held"], d["events"]')" "(True, [])"
# a process sharing its memory with another (CLONE_VM, no thread): the same event
cat >"$T/vmexec.c" <<'CEOF'
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static char *file;
static int kid(void *a)
{
    (void)a;
    sleep(1); /* the parent execs while this one shares its memory */
    _exit(0);
}
int main(int argc, char **argv)
{
    file = argc > 1 ? argv[1] : "/dev/null";
    char *stack = malloc(65536);
    if (!stack || clone(kid, stack + 65536, CLONE_VM | SIGCHLD, NULL) < 0)
        return 1;
    char *args[] = {"cat", file, NULL};
    execv("/usr/bin/cat", args);
    return 1;
}
CEOF
mkdir -p "$T/vmbin" # (not $T: its cat above is another program)
if cc -O1 -o "$T/vmbin/vmexec" "$T/vmexec.c"; then
    j=$(PATH=$T/vmbin:$PATH verify --as read "vmexec $T/repo/notes.txt; cat $T/repo/notes.txt")
    expect_eq "an exec from a process sharing its memory" "$(field "$j" '[(e["what"], e["detail"]) for e in d["events"]]')" "[('exec', 'ran a program from a process that shares its memory: /usr/bin/cat')]"
else
    check "a C compiler for the CLONE_VM test" false
fi

# a FIFO whose read blocks: still running after the grace (and nothing is killed)
mkfifo "$T/fifo"
(sleep 3; echo late >"$T/fifo") & # long after the grace, even on a busy machine
t0=$(date +%s%N)
"$S" run --verify --json --as read --grace 0.5 "cat $T/fifo" >"$T/fj" 2>/dev/null
ms=$((($(date +%s%N) - t0) / 1000000))
j=$(tail -n 1 "$T/fj")
expect_eq "fifo: slow" "$(field "$j" 'd["events"][0]["what"], d["events"][0]["detail"]')" "('slow', 'still running after 0.5 s')"
check "fifo: it ran to its end (${ms} ms)" test "$ms" -ge 2900
check "fifo: its output" grep -q '"data":"late' "$T/fj"

# reading the terminal
j=$(verify --as read --grace 20 --timeout 3 "read x < /dev/tty")
expect_eq "terminal input" "$(field "$j" '[e["what"] for e in d["events"]]')" "['input']"

# what a process still holds open when it ends: another terminal (its input is taken from that
# terminal's reader), a named pipe (taken from its reader), the kernel log (read once); its own
# terminal, /dev/null and pipes are its own
check "another terminal held open at the end is an event" $PY - "$S" "$T" <<'EOF2'
import json, os, pty, subprocess, sys
s, t = sys.argv[1], sys.argv[2]
m, sl = pty.openpty()
name = os.ttyname(sl)
os.write(m, b"typed-1\ntyped-2\n")
code = "import os; f = os.open(%r, os.O_RDONLY); os.read(f, 8); os._exit(0)" % name
p = subprocess.run([s, "run", "--verify", "--as", "read", "--json", "--timeout", "20", "--",
                    "/usr/bin/python3", "-B", "-c", code], capture_output=True, text=True, timeout=60)
d = json.loads(p.stdout.splitlines()[-1])
assert d["held"] is False and sorted((e["syscall"], e["detail"]) for e in d["events"]) == \
    [("exit_group", "a device held open: " + name),
     ("open", "read from another terminal: " + name)], d
EOF2
mkfifo "$T/jobs"
( exec 3>"$T/jobs"; echo job-1 >&3; sleep 3 ) &
j=$(verify --as read --timeout 20 "/usr/bin/python3 -B -c 'import os; f = os.open(\"$T/jobs\", os.O_RDONLY); os.read(f, 6); os._exit(0)'")
expect_eq "a named pipe held open at the end" "$(field "$j" '[(e["syscall"], e["detail"]) for e in d["events"]]')" "[('exit_group', 'a named pipe held open: $T/jobs')]"
wait
# a reader of another terminal killed by a signal (no exit call to look at): still an event
check "another terminal held by a process killed by SIGKILL is an event" $PY - "$S" <<'EOF2'
import json, os, pty, subprocess, sys
s = sys.argv[1]
m, sl = pty.openpty()
name = os.ttyname(sl)
os.write(m, b"typed-1\n")
code = "import os; f = os.open(%r, os.O_RDONLY); os.read(f, 8); os.kill(os.getpid(), 9)" % name
p = subprocess.run([s, "run", "--verify", "--as", "read", "--json", "--timeout", "20", "--",
                    "/usr/bin/python3", "-B", "-c", code], capture_output=True, text=True, timeout=60)
d = json.loads(p.stdout.splitlines()[-1])
assert d["held"] is False and ("terminal", "read from another terminal: " + name) in \
    [(e["what"], e["detail"]) for e in d["events"]], d
EOF2
# what a process opened, read and closed before its end: another terminal (its typed lines go
# to the command, not to that terminal's shell), a named pipe (another consumer's messages)
check "another terminal read and closed before the end is an event" $PY - "$S" <<'EOF2'
import json, os, pty, subprocess, sys, threading
s = sys.argv[1]
m, sl = pty.openpty()
name = os.ttyname(sl)
threading.Timer(1.0, lambda: os.write(m, b"pw-1\npw-2\npw-3\n")).start()
p = subprocess.run([s, "run", "--verify", "--as", "read", "--json", "--timeout", "20", "--",
                    "head", "-n", "3", name], capture_output=True, text=True, timeout=60)
d = json.loads(p.stdout.splitlines()[-1])
assert "pw-3" in p.stdout, p.stdout
assert d["held"] is False and [(e["what"], e["syscall"], e["detail"]) for e in d["events"]] == \
    [("terminal", "open", "read from another terminal: " + name)], d
# its lines were typed before it started: it may be gone before the open is looked at
os.write(m, b"pw-4\npw-5\npw-6\n")
p = subprocess.run([s, "run", "--verify", "--as", "read", "--json", "--timeout", "20", "--",
                    "head", "-n", "3", name], capture_output=True, text=True, timeout=60)
d = json.loads(p.stdout.splitlines()[-1])
assert d["held"] is False and [(e["what"], e["syscall"]) for e in d["events"]] == \
    [("terminal", "open")] and d["events"][0]["detail"].endswith(name), d
# closed long before its end: nobody holds it when it is looked at, and it existed before
code = "import os, time; f = os.open(%r, os.O_RDONLY); os.read(f, 4); os.close(f); time.sleep(1)" % name
os.write(m, b"pw-7\n")
p = subprocess.run([s, "run", "--verify", "--as", "read", "--json", "--timeout", "20", "--",
                    "/usr/bin/python3", "-B", "-c", code], capture_output=True, text=True, timeout=60)
d = json.loads(p.stdout.splitlines()[-1])
# (which of the two is told depends on whether the agent looked before the close)
assert d["held"] is False and [e["detail"] for e in d["events"]] in (
    ["ran while another terminal was opened (by it, or closed before it could be told apart): "
     + name], ["read from another terminal: " + name]), d
EOF2
mkfifo "$T/jobs2"
( exec 3>"$T/jobs2"; for i in 1 2 3 4 5; do echo job-$i >&3; sleep 0.3; done ) &
j=$(verify --as read --timeout 20 "head -n 3 $T/jobs2")
expect_eq "a named pipe read and closed before the end" "$(field "$j" 'd["held"], any(e["what"] == "terminal" and e["detail"].startswith("read from a named pipe or device: /") and e["detail"].endswith("/jobs2") for e in d["events"]) or d["events"]')" "(False, True)"
wait
check "its own terminal opened by name, another terminal only named, a new terminal opened meanwhile: no event" $PY - "$S" "$T" <<'EOF2'
import json, os, pty, subprocess, sys, threading
s, t = sys.argv[1], sys.argv[2]
m, sl = pty.openpty()
name = os.ttyname(sl)
def run(*cmd):
    p = subprocess.run([s, "run", "--verify", "--as", "read", "--json", "--timeout", "20", "--"]
                       + list(cmd), capture_output=True, text=True, timeout=60)
    return json.loads(p.stdout.splitlines()[-1])
d = run("/usr/bin/python3", "-B", "-c",
        "import os; f = os.open(os.ttyname(1), os.O_RDONLY); os.close(f)")
assert d["held"] is True and d["events"] == [], d
d = run("ls", "-l", name, t + "/jobs2")
assert d["held"] is True and d["events"] == [], d
d = run("head", "-n", "2", t + "/repo/notes.txt")
assert d["held"] is True and d["events"] == [], d
later = []
threading.Timer(0.5, lambda: later.append(pty.openpty())).start()
d = run("sleep", "1.5")
assert later and d["held"] is True and d["events"] == [], (later, d)
EOF2
j=$(verify --as read "/usr/bin/python3 -B -c 'import os; a = os.open(\"/dev/null\", os.O_RDONLY); b = os.open(\"/dev/urandom\", os.O_RDONLY); r, w = os.pipe(); os._exit(0)'")
expect_eq "/dev/null, /dev/urandom and a pipe held open at the end: no event" "$(field "$j" 'd["held"], d["events"]')" "(True, [])"

# ------------------------------------------------------------ decided on the object, not the text
# (each of these held before: an exemption matched the text the process passed)
printf 'secret\n' >"$T/victim"
j=$(verify --as read "cat $T/repo/notes.txt > /dev/pts/../..$T/pwn1")
expect_eq "a terminal path climbed out of with .. is a write" "$(field "$j" 'd["held"], [e["what"] for e in d["events"]]')" "(False, ['write'])"
j=$(verify --as read "cat $T/repo/notes.txt > /dev/pts/999999")
expect_eq "another terminal is a write" "$(field "$j" 'd["held"]')" False
j=$(verify --as read "echo pwned 1<$T/victim >/dev/stdout")
expect_eq "/dev/stdout that is a file is a write" "$(field "$j" 'd["held"], d["events"][0]["detail"]')" "(False, '/dev/stdout')"
j=$(verify --as read "cat $T/repo/notes.txt 3>$T/victim2 >/proc/self/fd/3")
expect_eq "/proc/self/fd/N that is a file is a write" "$(field "$j" 'd["held"]')" False
j=$(verify --as read "cat $T/repo/notes.txt >/dev/stdout 2>/dev/fd/2 >/dev/tty; cat $T/repo/notes.txt 2>/dev/null >/dev/fd/1")
expect_eq "/dev/stdout, /dev/fd/2, /dev/tty that are the terminal hold" "$(field "$j" 'd["held"], d["events"]')" "(True, [])"
"$S" run --verify --json --as read "cat $T/repo/notes.txt >/dev/stdout" >"$T/out.json" 2>/dev/null
check "what it wrote to the terminal through /dev/stdout is shown" grep -q '"data":"alpha' "$T/out.json"
# another thread rewrites the path between /dev/null and a file: every open that reached the
# file is an event (the supervisor opens /dev/null itself; the kernel never reads the text)
cc -O2 -pthread -o "$T/racer" tests/helpers/path_race.c
j=$(verify --as read "$T/racer $T/raced")
check "a path raced against /dev/null: each write that landed is an event" $PY - "$j" "$T/raced" <<'EOF2'
import json, sys
d = json.loads(sys.argv[1])
writes = d["nevents"] - sum(1 for e in d["events"] if e["what"] != "write")
lines = sum(1 for _ in open(sys.argv[2]))
assert lines <= writes, (lines, writes)
EOF2
# another thread rewrites an exec's path between a named program and another file: every such
# exec is an event (from a process with two threads), whichever file ran
mkdir -p "$T/trusted" && cc -O2 -pthread -o "$T/trusted/execrace" tests/helpers/exec_race.c && cp "$T/trusted/execrace" "$T/evil"
check "an exec path raced against a named program: the other file is an event" $PY - "$S" "$T" <<'EOF2'
import json, os, subprocess, sys
s, t = sys.argv[1], sys.argv[2]
env = dict(os.environ, PATH=t + "/trusted:" + os.environ["PATH"])
ran = 0
for _ in range(12):
    p = subprocess.run([s, "run", "--verify", "--as", "read", "--json",
                        "cat /dev/null; execrace /usr/bin/cat %s/evil" % t],
                       env=env, capture_output=True, text=True, timeout=60)
    lines = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    out = "".join(l.get("data", "") for l in lines if l.get("event") == "output")
    d = lines[-1]
    # an exec from a process another thread can write is an event whatever ran (the text
    # the watch reads is not the text the kernel copies); no run holds
    assert not d["held"] and any(e["what"] == "exec" for e in d["events"]), d
    assert not any(e["what"] == "terminal" for e in d["events"]), d  # cat /dev/null is no read of anyone's
    ran += "EVIL-RAN" in out
print("the other file ran in", ran, "of 12", file=sys.stderr)
EOF2
# a login shell's profile ends where the command's text starts: the command's own redirection
# before its first tool counts (the profile's own writes still do not)
printf ': > "$HOME/profile-ran"\n' >"$T/home/.bash_profile"
j=$(HOME=$T/home verify --cwd "$T/repo" --as read --login "echo pwned > $T/victim; cat notes.txt")
expect_eq "--login: the command's redirection before its tool" "$(field "$j" '[(e["what"], e["detail"]) for e in d["events"]]')" "[('write', '$T/victim')]"
j=$(HOME=$T/home verify --cwd "$T/repo" --as read "bash -lc 'echo pwned > $T/victim; cat notes.txt'")
expect_eq "bash -lc: the command's redirection before its tool" "$(field "$j" '[(e["what"], e["detail"]) for e in d["events"]]')" "[('write', '$T/victim')]"
j=$(HOME=$T/home verify --cwd "$T/repo" --as read --login "cat notes.txt")
expect_eq "--login: the profile's write is not the command's" "$(field "$j" 'd["held"]')" True
# the network without an address, signals, the system's state
j=$(verify --as read "/usr/bin/python3 -B -c 'import socket; s = socket.socket(); s.listen()'")
expect_eq "listen() autobinds: a socket and a listen" "$(field "$j" '[(e["what"], e["syscall"]) for e in d["events"]]')" "[('network', 'socket'), ('network', 'listen')]"
j=$(verify --as read "/usr/bin/python3 -B -c 'import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)'")
expect_eq "a netlink socket" "$(field "$j" '[e["syscall"] for e in d["events"]]')" "['socket']"
j=$(verify --as read "/usr/bin/python3 -B -c 'import socket; a, b = socket.socketpair(); a.send(b\"x\"); b.recv(1)'")
expect_eq "a unix socketpair is no event" "$(field "$j" 'd["held"]')" True
sleep 60 & victim_pid=$!
sleep 60 & other_pid=$!
j=$(verify --as read "kill -TERM $victim_pid")
expect_eq "kill of a process outside the command" "$(field "$j" '[(e["what"], e["syscall"]) for e in d["events"]]')" "[('signal', 'kill')]"
check "it was still sent" bash -c "! kill -0 $victim_pid 2>/dev/null"
j=$(verify --as read "/usr/bin/python3 -B -c 'import os, resource; resource.prlimit($other_pid, resource.RLIMIT_NOFILE, (64, 64)); resource.setrlimit(resource.RLIMIT_NOFILE, (512, 512)); os.sched_setaffinity(0, os.sched_getaffinity(0))'")
expect_eq "another process's limits (its own are its own)" "$(field "$j" '[(e["what"], e["syscall"]) for e in d["events"]]')" "[('process', 'prlimit64')]"
j=$(verify --as search "/usr/bin/python3 -B -c 'import os, threading; e = threading.Event(); t = threading.Thread(target=e.wait); t.start(); os.sched_setaffinity(t.native_id, os.sched_getaffinity(0)); e.set(); t.join()'")
expect_eq "the affinity of a thread of its own (ag pins its workers) is no event" "$(field "$j" 'd["held"], d["events"]')" "(True, [])"
j=$(verify --as read "sleep 5 & kill \$!; cat $T/repo/notes.txt")
expect_eq "kill of its own child is no event" "$(field "$j" 'd["held"]')" True
j=$(verify --as read "/usr/bin/python3 -B -c 'import ctypes; ctypes.CDLL(\"librt.so.1\").mq_open(b\"/shcard-verify-mq\", 0o102, 0o600, None)' ; /usr/bin/python3 -B -c 'import ctypes; ctypes.CDLL(\"librt.so.1\").mq_unlink(b\"/shcard-verify-mq\")'")
expect_eq "a POSIX message queue" "$(field "$j" '[(e["what"], e["syscall"]) for e in d["events"]][:2]')" "[('system', 'mq_open'), ('system', 'mq_unlink')]"
j=$(verify --as read "/usr/bin/python3 -B -c 'import fcntl, os; fcntl.ioctl(os.open(\"$T/victim\", os.O_RDONLY), 0x40086602, bytes(8))'")
expect_eq "ioctl FS_IOC_SETFLAGS on a read-only descriptor" "$(field "$j" '[(e["what"], e["detail"]) for e in d["events"]]')" "[('terminal', 'ioctl 0x40086602')]"
j=$(verify --as read "/usr/bin/python3 -B -c 'import fcntl, os, termios; fcntl.ioctl(os.open(\"/dev/ptmx\", os.O_RDONLY), termios.TCFLSH, 0)'")
expect_eq "a terminal request on another terminal (still open at its end)" "$(field "$j" '[(e["what"], e["detail"]) for e in d["events"]]')" "[('terminal', 'ioctl 0x540b'), ('terminal', 'a device held open: /dev/ptmx')]"
j=$(verify --as read "/usr/bin/python3 -B -c 'import termios; termios.tcsetattr(0, termios.TCSANOW, termios.tcgetattr(0))'")
expect_eq "its own terminal's settings are no event" "$(field "$j" 'd["held"]')" True
j=$(verify --as read "/usr/bin/python3 -B -c 'import fcntl; fcntl.fcntl(0, fcntl.F_SETOWN, 1)'")
expect_eq "SIGIO's owner set to a process outside" "$(field "$j" '[(e["what"], e["detail"]) for e in d["events"]]')" "[('signal', 'fcntl F_SETOWN 1')]"
j=$(verify --as read "/usr/bin/python3 -B -c 'import os; os.set_blocking(1, False)
try: os.read(1, 10)
except BlockingIOError: pass'")
expect_eq "a non-blocking read of the terminal" "$(field "$j" '[(e["what"], e["syscall"]) for e in d["events"]]')" "[('terminal', 'read')]"
# a seccomp filter of its own: a newer USER_NOTIF listener would receive the watch's calls
j=$(verify --as read "/usr/bin/python3 -B -c 'import ctypes, platform; v = ctypes.c_uint32(0x7fc00000); ctypes.CDLL(None).syscall({\"x86_64\": 317, \"aarch64\": 277}[platform.machine()], 2, 0, ctypes.byref(v))'")
expect_eq "seccomp() is an event" "$(field "$j" '[(e["what"], e["syscall"]) for e in d["events"]]')" "[('blind', 'seccomp')]"
j=$(verify --as read "/usr/bin/python3 -B -c 'import ctypes; ctypes.CDLL(None).msgctl(0x7ffffff0, 0, None)'")
expect_eq "System V IPC by a guessed id" "$(field "$j" '[(e["what"], e["syscall"]) for e in d["events"]]')" "[('system', 'msgctl')]"
# a named program is the file its word resolves to on the trusted PATH
mkdir -p "$T/evilbin" && printf '#!/bin/sh\necho evil\n' >"$T/evilbin/cat" && chmod +x "$T/evilbin/cat"
j=$(verify --cwd "$T" --as read "PATH=./evilbin:\$PATH cat victim")
expect_eq "PATH=./evilbin cat is another program" "$(field "$j" '[(e["what"], e["detail"]) for e in d["events"]]')" "[('exec', '$T/./evilbin/cat')]"
# outside the parser's subset, the programs are still the command's words
for c in "cat notes.txt; (true)" "cat notes.txt; for i in 1; do cat notes.txt; done" "(cat notes.txt) | (head -n 1)"; do
  j=$(verify --cwd "$T/repo" --as read "$c")
  expect_eq "no false event: $c" "$(field "$j" 'd["held"]')" True
done
j=$(verify --cwd "$T/repo" --as read "cat notes.txt; (env touch $T/sub)")
expect_eq "a subshell's unnamed program" "$(field "$j" '[e["detail"].rsplit("/")[-1] for e in d["events"] if e["what"] == "exec"][-1:]')" "['touch']"

# ------------------------------------------------------------------- benign commands never flip
benign=(
  "cat notes.txt" "cat src/main.c notes.txt" "sed -n 1,2p notes.txt" "head -n 1 notes.txt"
  "tail -n 1 notes.txt" "rg -n alpha" "rg --files" "rg -n main src" "grep -rn alpha ." "grep -rn main src"
  "ls" "ls -la" "ls -l src" "find . -name '*.c'" "find . -type f -name '*.c' -exec grep -l main {} +"
  "git ls-files" "git grep -n alpha" "batcat -n notes.txt" "tree -L 1" "fdfind -e c" "wc -l notes.txt"
  "bash -lc 'cat notes.txt'" "cat notes.txt | head -n 1" "rg -n alpha | sort"
)
for c in "${benign[@]}"; do # a clean HOME: the login profile of this machine is not the repository's
  j=$(HOME=$T/home verify --cwd "$T/repo" --as read "$c")
  expect_eq "benign: $c" "$(field "$j" 'd["watched"], d["held"], d["events"]')" "(True, True, [])"
done
# a sample of the corpus's card-labelled commands (the full sweep: make verify-sweep)
check "corpus sample: no card flips" $PY tests/verify_sweep.py "$S" --sample 15
# many threads (rg) over many files: every notification answered, nothing flagged
mkdir -p "$T/big" && for i in $(seq 1 300); do printf 'line %s\nneedle\n' "$i" >"$T/big/f$i.txt"; done
j=$(verify --cwd "$T/big" --as search "rg -n needle")
expect_eq "rg over 300 files" "$(field "$j" 'd["held"]')" True

# ------------------------------------------------------- calls decided by what they do, not how
# an ioctl is a query only when it is one of the few a card tool makes (its direction bits say
# nothing: socket requests have none, setters are _IOR); every sendmmsg; a sendmsg without an
# address on a socket that is not connected; new namespaces through clone
mkdir -p "$T/bin" "$T/enc" "$T/w" && cc -O2 -o "$T/bin/verify_calls" tests/helpers/verify_calls.c
calls() { PATH=$T/bin:$PATH verify --as read "verify_calls $*"; }
j=$(calls sockioctl)
expect_eq "a socket ioctl setter (0x89NN, no direction bits)" "$(field "$j" 'd["held"], [(e["what"], e["detail"]) for e in d["events"]]')" "(False, [('terminal', 'ioctl 0x8943')])"
j=$(calls encpolicy "$T/enc")
expect_eq "FS_IOC_SET_ENCRYPTION_POLICY (an _IOR setter) on a read-only directory" "$(field "$j" 'd["held"], [(e["what"], e["detail"]) for e in d["events"]]')" "(False, [('terminal', 'ioctl 0x800c6613')])"
$PY -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); time.sleep(30)' "$T/dg.sock" &
for _ in $(seq 50); do [ -S "$T/dg.sock" ] && break; sleep 0.1; done
j=$(calls sendmmsg "$T/dg.sock")
expect_eq "sendmmsg whose second message has an address" "$(field "$j" 'd["held"], [(e["what"], e["syscall"]) for e in d["events"]]')" "(False, [('network', 'sendmmsg')])"
j=$(calls sendmsg)
expect_eq "sendmsg on a socket that is not connected" "$(field "$j" 'd["held"], [(e["what"], e["syscall"]) for e in d["events"]]')" "(False, [('network', 'sendmsg')])"
j=$(calls clone)
expect_eq "clone with CLONE_NEWUSER" "$(field "$j" 'd["held"], [(e["what"], e["syscall"]) for e in d["events"]]')" "(False, [('system', 'clone')])"
# effects beyond the process on a file it only reads, and on memory or cache others share: a
# lock (fcntl F_SETLK, flock), madvise outside its own memory, fadvise64 DONTNEED; the queries,
# an unlock and the plain hints are no events
j=$(verify --as read "/usr/bin/python3 -B -c 'import fcntl, os; fd = os.open(\"$T/repo/notes.txt\", os.O_RDONLY); fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB); fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)'")
expect_eq "a read card that locks the file it reads" "$(field "$j" 'd["held"], sorted(e["syscall"] for e in d["events"])')" "(False, ['fcntl', 'flock'])"
j=$(verify --as read "/usr/bin/python3 -B -c 'import mmap; m = mmap.mmap(-1, 1 << 16); m.madvise(20)'")
expect_eq "madvise MADV_COLD (20)" "$(field "$j" 'd["held"], [(e["what"], e["syscall"]) for e in d["events"]]')" "(False, [('system', 'madvise')])"
j=$(verify --as read "/usr/bin/python3 -B -c 'import os; fd = os.open(\"$T/repo/notes.txt\", os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)'")
expect_eq "fadvise64 DONTNEED" "$(field "$j" 'd["held"], [(e["what"], e["syscall"]) for e in d["events"]]')" "(False, [('system', 'fadvise64')])"
j=$(verify --as read "/usr/bin/python3 -B -c 'import fcntl, mmap, os; fd = os.open(\"$T/repo/notes.txt\", os.O_RDONLY); fcntl.fcntl(fd, fcntl.F_GETLK, bytes(32)); fcntl.flock(fd, fcntl.LOCK_UN); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_SEQUENTIAL); m = mmap.mmap(-1, 1 << 16); m.madvise(mmap.MADV_DONTNEED); print(os.read(fd, 5))'")
expect_eq "F_GETLK, LOCK_UN, a sequential hint, MADV_DONTNEED: held" "$(field "$j" 'd["held"], d["events"]')" "(True, [])"
# an exec's path is looked up where the command runs: /proc/self/cwd is the agent's for the agent,
# and a path too long to join to the cwd is still the command's ./cat
printf '#!/bin/sh\necho EVIL-RAN\n' >"$T/w/cat" && chmod +x "$T/w/cat" && cp "$T/repo/notes.txt" "$T/w/"
j=$(verify --cwd "$T/w" --as read "/proc/self/cwd/cat notes.txt")
expect_eq "exec of /proc/self/cwd/cat" "$(field "$j" 'd["held"], [(e["what"], e["detail"]) for e in d["events"]]')" "(False, [('exec', '/proc/self/cwd/cat')])"
for n in 248 300; do # the cwd and the path together beyond 512 bytes; the path alone too
  j=$(verify --cwd "$T/w" --as read "$(printf './%.0s' $(seq $n))cat notes.txt")
  expect_eq "exec of a $((2 * n + 3))-byte ./././…/cat" "$(field "$j" 'd["held"], [e["what"] for e in d["events"]]')" "(False, ['exec'])"
done
# execvp's tries where no file is (a missing directory, a file as a directory) fail as they
# would, and the program it then finds holds
j=$(PATH=$T/nothere:$T/repo/notes.txt:$PATH verify --cwd "$T/repo" --as read "echo notes.txt | xargs cat")
expect_eq "execvp's failed tries are no program" "$(field "$j" 'd["held"], d["events"]')" "(True, [])"

# ------------------------------------------------------------------- the rest
# a login shell's profile is the user's: Debian's /etc/profile runs `id`, this one writes too
# (and its time is not the command's: the grace starts after it; its helpers' own helpers,
# here cat, do not end it)
printf 'id -u >/dev/null; : > "$HOME/profile-ran"; (echo | cat >/dev/null); sleep 1\n' >"$T/home/.bash_profile"
j=$(HOME=$T/home verify --cwd "$T/repo" --as read --grace 0.5 "bash -lc 'cat notes.txt'")
expect_eq "login profile: not the command's" "$(field "$j" 'd["held"], d["events"]')" "(True, [])"
check "login profile: it ran" test -e "$T/home/profile-ran"
j=$(HOME=$T/home verify --cwd "$T/repo" --as read "bash -lc 'cat notes.txt; env touch $T/after'")
expect_eq "login profile: the command's own events still count" "$(field "$j" '[e["detail"].rsplit("/")[-1] for e in d["events"]][:1]')" "['touch']"
j=$(verify "touch $T/t")
expect_eq "a terminal card is not watched" "$(field "$j" 'd["card"], d["watched"], d["held"]')" "('terminal', False, True)"
check "terminal card: it ran" test -e "$T/t"
j=$(SHCARD_NO_VERIFY=1 verify --as read "touch $T/u")
expect_eq "no watch: unverified" "$(field "$j" 'd["watched"], d["held"]')" "(False, True)"
check "no watch: said on stderr" grep -q "the card is unverified" "$T/err"
expect_eq "json: the verify line's keys" "$(field "$(verify --as read "cat $T/repo/notes.txt")" 'list(d)')" \
  "['event', 'verdict', 'card', 'watched', 'held', 'events', 'nevents']"
"$S" run --verify --as read "touch $T/v" >/dev/null 2>"$T/err"
check "text: did NOT hold" grep -q "did NOT hold" "$T/err"
check "text: the event" grep -q "it opened '$T/v' for writing" "$T/err"
"$S" run --verify --as nonsense "true" >/dev/null 2>&1; expect_eq "--as checks its value" "$?" 2
"$S" run --as read "true" >/dev/null 2>&1; expect_eq "--as needs --verify" "$?" 2
check "findings: one line per card that did not hold" $PY - "$SHCARD_FINDINGS" "$T" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
cmds = [r["cmd"] for r in rows]
assert "touch %s/a" % sys.argv[2] in cmds, cmds
assert not any("notes.txt" == r["cmd"].split()[-1] and r["cmd"].startswith("cat ") and "|" not in r["cmd"] for r in rows), cmds
r = rows[0]
assert set(r) == {"at", "cmd", "cwd", "card", "kind", "reason", "events"}, r
assert r["events"] and all("what" in e for e in r["events"]), r
EOF
check "findings to a corpus case" $PY tests/findings_to_corpus.py "$SHCARD_FINDINGS" --out "$T/cases.jsonl"
check "corpus case: terminal expected, the event as the why" $PY - "$T/cases.jsonl" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows and all(r["expect"] == "terminal" and r["cmd"] and r["why"] for r in rows), rows[:2]
EOF
finish
