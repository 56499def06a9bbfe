"""The policy AST as nested tuples of plain values, for ``marshal``, and back.

The agent's policy cache (:mod:`cfpromise.agent.policycache`) keeps each parsed
file.  Pickling the tree called a Python ``__reduce__`` for each of its nodes and
Coords (about 3,000 for masterfiles' lib/files.cf) and went through pickle's
memo: 16 M instructions to write, 14 M to read back, a tenth of a cold
``cf-lite-promises`` check.  Here each node becomes a tuple of its fields, with
one hand-written function per node class, and marshal writes and reads the
tuples in C: writing costs a third of pickling, reading a little less than
unpickling (the many small nodes are rebuilt with ``object.__new__`` and their
slots' setters, as :mod:`cfpromise.syntax.rdparse` builds them).  And marshal builds
only values, never calls anything, where an unpickler can be made to call any
function it can name.

Shapes (a Coord is its 4-tuple, ``c`` below)::

    Policy        (bundles, bodies, promise_blocks, path)
    Bundle        (type, name, args, sections, namespace, c)
    PromiseSection (name, promises, c)
    Promise       (promiser, constraints, promisee or None, classes, varclass, c)
    Body          (type, name, args, constraints, namespace, c)
    PromiseBlock  (type, name, constraints, namespace, c)
    Constraint    (lval, rval, c, line, classes)
    an rval       (SCALAR, value, kind, c, quote)   (LIST, items, c)
                  (FNCALL, name, args, c)           (DATA, value, text, c, canonical)

The tree has no shared nodes (the parser makes each one once), so nothing is
lost by not keeping identities.  :func:`decode` raises (TypeError, ValueError,
IndexError) on anything that is not such a tree.
"""
from __future__ import annotations

from cfpromise.syntax.ast import (Body, Bundle, Constraint, Data, FnCall, List, Policy, Promise,
                                  PromiseBlock, PromiseSection, Scalar)
from cfpromise.syntax.errors import Coord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cfpromise.syntax.ast import Rval

SCALAR, LIST, FNCALL, DATA = 0, 1, 2, 3

_new = object.__new__
_coord = tuple.__new__           # _coord(Coord, (file, line, col, cf)): the Coord, in C


# --- encoding --------------------------------------------------------------------------------

def _rval(r: Rval) -> tuple[Any, ...]:
    cls = r.__class__
    if cls is Scalar:
        return (SCALAR, r.value, r.kind, tuple(r.coord), r.quote)
    if cls is FnCall:
        return (FNCALL, r.name, tuple(map(_rval, r.args)), tuple(r.coord))
    if cls is List:
        return (LIST, tuple(map(_rval, r.items)), tuple(r.coord))
    if cls is Data:
        return (DATA, r.value, r.text, tuple(r.coord), r.canonical)
    raise TypeError(f"not an rval: {r!r}")


def _constraint(c: Constraint) -> tuple[Any, ...]:
    return (c.lval, _rval(c.rval), tuple(c.coord), c.line, c.classes)


def _promise(p: Promise) -> tuple[Any, ...]:
    promisee = p.promisee
    return (p.promiser, tuple(map(_constraint, p.constraints)),
            None if promisee is None else _rval(promisee), p.classes, p.varclass, tuple(p.coord))


def _section(s: PromiseSection) -> tuple[Any, ...]:
    return (s.name, tuple(map(_promise, s.promises)), tuple(s.coord))


def _bundle(b: Bundle) -> tuple[Any, ...]:
    return (b.type, b.name, b.args, tuple(map(_section, b.sections)), b.namespace, tuple(b.coord))


def _body(b: Body) -> tuple[Any, ...]:
    return (b.type, b.name, b.args, tuple(map(_constraint, b.constraints)), b.namespace,
            tuple(b.coord))


def _block(b: PromiseBlock) -> tuple[Any, ...]:
    return (b.type, b.name, tuple(map(_constraint, b.constraints)), b.namespace, tuple(b.coord))


def encode(policy: Policy) -> tuple[Any, ...]:
    """``policy`` as nested tuples that marshal can write (see the module docstring)."""
    return (tuple(map(_bundle, policy.bundles)), tuple(map(_body, policy.bodies)),
            tuple(map(_block, policy.promise_blocks)), policy.path)


