"""The policy AST: frozen records, each with the Coord it came from.

Shape (mirrors how CFEngine itself holds a policy)::

    Policy
      bundles: Bundle(namespace, name, type, args, sections: PromiseSection*)
                 PromiseSection(name, promises: Promise*)
                   Promise(promiser, promisee, classes, varclass, constraints: Constraint*)
      bodies:  Body(namespace, name, type, args, constraints: Constraint*)   (each with .classes)
      promise_blocks: PromiseBlock (custom promise types: ``promise agent NAME { ... }``)

An rval is one of :class:`Scalar` (a quoted string, a bare identifier or a
naked ``$(var)`` / ``@(list)``), :class:`List`, :class:`FnCall` or
:class:`Data` (an inline JSON container given to a ``data`` attribute).

Coordinates never take part in equality, so two parses of the same policy
laid out differently compare equal (the ``-p cf`` round trip relies on it).

The records are plain slotted classes with hand-written constructors rather
than attrs classes (the project's usual record library): every agent run loads
this module, and creating its eleven attrs classes (code generation and
compilation per class) plus importing attrs cost about 15 ms of a 60 ms
one-report run; the plain classes cost nothing to create and unpickle from the
policy cache by calling the constructor, which is faster than attrs' setstate.
:class:`_Node` gives them attrs' semantics: frozen, equality and hash over the
fields marked for it, the same repr, and :func:`evolve`.
"""
from __future__ import annotations

import operator

from cfpromise.syntax.errors import NO_COORD, Coord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator, Union

# How a scalar was written in the source.
QUOTED = "string"     # "text", 'text' or `text`
BARE = "symbol"       # an identifier or ns:identifier, e.g. a body name
NAKED = "var"         # an unquoted $(var), ${var}, @(list), @{list}

_set = object.__setattr__


