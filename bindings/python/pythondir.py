"""Where `make install` puts the Python module for a prefix: the directory that prefix's Python
searches.  `pythondir.py PREFIX` prints it; `pythondir.py --check DIR` says on stderr when DIR
is not on this Python's path (then PYTHONPATH must name it).  Run with the Python the module is
for (the Makefile's PYTHON)."""
import os
import site
import sys
import sysconfig


def pythondir(prefix: str) -> str:
    p = os.path.normpath(prefix)
    if p == "/usr":  # Debian's system Python: /usr/lib/python3/dist-packages
        return "/usr/lib/python3/dist-packages"
    if site.USER_BASE and p == os.path.normpath(site.USER_BASE):  # $HOME/.local
        return site.USER_SITE
    if p == "/usr/local" and "posix_local" in sysconfig.get_scheme_names():
        # Debian: /usr/local/lib/python3.X/dist-packages (the scheme adds /local to /usr)
        return sysconfig.get_path("purelib", "posix_local", vars={"base": "/usr", "platbase": "/usr"})
    return sysconfig.get_path("purelib", "posix_prefix", vars={"base": p, "platbase": p})


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        d = os.path.normpath(sys.argv[2])
        if d not in (os.path.normpath(x) for x in sys.path if x):
            print("note: %s is not on %s's module path: set PYTHONPATH=%s to import shcard"
                  % (d, sys.executable, d), file=sys.stderr)
        return 0
    if len(sys.argv) != 2:
        print("usage: pythondir.py PREFIX | --check DIR", file=sys.stderr)
        return 2
    print(pythondir(sys.argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
