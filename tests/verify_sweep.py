#!/usr/bin/env python3
"""The corpus sweep of verified cards: every card-labelled corpus command (expect read, search or
list) runs under the watch (`shcard run --verify --as LABEL --json`) in a benign repository with a
clean HOME, and none may flip: a flip there is a false alarm.  Prints each one that flips, then
"N passed, N failed".

Usage: verify_sweep.py SHCARD [--sample N]   (N: every Nth command, for a quick run)
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
FILES = {
    "package.json": '{"name": "x"}\n', "README.md": "# readme\nTODO: x\n", "f": "f\n",
    "src/main.rs": "fn main() {}\n", "src/main.c": "int main(void) { return 0; }\n",
    "src/index.ts": "export const x = 1;\n", "src/app.py": "def main():\n    pass\n",
    "src/components/Button.tsx": "export {}\n", "Makefile": "all:\n\ttrue\n",
    "Cargo.toml": "[package]\nname = \"x\"\n", "tests/test_x.py": "def test(): pass\n",
    "docs/guide.md": "guide\n", "config.yaml": "a: 1\n", "go.mod": "module x\n",
}


def repo(base):
    r = os.path.join(base, "repo")
    for name, text in FILES.items():
        p = os.path.join(r, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
    run = lambda *a: subprocess.run(a, cwd=r, check=True, capture_output=True)
    run("git", "init", "-q", ".")
    run("git", "add", "-A")
    run("git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init")
    return r


def main(argv):
    shcard = argv[1]
    every = int(argv[argv.index("--sample") + 1]) if "--sample" in argv else 1
    cases = []
    for name in ("read", "search", "list", "breadth"):
        for line in open(os.path.join(ROOT, "corpus", name + ".jsonl")):
            c = json.loads(line)
            if c.get("expect") in ("read", "search", "list"):
                cases.append(c)
    cases = cases[::every]
    passed = failed = 0
    with tempfile.TemporaryDirectory() as t:
        r = repo(t)
        home = os.path.join(t, "home")
        os.makedirs(home)
        env = dict(os.environ, HOME=home, SHCARD_FINDINGS=os.path.join(t, "findings.jsonl"))
        for c in cases:
            p = subprocess.run([shcard, "run", "--verify", "--json", "--grace", "10", "--timeout", "20",
                                "--as", c["expect"], "--cwd", r, c["cmd"]], env=env,
                               capture_output=True, text=True)
            last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else "{}"
            try:
                d = json.loads(last)
            except ValueError:
                d = {}
            if d.get("event") == "verify" and d.get("watched") and d.get("held"):
                passed += 1
            else:
                failed += 1
                print("FLIP: %s [%s]: %s" % (c["cmd"], c["expect"], json.dumps(d.get("events", d))[:400]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
