#!/usr/bin/env python3
"""Differential test of shcard's front end against bash itself.

1. argv: N generated simple commands mixing quoting, escapes, $'...', line continuations,
   comments, globs, braces and tildes.  For each command shcard accepts, the argv it decodes must
   equal the argv bash builds for the same text (bash runs with globbing off and prints each
   argument NUL-separated through command_not_found_handle); where they differ, the word must
   carry shcard's brace or tilde flag (bash expanded it, shcard said it would).
2. rejection: N generated strings of words, quotes and operators.  Every string that `bash -n`
   rejects must be rejected by shcard too.

Usage: bash_diff.py SHCARD [N] [SEED].  Prints failures and "N passed, N failed".
"""
import json
import os
import random
import re
import subprocess
import sys

SHCARD = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else 20261129
rng = random.Random(SEED)

PLAIN = "abcxyzABC0123456789-._/=:,@%+é€"
SQ_BODY = PLAIN + ' $"\\*?[]{}~#;|&<>()`!\t'
NAMES = ["cat", "rg", "sed", "ls", "grep", "head", "tail", "nl", "xq", "fd"]


def plain(k=None):
    return "".join(rng.choice(PLAIN) for _ in range(k or rng.randint(1, 5)))


def sq():
    return "'" + "".join(rng.choice(SQ_BODY) for _ in range(rng.randint(0, 6))) + "'"


def dq():
    pieces = []
    for _ in range(rng.randint(0, 4)):
        r = rng.random()
        if r < 0.4:
            pieces.append(plain())
        elif r < 0.5:
            pieces.append(" ")
        elif r < 0.75:
            pieces.append("\\" + rng.choice('$`"\\ab*\'#n'))
        elif r < 0.8:
            pieces.append("\\\n")
        elif r < 0.9:
            pieces.append(rng.choice(["'", "*", "~", "#", ";", "|", "{a,b}", "[x]", "!"]))
        else:
            pieces.append("$")  # a lone $ before the closing quote is literal
            break
    return '"' + "".join(pieces) + '"'


def ansic():
    pieces = []
    for _ in range(rng.randint(0, 4)):
        r = rng.random()
        if r < 0.4:
            pieces.append(plain())
        else:
            pieces.append(rng.choice(["\\n", "\\t", "\\x41", "\\x7", "\\101", "\\7", "\\u20ac",
                                      "\\U1F600", "\\'", "\\\\", '\\"', "\\e", "\\cA", "\\c?",
                                      "\\a", "\\q", "\\0", " ", "\\x"]))
    return "$'" + "".join(pieces) + "'"


def esc():
    return "\\" + rng.choice(PLAIN + " *?[$'\"\\#;|&<>(){}~`!\t")


def word(first=False):
    parts = []
    for i in range(rng.randint(1, 4)):
        r = rng.random()
        if r < 0.35:
            p = plain()
        elif r < 0.5:
            p = sq()
        elif r < 0.65:
            p = dq()
        elif r < 0.72:
            p = ansic()
        elif r < 0.82:
            p = esc()
        elif r < 0.86:
            p = "\\\n"
        elif r < 0.9:
            p = rng.choice(["*", "?", "[ab]", "*.c"])
        elif r < 0.94:
            p = rng.choice(["{a,b}", "{1..3}", "{x}", "{}", "a{b,c}"])
        elif r < 0.97:
            p = rng.choice(["~", "~/x", "a=~/b", "x:~"])
        else:
            p = "#" if i > 0 else "x#"
        parts.append(p)
    w = "".join(parts)
    return w


def simple_command():
    words = []
    if rng.random() < 0.2:
        words.append(rng.choice(["A", "B_1", "c"]) + "=" + word())
    name = rng.choice(NAMES)
    r = rng.random()
    if r < 0.1:
        name = "'" + name + "'"
    elif r < 0.15:
        name = name[0] + "\\" + name[1:]
    words.append(name)
    for _ in range(rng.randint(0, 5)):
        words.append(word())
    sep = lambda: rng.choice([" ", "  ", "\t", " \\\n "])
    cmd = words[0]
    for w in words[1:]:
        cmd += sep() + w
    if rng.random() < 0.15:
        cmd += " # trailing comment; rm -rf x"
    return cmd


def shcard_batch(cmds):
    inp = "".join(json.dumps({"cmd": c}) + "\n" for c in cmds)
    out = subprocess.run([SHCARD, "parse", "--batch", "--no-unwrap"], input=inp.encode(),
                         stdout=subprocess.PIPE, check=False).stdout.decode()
    res = [json.loads(l) for l in out.splitlines()]
    assert len(res) == len(cmds), (len(res), len(cmds))
    return res


