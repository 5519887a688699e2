#!/usr/bin/env python3
"""Word oracle: every word shcard calls static must be exactly the argument bash passes.

Generates commands built from the constructs where shell word decoding is hard: ANSI-C strings
with every kind of escape ($'\\x{41}', $'\\c\\'', octal past 0xff, \\u and \\U of every length),
braces in every position (escaped, quoted, nested, sequences, a } before the comma), tildes
(~, ~user, ~+, ~-, =~ and :~ in assignment-looking words), line continuations inside words and
quotes and after $, comments, $"..." strings, lone $, $[...], ${...}, non-ASCII bytes.

Each command has the shape

    [QQA=word] QQF S w1 S w2 S ... S   [# comment <newline> QQF S ...]

where S is a sentinel word.  shcard (tests/helpers/word_dump, byte-exact) gives each simple
command's words with their flags; bash (5.2, in bubblewrap: read-only file system, no network,
PATH=/nonexistent, globbing off) runs the same text through eval with QQF a function that
prints its arguments NUL-separated.  Both argument lists are cut at the sentinels into groups;
the groups must line up, and every group whose words shcard calls static (no expansion, brace,
tilde or glob flag) must equal bash's group byte for byte.  An assignment prefix with a static
value (no expansion, no assign_tilde) must equal the value the function sees.

Only commands shcard accepts go to bash; before that, any command whose text holds a backquote
or a parenthesis is dropped (the generator never writes one), so nothing but QQF can run even if
shcard were wrong about the quoting (and then the sandbox holds).

--direct K re-runs K accepted commands one by one as `bash -c` scripts and checks their static
words against that too (the eval batching must not change what is compared).

Usage: word_oracle.py [--shcard-dump PATH] [--n N] [--seed S] [--direct K] [--show K]
Prints the counts and "N passed, N failed" (one per command compared).
"""
import argparse
import os
import random
import subprocess
import sys

FN = "QQF"
SENT = "QQ-S7"
SENTB = SENT.encode()
STATIC_BLOCK = 1 << 1 | 1 << 2 | 1 << 3 | 1 << 4  # glob, brace, tilde, expansion
EXPANSION, BRACE, ASSIGN_TILDE = 1 << 4, 1 << 2, 1 << 6

PRELUDE = r"""set -f
QQF() {
  printf 'C\0%s\0' "$#"
  if [ $# -gt 0 ]; then printf '%s\0' "$@"; fi
  printf 'A\0%s\0%s\0' "${QQA+1}" "${QQA-}"
}
command_not_found_handle() { printf 'X\0%s\0' "$#"; printf '%s\0' "$@"; return 127; }
y=Y1
"""
# Each command comes as one line of \xHH escapes (ASCII: `read -d ''` in a UTF-8 locale would
# swallow the NUL after a byte sequence that is not UTF-8); S is eval's status (1: an expansion
# error such as a bad substitution, 2: a syntax error).
SERVER = PRELUDE + r"""__n=0
while IFS= read -r __l; do
  printf -v __c '%b' "$__l"
  printf 'R\0%s\0' "$__n"
  eval "$__c" </dev/null
  printf 'S\0%s\0' "$?"
  __n=$((__n + 1))
done
printf 'Z\0'
"""
SANDBOX = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
           "--unshare-all", "--die-with-parent", "--new-session", "--chdir", "/tmp",
           "--clearenv", "--setenv", "PATH", "/nonexistent", "--setenv", "HOME", "/nonexistent-home",
           "--setenv", "OLDPWD", "/old-pwd", "--setenv", "LC_ALL", "C.UTF-8", "--"]
BASH = ["/bin/bash", "--norc", "--noprofile", "-c"]

# ------------------------------------------------------------------------------ generator

