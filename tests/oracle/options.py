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
import json
import os
import random
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))

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
        self.opts = []  # (short, long, arg, role, danger, key)

    def longs(self):
        return [o[1] for o in self.opts if o[1]]


def dump_path():
    return os.environ.get("SHC_TABLEDUMP") or os.path.join(
        HERE, "..", "..", os.environ.get("BUILD", "build"), "tests", "helpers", "tabledump")


def table_entries(dump=None):
    """Every option entry of the compiled tables as the library holds them (the tabledump
    helper prints them): dicts with tool, name, family, cmdflags, index, short, long, arg, role,
    flags, danger."""
    path = dump or dump_path()
    if not os.access(path, os.X_OK):
        raise SystemExit("options.py: %s is missing (make build-tests)" % path)
    out = subprocess.run([path], capture_output=True, check=True).stdout.decode()
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def entry_key(e):
    """The name of one table entry, e.g. "fd#14 -x/--exec": every case generated for the entry
    carries it (the coverage check)."""
    names = []
    if e["short"]:
        names.append("-" + e["short"])
    if e["long"]:
        names.append(("" if e["tool"] == "find" else "--") + e["long"])
    return "%s#%d %s" % (e["tool"], e["index"], "/".join(names))


def load_tools(dump=None):
    tools = {}
    for e in table_entries(dump):
        t = tools.get(e["tool"])
        if t is None:
            t = tools[e["tool"]] = Tool(e["tool"], e["name"], "ABBREV" in e["cmdflags"],
                                        any(f.startswith("DIGITS") for f in e["cmdflags"]))
        t.opts.append((e["short"], e["long"], e["arg"], e["role"], e["danger"] is not None,
                       entry_key(e)))
    # every tool of the tables has a template, every template a tool
    missing = sorted(set(TEMPLATES) - set(tools))
    extra = sorted(set(tools) - set(TEMPLATES))
    if missing or extra:
        raise SystemExit("options.py: templates without table entries %s, tools without a "
                         "template %s" % (missing, extra))
    return tools


def dangerous_words(tool):
    """The tool's dangerous options as words (with a value when they take one), each with the
    key of its table entry."""
    out = []
    for short, long_, arg, _, danger, key in tool.opts:
        if not danger:
            continue
        v = " cat" if arg == "REQ" else ""
        if tool.id == "find":
            out.append((long_ + (" {} +" if long_.startswith("-exec") or long_.startswith("-ok")
                                 else " out" if long_.startswith("-f") else ""), key))
            continue
        if short:
            out.append(("-" + short + v, key))
        if long_:
            out.append(("--" + long_ + ("=cat" if arg == "REQ" else ""), key))
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
    """Yields (tool id, shape, command, entry keys) for every tool and shape (deterministic
    order); the keys name the table entries the command exercises."""
    tools = tools or load_tools()
    for tid in sorted(tools):
        yield from gen_tool(tools[tid], TEMPLATES[tid])