def bash_argv(cmd):
    r, w = os.pipe()
    script = ("set -f; command_not_found_handle() { printf '%s\\0' \"$#\" \"$@\" >&" + str(w) +
              "; return 0; }; PATH=/nonexistent; hash -r\n" +
              cmd + "\n")
    env = {"HOME": "/nonexistent-home", "LC_ALL": "C.UTF-8"}
    p = subprocess.Popen(["/bin/bash", "--norc", "--noprofile", "-c", script], pass_fds=(w,),
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=env)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        data += chunk
    os.close(r)
    p.wait()
    fields = [a.decode("utf-8", "surrogateescape") for a in data.split(b"\0")[:-1]]
    out = []
    i = 0
    while i < len(fields):
        n = int(fields[i])
        out.append(fields[i + 1:i + 1 + n])
        i += 1 + n
    return out


failed = 0
fam_passed = fam_failed = 0


def family(what, compared, bad):
    """One result for a generated family of comparisons; one that compared nothing fails."""
    global fam_passed, fam_failed
    if compared > 0 and bad == 0:
        fam_passed += 1
        print("PASS family: " + what)
    else:
        fam_failed += 1
        print("FAIL family: %s (%d compared, %d failures)" % (what, compared, bad))


def fail(msg):
    global failed
    failed += 1
    if failed <= 30:
        print("FAIL:", msg)


# ---- 1. argv
cmds = [simple_command() for _ in range(N)]
res = shcard_batch(cmds)
accepted = compared = flagged = 0
for cmd, r in zip(cmds, res):
    if not r["ok"]:
        # the generator only writes valid bash, but shcard may reject some of it (fail closed):
        # that is allowed, except for a plain syntax error bash would not make
        if r["error"]["kind"] == "syntax":
            fail("rejected valid bash as a syntax error: %r: %s" % (cmd, r["error"]["message"]))
        continue
    accepted += 1
    calls = r["commands"]
    ours = [c["argv"] for c in calls]
    # JSON cannot carry invalid UTF-8: shcard shows each bad byte as U+FFFD; compare runs of them
    fold = lambda argvs: [[re.sub("[\ufffd\udc80-\udcff]+", "\ufffd", a) if a is not None else a
                           for a in v] for v in argvs]
    ours = fold(ours)
    theirs = fold(bash_argv(cmd))
    if ours == theirs:
        compared += 1
        continue
    wflags = [[set(w["flags"]) for w in c["words"]]
              for item in r["ast"]["items"] for c in item["node"]["commands"]]
    if any("brace" in f for cf in wflags for f in cf):
        flagged += 1  # brace expansion changes the word count: the flag says so
        continue
    # otherwise every word that differs must be one bash tilde-expanded, and flagged so
    if len(ours) == len(theirs) and all(
            len(o) == len(t) and all(a == b or "tilde" in f for a, b, f in zip(o, t, cf))
            for o, t, cf in zip(ours, theirs, wflags)):
        flagged += 1
        continue
    fail("argv differs for %r:\n  shcard %r\n  bash   %r" % (cmd, ours, theirs))
print("argv: %d commands, %d accepted, %d equal to bash, %d differ where flagged" %
      (N, accepted, compared, flagged))
# one result for the family; commands shcard rejected compared nothing and count nowhere
family("argv: %d commands compared with bash" % compared, compared, failed)

# ---- 1b. round trip: print each accepted command back and parse it again
rt = os.path.join(os.environ.get("BUILD", "build"), "tests", "helpers", "roundtrip")
inp = "".join(json.dumps({"cmd": c}) + "\n" for c in cmds)
out = subprocess.run([rt], input=inp.encode(), stdout=subprocess.PIPE).stdout.decode()
m = re.search(r"^(\d+) passed, (\d+) failed", out, re.M)
f0 = failed
if not m:
    fail("round trip helper gave no result")
else:
    if int(m.group(2)):
        fail("round trip: %s failures\n%s" % (m.group(2), out[:3000]))
    print("round trip: %s commands printed and parsed back to the same AST" % m.group(1))
family("round trip of shcard's own printing", int(m.group(1)) if m else 0, failed - f0)

# ---- 2. rejection
TOKS = ["a", "b", "'x y'", '"q"', "|", "||", "&&", ";", ";;", "&", "\n", "(", ")", "{", "}",
        "<", ">", ">>", "2>&1", "<<<", "!", "'", '"', "\\", "#c", "$x", "${y}", "$(", "`", "=",
        "x=1", "if", "then", "fi", "do", "done", ">&", "|&", "&>", "<>", ">|", "$'a'", "*"]
soups = []
for _ in range(N):
    soups.append(" ".join(rng.choice(TOKS) for _ in range(rng.randint(1, 7))))
res = shcard_batch(soups)
rejected_by_bash = 0
f0 = failed
for s, r in zip(soups, res):
    ok_bash = subprocess.run(["bash", "-n", "-c", s], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    if not ok_bash:
        rejected_by_bash += 1
        if r["ok"]:
            fail("bash -n rejects %r but shcard accepts it" % s)
            continue
print("rejection: %d strings, %d rejected by bash -n" % (N, rejected_by_bash))
# only the strings bash rejects test anything (shcard may reject the others too: fail closed)
family("rejection: %d strings bash -n rejects, shcard rejects them too" % rejected_by_bash,
       rejected_by_bash, failed - f0)
print("%d passed, %d failed" % (fam_passed, fam_failed))
sys.exit(1 if failed or fam_failed else 0)
