#!/usr/bin/env python3
"""Checks that the code keeps the shape ARCHITECTURE.md describes.

The table of folders is read from ARCHITECTURE.md (the fenced block after the line
"<!-- layout-table -->"): each row is `folder  main-file  may-use...`.  Checked:

  1. every folder under src/ is in the table, and every table row is a folder;
  2. every `#include "dir/..."` in src/ (and gen/, which counts as shell/) names its own folder,
     a folder it may use, or the public header shcard.h;
  3. the symbol references between the library's object files (nm of the archive) run the same
     way, and form no cycle between files (no two files that use each other's symbols,
     directly or around a circle);
  4. no source file under src/, include/ or grammar/ is over 600 lines (gen/ is generated);
  5. each folder's main file opens with a comment that names the folder and says what it may use.

Usage: check_layout.py LIBRARY.a  -- prints one line per problem and "N passed, N failed".
"""
import collections
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MAX_LINES = 600

passed = 0
failed = 0


def ok():
    global passed
    passed += 1


def fail(msg):
    global failed
    failed += 1
    print("FAIL:", msg)


def read_table():
    text = open(os.path.join(ROOT, "ARCHITECTURE.md")).read()
    m = re.search(r"<!-- layout-table -->\s*```[a-z]*\n(.*?)```", text, re.S)
    if not m:
        sys.exit("check_layout: no layout table in ARCHITECTURE.md")
    table = {}
    for line in m.group(1).splitlines():
        parts = line.split()
        if not parts or parts[0] == "folder":
            continue
        folder, main, uses = parts[0], parts[1], [u for u in parts[2:] if u != "-"]
        table[folder] = (main, set(uses))
    return table


def folder_of(path):
    rel = os.path.relpath(path, ROOT)
    if rel.startswith("gen" + os.sep):
        return "shell"
    parts = rel.split(os.sep)
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    return None


def allowed(table, src, dst):
    return dst is None or src == dst or dst in table[src][1]


def check_folders(table):
    dirs = {d for d in os.listdir(os.path.join(ROOT, "src"))
            if os.path.isdir(os.path.join(ROOT, "src", d))}
    for d in sorted(dirs - set(table)):
        fail("src/%s/ is not in ARCHITECTURE.md's layout table" % d)
    for d in sorted(set(table) - dirs):
        fail("ARCHITECTURE.md lists %s/, which is not a folder under src/" % d)
    for d in sorted(dirs & set(table)):
        for u in table[d][1]:
            if u not in table:
                fail("%s/ may use %s/, which is not in the table" % (d, u))
    if dirs == set(table):
        ok()


def source_files():
    out = []
    for pat in ("src/*/*.[ch]", "src/*/*.def", "src/*/*/*.def", "gen/*.[ch]"):
        out += glob.glob(os.path.join(ROOT, pat))
    return sorted(out)


def check_includes(table):
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    bad = 0
    for f in source_files():
        src = folder_of(f)
        if src not in table:
            continue
        for n, line in enumerate(open(f, errors="replace"), 1):
            m = inc.match(line)
            if not m:
                continue
            target = m.group(1)
            if target == "shcard.h":
                continue
            if "/" in target:
                dst = target.split("/")[0]
                if dst == "tools":  # classify/tools.def includes tools/NAME.def beside it
                    dst = src
            elif target == "shc_parser.h":
                dst = "shell"
            else:
                dst = src  # a file next to it (gen/ includes its own header)
            if dst not in table:
                fail("%s:%d includes \"%s\": unknown folder" % (os.path.relpath(f, ROOT), n, target))
                bad += 1
            elif not allowed(table, src, dst):
                fail("%s:%d includes \"%s\": %s/ may not use %s/ (ARCHITECTURE.md)"
                     % (os.path.relpath(f, ROOT), n, target, src, dst))
                bad += 1
    if not bad:
        ok()


def check_symbols(table, lib):
    out = subprocess.run(["nm", "-A", lib], capture_output=True, text=True, check=True).stdout
    defs, uses = {}, collections.defaultdict(set)
    row = re.compile(r"^.*?:([^:/]+\.o):\s*(.*)$")  # archive:member.o:[address] TYPE symbol
    for line in out.splitlines():
        m = row.match(line)
        if not m:
            continue
        member, parts = m.group(1), m.group(2).split()
        if len(parts) == 3 and parts[1] in "TDBRVW":
            defs[parts[2]] = member
        elif len(parts) == 2 and parts[0] == "U":
            uses[member].add(parts[1])
    # member names are basenames: map them back to source files to know their folder
    by_base = collections.defaultdict(list)
    for f in glob.glob(os.path.join(ROOT, "src/*/*.c")) + glob.glob(os.path.join(ROOT, "gen/*.c")):
        by_base[os.path.splitext(os.path.basename(f))[0] + ".o"].append(f)
    dup = [b for b, fs in by_base.items() if len(fs) > 1]
    for b in dup:
        fail("two sources compile to %s (%s): object names must be unique"
             % (b, ", ".join(os.path.relpath(f, ROOT) for f in by_base[b])))
    graph = collections.defaultdict(set)
    bad = 0
    for m, syms in uses.items():
        for s in syms:
            d = defs.get(s)
            if d and d != m:
                graph[m].add(d)
    for m, ds in graph.items():
        sf = by_base.get(m, [None])[0]
        for d in ds:
            df = by_base.get(d, [None])[0]
            if not sf or not df:
                continue
            a, b = folder_of(sf), folder_of(df)
            if a in table and not allowed(table, a, b):
                fail("%s uses symbols of %s: %s/ may not use %s/"
                     % (os.path.relpath(sf, ROOT), os.path.relpath(df, ROOT), a, b))
                bad += 1
    # cycles between files (Tarjan's strongly connected components)
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(100000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    for v in sorted(set(graph) | set(uses)):
        if v not in index:
            visit(v)
    for comp in sccs:
        fail("files use each other's symbols in a circle: %s" % " <-> ".join(comp))
        bad += 1
    if not bad and not dup:
        ok()


def check_lines():
    bad = 0
    files = []
    for pat in ("src/**/*", "include/**/*", "grammar/*"):
        files += [f for f in glob.glob(os.path.join(ROOT, pat), recursive=True) if os.path.isfile(f)]
    for f in sorted(files):
        if not re.search(r"\.(c|h|def|re|y)$", f):
            continue
        n = sum(1 for _ in open(f, errors="replace"))
        if n > MAX_LINES:
            fail("%s has %d lines (at most %d: split it by responsibility)"
                 % (os.path.relpath(f, ROOT), n, MAX_LINES))
            bad += 1
    if not bad:
        ok()


def check_headers(table):
    for folder, (main, _) in sorted(table.items()):
        path = os.path.join(ROOT, "src", folder, main)
        if not os.path.isfile(path):
            fail("ARCHITECTURE.md names %s as the main file of %s/, and it does not exist"
                 % (main, folder))
            continue
        text = open(path).read()
        m = re.match(r"\s*/\*(.*?)\*/", text, re.S)
        head = m.group(1) if m else ""
        if ("src/%s/" % folder) in head and "May use" in head:
            ok()
        else:
            fail("src/%s/%s must open with a comment naming src/%s/, what it owns and what it "
                 "may use (\"May use: ...\")" % (folder, main, folder))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    table = read_table()
    check_folders(table)
    check_includes(table)
    check_symbols(table, sys.argv[1])
    check_lines()
    check_headers(table)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
