"""The Python binding against the CLI: `python3 -m unittest` (tests/suite_python.sh sets
SHCARD_LIBRARY and SHCARD).  Every corpus command gets the bytes `shcard explain --batch`
prints, with and without unwrapping."""
import glob
import json
import os
import subprocess
import sys
import tempfile
import threading
import unittest

import shcard

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
SHCARD = os.environ.get("SHCARD", os.path.join(ROOT, "shcard"))
CORPUS = sorted(glob.glob(os.path.join(os.environ.get("SHCARD_ROOT", ROOT), "corpus", "*.jsonl")))


def corpus_commands():
    cmds = []
    for path in CORPUS:
        with open(path, encoding="utf-8") as f:
            cmds += [json.loads(line)["cmd"] for line in f if line.strip()]
    return cmds


def cli_batch(cmds, *flags):
    req = "".join(json.dumps({"cmd": c}) + "\n" for c in cmds)
    out = subprocess.run([SHCARD, "explain", "--batch", *flags], input=req.encode(),
                         stdout=subprocess.PIPE, check=True).stdout.decode("ascii")
    return out.splitlines()


class CorpusTest(unittest.TestCase):
    # every corpus command a shell could be given (the CLI's answer for the few with a NUL byte
    # is terminal; the binding refuses them: NulInputTest)
    @classmethod
    def setUpClass(cls):
        cls.cmds = [c for c in corpus_commands() if "\0" not in c]

    def test_corpus_is_there(self):
        self.assertGreaterEqual(len(self.cmds), 600)

    def test_corpus_nul_commands_refused(self):
        nul = [c for c in corpus_commands() if "\0" in c]
        self.assertTrue(nul)
        for c in nul:
            with self.assertRaisesRegex(ValueError, "NUL byte"):
                shcard.classify(c)

    def test_corpus_equals_cli(self):
        want = cli_batch(self.cmds)
        self.assertEqual(len(want), len(self.cmds))
        for cmd, line in zip(self.cmds, want):
            self.assertEqual(shcard.classify_json(cmd), line, cmd)
            self.assertEqual(shcard.classify(cmd), json.loads(line), cmd)

    def test_corpus_no_unwrap_equals_cli(self):
        want = cli_batch(self.cmds, "--no-unwrap")
        for cmd, line in zip(self.cmds, want):
            self.assertEqual(shcard.classify_json(cmd, unwrap=False), line, cmd)

    def test_corpus_context_bridge_equals_cli(self):
        want = cli_batch(self.cmds, "--context", "bridge")
        for cmd, line in zip(self.cmds, want):
            self.assertEqual(shcard.classify_json(cmd, context="bridge"), line, cmd)


