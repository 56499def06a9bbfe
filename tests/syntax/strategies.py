"""Hypothesis strategies for policy ASTs (generated as trees, not text).

Every AST drawn here is one the parser could have produced: bundles of real
bundle types holding promise types valid for them, class guards from a small
class-expression grammar, promisers and strings full of quotes, backslashes,
newlines, ``::`` and non-ASCII text, and rvals of every kind in the places the
grammar allows them (a list holds scalars and calls, never another list).
Attribute names are valid or not: the parser does not validate them.  The only
care taken is the parser's own conversions: a quoted or naked string given to a
``data`` attribute becomes a container, so those attributes get :class:`ast.Data`
(or a bare name, list or call) and nothing else.
"""
from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from cfpromise.schema import schema
from cfpromise.syntax import ast
from cfpromise.syntax.lexer import RESERVED
from cfpromise.syntax.parser import canonical_json

DATA_LVALS = schema().data_lvals()

_SCHEMA = schema()
BUNDLE_TYPES: dict[str, list[str]] = {k: sorted(v) for k, v in _SCHEMA.bundle_types.items()}
BODY_TYPES = sorted(_SCHEMA.body_types)
KNOWN_LVALS = sorted({a for attrs_ in _SCHEMA.promise_types.values() for a in attrs_} - DATA_LVALS)

# --- names -------------------------------------------------------------------------------------

_FIRST = "abcdefghijklmnopqrstuvwxyz_"
_REST = _FIRST + "ABCXYZ0123456789"
identifiers = st.one_of(
    st.builds(lambda a, b: a + b, st.sampled_from(_FIRST), st.text(_REST, max_size=8)),
    st.sampled_from(["x", "main", "9lives", "é", "名前", "a\udc80b", "any", "control", "default"]),
).filter(lambda s: s not in RESERVED)
symbols = st.builds(lambda ns, name: f"{ns}:{name}", identifiers, identifiers)
bare_names = st.one_of(identifiers, symbols)
namespaces = st.one_of(st.just("default"), identifiers)
lvals = st.one_of(st.sampled_from(KNOWN_LVALS), identifiers).filter(lambda s: s not in DATA_LVALS)

# --- strings -------------------------------------------------------------------------------------

FRAGMENTS = ['"', "'", "`", "\\", "\\\\", "\n", "\r\n", "::", '"::', "'::", "$(x)", "${y}",
             "@(l)", "\\n", "\\\n", "#", ";", ",", "{", "}", "é", "名", "\U0001f600", "\x00",
             "\t", " ", "\udc80", "--- ", "@if ", "=>", "->"]
strings = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)),
                   max_size=8).map("".join)

# --- class guards ------------------------------------------------------------------------------------

# (cf-promises' parser refuses "&&", "!!" and a blank inside parentheses in a guard, and
# reads no further than a blank outside them: cfpromise.syntax.guards)
_OPS = [".", "&", "|", "||"]


def _binary(children: Any) -> Any:
    return st.one_of(
        st.builds(lambda a, op, b: a + op + b, children, st.sampled_from(_OPS), children),
        children.map(lambda e: "!(" + e + ")" if e.startswith("!") else "!" + e),
        children.map(lambda e: "(" + e + ")"),
    )


class_expressions = st.recursive(
    # (a guard's class name starts with an ASCII letter, digit, '_' or ':': 'é::' is refused)
    st.one_of(identifiers.filter(str.isascii),
              st.sampled_from(["any", "linux", "cfengine_3", "!windows"])),
    _binary, max_leaves=5)
# A "$(x)":: guard's text is raw: anything but NUL that does not hold both quotes.
var_classes = st.one_of(st.sampled_from(["$(x)", "${c}.linux", "$(x)|$(y)", ""]), strings).filter(
    lambda s: "\x00" not in s and not ('"' in s and "'" in s))

# --- rvals -------------------------------------------------------------------------------------------

naked_vars = st.builds(
    lambda sigil, brackets, name, tail: f"{sigil}{brackets[0]}{name}{tail}{brackets[1]}",
    st.sampled_from("$@"), st.sampled_from(["()", "{}"]), bare_names,
    st.sampled_from(["", ".field", "[key]", "[$(i)]"]))