PLAIN = "abcxyz019-._/=:,@%+!^]" + "é€"
HEX = "0123456789abcdefABCDEF"


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def pick(self, seq):
        return seq[self.r.randrange(len(seq))]

    def plain(self):
        s = "".join(self.pick(PLAIN) for _ in range(self.r.randint(1, 3)))
        if self.r.random() < 0.02:
            s += "\udcff" if self.r.random() < 0.5 else "\udcc3"  # a byte that is not UTF-8
        return s

    def brace(self):
        return self.pick(["{", "}", ",", "..", "{a,b}", "{x}", "{}", "{,}", "{1..3}", "{a..c}",
                          "{a}b,c}", "{x,{y}", "{-i,x}", "{,-delete}", "{1..2..1}", "{..}",
                          "{.,.}", "x{y}z", "{a}}", "}{", "{{a,b}", "{a,b}}", "{x}y,-i}",
                          "{1..}", "{..2}", "{a.b}", "{a..}", ",}", "{,", "{a...b}"])

    def esc(self):
        return "\\" + self.pick("{},.~#$'\"\\ \tanx*?[]!=:-\n" + "é\udcff")

    def sq(self):
        body = "".join(self.pick(["a", "{", "}", ",", "\\", "\n", "\\\n", "$", '"', "~", "#",
                                  " ", "..", "-i", "é", "$'"])
                       for _ in range(self.r.randint(0, 4)))
        return "'" + body + "'"

    def dq_body(self):
        out = []
        for _ in range(self.r.randint(0, 4)):
            k = self.r.random()
            if k < 0.3:
                out.append(self.plain())
            elif k < 0.5:
                out.append("\\" + self.pick('$"\\\nx{a,\'~#'))
            elif k < 0.6:
                out.append("$" + self.pick([",", "}", "/", ".", "=", "%", " ", "{x}", "x", "y",
                                            "{y:-a b}", "\\\nx", "\\\n'x'", "\\\n", "[1+1]",
                                            "'x'", "é", "-", ":"]))
            elif k < 0.9:
                out.append(self.pick(["'", "{a,b}", "{", "}", ",", "~", "#", " ", "\n", "\\\n",
                                      "$'", "*", "..", "=~", ":~"]))
            else:
                out.append("$")
                break  # a $ just before the closing quote is literal
        return "".join(out)

    def dq(self):
        return '"' + self.dq_body() + '"'

    def locale(self):
        return '$"' + self.dq_body() + '"'

    def ansic_piece(self):
        k = self.r.random()
        if k < 0.2:
            return self.pick(["a", "Z", '"', "{", ",", "}", "~", "#", " ", "\n", "é", "$", "-i",
                              "..", "x", "\udcff"])
        if k < 0.3:
            return "\\" + self.pick("abeEfnrtv\\'\"?")
        if k < 0.4:
            return "\\" + "".join(self.pick("012345677") for _ in range(self.r.randint(1, 4))) \
                + self.pick(["", "8", "9", "a"])
        if k < 0.5:
            return "\\x" + "".join(self.pick(HEX) for _ in range(self.r.randint(0, 3))) \
                + self.pick(["", "g", "{", "}", " "])
        if k < 0.6:
            return "\\x{" + "".join(self.pick(HEX) for _ in range(self.r.randint(0, 5))) \
                + self.pick(["}", "}", "", "g", "}}"])
        if k < 0.7:
            if self.r.random() < 0.5:  # ASCII code points, including the NUL
                return "\\u" + self.pick(["", "0", "00", "000"]) + "%x" % self.r.randrange(0x80)
            return "\\" + self.pick("uU") + "".join(self.pick(HEX)
                                                     for _ in range(self.r.randint(0, 9)))
        if k < 0.85:
            return "\\c" + self.pick(["A", "z", "?", "@", "[", "\\\\", "\\'", "\\", "{", "é", "1",
                                      " ", "", "'", "\n", "\\x41", "c", "-", "\udcff", "~"])
        if k < 0.95:
            return "\\" + self.pick("q{,} é\n89z$~#-\udcff")
        return self.pick(["\\x01", "\\001", "\\177", "\\x7f", "\\0", "\\x00", "\\x{0}", "\\u0",
                          "\\c@", "\\x{100}", "\\400", "\\777"])

    def ansic(self):
        s = "".join(self.ansic_piece() for _ in range(self.r.randint(0, 5)))
        # a trailing lone backslash would escape the closing quote: keep the string closed
        n = len(s) - len(s.rstrip("\\"))
        if n % 2:
            s += "\\"
        return "$'" + s + "'"

    def dollar(self):
        return self.pick(["$", "$", "$\\\n'x'", '$\\\n"x"', "$\\\nx", "$\\\n{x}", "$\\\n,",
                          "$\\\n", "$x", "$y", "${x}", "${y:-a,b}", "${#y}", "$1", "$$",
                          "$[1+1]", "$[x]", "$y\\\nz", "${y}\\\nz", "${x:-{a,b}}", "${x:-}}",
                          "${x:-'}'}", '"${x:-"}"}"'])

    def tilde(self):
        return self.pick(["~", "~/", "~root", "~+", "~-", "~nosuchuser9", "=~", ":~",
                          "--file=~/x", "a=~/b", "x:~", "a=b:~", "~:", "a=~", "a+=~",
                          "a=x=~", "_a=~", "a[1]=~", "--a=b:~/c", "-x=~"])

    def piece(self):
        k = self.r.random()
        if k < 0.17:
            return self.plain()
        if k < 0.32:
            return self.brace()
        if k < 0.42:
            return self.esc()
        if k < 0.49:
            return self.sq()
        if k < 0.57:
            return self.dq()
        if k < 0.75:
            return self.ansic()
        if k < 0.78:
            return self.locale()
        if k < 0.84:
            return self.dollar()
        if k < 0.9:
            return self.tilde()
        if k < 0.93:
            return "\\\n"
        if k < 0.96:
            return "#"
        return self.pick(["-delete", "-i", "--in-place", "-exec", "-e"])

    def word(self):
        w = "".join(self.piece() for _ in range(self.r.randint(1, 4)))
        # a # that starts the word (after line continuations) starts a comment: the rest of the
        # line would be a new command with a random name (fg %job, ./path: not observable)
        if w.replace("\\\n", "").startswith("#"):
            w = "a" + w
        return w

    def sep(self):
        return self.pick([" ", " ", " ", "\t", "  ", " \\\n", " \\\n ", "\\\n "])

    def call(self):
        out = ""
        if self.r.random() < 0.1:
            out += "QQA=" + self.word() + self.sep()
        out += FN + self.sep() + SENT
        for _ in range(self.r.randint(1, 4)):
            out += self.sep() + self.word() + self.sep() + SENT
        if self.r.random() < 0.2:  # the input may end inside a word, too
            out += self.sep() + self.word()
        return out

    def command(self):
        cmd = self.call()
        while self.r.random() < 0.1:
            cmd += self.sep() + "#" + self.pick(["", " x", " {a,b} 'q", "$'\\'", " x \\", "\"", "#"]) + "\n" + self.call()
        return cmd


