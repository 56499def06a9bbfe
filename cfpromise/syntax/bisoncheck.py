"""The checks cf-promises' parser makes as it reduces, while it recovers from syntax errors.

When a file has a syntax error cf-promises' errors come from one run of its parser
(:mod:`cfpromise.syntax.bison`), and the checks in its grammar's actions are said
between its syntax errors, where its lexer stands when the rule is reduced:

* a bundle type it does not know ("Unknown bundle type"; any body type goes);
* an attribute its promise type (or body type) does not have ("Unknown attribute ...");
  from there it checks nothing more of the block (``INSTALL_SKIP``; also after a
  syntax error in a bundle's promises, until the bundle's ``}``);
* a constraint once its value is read: a name its promise type has not (the name of
  none when the constraint's name was a syntax error: "Unknown constraint 'no lval'",
  or '' before any), no value (an r-value that was a syntax error: "Attempted to give a
  value of type null"), a scalar for a list or a list for a scalar.

These are the shapes of cf-promises' checks (cf-lite's full ones, on a parsed policy,
are :mod:`cfpromise.schema.validate`'s); values themselves are not checked here.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

from cfpromise.schema import LIST_TYPES

_SHAPES = {"IDENTIFIER": "scalar", "QUOTED_STRING": "scalar", "NAKEDVAR": "scalar",
           "list": "list", "usefunction": "fncall"}


class Checks:
    """The parser's state its checks read (cf-promises' ``P``), fed each reduction."""

    def __init__(self, say: Callable[[str], None]) -> None:
        from cfpromise.schema import schema
        self.schema = schema()
        self.say = say
        self.blocktype = self.blockid = self.block = self.ptype = ""
        self.lval = ""
        self.rval = "null"
        self.skip = False
        self.lookahead: Any = None
        self.stale: Any = None

    def reduce(self, name: str, symbols: str, values: list[Any], lookahead: Any) -> None:
        """Production ``name: symbols`` reduced over ``values`` (a token's: its Token),
        the look-ahead token read (or None)."""
        method = _HOOKS.get((name, symbols))
        if method is not None:
            self.lookahead = lookahead
            method(self, values)

    # -- blocks ----------------------------------------------------------------
    def typeid(self, values: list[Any]) -> None:
        self.blocktype = values[0][1]

    def bundle_type(self, values: list[Any]) -> None:
        self.block = "bundle"
        if self.blocktype not in self.schema.bundle_types:
            self.say(f"Unknown bundle type '{self.blocktype}'")
            self.skip = True

    def body_begin(self, values: list[Any]) -> None:
        # (ParserBeginBlockBody forgets the identifier read last: one read already, as
        # the look-ahead of a syntax error, is named '' by the attribute it becomes)
        self.stale = self.lookahead

    def symbol(self, values: list[Any]) -> None:
        self.blockid = values[0][1]

    def skipping(self, values: list[Any]) -> None:
        self.skip = True

    def bundle_end(self, values: list[Any]) -> None:
        self.skip = False

    def read(self, token: Any) -> None:
        """The lexer gave ``token``: a promise type is the current one from there."""
        if token[0] == "PROMISE_TYPE":
            self.ptype = token[1]

    # -- constraints -----------------------------------------------------------
    def constraint_id(self, values: list[Any]) -> None:
        attrs = self._attrs()
        name = values[0][1]
        if attrs is not None and name not in attrs:
            self.say(f"Unknown attribute '{name}' for promise type '{self.ptype}' "
                     f"in bundle with type '{self.blocktype}'")
            self.skip = True
        self.lval = name

    def selection_id(self, values: list[Any]) -> None:
        name = "" if values[0] is self.stale else values[0][1]
        if not self.skip:
            attrs = self.schema.body_types.get(self.blocktype)
            if attrs is not None and name not in attrs:
                self.say(f"Unknown attribute '{name}' for 'body {self.blocktype} "
                         f"{self.blockid}'")
                self.skip = True
            self.lval = name

    def constraint(self, values: list[Any]) -> None:
        attrs = self._attrs()
        if not self.skip and attrs is not None:
            attr = attrs.get(self.lval)
            if attr is None:
                self.say(f"Unknown constraint '{self.lval}' in promise type '{self.ptype}'")
            else:
                self._shape(attr)
        self.rval = "null"
        self.lval = "no lval"

    def selection(self, values: list[Any]) -> None:
        attrs = self.schema.body_types.get(self.blocktype)
        if not self.skip and attrs is not None and self.lval in attrs:
            self._shape(attrs[self.lval])
        self.rval = "null"

    def _attrs(self) -> dict[str, Any] | None:
        """The attributes of the current promise type; None for one its bundle type has
        not (taken for a custom one)."""
        if self.ptype not in self.schema.bundle_types.get(self.blocktype, ()):
            return None
        return self.schema.promise_types.get(self.ptype)

    def _shape(self, attr: Any) -> None:
        # (a promise type's own attributes only, and no body or bundle reference: those
        # are checked once the policy is whole)
        if attr.visibility == "global" or attr.type in ("body", "bundle"):
            return
        if self.rval == "null":
            self.say("Attempted to give a value of type null")
        elif self.rval == "scalar" and attr.type in LIST_TYPES \
                and attr.visibility != "global":
            self.say("Attempted to give a scalar to a non-scalar type")
        elif self.rval == "list" and attr.type not in LIST_TYPES:
            self.say("Attempted to give a list to a non-list type")


def _rval_of(kind: str) -> Callable[[Checks, list[Any]], None]:
    def hook(self: Checks, values: list[Any]) -> None:
        self.rval = kind
    return hook


_HOOKS: dict[tuple[str, str], Callable[[Checks, list[Any]], None]] = {
    ("typeid", "IDENTIFIER"): Checks.typeid,
    ("bundletype_values", "typeid"): Checks.bundle_type,
    ("@bodybody", ""): Checks.body_begin,
    ("symbol", "IDENTIFIER"): Checks.symbol,
    ("bundleid_values", "error"): Checks.skipping,
    ("bodyid_values", "error"): Checks.skipping,
    ("promiseid_values", "error"): Checks.skipping,
    ("bundle_statements", "error"): Checks.skipping,
    ("promiser", "error"): Checks.skipping,
    ("bundlebody", "body_begin @bundlebody bundle_decl '}'"): Checks.bundle_end,
    ("constraint_id", "IDENTIFIER"): Checks.constraint_id,
    ("selection_id", "IDENTIFIER"): Checks.selection_id,
    ("constraint", "constraint_id assign_arrow rval"): Checks.constraint,
    ("selection", "selection_id assign_arrow rval"): Checks.selection,
    **{("rval", kind): _rval_of(shape) for kind, shape in _SHAPES.items()},
}
