"""What the generated AST classes (:mod:`cfpromise.syntax.ast`) share, written by hand.

The classes themselves are generated from :mod:`cfpromise.syntax.astdecl`; this
module holds what a table does not say: the record behaviour of every
node (:class:`_Node`), the few methods some nodes have, :func:`evolve` and
:func:`walk_rval`.

The records are plain slotted classes with generated constructors rather than
attrs classes (the project's usual record library): every agent run loads the
AST, and creating its eleven attrs classes (code generation and compilation per
class) plus importing attrs cost about 15 ms of a 60 ms one-report run.  The
generated constructors assign each slot (``self.value = value``), which CPython
3.11+ runs as a specialised slot store: the parser and the policy cache make
thousands of nodes per file.  :class:`_Node` gives them attrs' semantics:
equality and hash over the fields marked for it, the same repr, and
:func:`evolve`.

The nodes are immutable by contract, not by a ``__setattr__`` that refuses: such an
override makes every store in a constructor go through it (the slots' own setters,
the cheapest way round it, cost about 480 instructions a field, 18 M of a cold
parse of masterfiles' lib/).  No code assigns to a node's field after its
constructor (a new value is :func:`evolve`'s copy), the slots refuse any other
attribute, and the one memo (``Promise._index``) is a slot of its own.
"""
from __future__ import annotations

from cfpromise.fast.cmodules import attrgetter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator

# How a scalar was written in the source.
QUOTED = "string"     # "text", 'text' or `text`
BARE = "symbol"       # an identifier or ns:identifier, e.g. a body name
NAKED = "var"         # an unquoted $(var), ${var}, @(list), @{list}


class _Node:
    """Record behaviour shared by the AST classes.  Each class names its
    fields in constructor order (``_fields``), those that take part in equality and
    hashing (``_eq``), those its repr shows (``_repr``) and its fields holding a tuple
    of rvals (``_rval_lists``, for :func:`walk_rval`)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _eq: tuple[str, ...] = ()
    _repr: tuple[str, ...] = ()
    _rval_lists: tuple[str, ...] = ()

    _key: Callable[[Any], Any]        # the _eq fields (attrgetter, made per class)
    _state: Callable[[Any], Any]      # the _fields, as a tuple

    def __init_subclass__(cls) -> None:
        if not cls._fields:           # a mixin below, not a node
            return
        cls._key = attrgetter(*cls._eq)
        fields = attrgetter(*cls._fields)
        cls._state = fields if len(cls._fields) > 1 else (lambda node: (fields(node),))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key(self) == other._key(other)      # type: ignore[attr-defined]

    def __ne__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key(self) != other._key(other)      # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.__class__.__name__, self._key(self)))

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._repr)
        return f"{type(self).__name__}({inner})"

    def __reduce__(self) -> tuple[Any, ...]:
        return self.__class__, self._state(self)


def evolve(node: Any, **changes: Any) -> Any:
    """A copy of ``node`` with ``changes`` applied (attrs.evolve for these records)."""
    values = {f: getattr(node, f) for f in node._fields}
    values.update(changes)
    return node.__class__(**values)


def walk_rval(rval: Any) -> Iterator[Any]:
    """Every rval inside ``rval``, itself first (depth first)."""
    yield rval
    for name in rval._rval_lists:
        for item in getattr(rval, name):
            yield from walk_rval(item)


class _Qualified(_Node):
    __slots__ = ()
    namespace: str
    name: str

    @property
    def qualified_name(self) -> str:
        return f"{self.namespace}:{self.name}"


class _BundleMethods(_Qualified):
    __slots__ = ()
    sections: tuple[Any, ...]

    def section(self, name: str) -> Any:
        """The section of promise type ``name``, or None."""
        for s in self.sections:
            if s.name == name:
                return s
        return None


class _PromiseMethods(_Node):
    __slots__ = ()
    constraints: tuple[Any, ...]

    def get(self, lval: str) -> Any:
        """The (first) constraint named ``lval``.  The engine asks each promise for a
        dozen attributes per evaluation (55,000 calls on masterfiles): the constraints
        are indexed by name on first use."""
        index = self._index        # type: ignore[attr-defined]
        if index is None:           # (None from the constructor: no exception to catch)
            index = {}
            for c in self.constraints:
                index.setdefault(c.lval, c)
            self._index = index
        return index.get(lval)


class _PolicyMethods(_Node):
    __slots__ = ()
    bundles: tuple[Any, ...]
    bodies: tuple[Any, ...]
    promise_blocks: tuple[Any, ...]
    path: str

    def merged(self, other: Any) -> Any:
        """This policy with ``other``'s blocks after its own (the path stays this one's)."""
        return self.__class__(self.bundles + other.bundles, self.bodies + other.bodies,
                              self.promise_blocks + other.promise_blocks, self.path)
