"""shcard: the shcard shell command classifier from Python.

    >>> import shcard
    >>> v = shcard.classify("rg -n foo src")
    >>> v["kind"], v["title"], v["path"], v["query"]
    ('search', "Search for 'foo' in src", 'src', 'foo')

A thin ctypes layer over the C core: the copy `pip install` built into this package
(_libshcard*.so, libc only), else the system's libshcard.so.0.
classify() returns exactly what `shcard explain --json` prints for the same command, as a dict:
cmd, kind ("read", "search", "list" or "terminal"), title, path, query, line, locations
[{path, line}], reason, span {start, end}, script, wrapped, argv (None where there is none).
The verdict is for display: it names the card an editor shows and never decides whether or how
a command runs.  Anything the classifier does not positively recognise is "terminal".

Bad input raises: TypeError for anything but str or bytes (None included), ValueError for a
command no shell could be given (a NUL byte; text that is not UTF-8, or a str with lone
surrogates; more than MAX_COMMAND_BYTES, Linux's limit on one argument, so `bash -c` could not
take it either).  `python3 -m shcard explain CMD...` is `shcard explain` (see __main__.py).

The library is found through $SHCARD_LIBRARY (a path), then the copy built into this package,
then the libdir `make install` recorded, then the dynamic loader (libshcard.so.0 from the
Debian package libshcard0, or a library directory in ld.so.conf or LD_LIBRARY_PATH).
"""
import ctypes
import glob
import json
import os
import sys
from typing import Iterator, List, Optional, Tuple, Union

if sys.version_info >= (3, 8):
    from typing import Literal, TypedDict
else:  # pragma: no cover
    raise ImportError("shcard needs Python 3.8 or newer")

__all__ = ["classify", "classify_json", "version", "library_path", "KINDS", "CONTEXTS",
           "MAX_COMMAND_BYTES", "Verdict", "Location", "Span", "__version__"]
__version__ = "0.1.0"

KINDS = ("terminal", "read", "search", "list")
CONTEXTS = ("any", "bridge")  # shc_context: SHC_CONTEXT_ANY, SHC_CONTEXT_BRIDGE
MAX_COMMAND_BYTES = 131072  # MAX_ARG_STRLEN: the longest script `bash -c` can be given

Kind = Literal["terminal", "read", "search", "list"]
Context = Literal["any", "bridge"]
Command = Union[str, bytes, bytearray, memoryview]
PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]


class Location(TypedDict):
    path: str
    line: Optional[int]


class Span(TypedDict):
    start: int
    end: int


class Verdict(TypedDict):
    """What `shcard explain --json` prints for a command."""
    cmd: str
    kind: Kind
    title: str
    path: Optional[str]
    query: Optional[str]
    line: Optional[int]
    locations: List[Location]
    reason: str
    span: Span
    script: str
    wrapped: bool
    argv: Optional[List[str]]


_SONAME = "libshcard.so.0"
_OPTS_VERSION = 1
_HERE = os.path.dirname(os.path.abspath(__file__))


class _ClassifyOpts(ctypes.Structure):
    # shc_classify_opts, version 1 (include/shcard.h): fields only ever grow at the end
    _fields_ = [("version", ctypes.c_uint), ("no_unwrap", ctypes.c_bool), ("cwd", ctypes.c_char_p),
                ("context", ctypes.c_int)]


def _candidates() -> Iterator[str]:
    env = os.environ.get("SHCARD_LIBRARY")
    if env:
        yield env
        return  # an explicit choice is not second-guessed
    # the core pip built into the package (setup.py): shcard/_libshcard.cpython-*.so
    for path in sorted(glob.glob(os.path.join(_HERE, "_libshcard*.so"))):
        yield path
    try:
        from . import _install  # written by `make install`
        yield os.path.join(_install.LIBDIR, _SONAME)
    except ImportError:
        pass
    yield _SONAME


def _load() -> Tuple[ctypes.CDLL, str]:
    errors = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append("%s: %s" % (path, e))
            continue
        return lib, path
    raise ImportError("shcard: cannot load %s (install libshcard0, or `make install`, or set "
                      "SHCARD_LIBRARY): %s" % (_SONAME, "; ".join(errors)))


_lib, library_path = _load()

_lib.shc_version.restype = ctypes.c_char_p
_lib.shc_version.argtypes = []
_lib.shc_classify_ex.restype = ctypes.c_int
_lib.shc_classify_ex.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_size_t,
                                 ctypes.POINTER(_ClassifyOpts)]
