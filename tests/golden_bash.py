#!/usr/bin/env python3
"""A second opinion on the golden ASTs (tests/golden/NAME.ast), which the dumper under test
wrote: each committed .ast file is read here with its own small reader (no shcard code) and
checked against bash 5.2 itself.

  words    for every command word and assignment value whose value bash gives back unchanged
           (no glob under set -f is a concern; brace, tilde and parameter expansions have no
           static value and are not compared), the text at the word's span, given to bash as
           one argument, must be exactly one argument equal to the golden's value: the spans
           and the decoded values are both checked, by bash
  wrapper  a "wrapper bash -lc" golden: bash's own argv of the outer command must be
           [bash, -lc, SCRIPT], and the spans index into that SCRIPT
  errors   a golden syntax error must be one `bash -n` rejects too; an "unsupported" one must be
           valid bash (bash -n accepts it)

One result per golden file; a file where nothing could be compared with bash is reported and
is not a pass.  Usage: golden_bash.py [DIR]
"""
import os
import re
import subprocess
import sys
import tempfile

DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "golden")
TOKEN = re.compile(r'\s*(?:(\()|(\))|"((?:[^"\\]|\\.)*)"|([^\s()"]+))', re.S)
ESC = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "0": "\0"}


class Str(str):
    """A quoted string of the dump (as against an atom)."""


def unquote(s):
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            if n == "x":
                out.append(chr(int(s[i + 2:i + 4], 16)))
                i += 4
                continue
            if n == "u":
                out.append(chr(int(s[i + 2:i + 6], 16)))
                i += 6
                continue
            out.append(ESC.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def read_sexpr(text):
    """The dump as nested lists of atoms and Str."""
    stack = [[]]
    pos = 0
    while True:
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
        if m.group(1):
            stack.append([])
        elif m.group(2):
            done = stack.pop()
            stack[-1].append(done)
        elif m.group(3) is not None:
            stack[-1].append(Str(unquote(m.group(3))))
        else:
            stack[-1].append(m.group(4))
    if text[pos:].strip() or len(stack) != 1:
        raise ValueError("unreadable dump near %r" % text[pos:pos + 40])
    return stack[0]


def head(node):
    """('word', 3, 6) for "word@3-6"; (name, None, None) without a span."""
    if not isinstance(node, list) or not node or isinstance(node[0], (list, Str)):
        return None, None, None
    m = re.match(r"^([a-z]+)@(\d+)-(\d+)$", node[0])
    if m:
        return m.group(1), int(m.group(2)), int(m.group(3))
    return node[0], None, None


NO_VALUE = {"param", "brace", "tilde", "cmdsubst", "arith"}


def word_value(word):
    """(value, comparable): the concatenated parts; not comparable when a flag or part says
    bash expands it."""
    flags = [x for x in word[1:] if isinstance(x, str) and not isinstance(x, Str)
             and x.startswith(":")]
    if set(flags) & {":brace", ":tilde", ":expansion"}:
        return None, False
    out = []
    ok = True

    def walk(parts):
        nonlocal ok
        for p in parts:
            if not isinstance(p, list):
                continue
            kind = head(p)[0]
            strs = [x for x in p[1:] if isinstance(x, Str)]
            if kind in NO_VALUE:
                ok = False
            elif kind == "dbl":
                walk(p[1:])
            elif strs:
                out.append(strs[0])
            else:
                ok = False

    walk(word[1:])
    return "".join(out), ok


def calls(tree):
    """Every (call node) in source order."""
    out = []

    def walk(n):
        if isinstance(n, list):
            if head(n)[0] == "call":
                out.append(n)
            for x in n[1:]:
                walk(x)

    for n in tree:
        walk(n)
    return out


def bash_args(texts, cwd):
    """bash's argv for `f TEXT1 TEXT2 ...` (each text as written), globbing off."""
    script = ("set -f; f() { printf '%s\\0' \"$@\"; }; f " + " ".join(texts) + "\n")
    p = subprocess.run(["/bin/bash", "--norc", "--noprofile", "-c", script], cwd=cwd,
                       capture_output=True, env={"HOME": "/nonexistent-home", "LC_ALL": "C.UTF-8",
                                                 "PATH": "/usr/bin:/bin"})
    return p.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1], p.returncode


