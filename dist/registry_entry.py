#!/usr/bin/env python3
"""Write the ACP Registry entry for the archives `make dist` built.

    registry_entry.py --version VERSION --sums SHA256SUMS SRC_DIR OUT_DIR

SRC_DIR (dist/registry/shcard) holds the committed entry: agent.json without hashes, and
icon.svg.  The entry's version must be VERSION (the build's, from include/shcard.h) and every
archive URL must name that version, so a release cannot point the registry at other archives;
OUT_DIR gets agent.json with each platform's sha256 taken from SHA256SUMS (by the archive's file
name) and a copy of icon.svg: the directory a pull request to the registry carries.
"""
import argparse
import json
import os
import shutil
import sys


def die(msg):
    print("registry_entry: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", required=True)
    ap.add_argument("--sums", required=True)
    ap.add_argument("src")
    ap.add_argument("out")
    a = ap.parse_args()

    with open(os.path.join(a.src, "agent.json"), encoding="utf-8") as f:
        entry = json.load(f)
    if entry.get("version") != a.version:
        die("%s/agent.json says version %r, the build is %s: update the entry's version and URLs"
            % (a.src, entry.get("version"), a.version))
    sums = {}
    with open(a.sums, encoding="utf-8") as f:
        for line in f:
            digest, _, name = line.strip().partition("  ")
            sums[name] = digest
    binary = entry.get("distribution", {}).get("binary", {})
    if not binary:
        die("%s/agent.json has no binary distribution" % a.src)
    for platform, target in sorted(binary.items()):
        url = target.get("archive", "")
        name = url.rsplit("/", 1)[-1]
        if "/v%s/" % a.version not in url or ("-%s-" % a.version) not in name:
            die("%s: archive URL %s does not name version %s" % (platform, url, a.version))
        if "sha256" in target:
            die("%s: the committed entry carries no sha256 (make dist adds it)" % platform)
        if name not in sums:
            die("%s: %s was not built (not in %s)" % (platform, name, a.sums))
        target["sha256"] = sums[name]

    os.makedirs(a.out, exist_ok=True)
    tmp = os.path.join(a.out, "agent.json.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(entry, f, indent=2)
        f.write("\n")
    os.replace(tmp, os.path.join(a.out, "agent.json"))
    shutil.copyfile(os.path.join(a.src, "icon.svg"), os.path.join(a.out, "icon.svg"))


if __name__ == "__main__":
    main()
