#!/usr/bin/env python3
"""The option oracle's generator: every allowlisted tool (the tables in src/classify/tools/*.def
and find's predicates in src/classify/find.c) x option shapes, with values and operands that are
dangerous if misparsed.  tests/option_oracle.py classifies them all and runs the accepted ones
through the sandboxed oracle (tests/oracle.py).

Shapes (the "shape" field of each case):
  single     each option alone: -x, --long, values attached (-xV), separate (-x V), --long=V,
             --long V
  cluster    2-3 short options in one word, a value-taking one first, in the middle or last
             (its value attached, or the next word, or the rest of the cluster)
  repeat     the same option twice with different values (a benign one, then a dangerous
             one), a flag then its --no- form and back: the last one wins in most parsers
  prefix     every proper prefix of every long option (unique or ambiguous in the table)
  negate     --no-X and --noX for every long X
  hyphenval  a value-taking option whose separate value is itself an option of the tool,
             dangerous ones first (clap and Getopt::Long may read it as the option)
  operand    dangerous operands: -, --, /dev/stdin, the FIFO, symlinks to devices, /./dev,
             /usr/../dev, ../.. chains, -delete after --, option-looking names
  digits     -NUM forms (-5, -0, -99999999999999999999)
  permute    options after the operands (GNU permutation; clap; Getopt::Long)
  cd         `cd DIR && CMD` with DIR a device or process directory, values joined onto it
  revision   git grep PATTERN REV in the partial clone (blobs of older revisions are missing)
Values that matter when misparsed: -, /dev/stdin, /dev/tty, /proc/self/fd/0,
../../../../../../../dev/zero, /./dev/zero, -delete, --pre=x, and the fixtures fifo, link-zero,
link-stdin, link-tty; benign ones 1, x, never.
"""
import os
import random
import re

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "src", "classify")

# Values and operands that are dangerous if misparsed: by their text (-, /dev/stdin, ../ chains)
# or by what they name in the scratch directory (the FIFO, the socket, symlinks to /dev/zero,
# /dev/stdin, /dev/tty): the oracle classifies with `explain --cwd` over a copy of the fixtures,
# so the classifier can stat them, as the bridge does in a real directory.
DANGER_VALUES = ["-", "/dev/stdin", "/dev/tty", "/proc/self/fd/0", "../../../../../../../dev/zero",
                 "/./dev/zero", "/usr/../dev/stdin", "-delete", "--pre=x", "fifodir", "fifo",
                 "link-zero", "link-stdin", "link-tty"]
BENIGN_VALUES = ["1", "x", "never"]
DANGER_OPERANDS = ["-", "-- -", "/dev/stdin", "/dev/tty", "/dev/zero", "/proc/self/fd/0",
                   "/proc/self/environ", "fifodir", "/./dev/zero", "/usr/../dev/zero",
                   "//dev/stdin", "/dev/./stdin", "/dev//zero", "../../../../../../../dev/zero",
                   "src/../../../../../../../../dev/stdin", "-- -delete", "./-delete",
                   "-- --pre=x", "/proc/1/fd/0", "/proc/thread-self/fd/0", "/dev/fd/0",
                   "/proc/self/root/dev/zero", "/sys/kernel/debug", "/proc/kmsg", "fifo", "sock",
                   "loop", "link-zero", "link-stdin", "link-tty", "link-fd0", "fifodir/fifo",
                   "fifodir/zero"]

