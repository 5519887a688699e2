#!/usr/bin/env python3
"""The ACP Registry's CI, replayed on a local entry and the archives `make dist` built.

    registry_check.py --schema SCHEMA --archives DIR [--static] [--runner PLATFORM=CMD...] ENTRY_DIR

ENTRY_DIR is an agent's directory (agent.json, icon.svg), named after its id.  Checked, as the
registry checks an entry (tests/registry/README.md says where these rules come from):
  - agent.json against the registry's agent.schema.json, then the id, version and platforms;
  - every archive URL names the entry's version (/download/vX.Y.Z/) and none says latest;
    the archive's file name must exist in DIR (our stand-in for "the URL answers 200"), and
    its sha256, when the entry gives one, must match;
  - icon.svg: XML with an <svg> root, 16x16, no comments, colours only currentColor, none or
    inherit (attributes, style properties, <style> rules), and at least one currentColor;
and, unless --static, for every linux platform this machine can run (natively, or through a
runner such as linux-aarch64="qemu-aarch64-static -L /usr/aarch64-linux-gnu"):
  - the archive unpacked (tar, data filter) in a fresh directory, its cmd present;
  - launch: cmd + args with stdin /dev/null for 10 s: still running, or exit 0, passes;
  - auth: a temporary HOME, TERM=dumb, only the validator's pass-through variables, the
    validator's exact initialize; the answer must carry authMethods with an "agent" or
    "terminal" method (type, else _meta terminal-auth / agent-auth, else agent), and every line
    on stdout must be JSON.
Prints "ok: ..." / "FAIL: ..." per check; exits 1 when any failed.
"""
import argparse
import hashlib
import json
import os
import re
import select
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ET

PLATFORMS = ("darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64",
             "windows-aarch64", "windows-x86_64")
INSTALLERS = (".dmg", ".pkg", ".deb", ".rpm", ".msi", ".appimage")
COLOURS_OK = ("currentcolor", "none", "inherit")
# the variables the registry's auth check passes on from its own environment
PASS_ENV = ("CI", "COMSPEC", "NPM_CONFIG_CACHE", "NODE_EXTRA_CA_CERTS", "PATH", "PATHEXT",
            "PYTHON_KEYRING_BACKEND", "PYTHON_KEYRING_DISABLED", "REQUESTS_CA_BUNDLE",
            "SSL_CERT_DIR", "SSL_CERT_FILE", "SystemRoot", "TMP", "TMPDIR", "TEMP",
            "UV_CACHE_DIR", "WINDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME")
VALIDATOR_INIT = {
    "protocolVersion": 1,
    "clientInfo": {"name": "ACP Registry Validator", "version": "1.0.0"},
    "clientCapabilities": {
        "terminal": True,
        "fs": {"readTextFile": True, "writeTextFile": True},
        "_meta": {"terminal_output": True, "terminal-auth": True},
    },
}
LAUNCH_SECONDS = 10
AUTH_SECONDS = 60

failures = 0
made = []  # temporary directories, removed at the end


def tempdir(prefix):
    d = tempfile.mkdtemp(prefix=prefix)
    made.append(d)
    return d


def check(ok, name, why=""):
    global failures
    if ok:
        print("ok: " + name)
    else:
        failures += 1
        print("FAIL: %s%s" % (name, ": " + why if why else ""))
    return ok


def native_platform():
    m = os.uname().machine
    return "linux-" + {"arm64": "aarch64"}.get(m, m)


# ---------------------------------------------------------------- the entry

def check_schema(entry, schema_path):
    import jsonschema
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    v = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    errs = sorted(v.iter_errors(entry), key=lambda e: list(e.absolute_path))
    return check(not errs, "agent.json matches agent.schema.json",
                 "; ".join("%s: %s" % ("/".join(map(str, e.absolute_path)) or "(root)", e.message)
                           for e in errs))


def is_url(s):
    return isinstance(s, str) and re.fullmatch(r"https://[A-Za-z0-9.-]+(:[0-9]+)?/\S*", s) is not None


def check_fields(entry, dirname):
    eid = entry.get("id", "")
    check(re.fullmatch(r"[a-z][a-z0-9-]*", eid or "") is not None and eid == dirname,
          "id is lowercase and names the directory", "id %r in %r" % (eid, dirname))
    ver = entry.get("version", "")
    parts = ver.split(".")
    check(len(parts) >= 3 and all(p.isdigit() for p in parts[:3]), "version is semantic", ver)
    for key in ("repository", "website", "license_url"):
        if key in entry:
            check(is_url(entry[key]), key + " is an https URL", repr(entry[key]))
    binary = entry.get("distribution", {}).get("binary", {})
    check(bool(binary), "a binary distribution")
    check(set(binary) <= set(PLATFORMS), "known platforms only", str(sorted(set(binary) - set(PLATFORMS))))
    for plat, t in sorted(binary.items()):
        url = t.get("archive", "")
        check(is_url(url), plat + ": archive is an https URL", repr(url))
        check(not url.lower().endswith(INSTALLERS), plat + ": archive is not an installer", url)
        check(bool(t.get("cmd")), plat + ": cmd is given")


