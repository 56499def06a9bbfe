"""``@record``: a typing.NamedTuple class without typing's cost at import.

The small immutable records the start path defines (Coord, Diagnostic, schema
attributes, host facts...) were ``typing.NamedTuple`` classes.  Creating one
costs typing's import (about 3 ms) and, because every module has ``from
__future__ import annotations``, a ForwardRef -- a ``compile()`` of the
annotation's text -- per field: 6% of a cold ``cf-lite-promises`` check of
lib/files.cf went to defining 17 of them.  ``@record`` reads the same class body
(annotated fields, defaults, methods, docstring) and builds the class on
``collections.namedtuple``, which is what ``typing.NamedTuple`` builds on too; the
annotations stay as written, for readers and type checkers, and are never
evaluated.  Instances behave as before: tuples with named fields, ``_replace``,
``_asdict``, ``_fields``, pickled by class name.
"""
from __future__ import annotations

from collections import namedtuple

_SKIP = frozenset({"__dict__", "__weakref__", "__annotations__"})


def record(cls: type) -> type:
    """The namedtuple-based class for ``cls``'s annotated fields (in order) and defaults."""
    names = list(cls.__dict__.get("__annotations__", {}))
    defaults = []
    for name in names:
        if name in cls.__dict__:
            defaults.append(cls.__dict__[name])
        elif defaults:
            raise TypeError(f"{cls.__name__}: field {name!r} without a default follows "
                            "a field with one")
    base = namedtuple(cls.__name__, names, defaults=defaults, module=cls.__module__)
    namespace = {key: value for key, value in cls.__dict__.items()
                 if key not in _SKIP and key not in names}
    namespace["__slots__"] = ()
    namespace["__qualname__"] = cls.__qualname__
    namespace["__annotations__"] = cls.__dict__.get("__annotations__", {})
    return type(cls.__name__, (base,), namespace)
