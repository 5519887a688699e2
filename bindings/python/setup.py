"""Builds the classifier's C core (the files of libshcard: libc only) into the package, as a
small shared library that shcard/__init__.py loads with ctypes: `pip install bindings/python`
then works with no libshcard installed.  The sources are the repository's (src/, gen/,
include/ two levels up); SHCARD_SOURCE_ROOT names another checkout.  The object files go under
setuptools' build directory (absolute source paths: nothing is written next to the sources).
The metadata is in pyproject.toml."""
import glob
import os

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.environ.get("SHCARD_SOURCE_ROOT") or os.path.join(HERE, "..", ".."))


def core_sources():
    """The Makefile's CORE_SRC and gen/*.c: base (arena, strbuf, utf8, jsonw, fmt), shell/
    without dump.c, classify/ without verdict_jansson.c."""
    if not os.path.isfile(os.path.join(ROOT, "include", "shcard.h")):
        raise SystemExit("shcard: the C sources are not at %s (build from the repository's "
                         "bindings/python, or set SHCARD_SOURCE_ROOT)" % ROOT)
    src = [os.path.join(ROOT, "src", "base", f + ".c") for f in ("arena", "strbuf", "utf8", "jsonw", "fmt")]
    src += [f for f in sorted(glob.glob(os.path.join(ROOT, "src", "shell", "*.c")))
            if os.path.basename(f) != "dump.c"]
    src += [f for f in sorted(glob.glob(os.path.join(ROOT, "src", "classify", "*.c")))
            if os.path.basename(f) != "verdict_jansson.c"]
    src += sorted(glob.glob(os.path.join(ROOT, "gen", "*.c")))
    return src


class BuildCore(build_ext):
    """The sources are named only when compiling: setuptools' metadata steps refuse absolute
    paths, and relative ones outside the project would put objects outside the build tree."""

    def build_extension(self, ext):
        ext.sources = core_sources()
        super().build_extension(ext)


core = Extension(
    "shcard._libshcard",
    sources=[],
    include_dirs=[os.path.join(ROOT, d) for d in ("include", "src", "gen")],
    define_macros=[("_POSIX_C_SOURCE", "200809L")],
    extra_compile_args=["-std=c11", "-fvisibility=hidden", "-Wno-unused-function",
                        "-Wno-unused-macros"],
    extra_link_args=["-Wl,--strip-debug"],
)

setup(ext_modules=[core], cmdclass={"build_ext": BuildCore})