def check_versions(entry):
    ver = entry.get("version", "")
    for plat, t in sorted(entry.get("distribution", {}).get("binary", {}).items()):
        url = t.get("archive", "")
        check("/latest/" not in url and "latest" not in url.rsplit("/", 1)[-1].lower(),
              plat + ": no 'latest' in the archive URL", url)
        m = re.search(r"/(?:download|releases)/v?([0-9.]+)/", url)
        check(m is not None and m.group(1).strip(".") == ver,
              plat + ": the URL's release version is the entry's", "%s in %s" % (ver, url))
        check(("-%s-" % ver) in url.rsplit("/", 1)[-1], plat + ": the archive's name carries the version", url)


def check_archives(entry, archives):
    found = {}
    for plat, t in sorted(entry.get("distribution", {}).get("binary", {}).items()):
        name = t.get("archive", "").rsplit("/", 1)[-1]
        path = os.path.join(archives, name)
        if not check(os.path.isfile(path), plat + ": archive %s was built" % name, path):
            continue
        if "sha256" in t:
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            check(digest == t["sha256"].lower(), plat + ": sha256 matches the archive",
                  "%s != %s" % (digest, t["sha256"]))
        found[plat] = path
    return found


def check_icon(path):
    if not check(os.path.isfile(path), "icon.svg exists", path):
        return
    with open(path, encoding="utf-8") as f:
        text = f.read()
    check("<!--" not in text, "icon.svg has no comments")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        check(False, "icon.svg is XML", str(e))
        return
    check(root.tag.rsplit("}", 1)[-1] == "svg", "icon.svg's root is <svg>", root.tag)

    def num(s):
        try:
            return float(re.sub(r"(px)?\s*$", "", s.strip()))
        except (AttributeError, ValueError):
            return None
    w, h = num(root.get("width")), num(root.get("height"))
    if w is None or h is None:
        vb = (root.get("viewBox") or "").split()
        w, h = (num(vb[2]), num(vb[3])) if len(vb) == 4 else (None, None)
    check(w == 16 and h == 16, "icon.svg is 16x16", "%sx%s" % (w, h))

    bad, current = [], 0

    def colour(where, value):
        nonlocal current
        v = value.strip().lower()
        if v == "currentcolor":
            current += 1
        elif v not in COLOURS_OK:
            bad.append("%s=%s" % (where, value.strip()))
    for el in root.iter():
        for attr in ("fill", "stroke"):
            if el.get(attr) is not None:
                colour(attr, el.get(attr))
        for decl in (el.get("style") or "").split(";"):
            prop, _, value = decl.partition(":")
            if prop.strip().lower() in ("fill", "stroke"):
                colour("style " + prop.strip(), value)
        if el.tag.rsplit("}", 1)[-1] == "style" and el.text:
            for prop, value in re.findall(r"\b(fill|stroke)\s*:\s*([^;}\s]+)", el.text, re.I):
                colour("css " + prop, value)
    check(not bad, "icon.svg colours are currentColor, none or inherit", ", ".join(bad))
    check(current > 0, "icon.svg uses currentColor")


# ---------------------------------------------------------------- running the archive

def unpack(archive, where):
    """Extract as the registry does (tarfile's "data" filter), checked here by hand too since
    older Pythons lack the filter: only files and directories, each inside the target."""
    with tarfile.open(archive, "r:gz") as tf:
        for m in tf.getmembers():
            target = os.path.realpath(os.path.join(where, m.name))
            inside = target == os.path.realpath(where) or target.startswith(os.path.realpath(where) + os.sep)
            if not (m.isfile() or m.isdir()) or not inside or os.path.isabs(m.name):
                raise SystemExit("FAIL: %s: member %r is not a plain file or directory inside it"
                                 % (os.path.basename(archive), m.name))
        if hasattr(tarfile, "data_filter"):
            tf.extractall(where, filter="data")
        else:
            tf.extractall(where)


