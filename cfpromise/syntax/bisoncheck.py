"""The checks cf-promises' parser makes as it reduces, while it recovers from syntax errors.

When a file has a syntax error cf-promises' errors come from one run of its parser
(:mod:`cfpromise.syntax.bison`), and the checks in its grammar's actions are said
between its syntax errors, where its lexer stands when the rule is reduced.  They read
the parser's state (cf-promises' ``P``), which its lexer sets too (a promise type read
anywhere -- inside a call's arguments -- is the current one from there):

* a bundle type it does not know ("Unknown bundle type"; any body type goes; the
  bundle is checked all the same, its promise types as custom ones);
* an attribute its promise type (or body type) does not have ("Unknown attribute ...");
  from there it checks nothing more of the block (``INSTALL_SKIP``; also after a
  syntax error in a bundle's promises, until the bundle's ``}``; a bundle's or a
  body's ``{`` starts its checks again);
* a quoted value where the promise type's attribute wants a body, as it is read;
* a constraint once its value is read: a name no promise type it looks in has
  ("Unknown constraint": the name of none when the constraint's name was a syntax
  error, 'no lval'), then its value against its own promise type's attribute (no value:
  an r-value that was a syntax error, "Attempted to give a value of type null"); a
  body's value against the attribute its CheckSelection finds
  (:mod:`cfpromise.schema.selection`); then an ``if``'s class expression;
* a class guard, as it is reduced (:mod:`cfpromise.syntax.guards`).

A value is checked as :mod:`cfpromise.schema.validate` checks a parsed one (shape,
range, mode, number, menu...), as the parser's state holds it: a word the identifier
its lexer read last, a list's items and a call's arguments as each was reduced (those
that were syntax errors left out).  A body of ``file control``'s namespace must be a
scalar.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

from cfpromise.schema.deprecations import REMOVED_BODY_TYPES, marked_attributes, \
    removed_guard
from cfpromise.syntax import ast
from cfpromise.syntax.errors import Coord, Diagnostic

_KINDS = {"QSTRING": ast.QUOTED, "NAKEDVAR": ast.NAKED}
_WORDS = frozenset({"IDENTIFIER", "SYMBOL"})
_STRINGS = frozenset({"QSTRING", "NAKEDVAR"})
_CONDITIONS = ("if", "ifvarclass")
# the tokens whose reading sets or forgets the quoted guard over what follows
_GUARDING = frozenset({"VARCLASS", "CLASS", "PROMISE_TYPE", "BUNDLE", "BODY", "PROMISE"})
_MAGIC = ("data", "template_data")      # (a string there becomes a container or a call)
_HERE = Coord("", 1, 1)                 # (the checker's errors: said where the lexer is)


def _begin(block: str) -> Callable[[Checks, list[Any]], None]:
    def hook(self: Checks, values: list[Any]) -> None:
        self.block = block                  # (ParserBeginBlock: no name yet)
        self.blockid = ""
        self.rlist = []
        self.currentstring = None
    return hook


def _constraints(self: Checks, values: list[Any]) -> None:
    self.currentid = ""                     # (a promise's constraints read: all forgotten)
    self.currentstring = None
    self.rlist = []


class Checks:
    """The parser's state its checks read (cf-promises' ``P``), fed each reduction;
    a reduction's hook gives the value bison keeps for the rule (a list's items, a
    call...)."""

    def __init__(self, say: Callable[..., None], log: Callable[[Diagnostic], None]) -> None:
        from cfpromise.schema import schema
        self.schema = schema()
        self.say = say
        self.log = log
        self.block = self.blocktype = self.blockid = self.ptype = ""
        self.lval = ""
        self.rval: Any = None               # None: no value (RVAL_TYPE_NOPROMISEE)
        self.promise_type: str | None = None    # P.currentpromise's promise type
        self.skip = False
        self.currentid = ""
        self.currentstring: str | None = None
        self.rlist: list[Any] = []              # P.currentRlist
        self.args: list[list[Any]] = []         # P.giveargs, by nesting
        self.varclass: str | None = None
        self._checker: Any = None
        self._anywhere: dict[str, Any] | None = None

    def reduce(self, name: str, symbols: str, values: list[Any], lookahead: Any) -> Any:
        """Production ``name: symbols`` reduced over ``values`` (a token's: its Token;
        a rule's: what its hook gave); ``lookahead``: the token read (or None), which
        the state read at :meth:`read` already accounts for."""
        method = _HOOKS.get((name, symbols))
        if method is not None:
            return method(self, values)
        return None

    def read(self, token: Any) -> None:
        """The lexer gave ``token``: a promise type is the current one from there, a
        word the identifier read last, a string (or a naked variable) the string."""
        kind = token[0]
        if kind in _GUARDING:               # (P.currentvarclasses: a quoted guard's text)
            self.varclass = token[1] if kind == "VARCLASS" else None
        if kind == "PROMISE_TYPE":
            self.ptype = token[1]
        elif kind in _WORDS:
            self.currentid = token[1]
        elif kind in _STRINGS:
            self.currentstring = token[1]

    # -- blocks ----------------------------------------------------------------
    def typeid(self, values: list[Any]) -> None:
        self.blocktype = self.currentid

    def bundle_type(self, values: list[Any]) -> None:
        if self.blocktype not in self.schema.bundle_types:
            self.say(f"Unknown bundle type '{self.blocktype}'")
            self.skip = True

    def body_begin(self, values: list[Any]) -> None:
        # (ParserBeginBlockBody forgets the identifier read last -- one read already, as
        # the look-ahead of a syntax error, is named '' by the attribute it becomes --
        # and checks a body of any type, an unknown one a custom body, from here; a
        # promise block of another component than the agent's is none)
        self.currentid = ""
        if self.block == "body" and self.blocktype in REMOVED_BODY_TYPES:
            self.say(f"Removed body '{self.blockid}' of type '{self.blocktype}' [-Wremoved]",
                     warning=True)
            self.skip = True
        elif self.block == "body":
            self.skip = False
        elif self.block == "promise" and self.blocktype != "agent":
            self.say(f"Invalid body type '{self.blocktype}'")
            self.skip = True

    def promise_id(self, values: list[Any]) -> None:
        if self.blockid in self.schema.promise_types:
            self.say(f"'{self.blockid}' promises are built in and cannot be custom")

    def promise_component(self, values: list[Any]) -> None:
        if self.blocktype != "agent":
            self.say(f"Custom promises only supported for 'agent', not '{self.blocktype}'")

    def bundle_begin(self, values: list[Any]) -> None:
        # (ParserBeginBundleBody: cf-promises installs every bundle, of a type it knows
        # or not, and checks it from here)
        self.skip = False

    def symbol(self, values: list[Any]) -> None:
        self.blockid = self.currentid

    def skipping(self, values: list[Any]) -> None:
        self.skip = True

    def bundle_end(self, values: list[Any]) -> None:
        self.skip = False

    def promise_guard(self, values: list[Any]) -> None:
        """ParserHandlePromiseGuard: a removed promise type is warned of, and skipped
        with the rest of the bundle (cfpromise.schema.deprecations)."""
        if removed_guard(self.blocktype, self.ptype):
            self.say(f"Removed promise type '{self.ptype}' in bundle type "
                     f"'{self.blocktype}' [-Wremoved]", warning=True)
            self.skip = True

    def promiser(self, values: list[Any]) -> None:
        self.promise_type = None if self.skip else self.ptype

    # -- values ----------------------------------------------------------------
    # (as cf-promises' parser keeps them: a word is the identifier its lexer read last,
    # a string the string -- the look-ahead's, when the rule needed one; a list's items
    # and a call's arguments are appended as each is reduced, whatever the recovery
    # does with the rules around them, until the list or the call is taken whole)
    def list_item(self, values: list[Any]) -> None:
        item = self._item(values[0])
        if item is not None:
            self.rlist.append(item)

    def argument(self, values: list[Any]) -> None:
        item = self._item(values[0])
        if item is not None and self.args:
            self.args[-1].append(item)

    def arguments_begin(self, values: list[Any]) -> None:
        self.args.append([])

    def arguments(self, values: list[Any]) -> list[Any]:
        self.currentid = ""
        return self.args.pop() if self.args else []

    def call(self, values: list[Any]) -> ast.FnCall:
        return ast.FnCall(values[0] or "", tuple(values[1] or ()), _HERE)

    def name_of(self, values: list[Any]) -> str:
        return values[0][1]

    def rval_token(self, values: list[Any]) -> None:
        self.rval = self._last(values[0])
        if values[0][0] == "QSTRING" and self.promise_type is not None:
            attr = self.schema.promise_types.get(self.promise_type, {}).get(self.lval)
            if attr is not None and attr.type == "body":
                self.say("An rvalue is quoted, but we expect an unquoted body identifier")

    def rval_list(self, values: list[Any]) -> None:
        self.rval = ast.List(tuple(self.rlist), _HERE)
        self.rlist = []

    def rval_call(self, values: list[Any]) -> None:
        self.rval = values[0]

    def _item(self, value: Any) -> Any:
        """A list item's or an argument's value: a call's, or its token's."""
        return value if value is None or value.__class__ is ast.FnCall else self._last(value)

    def _last(self, tok: Any) -> ast.Scalar | None:
        """The value of the word or string token ``tok`` as the parser's state has it."""
        if tok[0] in ("QSTRING", "NAKEDVAR"):
            text = self.currentstring
            self.currentstring = None
        else:
            text = self.currentid
        if text is None:
            return None
        kind = _KINDS.get(tok[0], ast.BARE)
        return ast.Scalar(text, kind, _HERE, (tok[4] or '"') if kind is ast.QUOTED else "")

    # -- constraints -----------------------------------------------------------
    def constraint_id(self, values: list[Any]) -> None:
        own = self._promise_attrs()
        name = self.currentid
        self.rlist = []
        if own is not None and self._attribute(own, name) is None:
            self.say(f"Unknown attribute '{name}' for promise type '{self.ptype}' "
                     f"in bundle with type '{self.blocktype}'")
            self.skip = True
        self.lval = name

    def selection_id(self, values: list[Any]) -> None:
        name = self.currentid
        self.rlist = []
        if not self.skip:
            attrs = self._body_attrs()
            if attrs is not None and name not in attrs:
                self.say(f"Unknown attribute '{name}' for '{self.block} {self.blocktype} "
                         f"{self.blockid}'")
                self.skip = True
            self.lval = name

    def constraint(self, values: list[Any]) -> None:
        """ParserHandleBundlePromiseRval."""
        own = self._promise_attrs()
        if not self.skip:
            attr = None if own is None else self._attribute(own, self.lval)
            if own is None:
                self._condition()
            elif attr is None:
                self.say(f"Unknown constraint '{self.lval}' in promise type '{self.ptype}'")
            else:
                if attr.visibility == "promiseType" and attr.type not in ("body", "bundle"):
                    self._value(attr)
                self._condition()
        self.rval = None
        self.lval = "no lval"
        self.rlist = []

    def selection(self, values: list[Any]) -> None:
        """ParserHandleBlockAttributeRval."""
        attrs = self._body_attrs()
        status = marked_attributes(self.schema, self.blocktype).get(self.lval) \
            if self.block == "body" and not self.skip and attrs is not None else None
        if status is not None:
            word, flag = ("Removed", "removed") if status == "removed" else \
                ("Deprecated", "deprecated")
            where = "promise type" if status == "removed" else "body type"
            self.say(f"{word} constraint '{self.lval}' in {where} '{self.blocktype}' "
                     f"[-W{flag}]", warning=True)
        if not self.skip and attrs is not None and self.lval in attrs \
                and status != "removed":
            from cfpromise.schema.selection import selection
            target, refused = (attrs[self.lval], None) if self.block == "promise" else \
                selection(self.schema, self.blocktype, self.blockid, self.lval)
            if refused is not None:
                self.say(refused)
            elif target.type not in ("body", "bundle"):
                self._value(target)
            self._condition()
        if not self.skip and self.varclass is not None \
                and (attrs is None or self.lval in attrs):
            from cfpromise.schema.selection import VARCLASS
            self.say(VARCLASS.format(self.varclass))
        if (self.blockid, self.blocktype, self.lval) == ("control", "file", "namespace") \
                and not isinstance(self.rval, ast.Scalar):
            self.say("namespace must be a constant scalar string")
        self.rval = None

    def _promise_attrs(self) -> dict[str, Any] | None:
        """The attributes of the current promise type; None for one neither its bundle
        type nor the common one has (taken for a custom one)."""
        types = self.schema.bundle_types
        if self.ptype not in types.get(self.blocktype, ()) \
                and self.ptype not in types.get("common", ()) \
                and not removed_guard(self.blocktype, self.ptype):
            return None
        return self.schema.promise_types.get(self.ptype)

    def _attribute(self, own: dict[str, Any], lval: str) -> Any:
        """PromiseTypeSyntaxGetConstraintSyntax: the promise type's own attribute, else
        one of a promise type every bundle has."""
        attr = own.get(lval)
        if attr is None:
            if self._anywhere is None:
                types = self.schema.promise_types
                self._anywhere = {name: a for ptype in self.schema.bundle_types["common"]
                                  for name, a in types.get(ptype, {}).items()}
            attr = self._anywhere.get(lval)
        return attr

    def _body_attrs(self) -> dict[str, Any] | None:
        """The attributes of the current body's type (a promise block's: its own); None:
        a custom body type."""
        if self.block == "promise":
            from cfpromise.schema.selection import promise_block_attributes
            return promise_block_attributes() if self.blocktype == "agent" else None
        return self.schema.body_types.get(self.blocktype)

    def _value(self, attr: Any) -> None:
        """CheckConstraintTypeMatch of the value read (yyerror: where the lexer stands)."""
        rval = self.rval
        if rval is None:
            self.say("Attempted to give a value of type null")
            return
        if isinstance(rval, ast.Scalar) and self.lval in _MAGIC:
            return
        if self._checker is None:
            from cfpromise.schema.validate import _Checker
            self._checker = _Checker(self.schema)
        checker = self._checker
        checker.errors = []
        checker.rval(self.lval, rval, attr, _HERE)
        for d in checker.errors:
            if d.coord.line == 0:
                self.log(d)             # (a plain log line: the parser's own words)
            else:
                self.say(d.message)

    def _condition(self) -> None:
        """ValidateClassLiteral of an ``if``'s literal, at the character it stops at."""
        rval = self.rval
        if self.lval in _CONDITIONS and isinstance(rval, ast.Scalar):
            from cfpromise.syntax import classexpr
            at = classexpr.literal_failure(rval.value)
            if at is not None:
                self.say("Syntax error in context string", offset=at - len(rval.value))

    def guard(self, values: list[Any]) -> None:
        """ValidateClassLiteral of a class guard as it is reduced (a quoted one is not
        checked): :mod:`cfpromise.syntax.guards`."""
        tok = values[0]
        if tok is not None and tok[0] == "CLASS":
            from cfpromise.syntax import guards
            at = guards.failure(tok[1])
            if at is not None:
                self.say(guards.MESSAGE, offset=guards.offset(tok[1], at))


_HOOKS: dict[tuple[str, str], Callable[[Checks, list[Any]], Any]] = {
    ("typeid", "IDENTIFIER"): Checks.typeid,
    ("bundletype", "bundletype_values"): _begin("bundle"),
    ("bodytype", "bodytype_values"): _begin("body"),
    ("promisecomponent", "promisecomponent_values"): _begin("promise"),
    ("bundletype_values", "typeid"): Checks.bundle_type,
    ("promisecomponent_values", "typeid"): Checks.promise_component,
    ("@bodybody", ""): Checks.body_begin,
    ("@bundlebody", ""): Checks.bundle_begin,
    ("symbol", "IDENTIFIER"): Checks.symbol,
    ("promiseid", "promiseid_values"): Checks.promise_id,
    ("bundleid_values", "error"): Checks.skipping,
    ("bodyid_values", "error"): Checks.skipping,
    ("promiseid_values", "error"): Checks.skipping,
    ("bundle_statements", "error"): Checks.skipping,
    ("promiser", "error"): Checks.skipping,
    ("@promisee", ""): Checks.promiser,
    ("@nopromisee", ""): Checks.promiser,
    ("bundlebody", "body_begin @bundlebody bundle_decl '}'"): Checks.bundle_end,
    ("promise_guard", "PROMISE_GUARD"): Checks.promise_guard,
    ("constraint_id", "IDENTIFIER"): Checks.constraint_id,
    ("selection_id", "IDENTIFIER"): Checks.selection_id,
    ("constraint", "constraint_id assign_arrow rval"): Checks.constraint,
    ("constraints_decl", "constraints"): _constraints,
    ("selection", "selection_id assign_arrow rval"): Checks.selection,
    ("class", "CLASS_GUARD"): Checks.guard,
    **{("rval", kind): Checks.rval_token for kind in ("IDENTIFIER", "QUOTED_STRING",
                                                     "NAKEDVAR")},
    ("rval", "list"): Checks.rval_list,
    ("rval", "usefunction"): Checks.rval_call,
    **{("litem", kind): Checks.list_item for kind in ("IDENTIFIER", "QUOTED_STRING",
                                                      "NAKEDVAR", "usefunction")},
    **{("gaitem", kind): Checks.argument for kind in ("IDENTIFIER", "QUOTED_STRING",
                                                      "NAKEDVAR", "usefunction")},
    ("@givearglist", ""): Checks.arguments_begin,
    ("functionid", "IDENTIFIER"): Checks.name_of,
    ("functionid", "NAKEDVAR"): Checks.name_of,
    ("givearglist", "'(' @givearglist gaitems ')'"): Checks.arguments,
    ("usefunction", "functionid givearglist"): Checks.call,
}