class _Node:
    """Frozen-record behaviour shared by the AST classes.  Each class names its
    fields in constructor order (``_fields``), those that take part in equality and
    hashing (``_eq``) and those its repr shows (``_repr``)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _eq: tuple[str, ...] = ()
    _repr: tuple[str, ...] = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable (cannot set '{name}')")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable (cannot delete '{name}')")

    _key: Callable[[Any], Any]        # the _eq fields (attrgetter, made per class)
    _state: Callable[[Any], Any]      # the _fields, as a tuple

    def __init_subclass__(cls) -> None:
        cls._key = operator.attrgetter(*cls._eq)
        fields = operator.attrgetter(*cls._fields)
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


class Scalar(_Node):
    __slots__ = ("value", "kind", "coord", "quote")
    _fields = __slots__
    _eq = _repr = ("value", "kind")
    value: str
    kind: str
    coord: Coord
    quote: str

    def __init__(self, value: str, kind: str = QUOTED, coord: Coord = NO_COORD,
                 quote: str = '"') -> None:
        _set(self, "value", value)
        _set(self, "kind", kind)
        _set(self, "coord", coord)
        _set(self, "quote", quote)


class List(_Node):
    __slots__ = ("items", "coord")
    _fields = __slots__
    _eq = _repr = ("items",)
    items: tuple["Rval", ...]
    coord: Coord

    def __init__(self, items: tuple["Rval", ...], coord: Coord = NO_COORD) -> None:
        _set(self, "items", items)
        _set(self, "coord", coord)


class FnCall(_Node):
    __slots__ = ("name", "args", "coord")
    _fields = __slots__
    _eq = _repr = ("name", "args")
    name: str
    args: tuple["Rval", ...]
    coord: Coord

    def __init__(self, name: str, args: tuple["Rval", ...], coord: Coord = NO_COORD) -> None:
        _set(self, "name", name)
        _set(self, "args", args)
        _set(self, "coord", coord)


class Data(_Node):
    """An inline data container: ``data => '{ "a": 1 }'``.  Equality is on the
    canonical JSON, so {"a":1} and { "a" : 1 } compare equal."""

    __slots__ = ("value", "text", "coord", "canonical")
    _fields = __slots__
    _eq = ("canonical",)
    _repr = ("value", "canonical")
    value: Any
    text: str
    coord: Coord
    canonical: str

    def __init__(self, value: Any, text: str = "", coord: Coord = NO_COORD,
                 canonical: str = "") -> None:
        _set(self, "value", value)
        _set(self, "text", text)
        _set(self, "coord", coord)
        _set(self, "canonical", canonical)


if TYPE_CHECKING:
    Rval = Union[Scalar, List, FnCall, Data]


class Constraint(_Node):
    """``lval => rval``.  ``line`` is where the rval ends (what cf-promises reports);
    ``classes`` is the class guard, for body constraints."""

    __slots__ = ("lval", "rval", "coord", "line", "classes")
    _fields = __slots__
    _eq = _repr = ("lval", "rval", "classes")
    lval: str
    rval: Rval
    coord: Coord
    line: int
    classes: str

    def __init__(self, lval: str, rval: Rval, coord: Coord = NO_COORD, line: int = 0,
                 classes: str = "any") -> None:
        _set(self, "lval", lval)
        _set(self, "rval", rval)
        _set(self, "coord", coord)
        _set(self, "line", line)
        _set(self, "classes", classes)


class Promise(_Node):
    """``varclass`` is a quoted guard: "$(x)"::"""

    __slots__ = ("promiser", "constraints", "promisee", "classes", "varclass", "coord", "_index")
    _fields = ("promiser", "constraints", "promisee", "classes", "varclass", "coord")
    _eq = _repr = ("promiser", "constraints", "promisee", "classes", "varclass")
    promiser: str
    constraints: tuple[Constraint, ...]
    promisee: Rval | None
    classes: str
    varclass: str | None
    coord: Coord

    def __init__(self, promiser: str, constraints: tuple[Constraint, ...] = (),
                 promisee: Rval | None = None, classes: str = "any",
                 varclass: str | None = None, coord: Coord = NO_COORD) -> None:
        _set(self, "promiser", promiser)
        _set(self, "constraints", constraints)
        _set(self, "promisee", promisee)
        _set(self, "classes", classes)
        _set(self, "varclass", varclass)
        _set(self, "coord", coord)

    def get(self, lval: str) -> Constraint | None:
        """The (first) constraint named ``lval``.  The engine asks each promise for a
        dozen attributes per evaluation (55,000 calls on masterfiles): the constraints
        are indexed by name on first use."""
        try:
            index = self._index
        except AttributeError:
            index = {}
            for c in self.constraints:
                index.setdefault(c.lval, c)
            _set(self, "_index", index)
        return index.get(lval)


class PromiseSection(_Node):
    """All promises of one promise type in a bundle (sections of the same type merge)."""

    __slots__ = ("name", "promises", "coord")
    _fields = __slots__
    _eq = _repr = ("name", "promises")
    name: str
    promises: tuple[Promise, ...]
    coord: Coord

    def __init__(self, name: str, promises: tuple[Promise, ...], coord: Coord = NO_COORD) -> None:
        _set(self, "name", name)
        _set(self, "promises", promises)
        _set(self, "coord", coord)


class Bundle(_Node):
    __slots__ = ("type", "name", "args", "sections", "namespace", "coord")
    _fields = __slots__
    _eq = _repr = ("type", "name", "args", "sections", "namespace")
    type: str
    name: str
    args: tuple[str, ...]
    sections: tuple[PromiseSection, ...]
    namespace: str
    coord: Coord

    def __init__(self, type: str, name: str, args: tuple[str, ...] = (),
                 sections: tuple[PromiseSection, ...] = (), namespace: str = "default",
                 coord: Coord = NO_COORD) -> None:
        _set(self, "type", type)
        _set(self, "name", name)
        _set(self, "args", args)
        _set(self, "sections", sections)
        _set(self, "namespace", namespace)
        _set(self, "coord", coord)

    @property
    def qualified_name(self) -> str:
        return f"{self.namespace}:{self.name}"

    def section(self, name: str) -> PromiseSection | None:
        for s in self.sections:
            if s.name == name:
                return s
        return None


class Body(_Node):
    __slots__ = ("type", "name", "args", "constraints", "namespace", "coord")
    _fields = __slots__
    _eq = _repr = ("type", "name", "args", "constraints", "namespace")
    type: str
    name: str
    args: tuple[str, ...]
    constraints: tuple[Constraint, ...]
    namespace: str
    coord: Coord

    def __init__(self, type: str, name: str, args: tuple[str, ...] = (),
                 constraints: tuple[Constraint, ...] = (), namespace: str = "default",
                 coord: Coord = NO_COORD) -> None:
        _set(self, "type", type)
        _set(self, "name", name)
        _set(self, "args", args)
        _set(self, "constraints", constraints)
        _set(self, "namespace", namespace)
        _set(self, "coord", coord)

    @property
    def qualified_name(self) -> str:
        return f"{self.namespace}:{self.name}"


class PromiseBlock(_Node):
    """A custom promise type declaration: ``promise agent NAME { path => ...; }``."""

    __slots__ = ("type", "name", "constraints", "namespace", "coord")
    _fields = __slots__
    _eq = _repr = ("type", "name", "constraints", "namespace")
    type: str
    name: str
    constraints: tuple[Constraint, ...]
    namespace: str
    coord: Coord

    def __init__(self, type: str, name: str, constraints: tuple[Constraint, ...] = (),
                 namespace: str = "default", coord: Coord = NO_COORD) -> None:
        _set(self, "type", type)
        _set(self, "name", name)
        _set(self, "constraints", constraints)
        _set(self, "namespace", namespace)
        _set(self, "coord", coord)


class Policy(_Node):
    """One parsed file (or several merged)."""

    __slots__ = ("bundles", "bodies", "promise_blocks", "path")
    _fields = __slots__
    _eq = ("bundles", "bodies", "promise_blocks")
    _repr = __slots__
    bundles: tuple[Bundle, ...]
    bodies: tuple[Body, ...]
    promise_blocks: tuple[PromiseBlock, ...]
    path: str

    def __init__(self, bundles: tuple[Bundle, ...] = (), bodies: tuple[Body, ...] = (),
                 promise_blocks: tuple[PromiseBlock, ...] = (), path: str = "") -> None:
        _set(self, "bundles", bundles)
        _set(self, "bodies", bodies)
        _set(self, "promise_blocks", promise_blocks)
        _set(self, "path", path)

    def merged(self, other: Policy) -> Policy:
        return Policy(self.bundles + other.bundles, self.bodies + other.bodies,
                      self.promise_blocks + other.promise_blocks, self.path)


def walk_rval(rval: Rval) -> Iterator[Rval]:
    """Every rval inside ``rval``, itself first (depth first)."""
    yield rval
    if isinstance(rval, List):
        for item in rval.items:
            yield from walk_rval(item)
    elif isinstance(rval, FnCall):
        for arg in rval.args:
            yield from walk_rval(arg)


# -- building nodes without their constructors ---------------------------------------------
# The classes are frozen: their constructors set each field with ``object.__setattr__``,
# and a Scalar cost about 5,000 instructions, a Constraint 6,000 -- the nodes were a
# quarter of a parse.  The parser (rdparse) and the policy cache (astcodec) make the
# many small nodes as ``object.__new__`` and the slots' own setters (``__set__`` of the
# member descriptors), a third cheaper: the same objects, every field set.  The
# constructors below are unrolled by field count on purpose: a loop over the setters
# would give back part of the gain.
def setters(cls: type) -> tuple[Any, ...]:
    """The setters of ``cls``'s fields (its ``_fields``), in order."""
    return tuple(cls.__dict__[name].__set__ for name in cls._fields)      # type: ignore[attr-defined]