def bash_outer_argv(text, cwd):
    script = ("set -f; command_not_found_handle() { printf '%s\\0' \"$@\"; }; PATH=/nonexistent; "
              "hash -r\n" + text + "\n")
    p = subprocess.run(["/bin/bash", "--norc", "--noprofile", "-c", script], cwd=cwd,
                       capture_output=True, env={"HOME": "/nonexistent-home", "LC_ALL": "C.UTF-8"})
    return p.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]


def bash_n(text):
    return subprocess.run(["/bin/bash", "--norc", "--noprofile", "-n", "-c", text],
                          capture_output=True).returncode == 0


def check(name, src, ast, cwd):
    """(compared, problems) for one golden."""
    text = src[:-1] if src.endswith("\n") else src
    lines = ast.rstrip("\n").split("\n")
    problems = []
    if lines[0].startswith("input:"):
        m = re.match(r"^input:\d+:\d+: (syntax|unsupported) error", lines[0])
        if not m:
            return 0, ["%s: an error of an unknown kind: %s" % (name, lines[0])]
        valid = bash_n(text)
        if m.group(1) == "syntax" and valid:
            problems.append("%s: the golden says syntax error, bash -n accepts it" % name)
        if m.group(1) == "unsupported" and not valid:
            problems.append("%s: the golden says unsupported (valid bash), bash -n rejects it"
                            % name)
        return 1, problems
    script = text
    if lines[0].startswith("wrapper "):
        _, path, flag = lines.pop(0).split(" ", 2)
        argv = bash_outer_argv(text, cwd)
        if len(argv) != 3 or argv[:2] != [path, flag]:
            return 1, ["%s: bash's argv of the wrapper is %r, the golden says %s %s"
                       % (name, argv, path, flag)]
        script = argv[2]
    tree = read_sexpr("\n".join(lines))
    compared = 0
    for call in calls(tree):
        for item in call[1:]:
            if not isinstance(item, list):
                continue
            kind = head(item)[0]
            if kind == "word":
                words = [item]
            elif kind == "assign":
                words = [x for x in item[1:] if isinstance(x, list)]
            else:
                continue  # redirections: their targets are not argv
            for w in words:
                value, ok = word_value(w)
                _, s, e = head(w)
                if not ok or s is None:
                    continue
                raw = script[s:e]
                got, rc = bash_args([raw], cwd)
                compared += 1
                if rc != 0 or got != [value]:
                    problems.append("%s: word@%d-%d %r: the golden says %r, bash reads %r"
                                    % (name, s, e, raw, value, got))
    return compared, problems


def main():
    passed = failed = 0
    total = 0
    with tempfile.TemporaryDirectory(prefix="shc-golden-bash-") as cwd:
        for f in sorted(os.listdir(DIR)):
            if not f.endswith(".sh"):
                continue
            name = f[:-3]
            with open(os.path.join(DIR, f), encoding="utf-8", errors="surrogateescape") as g:
                src = g.read()
            with open(os.path.join(DIR, name + ".ast"), encoding="utf-8") as g:
                ast = g.read()
            try:
                n, problems = check(name, src, ast, cwd)
            except ValueError as e:
                n, problems = 0, ["%s: %s" % (name, e)]
            total += n
            if problems:
                failed += 1
                for p in problems:
                    print("FAIL: " + p)
            elif n == 0:
                print("%s: nothing bash can give a view of (not counted)" % name)
            else:
                passed += 1
                print("%s: %d facts agree with bash" % (name, n))
    print("golden-bash: %d golden files, %d facts compared with bash" % (passed + failed, total))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
