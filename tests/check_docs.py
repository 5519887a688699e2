#!/usr/bin/env python3
"""Checks the user documentation: README.md and docs/*.md (and ARCHITECTURE.md and the
bindings' READMEs for 1 and 2).

  1. every relative link points at a file or directory that exists, and a `#fragment` names a
     heading of the target (GitHub's anchors: the heading's text lower-cased, punctuation but
     `-` and `_` dropped, spaces as `-`, repeats numbered `-1`, `-2`, ...); headings and links
     inside fenced code blocks and inline code do not count;
  2. no internal reference a reader outside the project cannot follow: issue numbers
     (`issue 16`, `#16`), working paths (`/work/...`), branch and round names, finding ids
     (`F2`), commit hashes in prose, "this session";
  3. the README is a front door: it starts with `make run` and `make test` and stays short;
  4. Zed's setup is shown as current Zed reads it, in the docs and the man pages: every
     `agent_servers` snippet is JSON whose entries say `"type": "custom"` (or `"registry"`),
     a custom one runs `acp`, the log view is always `dev: open acp logs`, and (with --shcard)
     every `default_config_options` key is a config option the agent really advertises, with a
     value it offers (a real `shcard acp` is asked, with a model so that `model` is there too).

Usage: check_docs.py [--root DIR] [--shcard PATH]  -- one line per problem, "N passed, N failed".
"""
import argparse
import glob
import os
import re
import subprocess
import sys

README_MAX_LINES = 300

passed = 0
failed = 0


def ok():
    global passed
    passed += 1


def fail(msg):
    global failed
    failed += 1
    print("FAIL:", msg)


FENCE = re.compile(r"^\s{0,3}(```+|~~~+)")


def split_code(text):
    """Lines of the file with fenced code blocks blanked (line numbers kept)."""
    out, fence = [], None
    for line in text.split("\n"):
        m = FENCE.match(line)
        if fence:
            out.append("")
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            out.append("")
            continue
        out.append(line)
    return out


def strip_inline_code(line):
    # `code`, ``code with ` inside``: removed, so links and anchors in code do not count
    return re.sub(r"(`+)(?:(?!\1).)+?\1", "", line)