def _maker3(cls: type) -> Any:
    """A constructor for ``cls``, a node class of three fields, taking them all."""
    new = object.__new__
    set_a, set_b, set_c = setters(cls)

    def make(a: Any, b: Any, c: Any) -> Any:
        node = new(cls)
        set_a(node, a)
        set_b(node, b)
        set_c(node, c)
        return node
    return make


def _maker5(cls: type) -> Any:
    """A constructor for ``cls``, a node class of five fields, taking them all."""
    new = object.__new__
    set_a, set_b, set_c, set_d, set_e = setters(cls)

    def make(a: Any, b: Any, c: Any, d: Any, e: Any) -> Any:
        node = new(cls)
        set_a(node, a)
        set_b(node, b)
        set_c(node, c)
        set_d(node, d)
        set_e(node, e)
        return node
    return make


def _maker6(cls: type) -> Any:
    """A constructor for ``cls``, a node class of six fields, taking them all."""
    new = object.__new__
    set_a, set_b, set_c, set_d, set_e, set_f = setters(cls)

    def make(a: Any, b: Any, c: Any, d: Any, e: Any, f: Any) -> Any:
        node = new(cls)
        set_a(node, a)
        set_b(node, b)
        set_c(node, c)
        set_d(node, d)
        set_e(node, e)
        set_f(node, f)
        return node
    return make


make_call = _maker3(FnCall)
make_section = _maker3(PromiseSection)
make_constraint = _maker5(Constraint)
make_promise_block = _maker5(PromiseBlock)
make_promise = _maker6(Promise)
make_bundle = _maker6(Bundle)
make_body = _maker6(Body)
