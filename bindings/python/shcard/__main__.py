"""python3 -m shcard explain [--json] [--no-unwrap] [--cwd DIR] [--context any|bridge] CMD...

The same answers as `shcard explain` (and, with --json, the same bytes), from the package's own
copy of the classifier: for a machine with the Python package and not the shcard binary.
Exit status: 0 for every verdict, 2 for a usage error or input no shell could run."""
import argparse
import sys
from typing import List, Optional

from . import classify, classify_json, CONTEXTS, __version__


def _text(v: dict) -> str:
    # the lines `shcard explain` prints without -v
    out = ["%s: %s" % (v["kind"], v["title"])]
    if v["path"]:
        out.append("  path: %s" % v["path"])
    if v["query"]:
        out.append("  query: %s" % v["query"])
    if v["line"]:
        out.append("  line: %d" % v["line"])
    if len(v["locations"]) > 1:
        out += ["  location: %s" % loc["path"] for loc in v["locations"]]
    return "\n".join(out)


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m shcard",
                                description="Show the card each shell command gets.")
    p.add_argument("--version", action="version", version="shcard %s" % __version__)
    sub = p.add_subparsers(dest="command", metavar="explain")
    e = sub.add_parser("explain", help="show the card each command gets (as shcard explain)")
    e.add_argument("--json", action="store_true", help="one JSON object per command")
    e.add_argument("--no-unwrap", action="store_true", help="judge bash -lc 'SCRIPT' as written")
    e.add_argument("--cwd", metavar="DIR", help="judge paths from DIR and stat() what is read")
    e.add_argument("--context", choices=CONTEXTS, default="any",
                   help="where the command will run (default: any)")
    e.add_argument("cmds", nargs="+", metavar="CMD", help="a command line (quote it: 'ls -la')")
    args = p.parse_args(argv)
    if args.command != "explain":
        p.print_usage(sys.stderr)
        return 2
    kw = dict(unwrap=not args.no_unwrap, cwd=args.cwd, context=args.context)
    try:
        for cmd in args.cmds:
            # argv holds bytes the locale could not decode as surrogates: give them back as bytes
            raw = cmd.encode("utf-8", "surrogateescape")
            print(classify_json(raw, **kw) if args.json else _text(classify(raw, **kw)))
    except (TypeError, ValueError, OSError) as e:
        print("python3 -m shcard: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