_lib.shc_verdict_to_json.restype = ctypes.c_void_p
_lib.shc_verdict_to_json.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                     ctypes.POINTER(ctypes.c_size_t)]
_lib.shc_verdict_free.restype = None
_lib.shc_verdict_free.argtypes = [ctypes.c_void_p]
_lib.shc_free.restype = None
_lib.shc_free.argtypes = [ctypes.c_void_p]
_lib.shc_err_kind.restype = ctypes.c_char_p
_lib.shc_err_kind.argtypes = [ctypes.c_int]


def version() -> str:
    """The loaded library's version (shc_version()), e.g. "0.1.0"."""
    return _lib.shc_version().decode("ascii")


def _as_bytes(command: Command) -> bytes:
    if isinstance(command, str):
        try:
            b = command.encode("utf-8")
        except UnicodeEncodeError as e:
            raise ValueError("shcard: the command is not valid text (a lone surrogate at index "
                             "%d): pass bytes, or decode them as UTF-8" % e.start) from None
    elif isinstance(command, (bytes, bytearray, memoryview)):
        b = bytes(command)
        try:
            b.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError("shcard: the command is not UTF-8 (byte 0x%02x at offset %d)"
                             % (b[e.start], e.start)) from None
    else:
        raise TypeError("shcard: command must be str or bytes, not %s" % type(command).__name__)
    if b"\0" in b:
        raise ValueError("shcard: the command holds a NUL byte (at offset %d): no shell command "
                         "can" % b.index(b"\0"))
    if len(b) > MAX_COMMAND_BYTES:
        raise ValueError("shcard: the command is %d bytes, more than %d (the longest script "
                         "bash -c can be given)" % (len(b), MAX_COMMAND_BYTES))
    return b


def _opts(unwrap: bool, cwd: Optional[PathLike], context: str) -> _ClassifyOpts:
    if context not in CONTEXTS:
        raise ValueError("shcard: context must be one of %s, not %r" % (", ".join(CONTEXTS), context))
    o = _ClassifyOpts(_OPTS_VERSION, not unwrap, None, CONTEXTS.index(context))
    if cwd is not None:
        # as `shcard explain --cwd DIR`: the real path of an existing directory
        if not isinstance(cwd, (str, bytes, os.PathLike)):
            raise TypeError("shcard: cwd must be a path, not %s" % type(cwd).__name__)
        real = os.path.realpath(os.fspath(cwd))
        if not os.path.isdir(real):
            raise NotADirectoryError("shcard: cwd is not a directory: %r" % (cwd,))
        o.cwd = os.fsencode(real)
    return o


def classify_json(command: Command, *, unwrap: bool = True, cwd: Optional[PathLike] = None,
                  context: Context = "any") -> str:
    """The verdict for command as one line of JSON (str): the bytes `shcard explain --json`
    prints, without the newline.  See classify() for the arguments."""
    cmd = _as_bytes(command)
    opts = _opts(unwrap, cwd, context)
    v = ctypes.c_void_p()
    rc = _lib.shc_classify_ex(ctypes.byref(v), cmd, len(cmd), ctypes.byref(opts))
    if rc != 0:
        if rc == -4:
            raise MemoryError("shcard: out of memory")
        raise ValueError("shcard: shc_classify_ex: %s error" % _lib.shc_err_kind(rc).decode())
    try:
        n = ctypes.c_size_t()
        p = _lib.shc_verdict_to_json(v, cmd, len(cmd), ctypes.byref(n))
        if not p:
            raise MemoryError("shcard: out of memory")
        try:
            return ctypes.string_at(p, n.value).decode("ascii")
        finally:
            _lib.shc_free(p)
    finally:
        _lib.shc_verdict_free(v)


def classify(command: Command, *, unwrap: bool = True, cwd: Optional[PathLike] = None,
             context: Context = "any") -> Verdict:
    """Classifies a shell command (str or bytes) into the card an editor shows.

    unwrap: judge `bash -lc 'SCRIPT'` (and `sh -c`) by its script (default), or as written
    (then it is terminal).  cwd: the directory the command will run in, or None: relative paths
    are then judged from it, and every file the command would read is stat()ed (a FIFO, device
    or socket makes it terminal).  context: where it will run, "any" (unknown) or "bridge"
    (shcard's executor: stdin /dev/null, a PTY, pagers set to cat); `rg foo` with no path is a
    search only in the bridge.  Never raises for bad shell: a command that does not parse is
    terminal, with the diagnostic as its reason.  Returns a dict with the fields of
    `shcard explain --json`.  Raises TypeError / ValueError for input no shell could run (see
    the module's documentation)."""
    return json.loads(classify_json(command, unwrap=unwrap, cwd=cwd, context=context))