# How each table's tool is written: {o} the options, {a} the operand(s) (default in "a").
TEMPLATES = {
    "cat": [("cat {o} {a}", "f")],
    "head": [("head {o} {a}", "f")],
    "tail": [("tail {o} {a}", "f")],
    "nl": [("nl {o} {a}", "f")],
    "bat": [("bat -P {o} {a}", "f"), ("bat {o} {a} | head", "f"), ("bat {o} {a}", "f")],
    "sed": [("sed -n {o} 1,5p {a}", "f"), ("sed {o} -n 1,5p {a}", "f")],
    "rg": [("rg {o} foo {a}", "src"), ("rg {o} foo", "")],
    "grep": [("grep -r {o} foo {a}", "src"), ("grep {o} foo {a}", "f"),
             # the grep that find -exec and xargs run on the names (the breadth rules)
             ("find . -type f -exec grep {o} foo {a} +", "{}"),
             ("find . -type f -print0 | xargs -0 -r grep {o} foo {a}", "")],
    "xargs": [("find . -type f -print0 | xargs -0 -r {o} grep foo {a}", ""),
              ("find . -type f -print0 | xargs -0 {o} grep -n foo {a}", "")],
    "ag": [("ag -U {o} foo {a}", "src")],
    "ack": [("ack {o} foo {a}", "src")],
    "git": [("git {o} ls-files {a}", "src"), ("git {o} --no-pager grep foo {a}", "src"),
            ("git {o} grep foo {a} | head", "src")],
    "git_grep": [("git --no-pager grep {o} foo {a}", "src"), ("git grep {o} foo {a} | head", "src")],
    "git_ls_files": [("git ls-files {o} {a}", "src")],
    "fd": [("fd {o} foo {a}", "src")],
    "ls": [("ls {o} {a}", "src")],
    "tree": [("tree {o} {a}", "src")],
    "wc": [("cat f | wc {o}", "")],
    "sort": [("cat f | sort {o}", "")],
    "uniq": [("cat f | uniq {o}", "")],
    "cut": [("cat f | cut -f1 {o}", "")],
    "tr": [("cat f | tr {o} a b", "")],
    "column": [("cat f | column {o}", "")],
    "cd": [("cd {o} {a} && ls", "src")],
    "find": [("find {a} {o}", "src")],
}
REVISIONS = ["v1", "old", "HEAD~1", "HEAD^", "origin/old", "v1^{tree}", "HEAD~1:src",
             "main~1", "@~1", "refs/tags/v1", "v1 -- src", "HEAD~1 src", "--cached v1"]


class Tool:
    def __init__(self, tid, name, abbrev, digits):
        self.id, self.name, self.abbrev, self.digits = tid, name, abbrev, digits
        self.opts = []  # (short, long, arg, role, danger)

    def longs(self):
        return [o[1] for o in self.opts if o[1]]


def table_lines():
    inc = re.compile(r'^#include "(tools/[\w.]+\.def)"')
    out = []
    with open(os.path.join(SRC, "tools.def")) as f:
        for line in f:
            m = inc.match(line)
            if m:
                with open(os.path.join(SRC, m.group(1))) as g:
                    out.extend(g.readlines())
            else:
                out.append(line)
    return out


def load_tools():
    cmd_re = re.compile(r'^SHC_CMD\((\w+), "([^"]*)", (\w+), ([^)]*)\)')
    opt_re = re.compile(r"^SHC_OPT\((0|'(.)'), (NULL|\"([^\"]*)\"), (NONE|REQ|OPT), (\w+), (NULL|\")")
    tools, cur = {}, None
    for line in table_lines():
        m = cmd_re.match(line)
        if m:
            flags = m.group(4)
            cur = Tool(m.group(1), m.group(2), "SHC_ABBREV" in flags, "SHC_DIGITS" in flags)
            tools[cur.id] = cur
            continue
        m = opt_re.match(line)
        if m and cur:
            cur.opts.append((m.group(2), m.group(4), m.group(5), m.group(6), m.group(7) != "NULL"))
    find = Tool("find", "find", False, False)
    with open(os.path.join(SRC, "find.c")) as f:
        for m in re.finditer(r'\{"([^"]+)", (\d), FIND_\w+, (NULL|")', f.read()):
            find.opts.append((None, m.group(1), "REQ" if m.group(2) == "1" else "NONE", "NONE",
                              m.group(3) != "NULL"))
    tools["find"] = find
    # A table format change must not silently shrink the oracle to a few tools.
    missing = sorted(set(TEMPLATES) - set(tools))
    empty = sorted(t for t in tools.values() if not t.opts and t.id not in ("cd",))
    if missing or [t.id for t in empty]:
        raise SystemExit("options.py: tables not parsed: missing %s, no options %s"
                         % (missing, [t.id for t in empty]))
    return tools


def dangerous_words(tool):
    """The tool's dangerous options as words (with a value when they take one)."""
    out = []
    for short, long_, arg, _, danger in tool.opts:
        if not danger:
            continue
        v = " cat" if arg == "REQ" else ""
        if tool.id == "find":
            out.append(long_ + (" {} +" if long_.startswith("-exec") or long_.startswith("-ok")
                                 else " out" if long_.startswith("-f") else ""))
            continue
        if short:
            out.append("-" + short + v)
        if long_:
            out.append("--" + long_ + ("=cat" if arg == "REQ" else ""))
    return out