def gen_tool(tool, tmpls):
    t0 = tmpls[0]
    opts = tool.opts
    dwords = dangerous_words(tool)
    shorts = [o for o in opts if o[0]]
    # single
    for opt in opts:
        for f in single_forms(tool, opt):
            for t in tmpls:
                yield tool.id, "single", fill(t, f), (opt[5],)
    # permute: options after the operands (and after a pattern)
    for opt in opts:
        for f in single_forms(tool, opt)[:1] + [f for f in single_forms(tool, opt) if " -" in f][:2]:
            text, a = t0
            yield tool.id, "permute", " ".join((text.replace("{o}", "").replace("{a}", a + " " + f)).split()), (opt[5],)
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
                        yield tool.id, "cluster", fill(t0, w + " " + quote(v)), (x[5], y[5])
                        yield tool.id, "cluster", fill(t0, w + quote(v)), (x[5], y[5])
                elif x[2] != "NONE":  # the rest of the cluster is x's value... or not (tree)
                    for v in ("-", "o"):
                        yield tool.id, "cluster", fill(t0, w + " " + quote(v)), (x[5], y[5])
                else:
                    yield tool.id, "cluster", fill(t0, w), (x[5], y[5])
        rng = random.Random(sum(map(ord, tool.id)))
        for _ in range(min(60, 2 * len(shorts) ** 2)):
            pick = rng.sample(shorts, min(3, len(shorts)))
            w = "-" + "".join(p[0] for p in pick)
            tail = " ".join(quote(rng.choice(DANGER_VALUES + BENIGN_VALUES))
                            for p in pick if p[2] == "REQ")
            yield tool.id, "cluster", fill(t0, (w + " " + tail).strip()), tuple(p[5] for p in pick)
    # repeat: benign then dangerous value, flag then --no- form and back
    for opt in opts:
        if opt[2] == "NONE":
            continue
        for v1, v2 in (("never", "always"), ("1", "-"), ("f", "/dev/stdin"), ("always", "never")):
            a = forms(tool, opt, v1)
            b = forms(tool, opt, v2)
            for i in range(min(len(a), len(b))):
                yield tool.id, "repeat", fill(t0, a[i] + " " + b[-1 - i]), (opt[5],)
    for opt in opts:
        if opt[1] and opt[2] == "NONE" and tool.id != "find":
            for neg in ("--no-" + opt[1], "--no" + opt[1]):
                yield tool.id, "repeat", fill(t0, "--" + opt[1] + " " + neg), (opt[5],)
                yield tool.id, "repeat", fill(t0, neg + " --" + opt[1]), (opt[5],)
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
            yield tool.id, "prefix", fill(t0, "--" + p), (opt[5],)
            if opt[2] != "NONE":
                yield tool.id, "prefix", fill(t0, "--" + p + "=-"), (opt[5],)
                yield tool.id, "prefix", fill(t0, "--" + p + " /dev/stdin"), (opt[5],)
                yield tool.id, "prefix", fill(t0, "--" + p + "=cat"), (opt[5],)
    # negate
    for opt in opts:
        if opt[1] and tool.id != "find":
            for neg in ("--no-" + opt[1], "--no" + opt[1]):
                yield tool.id, "negate", fill(t0, neg), (opt[5],)
    # hyphenval: a value-taking option whose separate value is an option (dangerous first)
    for opt in opts:
        if opt[2] != "REQ":
            continue
        for d, dk in dwords + [("-", None), ("--", None), ("-x", None), ("--help", None)]:
            for f in forms(tool, opt, "V"):
                if f.endswith(" V"):
                    yield (tool.id, "hyphenval", fill(t0, f[:-2] + " " + d),
                           (opt[5],) + ((dk,) if dk else ()))
    # operand
    for t in tmpls:
        if "{a}" not in t[0]:
            continue
        for a in DANGER_OPERANDS:
            yield tool.id, "operand", fill(t, "", a), ()
            yield tool.id, "operand", (fill(t, "--", a) if not a.startswith("--") else fill(t, "", a)), ()
    # digits
    if tool.id != "find":
        for d in ("-5", "-0", "-1", "-99999999999999999999", "-5n", "-n5", "-1f", "-5c"):
            yield tool.id, "digits", fill(t0, d), ()
    # cd
    for d in ("/dev", "/proc/self/fd", "/proc/self", "/./dev", "/usr/../dev", "fifodir",
              "../../../../../../../dev", "/dev/fd", "/sys"):
        for a in ("zero", "stdin", "0", "tty", "environ", ".", "fifo"):
            text, _ = t0
            if "{a}" in text:
                yield tool.id, "cd", "cd %s && %s" % (d, fill(t0, "", a)), ()
    # revision (git grep in the partial clone)
    if tool.id in ("git_grep", "git"):
        for rev in REVISIONS:
            yield tool.id, "revision", "git --no-pager grep foo " + rev, ()
            yield tool.id, "revision", "git grep -n foo " + rev + " | head", ()
            yield tool.id, "revision", "git --no-pager grep -e foo " + rev, ()
            yield tool.id, "revision", "git --no-pager grep foo --cached " + rev, ()


def cases(tools=None):
    """All generated cases, deduplicated, as dicts {cmd, tool, shape, entries}."""
    by_cmd = {}
    out = []
    for tid, shape, cmd, keys in generate(tools):
        c = by_cmd.get(cmd)
        if c is None:
            c = by_cmd[cmd] = {"cmd": cmd, "tool": tid, "shape": shape, "entries": []}
            out.append(c)
        c["entries"] += [k for k in keys if k not in c["entries"]]
    return out


def uncovered(tools, cs):
    """The table entries no case exercises (each must have one)."""
    seen = {k for c in cs for k in c["entries"]}
    return [o[5] for t in tools.values() for o in t.opts if o[5] not in seen]


REVIEWED = os.path.join(HERE, "dangerous.txt")


def reviewed_dangerous():
    """The reviewed list of dangerous entries (dangerous.txt): {"TOOL NAMES"}."""
    with open(REVIEWED) as f:
        return {l.strip() for l in f if l.strip() and not l.startswith("#")}


def dangerous_keys(tools):
    """The keys of the entries that are dangerous by the compiled tables or by the reviewed list
    (an entry that lost its danger in the tables is still run)."""
    listed = reviewed_dangerous()
    return {o[5] for t in tools.values() for o in t.opts
            if o[4] or "%s %s" % (t.id, o[5].split(" ", 1)[1]) in listed}


def listed_but_safe(tools):
    """Entries of the reviewed list that the compiled tables do not mark dangerous."""
    listed = reviewed_dangerous()
    return sorted(o[5] for t in tools.values() for o in t.opts
                  if not o[4] and "%s %s" % (t.id, o[5].split(" ", 1)[1]) in listed)


if __name__ == "__main__":
    import collections
    import json
    import sys
    tools = load_tools()
    cs = cases(tools)
    miss = uncovered(tools, cs)
    if miss:
        sys.exit("table entries with no generated case: %s" % ", ".join(miss))
    if "--dangerous" in sys.argv:
        for t in tools.values():
            for o in t.opts:
                if o[4]:
                    print("%s %s" % (t.id, o[5].split(" ", 1)[1]))
        sys.exit(0)
    if "--json" in sys.argv:
        for c in cs:
            print(json.dumps(c))
    else:
        print(len(cs), "cases")
        print(collections.Counter(c["shape"] for c in cs).most_common())
        print(collections.Counter(c["tool"] for c in cs).most_common())
