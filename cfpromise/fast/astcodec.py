"""The policy AST as nested tuples of plain values, for ``marshal``, and back.

The agent's policy cache (:mod:`cfpromise.fast.policycache`) keeps each parsed
file.  Pickling the tree called a Python ``__reduce__`` for each of its nodes and
Coords (about 3,000 for masterfiles' lib/files.cf) and went through pickle's
memo: 16 M instructions to write, 14 M to read back, a tenth of a cold
``cf-lite-promises`` check.  Here each node becomes a tuple of its fields, with
one hand-written function per node class, and marshal writes and reads the
tuples in C: writing costs a third of pickling, reading a little less than
unpickling (the nodes are rebuilt with ``object.__new__`` and their slots'
setters, as :mod:`cfpromise.syntax.rdparse` builds them: ``ast.make_*``).  And marshal builds
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
                                  PromiseBlock, PromiseSection, Scalar, make_body, make_bundle,
                                  make_call, make_constraint, make_promise, make_promise_block,
                                  make_section, setters)
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


# --- decoding: the nodes made as the parser makes them (ast.make_*, see there) ----------------

_S_VALUE, _S_KIND, _S_COORD, _S_QUOTE = setters(Scalar)


def _rval_of(t: tuple[Any, ...]) -> Rval:
    tag = t[0]
    if tag == SCALAR:                     # the most common node: set inline
        _, value, kind, coord, quote = t
        node = _new(Scalar)
        _S_VALUE(node, value)
        _S_KIND(node, kind)
        _S_COORD(node, _coord(Coord, coord))
        _S_QUOTE(node, quote)
        return node
    if tag == FNCALL:
        _, name, args, coord = t
        return make_call(name, tuple(map(_rval_of, args)), _coord(Coord, coord))
    if tag == LIST:                       # rarer: the constructors do
        _, items, coord = t
        return List(tuple(map(_rval_of, items)), _coord(Coord, coord))
    if tag == DATA:
        _, value, text, coord, canonical = t
        return Data(value, text, _coord(Coord, coord), canonical)
    raise ValueError(f"not an rval: {t!r:.80}")


def _constraint_of(t: tuple[Any, ...]) -> Constraint:
    lval, rval, coord, line, classes = t
    return make_constraint(lval, _rval_of(rval), _coord(Coord, coord), line, classes)


def _promise_of(t: tuple[Any, ...]) -> Promise:
    promiser, constraints, promisee, classes, varclass, coord = t
    return make_promise(promiser, tuple(map(_constraint_of, constraints)),
                        None if promisee is None else _rval_of(promisee), classes, varclass,
                        _coord(Coord, coord))


def _section_of(t: tuple[Any, ...]) -> PromiseSection:
    name, promises, coord = t
    return make_section(name, tuple(map(_promise_of, promises)), _coord(Coord, coord))


def _bundle_of(t: tuple[Any, ...]) -> Bundle:
    type_, name, args, sections, namespace, coord = t
    return make_bundle(type_, name, tuple(args), tuple(map(_section_of, sections)), namespace,
                       _coord(Coord, coord))


def _body_of(t: tuple[Any, ...]) -> Body:
    type_, name, args, constraints, namespace, coord = t
    return make_body(type_, name, tuple(args), tuple(map(_constraint_of, constraints)),
                     namespace, _coord(Coord, coord))


def _block_of(t: tuple[Any, ...]) -> PromiseBlock:
    type_, name, constraints, namespace, coord = t
    return make_promise_block(type_, name, tuple(map(_constraint_of, constraints)), namespace,
                              _coord(Coord, coord))


def decode(t: tuple[Any, ...]) -> Policy:
    """The Policy that :func:`encode` gave ``t`` for."""
    bundles, bodies, blocks, path = t
    return Policy(tuple(map(_bundle_of, bundles)), tuple(map(_body_of, bodies)),
                  tuple(map(_block_of, blocks)), path)