# ------------------------------------------------------------------------------ shcard side

def shcard_words(dump, cmds):
    """Parses each command with the real library; returns per command None (rejected, with the
    kind) or a list of calls, each (assigns, words) with words as (flags, bytes or None)."""
    inp = b"".join(c + b"\0" for c in cmds)
    out = subprocess.run([dump], input=inp, stdout=subprocess.PIPE, check=True).stdout
    lines = out.split(b"\n")
    res = []
    i = 0

    def val(tok):
        if tok == b"-":
            return None
        return b"" if tok == b"=" else bytes.fromhex(tok.decode())

    for _ in cmds:
        f = lines[i].split(b" ")
        i += 1
        if f[0] == b"E":
            res.append(f[1].decode())
            continue
        calls = []
        for _ in range(int(f[1])):
            _, na, nw = lines[i].split(b" ")
            i += 1
            assigns, words = [], []
            for _ in range(int(na)):
                _, name, fl, v = lines[i].split(b" ")
                i += 1
                assigns.append((name.decode(), int(fl), val(v)))
            for _ in range(int(nw)):
                _, fl, v = lines[i].split(b" ")
                i += 1
                words.append((int(fl), val(v)))
            calls.append((assigns, words))
        res.append(calls)
    return res


# ------------------------------------------------------------------------------ bash side