# --- decoding: the many small nodes through their slots' setters, in field order ---------------

def _setters(cls: type, fields: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(getattr(cls, name).__set__ for name in fields)


_S_VALUE, _S_KIND, _S_COORD, _S_QUOTE = _setters(Scalar, Scalar._fields)
_L_ITEMS, _L_COORD = _setters(List, List._fields)
_F_NAME, _F_ARGS, _F_COORD = _setters(FnCall, FnCall._fields)
_C_LVAL, _C_RVAL, _C_COORD, _C_LINE, _C_CLASSES = _setters(Constraint, Constraint._fields)
_P_PROMISER, _P_CONSTRAINTS, _P_PROMISEE, _P_CLASSES, _P_VARCLASS, _P_COORD = \
    _setters(Promise, Promise._fields)


def _rval_of(t: tuple[Any, ...]) -> Rval:
    tag = t[0]
    if tag == SCALAR:
        _, value, kind, coord, quote = t
        node = _new(Scalar)
        _S_VALUE(node, value)
        _S_KIND(node, kind)
        _S_COORD(node, _coord(Coord, coord))
        _S_QUOTE(node, quote)
    elif tag == FNCALL:
        _, name, args, coord = t
        node = _new(FnCall)
        _F_NAME(node, name)
        _F_ARGS(node, tuple(map(_rval_of, args)))
        _F_COORD(node, _coord(Coord, coord))
    elif tag == LIST:
        _, items, coord = t
        node = _new(List)
        _L_ITEMS(node, tuple(map(_rval_of, items)))
        _L_COORD(node, _coord(Coord, coord))
    elif tag == DATA:                     # rare (inline JSON): the constructor does
        _, value, text, coord, canonical = t
        node = Data(value, text, _coord(Coord, coord), canonical)
    else:
        raise ValueError(f"not an rval: {t!r:.80}")
    return node


def _constraint_of(t: tuple[Any, ...]) -> Constraint:
    lval, rval, coord, line, classes = t
    node = _new(Constraint)
    _C_LVAL(node, lval)
    _C_RVAL(node, _rval_of(rval))
    _C_COORD(node, _coord(Coord, coord))
    _C_LINE(node, line)
    _C_CLASSES(node, classes)
    return node


def _promise_of(t: tuple[Any, ...]) -> Promise:
    promiser, constraints, promisee, classes, varclass, coord = t
    node = _new(Promise)
    _P_PROMISER(node, promiser)
    _P_CONSTRAINTS(node, tuple(map(_constraint_of, constraints)))
    _P_PROMISEE(node, None if promisee is None else _rval_of(promisee))
    _P_CLASSES(node, classes)
    _P_VARCLASS(node, varclass)
    _P_COORD(node, _coord(Coord, coord))
    return node


# Sections, bundles, bodies and promise blocks are few (a few hundred per file): their
# constructors do.
def _section_of(t: tuple[Any, ...]) -> PromiseSection:
    name, promises, coord = t
    return PromiseSection(name, tuple(map(_promise_of, promises)), _coord(Coord, coord))


def _bundle_of(t: tuple[Any, ...]) -> Bundle:
    type_, name, args, sections, namespace, coord = t
    return Bundle(type_, name, tuple(args), tuple(map(_section_of, sections)), namespace,
                  _coord(Coord, coord))


def _body_of(t: tuple[Any, ...]) -> Body:
    type_, name, args, constraints, namespace, coord = t
    return Body(type_, name, tuple(args), tuple(map(_constraint_of, constraints)), namespace,
                _coord(Coord, coord))


def _block_of(t: tuple[Any, ...]) -> PromiseBlock:
    type_, name, constraints, namespace, coord = t
    return PromiseBlock(type_, name, tuple(map(_constraint_of, constraints)), namespace,
                        _coord(Coord, coord))


def decode(t: tuple[Any, ...]) -> Policy:
    """The Policy that :func:`encode` gave ``t`` for."""
    bundles, bodies, blocks, path = t
    return Policy(tuple(map(_bundle_of, bundles)), tuple(map(_body_of, bodies)),
                  tuple(map(_block_of, blocks)), path)
