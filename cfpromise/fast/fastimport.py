"""Imports of cf-lite's own modules straight from their byte code.

A cold ``cf-lite-promises`` check imports about eighty of cf-lite's modules and
packages, a one-report agent run about as many.  The interpreter's generic path
costs 240 K instructions per module before the module's own code runs (the path
finder lists the package directory and tries each file suffix, builds the spec,
then the loader works out the byte-code file's name, stats the source, reads
and checks the header, and the new module's attributes are filled in one
``getattr`` at a time, each missing one an ``AttributeError``).  cf-lite's
modules are plain ``.py`` files with their ``.pyc`` beside them in
``__pycache__`` (``make install`` compiles them), so :class:`Finder`, first on
``sys.meta_path``, goes straight there: one stat of the source, one read of the
byte code, the same header checks as the standard loader (magic number,
timestamp-based, the source's mtime and size), and the module is made from that
code with its attributes already set (:meth:`_Loader.create_module`).  That is
about 110 K instructions, of which the import system's own locking and
book-keeping is most (measured with valgrind on 100 empty modules, Python 3.11).
A package (``DIR/__init__.py``) is found the same way once ``DIR.py`` is not there
(no module shadows a package in cf-lite: a test checks it).

Anything else is left to the standard machinery, which then behaves exactly as
before: a module without byte code or whose byte code is stale, hash-based or
from another interpreter, a package whose ``__path__`` is not one directory, a
namespace package, and every module outside ``cfpromise``.  The
finder is not installed when ``-O``, ``PYTHONPYCACHEPREFIX`` or an
implementation without ``cache_tag`` changes where or how byte code is kept,
nor under ``CF_LITE_PLAIN`` (:mod:`cfpromise.fast`).  A module whose source is
there but whose byte code is missing or stale is noted (:func:`fallbacks`: one
``-v`` line naming them, and ``make compile`` as the cure).
"""
from __future__ import annotations

import sys

import _imp
import _io
from _frozen_importlib import ModuleSpec
from _frozen_importlib_external import MAGIC_NUMBER
from marshal import loads
from posix import stat

from cfpromise import fast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import CodeType, ModuleType
    from typing import Any, Sequence

_PREFIX = "cfpromise."
_TAG = sys.implementation.cache_tag
_STALE: list[str] = []           # cf-lite modules whose byte code could not be used
_OFF: list[str] = []             # why the finder is not installed, if it is not
_Module = type(sys)


def _checked_code(source: str, cached: str) -> CodeType | None:
    """The code in ``cached`` if it is current byte code of ``source`` (as the standard
    loader checks a timestamp-based .pyc), else None."""
    try:
        st = stat(source)
    except OSError:                       # no such module (a package, or another finder's)
        return None
    try:
        with _io.FileIO(cached) as fh:    # unbuffered: one read of the whole file
            data = fh.readall()
    except OSError:
        return _stale(source)
    if (len(data) < 16 or data[:4] != MAGIC_NUMBER or data[4:8] != b"\0\0\0\0"
            or int.from_bytes(data[8:12], "little") != int(st.st_mtime) & 0xFFFFFFFF
            or int.from_bytes(data[12:16], "little") != st.st_size & 0xFFFFFFFF):
        return _stale(source)
    try:
        code = loads(memoryview(data)[16:])
    except (EOFError, ValueError, TypeError):
        return _stale(source)
    _imp._fix_co_filename(code, source)
    return code


def _stale(source: str) -> None:
    _STALE.append(source)
    return None


