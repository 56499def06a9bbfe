"""The policy AST: frozen attrs records, each with the Coord it came from.

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
"""
from __future__ import annotations

from typing import Any, Iterator, Union

import attrs

from cfpromise.syntax.errors import NO_COORD, Coord

# How a scalar was written in the source.
QUOTED = "string"     # "text", 'text' or `text`
BARE = "symbol"       # an identifier or ns:identifier, e.g. a body name
NAKED = "var"         # an unquoted $(var), ${var}, @(list), @{list}


def _coord() -> Any:
    return attrs.field(default=NO_COORD, eq=False, repr=False)


@attrs.frozen(slots=True)
class Scalar:
    value: str
    kind: str = QUOTED
    coord: Coord = _coord()
    quote: str = attrs.field(default='"', eq=False, repr=False)


@attrs.frozen(slots=True)
class List:
    items: tuple["Rval", ...]
    coord: Coord = _coord()


@attrs.frozen(slots=True)
class FnCall:
    name: str
    args: tuple["Rval", ...]
    coord: Coord = _coord()


@attrs.frozen(slots=True)
class Data:
    """An inline data container: ``data => '{ "a": 1 }'``."""

    value: Any = attrs.field(eq=False)
    text: str = attrs.field(eq=False, repr=False, default="")
    coord: Coord = _coord()
    # Equality is on the canonical JSON, so {"a":1} and { "a" : 1 } compare equal.
    canonical: str = attrs.field(default="")


Rval = Union[Scalar, List, FnCall, Data]


@attrs.frozen(slots=True)
class Constraint:
    """``lval => rval``.  ``line`` is where the rval ends (what cf-promises reports)."""

    lval: str
    rval: Rval
    coord: Coord = _coord()
    line: int = attrs.field(default=0, eq=False, repr=False)
    classes: str = "any"          # the class guard, for body constraints


@attrs.frozen(slots=True)
class Promise:
    promiser: str
    constraints: tuple[Constraint, ...] = ()
    promisee: Rval | None = None
    classes: str = "any"
    varclass: str | None = None   # a quoted guard: "$(x)"::
    coord: Coord = _coord()

    def get(self, lval: str) -> Constraint | None:
        for c in self.constraints:
            if c.lval == lval:
                return c
        return None


@attrs.frozen(slots=True)
class PromiseSection:
    """All promises of one promise type in a bundle (sections of the same type merge)."""

    name: str
    promises: tuple[Promise, ...]
    coord: Coord = _coord()


@attrs.frozen(slots=True)
class Bundle:
    type: str
    name: str
    args: tuple[str, ...] = ()
    sections: tuple[PromiseSection, ...] = ()
    namespace: str = "default"
    coord: Coord = _coord()

    @property
    def qualified_name(self) -> str:
        return f"{self.namespace}:{self.name}"

    def section(self, name: str) -> PromiseSection | None:
        for s in self.sections:
            if s.name == name:
                return s
        return None


@attrs.frozen(slots=True)
class Body:
    type: str
    name: str
    args: tuple[str, ...] = ()
    constraints: tuple[Constraint, ...] = ()
    namespace: str = "default"
    coord: Coord = _coord()

    @property
    def qualified_name(self) -> str:
        return f"{self.namespace}:{self.name}"


@attrs.frozen(slots=True)
class PromiseBlock:
    """A custom promise type declaration: ``promise agent NAME { path => ...; }``."""

    type: str
    name: str
    constraints: tuple[Constraint, ...] = ()
    namespace: str = "default"
    coord: Coord = _coord()


@attrs.frozen(slots=True)
class Policy:
    """One parsed file (or several merged)."""

    bundles: tuple[Bundle, ...] = ()
    bodies: tuple[Body, ...] = ()
    promise_blocks: tuple[PromiseBlock, ...] = ()
    path: str = attrs.field(default="", eq=False)

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