def parse_records(data):
    """Splits the server's output into per-command record lists."""
    toks = data.split(b"\0")
    recs, status = {}, {}
    cur = None
    i = 0
    while i < len(toks):
        t = toks[i]
        if t == b"R":
            cur = int(toks[i + 1])
            recs[cur] = []
            i += 2
        elif t in (b"C", b"X"):
            n = int(toks[i + 1])
            args = toks[i + 2:i + 2 + n]
            i += 2 + n
            rec = [t.decode(), args, None]
            if t == b"C" and toks[i] == b"A":
                rec[2] = toks[i + 2] if toks[i + 1] == b"1" else None
                i += 3
            if cur is not None:
                recs[cur].append(rec)
        elif t == b"S":
            if cur is not None:
                status[cur] = int(toks[i + 1])
            i += 2
        elif t == b"Z" or (t == b"" and i == len(toks) - 1):
            i += 1
        else:
            raise RuntimeError("unexpected token from bash: %r" % t[:40])
    return recs, status


def bash_batch(cmds):
    """Runs the commands through one sandboxed bash (eval each); returns per index the records
    and eval's status.
    A command that ends the shell is retried from the next one in a fresh shell."""
    result = {}
    start = 0
    while start < len(cmds):
        inp = b"".join(b"".join(b"\\x%02x" % ch for ch in c) + b"\n" for c in cmds[start:])
        p = subprocess.run(SANDBOX + BASH + [SERVER], input=inp, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=600)
        recs, status = parse_records(p.stdout)
        if not recs and p.returncode != 0:
            raise RuntimeError("bash sandbox failed (rc %d)" % p.returncode)
        for k, v in recs.items():
            result[start + k] = (v, status.get(k))
        last = max(recs) if recs else -1
        if p.stdout.endswith(b"Z\0") or last < 0:
            break
        if last in result and result[last][1] is None:
            result[last] = (result[last][0], "exit")
        start += last + 1  # the shell ended inside command `last`: go on after it
    return result


def bash_direct(cmd):
    p = subprocess.run(SANDBOX + BASH + [PRELUDE + "printf 'R\\0%s\\0' 0\n" + cmd.decode(
        "utf-8", "surrogateescape")], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, timeout=60)
    return parse_records(p.stdout)[0].get(0, [])


# ------------------------------------------------------------------------------ comparison

def groups(words):
    """Cuts a list of (flags, value) at sentinel words."""
    gs, cur = [], []
    for w in words:
        if w[1] == SENTB and w[0] == 0:
            gs.append(cur)
            cur = []
        else:
            cur.append(w)
    gs.append(cur)
    return gs


def bgroups(args):
    gs, cur = [], []
    for a in args:
        if a == SENTB:
            gs.append(cur)
            cur = []
        else:
            cur.append(a)
    gs.append(cur)
    return gs