class FieldsTest(unittest.TestCase):
    def test_search(self):
        v = shcard.classify("rg -n foo src")
        self.assertEqual(v["kind"], "search")
        self.assertEqual(v["title"], "Search for 'foo' in src")
        self.assertEqual((v["path"], v["query"], v["line"]), ("src", "foo", None))
        self.assertEqual(v["locations"], [{"path": "src", "line": None}])
        self.assertEqual(v["argv"], ["rg", "-n", "foo", "src"])
        self.assertFalse(v["wrapped"])

    def test_field_names_and_order(self):
        self.assertEqual(list(shcard.classify("ls")), [
            "cmd", "kind", "title", "path", "query", "line", "locations", "reason", "span",
            "script", "wrapped", "argv"])

    def test_read_with_lines_wrapped(self):
        v = shcard.classify("bash -lc \"sed -n '10,40p' src/main.c\"")
        self.assertEqual((v["kind"], v["path"], v["line"], v["wrapped"]), ("read", "src/main.c", 10, True))
        self.assertEqual(shcard.classify("bash -lc ls", unwrap=False)["kind"], "terminal")

    def test_fails_closed(self):
        for cmd in ["rm -rf /", "sed -i s/a/b/ f", "cat $(ls)", "cat <<EOF", "ls > out", "unterminated '"]:
            v = shcard.classify(cmd)
            self.assertEqual(v["kind"], "terminal", cmd)
            self.assertTrue(v["reason"])

    def test_non_ascii_and_bytes(self):
        cmds = ["cat 'café.txt'", "rg '😀' src"]
        want = cli_batch(cmds)
        for cmd, line in zip(cmds, want):
            self.assertEqual(shcard.classify_json(cmd), line)
            self.assertEqual(shcard.classify_json(cmd.encode()), line)
            self.assertEqual(shcard.classify_json(bytearray(cmd.encode())), line)
            self.assertEqual(shcard.classify_json(memoryview(cmd.encode())), line)

    def test_bad_input(self):
        # TypeError: not a command at all
        for bad in (None, 42, 1.5, ["ls"], object()):
            with self.assertRaisesRegex(TypeError, "command must be str or bytes"):
                shcard.classify(bad)
        with self.assertRaisesRegex(TypeError, "cwd must be a path"):
            shcard.classify("ls", cwd=42)
        # ValueError: no shell could be given it
        with self.assertRaisesRegex(ValueError, r"not UTF-8 \(byte 0xff at offset 4\)"):
            shcard.classify(b"cat \xff")
        with self.assertRaisesRegex(ValueError, "lone surrogate at index 4"):
            shcard.classify("cat \udcff")
        for nul in ("cat a\0b", b"\0", "ls\0"):
            with self.assertRaisesRegex(ValueError, "NUL byte"):
                shcard.classify_json(nul)
        big = "cat " + "a" * (shcard.MAX_COMMAND_BYTES - 4)
        self.assertEqual(shcard.classify(big)["kind"], "terminal")  # at the limit: an answer
        with self.assertRaisesRegex(ValueError, "more than 131072"):
            shcard.classify(big + "a")
        with self.assertRaisesRegex(ValueError, "more than 131072"):
            shcard.classify("é" * 70000)  # counted in bytes
        with self.assertRaises(ValueError):
            shcard.classify("ls", context="tty")

    def test_context(self):
        self.assertEqual(shcard.classify("rg foo", context="bridge")["kind"], "search")
        self.assertEqual(shcard.classify("rg foo")["kind"], "terminal")  # stdin may be open
        with self.assertRaises(ValueError):
            shcard.classify("ls", context="tty")

    def test_type_errors(self):
        with self.assertRaises(TypeError):
            shcard.classify(42)
        with self.assertRaises(NotADirectoryError):
            shcard.classify("cat x", cwd="/nonexistent/dir")

    def test_cwd_stats_what_it_reads(self):
        with tempfile.TemporaryDirectory() as d:
            os.mkfifo(os.path.join(d, "pipe"))
            with open(os.path.join(d, "file"), "w") as f:
                f.write("x\n")
            self.assertEqual(shcard.classify("cat pipe", cwd=d)["kind"], "terminal")
            self.assertEqual(shcard.classify("cat file", cwd=d)["kind"], "read")
            self.assertEqual(shcard.classify("cat pipe")["kind"], "read")  # no cwd: no stat
            out = subprocess.run([SHCARD, "explain", "--json", "--cwd", d, "cat pipe", "cat file"],
                                 stdout=subprocess.PIPE, check=True).stdout.decode().splitlines()
            self.assertEqual([shcard.classify_json("cat pipe", cwd=d),
                              shcard.classify_json("cat file", cwd=d)], out)

    def test_threads(self):
        cmds = [c for c in corpus_commands() if "\0" not in c][:200]
        want = [shcard.classify_json(c) for c in cmds]
        bad = []

        def work():
            for c, w in zip(cmds, want):
                if shcard.classify_json(c) != w:
                    bad.append(c)
        ts = [threading.Thread(target=work) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual(bad, [])

    def test_version(self):
        cli = subprocess.run([SHCARD, "--version"], stdout=subprocess.PIPE, check=True).stdout.decode()
        self.assertEqual("shcard " + shcard.version() + "\n", cli)
        self.assertEqual(shcard.__version__, shcard.version())
        self.assertTrue(os.path.exists(shcard.library_path) or shcard.library_path == "libshcard.so.0")


class MainTest(unittest.TestCase):
    """python3 -m shcard explain: the CLI's answers, from the package's own classifier."""

    def run_main(self, *args):
        env = dict(os.environ)
        return subprocess.run([sys.executable, "-m", "shcard", *args], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env)

    def test_corpus_sample_equals_cli(self):
        cmds = [c for c in corpus_commands() if "\0" not in c][::7]
        for flags in ([], ["--json"], ["--json", "--context", "bridge"], ["--no-unwrap"]):
            want = subprocess.run([SHCARD, "explain", *flags, "--", *cmds], stdout=subprocess.PIPE,
                                  check=True).stdout
            got = self.run_main("explain", *flags, "--", *cmds)
            self.assertEqual(got.returncode, 0, got.stderr)
            self.assertEqual(got.stdout, want, flags)

    def test_cwd_and_errors(self):
        with tempfile.TemporaryDirectory() as d:
            os.mkfifo(os.path.join(d, "pipe"))
            got = self.run_main("explain", "--cwd", d, "cat pipe")
            self.assertTrue(got.stdout.startswith(b"terminal: "), got.stdout)
        got = self.run_main("explain", "ls", "--context", "tty")
        self.assertEqual(got.returncode, 2)
        got = self.run_main("explain", "--cwd", "/nonexistent/dir", "ls")
        self.assertEqual(got.returncode, 2)
        self.assertIn(b"not a directory", got.stderr)
        got = subprocess.run([sys.executable, "-m", "shcard", "explain", b"cat \xff"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(got.returncode, 2)
        self.assertIn(b"not UTF-8", got.stderr)
        got = self.run_main("--version")
        self.assertEqual(got.stdout.decode(), "shcard %s\n" % shcard.__version__)


if __name__ == "__main__":
    unittest.main()