class _Loader:
    """Loads one module from the code :class:`Finder` checked (importlib's loader protocol,
    with ``get_code``, ``get_source``, ``get_filename`` and ``get_data`` as a file loader
    has them, for runpy, linecache, inspect and pkgutil)."""

    __slots__ = ("path", "cached", "code", "package")

    def __init__(self, path: str, cached: str, code: CodeType, package: bool = False) -> None:
        self.path = path
        self.cached = cached
        self.code: CodeType | None = code
        self.package = package

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        """The module with the attributes the import system would set one by one, each
        after a ``getattr`` that fails: it finds them set and leaves them (as
        ``importlib._bootstrap._init_module_attrs`` does for what a loader made)."""
        module = _Module(spec.name)
        module.__loader__ = self
        module.__file__ = self.path
        module.__cached__ = self.cached
        if self.package:
            module.__package__ = spec.name
            module.__path__ = spec.submodule_search_locations
        else:
            module.__package__ = spec.name.rpartition(".")[0]
        return module

    def exec_module(self, module: ModuleType) -> None:
        code, self.code = self.code, None
        exec(code if code is not None else self.get_code(module.__name__), module.__dict__)

    def get_code(self, fullname: str) -> CodeType:
        code = _checked_code(self.path, self.cached)
        if code is None:                  # changed since: compile the source as it is now
            with _io.open_code(self.path) as fh:
                code = compile(fh.read(), self.path, "exec", dont_inherit=True)
        return code

    def get_source(self, fullname: str) -> str:
        with open(self.path, encoding="utf-8") as fh:
            return fh.read()

    def get_filename(self, fullname: str) -> str:
        return self.path

    def get_data(self, path: str) -> bytes:
        with _io.open_code(str(path)) as fh:
            return fh.read()

    def is_package(self, fullname: str) -> bool:
        return self.package

    def get_resource_reader(self, fullname: str) -> Any:
        """importlib.resources' reader, as the standard file loader gives it."""
        from importlib.readers import FileReader
        return FileReader(self)


class Finder:
    """``sys.meta_path`` finder for cf-lite's modules and packages (see the module
    docstring)."""

    @staticmethod
    def find_spec(name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if not name.startswith(_PREFIX) or path is None or len(path) != 1:
            return None
        tail = name.rpartition(".")[2]
        where = path[0]
        source = f"{where}/{tail}.py"
        cached = f"{where}/__pycache__/{tail}.{_TAG}.pyc"
        code = _checked_code(source, cached)
        package = None
        if code is None:
            if _STALE and _STALE[-1] is source:
                return None                       # the module is there, its byte code is not
            package = f"{where}/{tail}"
            source = f"{package}/__init__.py"
            cached = f"{package}/__pycache__/__init__.{_TAG}.pyc"
            code = _checked_code(source, cached)
            if code is None:
                return None
        spec = ModuleSpec(name, _Loader(source, cached, code, package is not None),
                          origin=source, is_package=package is not None)
        if package is not None:
            spec.submodule_search_locations = [package]
        spec.has_location = True
        spec.cached = cached
        return spec

    @staticmethod
    def invalidate_caches() -> None:
        pass


def install() -> None:
    """Put :class:`Finder` first on ``sys.meta_path`` (once; see the module docstring)."""
    if Finder in sys.meta_path or fast.PLAIN:
        return
    if _TAG is None or sys.flags.optimize or sys.pycache_prefix is not None:
        _OFF[:] = ["-O" if sys.flags.optimize else "PYTHONPYCACHEPREFIX"
                   if sys.pycache_prefix is not None else "no cache_tag"]
        return
    sys.meta_path.insert(0, Finder)


def fallbacks() -> list[str]:
    """The ``-v`` lines: the finder not installed, or modules imported the standard way."""
    if _OFF:
        return [f"Byte-code imports off ({_OFF[0]}): cf-lite's modules are imported the "
                "standard way"]
    if not _STALE:
        return []
    names = ", ".join(sorted({s.rpartition("/cfpromise/")[2] for s in _STALE}))
    return [f"Byte code missing or stale for {len(set(_STALE))} module(s), imported the "
            f"standard way (run `make compile`): {names}"]


fast.LATE_FALLBACKS.append(fallbacks)      # fast.report() asks, without importing this