def compare(calls, recs, status, stats):
    """Returns None when every static word matches, or a description of the first mismatch.
    The calls of QQF line up with bash's C records; another simple command (after a comment
    and a newline the generator always starts QQF again, but a command made only of an
    assignment, or a name with a / or starting with %, never reaches command_not_found_handle)
    is not compared, but bash may not run more of them than shcard sees.  A QQF call that bash
    skips because an expansion failed (eval status 1: a bad substitution, which brace expansion
    can also make, {$,}{x} giving ${x}; or ${x?msg}, which ends the shell) is no mismatch when
    shcard flagged a word of that command as an expansion or a brace expansion."""
    fn = [c for c in calls if c[1] and c[1][0] == (0, FN.encode())]
    crecs = [r for r in recs if r[0] == "C"]
    if len(fn) > len(crecs) and status in (1, "exit") and any(
            fl & (EXPANSION | BRACE) for c in calls for fl, _ in c[1]):
        stats["expansion_errors"] += 1
        return None
    if len(fn) != len(crecs) or len(recs) - len(crecs) > len(calls) - len(fn):
        return "shcard sees %d calls of %s in %d simple commands, bash ran %r (status %s)" % (
            len(fn), FN, len(calls), [(r[0], r[1][:8]) for r in recs], status)
    for (assigns, words), (kind, args, aval) in zip(fn, crecs):
        sg, bg = groups(words[1:]), bgroups(args)
        if len(sg) != len(bg) and any(fl & EXPANSION for fl, _ in words):
            stats["flagged"] += len(words) - 1  # an expansion ($_) may give a sentinel
            continue
        if len(sg) != len(bg):
            return "word groups differ: shcard %r, bash %r" % (
                [[w[1] for w in g] for g in sg], bg)
        for g, b in zip(sg, bg):
            if all(w[1] is not None and not (w[0] & STATIC_BLOCK) for w in g):
                stats["words"] += len(g)
                if [w[1] for w in g] != b:
                    return "static words differ: shcard %r, bash %r" % ([w[1] for w in g], b)
            else:
                stats["flagged"] += len(g)
        for an, fl, v in assigns:
            if an == "QQA" and v is not None and not (fl & (EXPANSION | ASSIGN_TILDE)):
                stats["assigns"] += 1
                if v != aval:
                    return "assignment value differs: shcard %r, bash %r" % (v, aval)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shcard-dump", default=os.path.join(os.environ.get("BUILD", "build"),
                                                          "tests", "helpers", "word_dump"))
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--chunk", type=int, default=20000)
    ap.add_argument("--direct", type=int, default=0)
    ap.add_argument("--show", type=int, default=20)
    a = ap.parse_args()
    gen = Gen(a.seed)
    stats = {"commands": 0, "accepted": 0, "words": 0, "flagged": 0, "assigns": 0,
             "mismatch": 0, "passed": 0, "expansion_errors": 0}
    rejected = {}
    shown = 0
    direct_pool = []
    done = 0
    while done < a.n:
        k = min(a.chunk, a.n - done)
        cmds = [gen.command().encode("utf-8", "surrogateescape") for _ in range(k)]
        done += k
        stats["commands"] += k
        parsed = shcard_words(a.shcard_dump, cmds)
        todo = []
        for c, p in zip(cmds, parsed):
            if isinstance(p, str):
                rejected[p] = rejected.get(p, 0) + 1
                continue
            if any(ch in c for ch in b"`()"):
                raise SystemExit("generator wrote a substitution character: %r" % c)
            todo.append((c, p))
        stats["accepted"] += len(todo)
        recs = bash_batch([c for c, _ in todo])
        for i, (c, p) in enumerate(todo):
            r, st = recs.get(i, ([], None))
            why = compare(p, r, st, stats)
            if why is None:
                stats["passed"] += 1
                if len(direct_pool) < a.direct:
                    direct_pool.append((c, p, st))
                continue
            stats["mismatch"] += 1
            if shown < a.show:
                shown += 1
                print("MISMATCH %r\n  %s" % (c.decode("utf-8", "surrogateescape"), why))
    direct_bad = 0
    for c, p, st in direct_pool:
        why = compare(p, bash_direct(c), st, {k: 0 for k in stats})
        if why is not None:
            direct_bad += 1
            print("MISMATCH under bash -c %r\n  %s" % (c.decode("utf-8", "surrogateescape"), why))
    print("word oracle: %d commands generated (seed %d), %d accepted by shcard, rejected: %s" %
          (stats["commands"], a.seed, stats["accepted"],
           ", ".join("%s %d" % kv for kv in sorted(rejected.items())) or "none"))
    print("word oracle: %d static words and %d assignment values compared with bash, %d flagged "
          "words not compared, %d commands where bash's expansion of a flagged word failed, "
          "%d commands with a mismatch" %
          (stats["words"], stats["assigns"], stats["flagged"], stats["expansion_errors"],
           stats["mismatch"]))
    if a.direct:
        print("word oracle: %d commands re-run as bash -c scripts, %d with a mismatch there" %
              (len(direct_pool), direct_bad))
    # One result per family of comparisons, and a family that compared nothing is no pass: the
    # commands whose words were all flagged (no static word) count nowhere.
    passed = failed = 0
    fams = [("static words", stats["words"], stats["mismatch"]),
            ("assignment values", stats["assigns"], 0)]
    if a.direct:
        fams.append(("bash -c re-runs", len(direct_pool), direct_bad))
    for name, n, bad in fams:
        ok = n > 0 and bad == 0
        passed += ok
        failed += not ok
        print("word oracle: %s: %d compared, %d mismatches%s"
              % (name, n, bad, "" if n else " (nothing compared: a failure)"))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