def forms(tool, opt, value):
    """The ways to write one option with one value."""
    short, long_, arg = opt[0], opt[1], opt[2]
    out = []
    if tool.id == "find":
        return [long_ + (" " + quote(value) if arg == "REQ" else "")]
    if arg == "NONE":
        if short:
            out.append("-" + short)
        if long_:
            out.append("--" + long_)
        return out
    q = quote(value)
    if short:
        if arg == "REQ":
            out += ["-" + short + " " + q, "-" + short + q]
        else:
            out += ["-" + short, "-" + short + q]
    if long_:
        if arg == "REQ":
            out += ["--" + long_ + "=" + q, "--" + long_ + " " + q]
        else:
            out += ["--" + long_, "--" + long_ + "=" + q]
    return out


SAFE_WORD = re.compile(r"^[A-Za-z0-9_./=:,+@%^~{}-]+$")


def quote(v):
    if v == "":
        return "''"
    if SAFE_WORD.match(v) and not v.startswith("~") and "{" not in v:
        return v
    return "'" + v.replace("'", "'\\''") + "'"


def single_forms(tool, opt):
    """Every form with a benign value; each dangerous value in the first two forms."""
    if opt[2] == "NONE":
        return forms(tool, opt, "")
    out = []
    for v in BENIGN_VALUES:
        out += forms(tool, opt, v)
    for v in DANGER_VALUES:
        f = forms(tool, opt, v)
        out += f[:1] + f[2:3]
    return out


def fill(tmpl, o, a=None):
    text, default = tmpl
    s = text.replace("{o}", o).replace("{a}", default if a is None else a)
    return " ".join(s.split())


def generate(tools=None):
    """Yields (tool id, shape, command) for every tool and shape (deterministic order)."""
    tools = tools or load_tools()
    for tid in sorted(tools):
        tool = tools[tid]
        if tid not in TEMPLATES:
            continue
        yield from gen_tool(tool, TEMPLATES[tid])


