#!/usr/bin/env python3
"""Writes the request lines suite_batch feeds to `shcard explain --batch` / `parse --batch` and
to the reference path (tests/helpers/batch_ref), to compare their bytes: every corpus command in
several JSON spellings, the corpus lines themselves (extra keys), and hostile lines (invalid
JSON, NUL, surrogates, invalid UTF-8, control characters, huge lines, non-objects, duplicate
keys, numbers, nesting, odd whitespace, CRLF, no final newline).  Usage: batch_lines.py OUT"""
import glob
import json
import os
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
lines = []
cmds = []
for f in sorted(glob.glob(os.path.join(root, "corpus", "*.jsonl"))):
    for raw in open(f, "rb").read().splitlines():
        lines.append(raw)  # extra keys: the jansson path
        cmds.append(json.loads(raw)["cmd"])
cmds += ["cat café.txt", "rg 'naïve' docs", "sed -n 1,5p 'ünï cødé/😀.md'", "ls 日本語",
         "cat a\u2028b", "echo \x7f", "cat $'\\x00'", "cat $'\\xff\\xfe'", "grep -r \"\\\\\" .",
         "rg -n '\"' src", "cat 'tab\there'", "cat \"x\ny\"", "head -c 3 /dev/zero", ""]
for c in cmds:
    lines.append(json.dumps({"cmd": c}).encode())                        # \uXXXX escapes
    lines.append(json.dumps({"cmd": c}, ensure_ascii=False).encode())    # raw UTF-8
    lines.append(json.dumps({"cmd": c}, separators=(",", ":")).encode())
    lines.append(b' \t{ "cmd" :\t' + json.dumps(c).encode() + b' } \r')

hostile = [
    b"not json", b"{", b"}", b'{"cmd": "x"', b'{"cmd": "x"}}', b'{"cmd": "x"} trailing',
    b"{'cmd': 'x'}", b'{"cmd": "x",}', b'{"cmd" "x"}', b'{cmd: "x"}', b'{"cmd": "x"}{"cmd": "y"}',
    b'{"cmd": "cat \\u0000x"}', b'{"cmd": "\\u0000"}', b'{"cmd": "a\\u0000\\u0000b"}',
    b'{"cmd": "\\ud800"}', b'{"cmd": "\\udc00x"}', b'{"cmd": "\\ud800\\u0041"}',
    b'{"cmd": "\\ud800\\ud800"}', b'{"cmd": "\\udbff\\udfff"}', b'{"cmd": "echo \\ud83d\\ude00"}',
    b'{"cmd": "echo \\uD83D\\uDE00"}', b'{"cmd": "\\ud83d"}', b'{"cmd": "\\ud83d\\u"}',
    b'{"cmd": "\\ud83d\\uzzzz"}', b'{"cmd": "\\u12"}', b'{"cmd": "\\u12G4"}', b'{"cmd": "\\x41"}',
    b'{"cmd": "\\"}', b'{"cmd": "\\\\"}', b'{"cmd": "a\\/b\\b\\f\\n\\r\\t\\"\\\\"}',
    b'{"cmd": "cat \xff"}', b'{"cmd": "cat \xc0\xaf"}', b'{"cmd": "cat \xed\xa0\x80"}',
    b'{"cmd": "cat \xe2\x82"}', b'{"cmd": "cat \xf4\x90\x80\x80"}', b'{"cmd": "cat \xf0\x9f\x98\x80"}',
    b'{"cmd": "a\tb"}', b'{"cmd": "a\x01b"}', b'{"cmd": "a\x1fb"}', b'{"cmd": "echo \x7f"}',
    b'{"cmd": "a\x00b"}', b'\x00{"cmd": "ls"}', b'{"cmd": "ls"}\x00',
    b'"ls"', b'["ls"]', b"42", b"null", b"true", b"[]", b"{}",
    b'{"cmd": "ls", "x": 1}', b'{"x": 1, "cmd": "ls"}', b'{"cmd": "ls", "cmd": "rm -rf /"}',
    b'{"cmd": "rm -rf /", "cmd": "ls"}', b'{"cmd": 1}', b'{"cmd": 1e5}', b'{"cmd": -0}',
    b'{"cmd": null}', b'{"cmd": true}', b'{"cmd": {"cmd": "ls"}}', b'{"cmd": ["ls"]}',
    b'{"\\u0063md": "ls"}', b'{"cmd\\u0000": "ls"}', b'{"CMD": "ls"}', b'{"cmd ": "ls"}',
    b'\x0c{"cmd": "ls"}', b'\xef\xbb\xbf{"cmd": "ls"}', b'\xa0{"cmd": "ls"}', b"   ",
    b'{"cmd": "ls"}\r\r', b'\r{"cmd": "ls"}', b'{"cmd":"ls"}\t\n\n  ', b'{\n"cmd": "ls"}',
    b'{"cmd": "' + b"a" * 70000 + b'"}',                       # over the parser's input limit
    b'{"cmd": "cat ' + b"\\u00e9" * 30000 + b'"}',             # long, escaped, non-ASCII
    b'{"cmd": "' + "é".encode() * 300000 + b'"}',              # 600 KB of raw UTF-8
    b'{"cmd": "ls", "pad": "' + b"x" * 2000000 + b'"}',        # a 2 MB line
]
out = b"\n".join(lines + hostile + [b"", b"", b'{"cmd": "ls -la"}\r\n{"cmd": "rg x"}'])
# the last line has no newline
with open(sys.argv[1], "wb") as f:
    f.write(out)