def github_anchor(heading):
    text = heading.strip()
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link: its text
    text = text.replace("`", "")
    text = re.sub(r"<[^>]+>", "", text)
    text = text.lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def anchors_of(path, cache={}):
    if path not in cache:
        seen, out = {}, set()
        for line in split_code(open(path, encoding="utf-8").read()):
            m = re.match(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            a = github_anchor(m.group(2))
            n = seen.get(a, 0)
            seen[a] = n + 1
            out.add(a if n == 0 else f"{a}-{n}")
        for line in open(path, encoding="utf-8"):
            for m in re.finditer(r"<a\s+(?:name|id)=\"([^\"]+)\"", line):
                out.add(m.group(1))
        cache[path] = out
    return cache[path]


LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def check_links(root, path):
    rel = os.path.relpath(path, root)
    bad = 0
    for no, line in enumerate(split_code(open(path, encoding="utf-8").read()), 1):
        for m in LINK.finditer(strip_inline_code(line)):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:
                continue
            file_part, _, frag = target.partition("#")
            dest = path if not file_part else os.path.normpath(
                os.path.join(os.path.dirname(path), file_part))
            if not os.path.exists(dest):
                fail(f"{rel}:{no}: link to a missing file: {target}")
                bad += 1
                continue
            if frag:
                if not dest.endswith(".md") or os.path.isdir(dest):
                    fail(f"{rel}:{no}: an anchor into a file that has no headings: {target}")
                    bad += 1
                elif frag not in anchors_of(dest):
                    fail(f"{rel}:{no}: no heading for the anchor #{frag} in "
                         f"{os.path.relpath(dest, root)}")
                    bad += 1
    if bad == 0:
        ok()


# Internal references: what only someone inside the project's working sessions could follow.
INTERNAL = [
    (re.compile(r"\bissues?\s*#?\s*\d+\b", re.I), "an issue number"),
    (re.compile(r"(?<![\w&$/#`'\"=-])#\d+\b"), "an issue or pull-request number"),
    (re.compile(r"/work/"), "a working path"),
    (re.compile(r"\b(?:on|this|the|that)\s+branch\b|\bbranch\s+[`'\"][\w./-]+[`'\"]", re.I),
     "a branch"),
    (re.compile(r"\bfindings?\s+[A-Z]?\d+\b", re.I), "a finding id"),
    (re.compile(r"(?<![\w-])F\d{1,2}\b"), "a finding id"),
    (re.compile(r"\b(?:this|that|last|the\s+previous)\s+wave\b", re.I), "a working session"),
    (re.compile(r"\b(?:main|master)\s+at\s+[0-9a-f]{7,40}\b"), "a commit"),
    (re.compile(r"\bred[- ]team\s+round\b|\bround\s+\d+\b", re.I), "a red-team round"),
    (re.compile(r"\b(?:rtbreadth|redteam/)", re.I), "a red-team working name"),
    (re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,12}\b"), "a commit hash"),
]


def branch_names(root):
    """Local branch names that cannot be ordinary words (a digit, '/', '-' or '_' in them)."""
    try:
        out = subprocess.run(["git", "-C", root, "for-each-ref", "--format=%(refname:short)",
                              "refs/heads"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [b for b in out.split() if re.search(r"[0-9/_-]", b) and len(b) >= 4]


def check_internal(root, path, branches):
    rel = os.path.relpath(path, root)
    bad = 0
    pats = list(INTERNAL)
    for b in branches:
        pats.append((re.compile(r"(?<![\w/.-])" + re.escape(b) + r"(?![\w/-])"),
                     f"the branch name {b}"))
    for no, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        # a link's target is checked by check_links; its words here are still read
        text = re.sub(r"\]\((?:https?:)?[^)]*\)", "]()", line)
        for rx, what in pats:
            # an issue of another project, cited with its address, is a reference a reader can
            # follow: `zed-industries/zed#61531 (https://...)`
            if "issue" in what and "://" in line:
                continue
            m = rx.search(text)
            if m:
                fail(f"{rel}:{no}: {what} ({m.group(0)!r}): {line.strip()[:100]}")
                bad += 1
    if bad == 0:
        ok()


def check_front_door(root):
    path = os.path.join(root, "README.md")
    lines = open(path, encoding="utf-8").read().split("\n")
    if len(lines) <= README_MAX_LINES:
        ok()
    else:
        fail(f"README.md has {len(lines)} lines; the front door stays under {README_MAX_LINES} "
             "(move the depth into docs/)")
    # the first fenced block, within the first 15 lines, holds `make run` and `make test`
    head = "\n".join(lines[:15])
    m = re.search(r"```[a-z]*\n(.*?)```", head, re.S)
    block = m.group(1) if m else ""
    for cmd in ("make run", "make test"):
        if re.search(r"^\s*" + cmd + r"\b", block, re.M):
            ok()
        else:
            fail(f"README.md does not start with `{cmd}` in its first code block")


def code_blocks(path):
    """(line number, text) of each fenced code block."""
    out, fence, start, buf = [], None, 0, []
    for no, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                out.append((start, "\n".join(buf)))
                fence = None
            else:
                buf.append(line)
        elif m:
            fence, start, buf = m.group(1), no, []
    return out


def advertised_options(shcard):
    """{config option id: set of values} from a real `shcard acp` (model mode, no network)."""
    import json
    reqs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": 1, "clientCapabilities": {}}},
            {"jsonrpc": "2.0", "id": 2, "method": "session/new",
             "params": {"cwd": "/", "mcpServers": []}}]
    # model mode without a key: a base URL nothing listens on (the model list is then the
    # configured model alone), and sessions kept in memory
    p = subprocess.run([shcard, "acp", "--no-store", "--base-url", "http://127.0.0.1:9/v1",
                        "--model", "deepseek-chat"],
                       input="".join(json.dumps(r) + "\n" for r in reqs), capture_output=True,
                       text=True, timeout=60)
    for line in p.stdout.splitlines():
        msg = json.loads(line)
        if msg.get("id") == 2 and "result" in msg:
            return {o["id"]: {v["value"] for v in o.get("options", [])}
                    for o in msg["result"].get("configOptions", [])}
    fail("shcard acp answered session/new without configOptions: " + p.stdout[-300:])
    return None


def check_zed(root, paths, shcard):
    import json
    opts = advertised_options(shcard) if shcard else None
    for path in paths:
        rel = os.path.relpath(path, root)
        text = open(path, encoding="utf-8").read()
        for no, line in enumerate(text.split("\n"), 1):
            for m in re.finditer(r"([\w.:-]*:?\s*)open acp logs", line, re.I):
                if re.search(r"\bdev:\s*open acp logs", line[m.start():m.end() + 1]):
                    ok()
                else:
                    fail(f"{rel}:{no}: the log view is `dev: open acp logs`: {line.strip()[:100]}")
        for no, block in code_blocks(path):
            if '"agent_servers"' not in block:
                continue
            try:
                data = json.loads(block)
            except ValueError as e:
                fail(f"{rel}:{no}: an agent_servers snippet that is not JSON ({e})")
                continue
            for name, entry in data.get("agent_servers", {}).items():
                kind = entry.get("type")
                if kind not in ("custom", "registry"):
                    fail(f"{rel}:{no}: agent_servers.{name} has no \"type\": \"custom\" "
                         "(current Zed needs it for agents defined in settings)")
                    continue
                if kind == "custom" and (not entry.get("command")
                                         or "acp" not in entry.get("args", [])):
                    fail(f"{rel}:{no}: agent_servers.{name}: a custom entry needs command and "
                         "args with acp")
                    continue
                dco = entry.get("default_config_options", {})
                if opts is not None:
                    for k, v in dco.items():
                        if k not in opts:
                            fail(f"{rel}:{no}: default_config_options.{k}: shcard advertises no "
                                 f"config option {k!r} (it has {sorted(opts)})")
                        elif k == "mode" and v not in opts[k]:
                            fail(f"{rel}:{no}: default_config_options.mode={v!r}: not one of "
                                 f"{sorted(opts[k])}")
                ok()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.normpath(
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")))
    ap.add_argument("--shcard", help="ask this binary which config options it advertises")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    user_docs = [os.path.join(root, "README.md")] + sorted(
        glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True))
    user_docs = [p for p in user_docs if os.path.exists(p)]
    if not user_docs:
        fail("no README.md and no docs/*.md under " + root)
    branches = branch_names(root)
    for p in user_docs:
        check_links(root, p)
        check_internal(root, p, branches)
    # the contributor's map and the packages' own READMEs (shipped in the npm tarball and the
    # Python package) are read outside the project too
    for p in [os.path.join(root, "ARCHITECTURE.md")] + sorted(
            glob.glob(os.path.join(root, "bindings", "*", "README.md"))):
        if os.path.exists(p):
            check_links(root, p)
            check_internal(root, p, branches)
    if os.path.exists(os.path.join(root, "README.md")):
        check_front_door(root)
    check_zed(root, user_docs + sorted(glob.glob(os.path.join(root, "man", "*.scd"))),
              args.shcard)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