scalars = st.one_of(
    strings.map(ast.Scalar),
    bare_names.map(lambda s: ast.Scalar(s, ast.BARE)),
    naked_vars.map(lambda s: ast.Scalar(s, ast.NAKED)),
)
function_names = st.one_of(st.sampled_from(["concat", "and", "not", "ifelse", "lsdir"]), bare_names,
                           naked_vars)
calls = st.recursive(
    st.builds(lambda n: ast.FnCall(n, ()), function_names),
    lambda args: st.builds(lambda n, a: ast.FnCall(n, tuple(a)), function_names,
                           st.lists(st.one_of(scalars, args), max_size=4)),
    max_leaves=6)
lists = st.lists(st.one_of(scalars, calls), max_size=12).map(lambda items: ast.List(tuple(items)))
rvals = st.one_of(scalars, lists, calls)

json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
              strings),
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(strings, children, max_size=4)),
    max_leaves=8)
data_values = st.one_of(st.lists(json_values, max_size=4), st.dictionaries(strings, json_values, max_size=4))
data = data_values.map(lambda v: ast.Data(v, "", canonical=canonical_json(v)))
# What a data attribute may hold after the parser's conversion.
data_rvals = st.one_of(data, bare_names.map(lambda s: ast.Scalar(s, ast.BARE)), lists, calls)

# --- promises and blocks -------------------------------------------------------------------------------------


@st.composite
def promise_constraints(draw: Any) -> tuple[ast.Constraint, ...]:
    names = draw(st.lists(st.one_of(lvals, st.sampled_from(sorted(DATA_LVALS))), max_size=4, unique=True))
    return tuple(ast.Constraint(n, draw(data_rvals if n in DATA_LVALS else rvals)) for n in names)


@st.composite
def promises(draw: Any) -> ast.Promise:
    varclass = draw(var_classes) if draw(st.integers(0, 4)) == 0 else None
    classes = "any" if varclass is not None else draw(st.just("any") | class_expressions)
    return ast.Promise(draw(strings), draw(promise_constraints()), draw(st.none() | rvals),
                       classes, varclass)


@st.composite
def bundles(draw: Any) -> ast.Bundle:
    btype = draw(st.sampled_from(sorted(BUNDLE_TYPES)))
    names = draw(st.lists(st.sampled_from(BUNDLE_TYPES[btype]), max_size=3, unique=True))
    sections = tuple(ast.PromiseSection(n, tuple(draw(st.lists(promises(), max_size=3)))) for n in names)
    return ast.Bundle(btype, draw(identifiers), tuple(draw(st.lists(identifiers, max_size=3))),
                      sections, draw(namespaces))


@st.composite
def guarded_constraints(draw: Any) -> tuple[ast.Constraint, ...]:
    """Body attributes: each with a guard; (lval, guard) pairs are unique, as the parser keeps them."""
    pairs = draw(st.lists(st.tuples(lvals, st.just("any") | class_expressions), max_size=5,
                          unique=True))
    return tuple(ast.Constraint(lval, draw(rvals), classes=guard) for lval, guard in pairs)


@st.composite
def bodies(draw: Any) -> ast.Body:
    if draw(st.integers(0, 5)) == 0:       # body file control: switches the namespace
        switch = ast.Constraint("namespace", ast.Scalar(draw(st.one_of(identifiers, strings))))
        return ast.Body("file", "control", (), (switch,), draw(namespaces))
    btype = draw(st.one_of(st.sampled_from(BODY_TYPES), identifiers))
    name = draw(identifiers.filter(lambda n: not (btype == "file" and n == "control")))
    return ast.Body(btype, name, tuple(draw(st.lists(identifiers, max_size=3))),
                    draw(guarded_constraints()), draw(namespaces))


promise_blocks = st.builds(lambda t, n, c, ns: ast.PromiseBlock(t, n, c, ns),
                           st.sampled_from(["agent"]) | identifiers, identifiers,
                           guarded_constraints(), namespaces)

policies = st.builds(lambda b, d, p: ast.Policy(tuple(b), tuple(d), tuple(p)),
                     st.lists(bundles(), max_size=3), st.lists(bodies(), max_size=3),
                     st.lists(promise_blocks, max_size=2))