def gen_tool(tool, tmpls):
    t0 = tmpls[0]
    opts = tool.opts
    dwords = dangerous_words(tool)
    shorts = [o for o in opts if o[0]]
    # single
    for opt in opts:
        for f in single_forms(tool, opt):
            for t in tmpls:
                yield tool.id, "single", fill(t, f)
    # permute: options after the operands (and after a pattern)
    for opt in opts:
        for f in single_forms(tool, opt)[:1] + [f for f in single_forms(tool, opt) if " -" in f][:2]:
            text, a = t0
            yield tool.id, "permute", " ".join((text.replace("{o}", "").replace("{a}", a + " " + f)).split())
    # cluster: pairs with a value-taking or dangerous letter (its value attached, the next word,
    # or the rest of the cluster), then a sample of triples
    if tool.id != "find":
        for x in shorts:
            for y in shorts:
                if x is y or not (x[2] != "NONE" or y[2] != "NONE" or x[4] or y[4]):
                    continue
                w = "-" + x[0] + y[0]
                if y[2] != "NONE":
                    for v in ("-", "o"):
                        yield tool.id, "cluster", fill(t0, w + " " + quote(v))
                        yield tool.id, "cluster", fill(t0, w + quote(v))
                elif x[2] != "NONE":  # the rest of the cluster is x's value... or not (tree)
                    for v in ("-", "o"):
                        yield tool.id, "cluster", fill(t0, w + " " + quote(v))
                else:
                    yield tool.id, "cluster", fill(t0, w)
        rng = random.Random(sum(map(ord, tool.id)))
        for _ in range(min(60, 2 * len(shorts) ** 2)):
            pick = rng.sample(shorts, min(3, len(shorts)))
            w = "-" + "".join(p[0] for p in pick)
            tail = " ".join(quote(rng.choice(DANGER_VALUES + BENIGN_VALUES))
                            for p in pick if p[2] == "REQ")
            yield tool.id, "cluster", fill(t0, (w + " " + tail).strip())
    # repeat: benign then dangerous value, flag then --no- form and back
    for opt in opts:
        if opt[2] == "NONE":
            continue
        for v1, v2 in (("never", "always"), ("1", "-"), ("f", "/dev/stdin"), ("always", "never")):
            a = forms(tool, opt, v1)
            b = forms(tool, opt, v2)
            for i in range(min(len(a), len(b))):
                yield tool.id, "repeat", fill(t0, a[i] + " " + b[-1 - i])
    for opt in opts:
        if opt[1] and opt[2] == "NONE" and tool.id != "find":
            for neg in ("--no-" + opt[1], "--no" + opt[1]):
                yield tool.id, "repeat", fill(t0, "--" + opt[1] + " " + neg)
                yield tool.id, "repeat", fill(t0, neg + " --" + opt[1])
    # prefix: the proper prefixes of every long option: each unique one (in the table) and the
    # longest ambiguous one; values for the value-taking ones
    longs = [o[1] for o in opts if o[1]]
    seen = set()
    for opt in opts:
        if not opt[1] or tool.id == "find":
            continue
        name = opt[1]
        k = next((n for n in range(1, len(name) + 1)
                  if not [l for l in longs if l.startswith(name[:n]) and l != name]), len(name))
        picked = sorted({name[:n] for n in (k - 1, k, len(name) - 1) if 1 <= n < len(name)})
        for p in picked:
            if p in seen:
                continue
            seen.add(p)
            yield tool.id, "prefix", fill(t0, "--" + p)
            if opt[2] != "NONE":
                yield tool.id, "prefix", fill(t0, "--" + p + "=-")
                yield tool.id, "prefix", fill(t0, "--" + p + " /dev/stdin")
                yield tool.id, "prefix", fill(t0, "--" + p + "=cat")
    # negate
    for opt in opts:
        if opt[1] and tool.id != "find":
            for neg in ("--no-" + opt[1], "--no" + opt[1]):
                yield tool.id, "negate", fill(t0, neg)
    # hyphenval: a value-taking option whose separate value is an option (dangerous first)
    for opt in opts:
        if opt[2] != "REQ":
            continue
        for d in dwords + ["-", "--", "-x", "--help"]:
            for f in forms(tool, opt, "V"):
                if f.endswith(" V"):
                    yield tool.id, "hyphenval", fill(t0, f[:-2] + " " + d)
    # operand
    for t in tmpls:
        if "{a}" not in t[0]:
            continue
        for a in DANGER_OPERANDS:
            yield tool.id, "operand", fill(t, "", a)
            yield tool.id, "operand", fill(t, "--", a) if not a.startswith("--") else fill(t, "", a)
    # digits
    if tool.id != "find":
        for d in ("-5", "-0", "-1", "-99999999999999999999", "-5n", "-n5", "-1f", "-5c"):
            yield tool.id, "digits", fill(t0, d)
    # cd
    for d in ("/dev", "/proc/self/fd", "/proc/self", "/./dev", "/usr/../dev", "fifodir",
              "../../../../../../../dev", "/dev/fd", "/sys"):
        for a in ("zero", "stdin", "0", "tty", "environ", ".", "fifo"):
            text, _ = t0
            if "{a}" in text:
                yield tool.id, "cd", "cd %s && %s" % (d, fill(t0, "", a))
    # revision (git grep in the partial clone)
    if tool.id in ("git_grep", "git"):
        for rev in REVISIONS:
            yield tool.id, "revision", "git --no-pager grep foo " + rev
            yield tool.id, "revision", "git grep -n foo " + rev + " | head"
            yield tool.id, "revision", "git --no-pager grep -e foo " + rev
            yield tool.id, "revision", "git --no-pager grep foo --cached " + rev


def cases(seed=None):
    """All generated cases, deduplicated, as dicts {cmd, tool, shape}."""
    seen = set()
    out = []
    for tid, shape, cmd in generate():
        if cmd in seen:
            continue
        seen.add(cmd)
        out.append({"cmd": cmd, "tool": tid, "shape": shape})
    return out


if __name__ == "__main__":
    import collections
    import json
    import sys
    cs = cases()
    if "--json" in sys.argv:
        for c in cs:
            print(json.dumps(c))
    else:
        print(len(cs), "cases")
        print(collections.Counter(c["shape"] for c in cs).most_common())
        print(collections.Counter(c["tool"] for c in cs).most_common())
