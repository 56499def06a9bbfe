"""``@record``: a typing.NamedTuple class without typing's cost at import.

The small immutable records the start path defines (Coord, Diagnostic, schema
attributes, host facts...) were ``typing.NamedTuple`` classes.  Creating one
costs typing's import (about 3 ms) and, because every module has ``from
__future__ import annotations``, a ForwardRef -- a ``compile()`` of the
annotation's text -- per field: 6% of a cold ``cf-lite-promises`` check of
lib/files.cf went to defining 17 of them.  ``@record`` reads the same class body
(annotated fields, defaults, methods, docstring) and builds the same kind of
class: a tuple subclass with one C getter per field, ``_fields``,
``_field_defaults``, ``_make``, ``_replace``, ``_asdict``, namedtuple's repr,
pickled by class name.  The annotations stay as written, for readers and type
checkers, and are never evaluated.

It builds that class itself rather than through ``collections.namedtuple``:
namedtuple compiles its ``__new__`` from source with ``eval`` and makes a second
class that the record then subclasses, 0.4 M instructions per record, and a
cold check defines fourteen of them (4% of it).  Here ``__new__`` is one of the
hand-written constructors below, one per field count, with its parameters
renamed to the fields (``CodeType.replace``): the same function namedtuple's
``eval`` would give, so positional, keyword and default arguments bind in C
as fast as before.  A record with more fields than the largest constructor
here is built on namedtuple.
"""
from __future__ import annotations

from keyword import iskeyword
import sys

from cfpromise import fast

try:
    from _collections import _tuplegetter
except ImportError:             # another implementation: a property does the same
    from operator import itemgetter

    def _tuplegetter(index: int, doc: str) -> property:   # type: ignore[misc]
        return property(itemgetter(index), doc=doc)

_SKIP = frozenset({"__dict__", "__weakref__", "__annotations__"})
FunctionType = type(lambda: None)     # types.FunctionType, without importing types
_tuple_new = tuple.__new__


# The constructors, by field count: `record` renames their parameters to the fields.
def _new1(_cls, a):                                    # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a,))


def _new2(_cls, a, b):                                 # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a, b))


def _new3(_cls, a, b, c):                              # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a, b, c))


def _new4(_cls, a, b, c, d):                           # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a, b, c, d))


def _new5(_cls, a, b, c, d, e):                        # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a, b, c, d, e))


def _new6(_cls, a, b, c, d, e, f):                     # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a, b, c, d, e, f))


def _new7(_cls, a, b, c, d, e, f, g):                  # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a, b, c, d, e, f, g))


def _new8(_cls, a, b, c, d, e, f, g, h):               # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h))


_CONSTRUCTORS = (None, _new1, _new2, _new3, _new4, _new5, _new6, _new7, _new8)


# What namedtuple gives every class, written once for all records.
def _make(cls, iterable):                              # type: ignore[no-untyped-def]
    """Make a new object from a sequence or iterable."""
    result = _tuple_new(cls, iterable)
    if len(result) != len(cls._fields):
        raise TypeError(f"Expected {len(cls._fields)} arguments, got {len(result)}")
    return result


# what namedtuple's _replace raises for a field it does not have (TypeError from 3.13 on)
_REPLACE_ERROR = TypeError if sys.version_info >= (3, 13) else ValueError


def _replace(self, /, **kwds):                         # type: ignore[no-untyped-def]
    """Return a new object replacing specified fields with new values."""
    result = self._make(map(kwds.pop, self._fields, self))
    if kwds:
        raise _REPLACE_ERROR(f"Got unexpected field names: {list(kwds)!r}")
    return result


def _repr(self):                                       # type: ignore[no-untyped-def]
    """Return a nicely formatted representation string."""
    inner = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
    return f"{self.__class__.__name__}({inner})"


def _asdict(self):                                     # type: ignore[no-untyped-def]
    """Return a new dict which maps field names to their values."""
    return dict(zip(self._fields, self))


def _getnewargs(self):                                 # type: ignore[no-untyped-def]
    """Return self as a plain tuple.  Used by copy and pickle."""
    return tuple(self)


def _constructor(cls: type, names: tuple[str, ...], defaults: tuple[object, ...]) -> object:
    template = _CONSTRUCTORS[len(names)]
    code = template.__code__.replace(co_varnames=("_cls", *names), co_name="__new__",
                                     co_qualname=f"{cls.__qualname__}.__new__")
    new = FunctionType(code, template.__globals__, "__new__", defaults or None)
    new.__doc__ = f"Create new instance of {cls.__name__}({', '.join(names)})"
    return new


def record(cls: type) -> type:
    """The tuple-based class for ``cls``'s annotated fields (in order) and defaults."""
    names = tuple(cls.__dict__.get("__annotations__", {}))
    defaults = []
    for name in names:
        if name in cls.__dict__:
            defaults.append(cls.__dict__[name])
        elif defaults:
            raise TypeError(f"{cls.__name__}: field {name!r} without a default follows "
                            "a field with one")
    for name in names:
        if not name.isidentifier() or iskeyword(name) or name.startswith("_"):
            raise ValueError(f"{cls.__name__}: {name!r} cannot be a field name")
    if fast.PLAIN or not 0 < len(names) < len(_CONSTRUCTORS):
        return _on_namedtuple(cls, list(names), defaults)
    namespace: dict[str, object] = {
        "__doc__": f"{cls.__name__}({', '.join(names)})", "__slots__": (),
        "_fields": names, "_field_defaults": dict(zip(names[len(names) - len(defaults):],
                                                      defaults)),
        "__new__": _constructor(cls, names, tuple(defaults)), "_make": classmethod(_make),
        "_replace": _replace, "__repr__": _repr, "_asdict": _asdict,
        "__getnewargs__": _getnewargs, "__match_args__": names}
    for index, name in enumerate(names):
        namespace[name] = _tuplegetter(index, f"Alias for field number {index}")
    namespace.update((key, value) for key, value in cls.__dict__.items()
                     if key not in _SKIP and key not in names)
    namespace["__qualname__"] = cls.__qualname__
    namespace["__annotations__"] = cls.__dict__.get("__annotations__", {})
    return type(cls.__name__, (tuple,), namespace)


def _on_namedtuple(cls: type, names: list[str], defaults: list[object]) -> type:
    """The same class on collections.namedtuple (a record with many fields)."""
    from collections import namedtuple
    base = namedtuple(cls.__name__, names, defaults=defaults, module=cls.__module__)
    namespace = {key: value for key, value in cls.__dict__.items()
                 if key not in _SKIP and key not in names}
    namespace["__slots__"] = ()
    namespace["__qualname__"] = cls.__qualname__
    namespace["__annotations__"] = cls.__dict__.get("__annotations__", {})
    return type(cls.__name__, (base,), namespace)