def launch_check(plat, argv, cwd, env):
    p = subprocess.Popen(argv, cwd=cwd, env=dict(os.environ, **env), stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(timeout=LAUNCH_SECONDS)
        check(p.returncode == 0, plat + ": launch with stdin /dev/null exits 0 or keeps running",
              "exit %d: %s" % (p.returncode, err.decode(errors="replace")[-300:]))
    except subprocess.TimeoutExpired:
        p.terminate()
        try:
            p.wait(timeout=2)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        check(True, plat + ": launch with stdin /dev/null keeps running for %d s" % LAUNCH_SECONDS)


def method_type(m):
    t = m.get("type")
    if t:
        return t
    meta = m.get("_meta")
    if isinstance(meta, dict):
        if "terminal-auth" in meta:
            return "terminal"
        if "agent-auth" in meta:
            return "agent"
    return "agent"


def auth_check(plat, argv, cwd, entry_env):
    home = tempdir("registry-auth-home-")
    env = {k: os.environ[k] for k in PASS_ENV if os.environ.get(k)}
    env["TERM"] = "dumb"
    env.update(entry_env)
    env["HOME"] = home
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    lines, buf = [], b""
    try:
        req = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": VALIDATOR_INIT}
        p.stdin.write((json.dumps(req) + "\n").encode())
        p.stdin.flush()
        end = time.monotonic() + AUTH_SECONDS
        answer = None
        # read until the answer, then one more second for anything else the agent prints
        while time.monotonic() < end:
            if not select.select([p.stdout], [], [], 0.2)[0]:
                if answer is not None:
                    break
                continue
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                lines.append(line)
                if answer is None:
                    try:
                        obj = json.loads(line)
                        if isinstance(obj, dict) and obj.get("id") == 1:
                            answer = obj
                            end = time.monotonic() + 1.0
                    except ValueError:
                        pass
    finally:
        p.terminate()
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        err = p.stderr.read().decode(errors="replace")
        for s in (p.stdin, p.stdout, p.stderr):
            try:
                s.close()
            except OSError:
                pass
    if buf:
        lines.append(buf)
    nonjson = []
    for line in lines:
        try:
            json.loads(line)
        except ValueError:
            nonjson.append(line[:120])
    check(not nonjson, plat + ": auth: nothing but JSON on stdout", repr(nonjson[:3]))
    if not check(answer is not None and "result" in answer, plat + ": auth: initialize answered",
                 "answer %r, stderr %r" % (answer, err[-300:])):
        return
    methods = answer["result"].get("authMethods") or []
    types = [method_type(m) for m in methods if isinstance(m, dict)]
    check(any(t in ("agent", "terminal") for t in types),
          plat + ": auth: authMethods has an agent or terminal method",
          "authMethods %s (types %s)" % (json.dumps(methods)[:300], types))


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--schema", required=True)
    ap.add_argument("--archives", required=True)
    ap.add_argument("--static", action="store_true", help="the entry's checks only, run nothing")
    ap.add_argument("--runner", action="append", default=[], metavar="PLATFORM=CMD")
    ap.add_argument("entry")
    a = ap.parse_args()
    runners = {native_platform(): []}
    for r in a.runner:
        plat, _, cmd = r.partition("=")
        runners[plat] = shlex.split(cmd)

    entry_dir = os.path.abspath(a.entry)
    try:
        with open(os.path.join(entry_dir, "agent.json"), encoding="utf-8") as f:
            entry = json.load(f)
    except (OSError, ValueError) as e:
        check(False, "agent.json is JSON", str(e))
        return 1
    if check_schema(entry, a.schema):
        check_fields(entry, os.path.basename(entry_dir))
        check_versions(entry)
    archives = check_archives(entry, a.archives)
    check_icon(os.path.join(entry_dir, "icon.svg"))

    if not a.static:
        binary = entry.get("distribution", {}).get("binary", {})
        ran = 0
        for plat, path in sorted(archives.items()):
            if plat not in runners:
                continue
            t = binary[plat]
            where = tempdir("registry-%s-" % plat)
            unpack(path, where)
            cmd = t["cmd"][2:] if t["cmd"].startswith("./") else t["cmd"]
            exe = os.path.join(where, cmd)
            if not check(os.path.isfile(exe) and os.access(exe, os.X_OK),
                         plat + ": cmd %s is in the archive and executable" % t["cmd"]):
                continue
            argv = runners[plat] + [exe] + t.get("args", [])
            launch_check(plat, argv, where, t.get("env", {}))
            auth_check(plat, argv, where, t.get("env", {}))
            ran += 1
        check(ran > 0, "at least one platform's archive ran here", "runners for %s" % sorted(runners))
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        rc = main()
    finally:
        for d in made:
            shutil.rmtree(d, ignore_errors=True)
    sys.exit(rc)
