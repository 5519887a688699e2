"""shcard: the shcard shell command classifier from Python.

    >>> import shcard
    >>> v = shcard.classify("rg -n foo src")
    >>> v["kind"], v["title"], v["path"], v["query"]
    ('search', "Search for 'foo' in src", 'src', 'foo')

A thin ctypes layer over the C library libshcard.so.0 (no compiler, no extension module).
classify() returns exactly what `shcard explain --json` prints for the same command, as a dict:
cmd, kind ("read", "search", "list" or "terminal"), title, path, query, line, locations
[{path, line}], reason, span {start, end}, script, wrapped, argv (None where there is none).
The verdict is for display: it names the card an editor shows and never decides whether or how
a command runs.  Anything the classifier does not positively recognise is "terminal".

The library is found through $SHCARD_LIBRARY (a path), then the libdir `make install` recorded,
then the dynamic loader (libshcard.so.0 from the Debian package libshcard0, or a library
directory in ld.so.conf or LD_LIBRARY_PATH).
"""
import ctypes
import json
import os

__all__ = ["classify", "classify_json", "version", "library_path", "KINDS", "CONTEXTS", "__version__"]
__version__ = "0.1.0"

KINDS = ("terminal", "read", "search", "list")
CONTEXTS = ("any", "bridge")  # shc_context: SHC_CONTEXT_ANY, SHC_CONTEXT_BRIDGE

_SONAME = "libshcard.so.0"
_OPTS_VERSION = 1


class _ClassifyOpts(ctypes.Structure):
    # shc_classify_opts, version 1 (include/shcard.h): fields only ever grow at the end
    _fields_ = [("version", ctypes.c_uint), ("no_unwrap", ctypes.c_bool), ("cwd", ctypes.c_char_p),
                ("context", ctypes.c_int)]


def _candidates():
    env = os.environ.get("SHCARD_LIBRARY")
    if env:
        yield env
        return  # an explicit choice is not second-guessed
    try:
        from . import _install  # written by `make install`
        yield os.path.join(_install.LIBDIR, _SONAME)
    except ImportError:
        pass
    yield _SONAME


def _load():
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


def version():
    """The loaded library's version (shc_version()), e.g. "0.1.0"."""
    return _lib.shc_version().decode("ascii")


def _as_bytes(command):
    if isinstance(command, str):
        # surrogateescape: a str that os.fsdecode() made from bytes goes back to those bytes
        return command.encode("utf-8", "surrogateescape")
    if isinstance(command, (bytes, bytearray, memoryview)):
        return bytes(command)
    raise TypeError("shcard: command must be str or bytes, not %s" % type(command).__name__)


def _opts(unwrap, cwd, context):
    if context not in CONTEXTS:
        raise ValueError("shcard: context must be one of %s, not %r" % (", ".join(CONTEXTS), context))
    o = _ClassifyOpts(_OPTS_VERSION, not unwrap, None, CONTEXTS.index(context))
    if cwd is not None:
        # as `shcard explain --cwd DIR`: the real path of an existing directory
        real = os.path.realpath(os.fspath(cwd))
        if not os.path.isdir(real):
            raise NotADirectoryError("shcard: cwd is not a directory: %r" % (cwd,))
        o.cwd = os.fsencode(real)
    return o


def classify_json(command, *, unwrap=True, cwd=None, context="any"):
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


def classify(command, *, unwrap=True, cwd=None, context="any"):
    """Classifies a shell command (str or bytes) into the card an editor shows.

    unwrap: judge `bash -lc 'SCRIPT'` (and `sh -c`) by its script (default), or as written
    (then it is terminal).  cwd: the directory the command will run in, or None: relative paths
    are then judged from it, and every file the command would read is stat()ed (a FIFO, device
    or socket makes it terminal).  context: where it will run, "any" (unknown) or "bridge"
    (shcard's executor: stdin /dev/null, a PTY, pagers set to cat); `rg foo` with no path is a
    search only in the bridge.  Never raises for bad shell: a command that does not parse is
    terminal, with the diagnostic as its reason.  Returns a dict with the fields of
    `shcard explain --json`."""
    return json.loads(classify_json(command, unwrap=unwrap, cwd=cwd, context=context))
