"""Parse-time checks: what cf-promises rejects on every run, before any evaluation.

* bundle types must exist; a built-in promise type must belong to the bundle type;
* every attribute must exist for its promise type or body type;
* the rval's shape must fit the attribute's type (no list for a scalar, no
  scalar for a list, no quoted string for a body reference), a function must
  exist and return a compatible type, and literals must parse (ints, reals,
  menu options, class expressions);
* a vars promise has a single type.

These are the parser's errors (file:line:col at the parser's position, with the source
line), said in the order of the file; the check cf-promises makes of a file only once
it parsed without error is :mod:`cfpromise.schema.partial` (reserved bundle names,
promisers, a vars promise's second type, handles...), collected here in its order and
said only when the parser found nothing.

Promise types the schema does not know are custom promise types and are left
to the custom promise checks.  The full ``-c`` check (undefined bodies and
bundles, argument counts, duplicate handles) is :mod:`cfpromise.schema.check`.
"""
from __future__ import annotations

from cfpromise.schema import LIST_TYPES, Attribute, Schema, partial, schema
from cfpromise.schema.check import duplicates
from cfpromise.schema.deprecations import REMOVED_BODY_TYPES, hidden, installed, \
    marked_attributes, removed_from, removed_guard
from cfpromise.schema.rvalend import after_rval
from cfpromise.schema.selection import VARCLASS, promise_block_attributes, selection
from cfpromise.schema.typematch import compiled_range, type_match
from cfpromise.schema.values import CHECKERS, ValueError_, is_unexpanded
from cfpromise.syntax import ast, classexpr
from cfpromise.syntax.errors import Coord, Diagnostic, PolicyError
from cfpromise.syntax.varstring import BROKEN, naked, walk

# lvals whose function-call-looking rval is a parameterised bundle, not a function.
BUNDLE_CALL_LVALS = frozenset({"bundlesequence", "edit_line", "edit_xml", "usebundle",
                               "service_bundle", "home_bundle"})
VAR_TYPES = ("string", "int", "real", "slist", "ilist", "rlist", "data")

# A function returning `have` may stand where the attribute wants `want`.
# (a function returning a string or a class is no option -- create, action_policy,
# useshell: "Function does not return the required type", as cf-promises says)
_COMPATIBLE = {("string", "slist"), ("string", "context"), ("context", "string"),
               ("int", "ilist"), ("real", "rlist"), ("option", "olist"), ("context", "clist"),
               ("string", "clist"),
               ("string", "bundle"), ("string", "body"), ("int", "string"), ("real", "string")}
ABSPATH_RANGE = '"?(/.*)'
# the number types a literal is checked as (a list's items as its item type)
_NUMBER_KINDS = {"int": "int", "ilist": "int", "real": "real", "rlist": "real",
                 "irange": "irange", "rrange": "rrange"}
# the types whose literal cf-promises asks IsCf3VarString about (CheckParseString, -Int,
# -Real, -IntRange, -RealRange; cfpromise.syntax.varstring): a reference is not checked,
# a broken one is an error of its own before the type's (a mode is parsed first, unless
# it is one naked reference); the others are left unchecked when they hold anything like
# a reference
_WALKED = frozenset({"string", "slist", *_NUMBER_KINDS})
# CheckParseContext matches a class expression's text against its range as written: a
# reference ``$(x)`` is in it, a blank (``$(a ${b)`` left with one) is not
_CONTEXTS = frozenset({"context", "clist"})



class _Checker:
    def __init__(self, sch: Schema, entry: bool = False) -> None:
        self.schema = sch
        self.entry = entry          # the file given with -f: its __main__ bundle is main
        self.errors: list[Diagnostic] = []
        # what the checks on the parsed policy find: said only when the parser found nothing
        self.late: list[Diagnostic] = []
        self._anywhere: frozenset[str] | None = None
        self.later: dict[int, list[Diagnostic]] = {}
        # cf-promises' parser checks no value (and in a body no attribute) once it has
        # met an unknown attribute, until the block ends (its INSTALL_SKIP), nor in a
        # bundle it recovered from a syntax error in (``skip``: their id()s)
        self.skip: frozenset[int] = frozenset()
        self.skipping = False
        # the same flag set by a removed promise type's guard (cfpromise.schema.deprecations):
        # where, in the bundle being read; the promises past it are not installed either
        self.removed_from: tuple[int, int] | None = None

    def error(self, coord: Coord, message: str) -> None:
        self.errors.append(Diagnostic(coord, message))

    # -- rvals --------------------------------------------------------------
    def rval(self, lval: str, rval: ast.Rval, attr: Attribute, coord: Coord, level: int = 0,
             outer: Coord | None = None) -> None:
        want = attr.type
        common_attr = attr.visibility == "global"
        # the attributes every promise type has (with, if, comment, depends_on...):
        # cf-promises 3.21 checks only that a list is not given where a scalar is wanted
        if rval.__class__ is _SCALAR:
            if level == 0:
                if want in LIST_TYPES and attr.visibility != "global":
                    self.error(coord, "Attempted to give a scalar to a non-scalar type")
                    return
                if want == "body" and rval.kind == _QUOTED and lval != "inherit_from":
                    # (a promise's attribute: cf-promises' parser does not check a body's
                    # inherit_from, which names its parent quoted or not)
                    self.error(coord, "An rvalue is quoted, but we expect an unquoted body "
                                      "identifier")
                    return
            text = rval.value
            if ("$" in text or "@" in text) and is_unexpanded(text) \
                    and want not in _WALKED and (want not in _CONTEXTS or common_attr):
                return
            if want == "string" or want == "slist":
                range_ = attr.range
                if range_ and range_ != ".*":      # (most strings: anything goes)
                    self.string_in_range(text, attr, rval.coord if rval.coord.line else coord)
                return
            self.literal(text, attr, rval.coord if rval.coord.line else coord)
            return
        common = attr.visibility == "global"
        if isinstance(rval, ast.List):
            if want not in LIST_TYPES:
                self.error(coord, "Attempted to give a list to a non-list type")
                return
            for item in rval.items:
                self.rval(lval, item, attr, coord, level + 1, outer or rval.coord)
        elif isinstance(rval, ast.FnCall):
            if lval in BUNDLE_CALL_LVALS or want in ("body", "bundle") or common:
                # (a common attribute's call is looked at only when the promise is
                # evaluated: an unknown function, a wrong return type pass the parser)
                return
            sig = self.schema.functions.get(rval.name)
            if sig is None:
                # (cf-promises says it where its parser reduced the rval: just after
                # the call's closing parenthesis, or the closing brace of its list)
                self.error(after_call(outer or rval.coord), "Unknown function")
                return
            have = sig.return_type
            if have != want and (have, want) not in _COMPATIBLE and not common:
                # (where its parser reduced the rval, as for an unknown function)
                self.error(after_call(outer or rval.coord),
                           "Function does not return the required type")

    def literal(self, text: str, attr: Attribute, coord: Coord) -> None:
        number = _NUMBER_KINDS.get(attr.type)
        if number is None and is_unexpanded(text) and attr.type not in _CONTEXTS:
            return      # (a class expression's range is matched references and all)
        if attr.type in ("string", "slist"):
            self.string_in_range(text, attr, coord)
            return
        if number is not None:
            # cf-promises' CheckConstraintTypeMatch: the parser's own words first
            # ("Failed to parse integer number: x", a plain log line), then its verdict
            # at the value ("Cannot parse value as integer", "Real value is out of range")
            self.type_verdict(text, attr.name, number, attr.range, coord)
            return
        checker = CHECKERS.get(attr.type)
        if checker is None:
            return
        try:
            checker(text, attr.range)
        except ValueError_ as exc:
            self.error(coord, str(exc))

    def string_in_range(self, text: str, attr: Attribute, coord: Coord) -> None:
        """CheckParseString (:func:`cfpromise.schema.typematch.type_match`): a mode
        must parse (its parser's words logged first), then the range must match."""
        range_ = attr.range
        if not range_ or range_ == ".*":
            return
        self.type_verdict(text, attr.name, "string", range_, coord)

    def type_verdict(self, text: str, lval: str, kind: str, range_: str | None,
                     coord: Coord) -> None:
        """CheckConstraintTypeMatch's words for ``text``: each reference it leaves open,
        then (when it refuses the value) the parser's plain lines and its verdict."""
        broken: list[str] = []
        logged, error = type_match(lval, text, kind, range_, broken)
        for item in broken:
            self.error(coord, BROKEN.format(item))
        if error is not None:
            for message in logged:
                self.errors.append(Diagnostic(Coord(coord.file, 0, 0), message))
            self.error(coord, error)

    def references(self, text: str, coord: Coord) -> bool:
        """CheckParseString's question of a string out of its range: one reference
        (IsNakedVar), or IsCf3VarString's verdict, whose broken reference is an error."""
        if naked(text):
            return True
        references, broken = walk(text)
        if broken:
            self.error(coord, BROKEN.format(text))
        return references

    # -- blocks -------------------------------------------------------------
    def bundle(self, b: ast.Bundle) -> None:
        allowed = self.schema.bundle_types.get(b.type)
        unknown = allowed is None
        if unknown:                 # (where cf-promises' parser stands: past the type)
            self.error(_before(b.coord), f"Unknown bundle type '{b.type}'")
            # (its parser checks such a bundle all the same: the promise types every
            # bundle has as those, the others as custom ones)
            allowed = self.schema.bundle_types["common"]
        self.later = {}
        self.skipping = id(b) in self.skip
        self.removed_from = removed_from(b)
        for section in b.sections:
            known = self.schema.promise_types.get(section.name)
            if known is not None and removed_guard(b.type, section.name):
                for promise in section.promises:     # (only its unknown attributes said)
                    self.promise(b, section.name, known, promise)
                continue
            if known is None or unknown and section.name not in allowed:
                self.custom_section(section, known)
                continue
            if section.name not in allowed:
                # (PromiseCheck: for each promise, at the section's line)
                for promise in section.promises:
                    self.empty_promiser(promise)
                    self.check(promise, section.coord, f"Promise type '{section.name}' not "
                                                       f"supported by '{b.type}' bundle type")
                continue
            for promise in section.promises:
                self.promise(b, section.name, known, promise)
        # the check of the parsed policy: in its order (cfpromise.schema.partial)
        self.late += partial.reserved_name(b)
        for _, promises in partial.sections_in_check_order(b, self.schema.promise_types):
            for promise in promises:
                self.late += self.later.get(id(promise), ())

    def check(self, promise: ast.Promise, coord: Coord, message: str, line: int = 0) -> None:
        """An error of the check of the parsed policy about ``promise`` (at ``coord``'s
        line, or ``line``), said in the check's order once the bundle is read; none of
        a promise the parser did not install."""
        if hidden(promise, self.removed_from):
            return
        self.later.setdefault(id(promise), []).append(partial.error(coord, message, line))

    def custom_section(self, section: ast.PromiseSection,
                       known: dict[str, Attribute] | None = None) -> None:
        """A custom promise type's promises (``known``: a built-in one's attributes, in
        a bundle of a type cf-promises does not know: a quoted body is refused)."""
        for promise in section.promises:
            self.empty_promiser(promise)
            skipped = self.skipping or hidden(promise, self.removed_from)
            for c in promise.constraints if not skipped else ():
                attr = known.get(c.lval) if known else None
                if attr is not None and attr.type == "body" and type(c.rval) is _SCALAR \
                        and c.rval.kind == _QUOTED:
                    at, source = after_rval(c, {})
                    self.errors.append(Diagnostic(at, "An rvalue is quoted, but we expect "
                                                      "an unquoted body identifier",
                                                  source_line=source))
                self.condition_literal(c)
            for c in promise.constraints:
                refused = partial.CUSTOM_REFUSED.get(c.lval)
                if refused is not None:
                    self.check(promise, promise.coord, refused.format(type=section.name))

    def promise(self, b: ast.Bundle, ptype: str, attrs_: dict[str, Attribute],
                promise: ast.Promise) -> None:
        # (the check's order: PromiseCheck's promiser, its constraints, then the vars and
        # classes promises' own checks)
        self.empty_promiser(promise)
        skipped = hidden(promise, self.removed_from)
        var_type: str | None = None
        retyped: list[tuple[str, ast.Constraint]] = []
        for c in promise.constraints:
            attr = attrs_.get(c.lval)
            if attr is None:
                if c.lval in self.anywhere():
                    # (at the line where the rval ends, as the parser left the constraint)
                    self.check(promise, c.coord, f"Promise type {ptype} has unknown "
                                                 f"attribute {c.lval}", c.line)
                else:
                    self.error(_after_lval(c), f"Unknown attribute '{c.lval}' for promise type "
                                               f"'{ptype}' in bundle with type '{b.type}'")
                    self.skipping = True
                continue
            if ptype == "vars" and c.lval in VAR_TYPES:
                if var_type is not None:
                    retyped.append((var_type, c))
                var_type = c.lval
            if attr.visibility == "global" and attr.type not in LIST_TYPES \
                    and isinstance(c.rval, ast.List):
                # (the common attributes: cf-promises' parser leaves them to its check of
                # the parsed policy, which wants a scalar or a call; the rest is judged when the
                # promise is evaluated: cfpromise.agent.commoneval)
                self.check(promise, c.coord, f"Type mismatch in constraint: {c.lval}", c.line)
                continue
            if not (self.skipping or skipped):
                self.constraint(c, attr)
        if ptype in ("vars", "classes"):
            self.promiser_name(ptype, promise)
        for previous, c in retyped:
            self.check(promise, c.coord, "Variable contains existing data type contstraint "
                                         f"{previous}, tried to redefine with {c.lval}", c.line)

    def empty_promiser(self, promise: ast.Promise) -> None:
        """PromiseCheck: a promiser that is an empty reference and nothing else."""
        if promise.promiser in ("$()", "${}"):
            self.check(promise, promise.coord, "Empty variable reference")

    def anywhere(self) -> frozenset[str]:
        """The attributes cf-promises' parser lets any promise type have: those of the
        promise types every bundle type has (the common bundle's: vars, classes, meta,
        defaults, reports).  Its check of the parsed policy then refuses the ones the
        promise's own type has not ("Promise type files has unknown attribute string")."""
        if self._anywhere is None:
            types = self.schema.promise_types
            self._anywhere = frozenset(
                lval for ptype in self.schema.bundle_types.get("common", ())
                for lval in types.get(ptype, {}))
        return self._anywhere

    def promiser_name(self, ptype: str, promise: ast.Promise) -> None:
        """VarsParseTreeCheck and ClassesParseTreeCheck (mod_common.c): the promiser as
        written, before any expansion."""
        name = promise.promiser
        if name.isdigit() and name.isascii():        # (only 0-9: no other ASCII digits)
            what = "Variable promises" if ptype == "vars" else "Classes promises"
            self.check(promise, promise.coord, f"{what} cannot have a purely numerical name "
                                               "(promiser)")
        if ptype == "vars" and not valid_variable_name(name):
            self.check(promise, promise.coord, "Variable promise is using an invalid name "
                                               "(promiser)")

    def condition_literal(self, c: ast.Constraint) -> None:
        """ValidateClassLiteral: an ``if``/``ifvarclass`` value as written must start with
        a complete class expression (its blanks are not skipped)."""
        if c.lval in ("if", "ifvarclass") and type(c.rval) is ast.Scalar:
            at = classexpr.literal_failure(c.rval.value)
            if at is not None:
                quote = 1 if c.rval.kind == _QUOTED else 0
                coord = c.rval.coord
                # (the column as cf-promises counts it: one past the character)
                self.error(coord._replace(col=coord.col + quote + at + 1),
                           "Syntax error in context string")

    def constraint(self, c: ast.Constraint, attr: Attribute, refused: str | None = None,
                   then: str | None = None) -> None:
        """``refused``: a body's attribute its CheckSelection refuses (checked no further);
        ``then``: an error the parser says after its value's check."""
        self.condition_literal(c)
        start = len(self.errors)
        if refused is not None:
            self.error(c.coord, refused)
        else:
            self.rval(c.lval, c.rval, attr, c.coord)
        if c.varclass is not None:
            self.error(c.coord, VARCLASS.format(c.varclass))
        if then is not None:
            self.error(c.coord, then)
        if len(self.errors) > start:
            # (the parser checks the value once it has read it: at its end, see
            # cfpromise.schema.rvalend; its plain log lines stay at 0)
            at, source = after_rval(c, {})
            self.errors[start:] = [d if d.coord.col == 0 else
                                   Diagnostic(at, d.message, source_line=source)
                                   for d in self.errors[start:]]

    def body(self, body: ast.Body | ast.PromiseBlock) -> None:
        """A body's attributes (an agent's promise block's: its own, as a body's)."""
        block = isinstance(body, ast.PromiseBlock)
        if not block and body.type in REMOVED_BODY_TYPES:
            return      # (warned of, not installed: nothing of it is checked)
        attrs_ = promise_block_attributes() if block else self.schema.body_types.get(body.type)
        if attrs_ is None:
            # (a custom body: its attributes are not checked, but for a quoted guard)
            for c in body.constraints:
                if c.varclass is not None:
                    at, source = after_rval(c, {})
                    self.errors.append(Diagnostic(at, VARCLASS.format(c.varclass),
                                                  source_line=source))
            return
        self.skipping = False
        marked = marked_attributes(self.schema, body.type)
        for c in body.constraints:
            if self.skipping:
                continue
            attr = attrs_.get(c.lval)
            if attr is None:
                self.error(_after_lval(c), f"Unknown attribute '{c.lval}' for "
                                           f"'{'promise' if block else 'body'} {body.type} "
                                           f"{body.name}'")
                self.skipping = True
                continue
            if marked.get(c.lval) == "removed":
                continue        # (warned of and dropped before any check of its value)
            target, refused = (attr, None) if block else \
                selection(self.schema, body.type, body.name, c.lval)
            self.constraint(c, target or attr, refused,
                            _NAMESPACE if (body.type, body.name, c.lval) == _FILE_CONTROL
                            and not isinstance(c.rval, ast.Scalar) else None)


def _after_lval(c: ast.Constraint):
    """Where cf-promises places an unknown attribute: its parser reports it as the lval
    token ends (one past its last character), before any blank, comment or ``=>``."""
    return c.coord._replace(col=c.coord.col + len(c.lval))


_RESERVED_VARIABLES = frozenset({"promiser", "handle", "promise_filename", "promise_dirname",
                                 "promise_linenumber", "this"})


_SCALAR, _QUOTED = ast.Scalar, ast.QUOTED
# a namespace is a scalar (the parser keeps the one before when it is not)
_FILE_CONTROL = ("file", "control", "namespace")
_NAMESPACE = "namespace must be a constant scalar string"


def valid_variable_name(name: str) -> bool:
    """CheckParseVariableName (syntax.c): not a name ``this`` holds; with a dot, one
    dot only, except inside one level of brackets (``a.b[c.d]``), with something before
    and after it."""
    if name in _RESERVED_VARIABLES:
        return False
    first_dot = name.find(".")
    if first_dot < 0:
        return True
    count = level = 0
    for ch in name:
        if ch == ".":
            count += 1
            if count > 1 and level != 1:
                return False
        elif ch == "[":
            level += 1
        elif ch == "]":
            level -= 1
        if level > 1:
            return False
    if count == 1 and (name[0] == "." or first_dot == len(name) - 1):
        return False
    return True




def diagnostics(policy: ast.Policy, sch: Schema | None = None,
                entry: bool = False) -> list[Diagnostic]:
    """The parser's errors of ``policy``; only when it has none, the check's."""
    checker = _checked(policy, sch, entry)
    return checker.errors or checker.late


def parse_stage(policy: ast.Policy, skip: frozenset[int]) -> list[Diagnostic]:
    """The parser's errors only, ``skip`` the id()s of bundles it checks no value of
    (what it says past an error it recovered from: cfpromise.syntax.recovery), with its
    warnings of removed and deprecated language among them."""
    from cfpromise.schema.deprecations import interleaved, warnings
    checker = _checked(policy, None, False, skip)
    return interleaved(warnings(policy, checker.schema), checker.errors)


def _checked(policy: ast.Policy, sch: Schema | None, entry: bool,
             skip: frozenset[int] = frozenset()) -> _Checker:
    checker = _Checker(sch or schema(), entry)
    checker.skip = skip
    # the parser's errors in the order of the file; the check's in its own
    # (cfpromise.schema.partial): duplicate bundles, each bundle's, duplicate bodies, each
    # body's, duplicate handles
    late: dict[int, list[Diagnostic]] = {}
    for block in sorted([*policy.bundles, *policy.bodies, *policy.promise_blocks],
                        key=lambda block: (block.coord.line, block.coord.col)):
        checker.late = late[id(block)] = []
        if isinstance(block, ast.PromiseBlock):
            if block.type != "agent":       # (the parser's words, past the type, past '{')
                checker.error(_before(block.coord), "Custom promises only supported for "
                                                    f"'agent', not '{block.type}'")
            if block.name in checker.schema.promise_types:     # (any, removed ones too)
                checker.error(block.coord._replace(col=block.coord.col + len(block.name)),
                              f"'{block.name}' promises are built in and cannot be custom")
            if block.type != "agent":
                checker.error(_past_brace(block.coord), f"Invalid body type '{block.type}'")
            else:
                checker.body(block)
        elif isinstance(block, ast.Bundle):
            checker.bundle(block)
        else:
            checker.late += partial.control_arguments(block)
            checker.body(block)
            checker.late += partial.body_rules(block)
    checker.late = [partial.error(d.coord, d.message)
                    for d in duplicates(policy.bundles, "bundle", entry)]
    for block in policy.bundles:
        checker.late += late[id(block)]
    checker.late += [partial.error(d.coord, d.message)
                     for d in duplicates(policy.bodies, "body")]
    for block in policy.bodies:
        checker.late += late[id(block)]
    policy = installed(policy, checker.schema)      # (the check sees what the parser kept)
    twice = partial.duplicate_handles(policy, checker.schema.promise_types, is_unexpanded)
    if twice:
        # (the check of handles says a broken one as the parser would, at FILE:1:1; once
        # when the check of the file fails, else again in the whole policy's check: said
        # by the loading then, cfpromise.agent.loading)
        last = policy.bundles[-1].coord.file if policy.bundles else ""
        checker.late += [Diagnostic(Coord(last, 1, 1), BROKEN.format(handle), bare=True)
                         for handle in partial.broken_handles(
                             policy, checker.schema.promise_types)]
    checker.late += twice
    return checker


def validate(policy: ast.Policy, sch: Schema | None = None, entry: bool = False) -> None:
    """Raise PolicyError listing every parse-time problem of ``policy``."""
    errors = diagnostics(policy, sch, entry)
    if errors:
        raise PolicyError(errors)


def after_call(coord: Coord) -> Coord:
    """The position just after the closing parenthesis (or brace) of the call (or list)
    starting at ``coord`` (read again from its file: only an error needs it); ``coord``
    when it cannot be read."""
    try:
        with open(coord.file, encoding="utf-8", errors="surrogateescape") as f:
            lines = f.read().split("\n")
    except OSError:
        return coord
    line, col = coord.line - 1, coord.col - 1
    depth, quote = 0, ""
    while line < len(lines):
        text = lines[line]
        while col < len(text):
            ch = text[col]
            if quote:
                if ch == "\\":
                    col += 1
                elif ch == quote:
                    quote = ""
            elif ch in "\"'`":
                quote = ch
            elif ch in "({":
                depth += 1
            elif ch in ")}":
                depth -= 1
                if depth == 0:
                    return type(coord)(coord.file, line + 1, col + 2, coord.cf and
                                       coord.cf + line + 1 - coord.line)
            col += 1
        line, col = line + 1, 0
    return coord


def _past_brace(coord: Coord) -> Coord:
    """Just past the first ``{`` at or after ``coord`` (a block's opening brace)."""
    from cfpromise.syntax.errors import file_lines
    lines = file_lines(coord.file, {}) or []
    line, col = coord.line - 1, coord.col - 1
    while 0 <= line < len(lines):
        at = lines[line].find("{", max(col, 0))
        if at >= 0:
            return Coord(coord.file, line + 1, at + 2, coord.cf and coord.cf + line + 1 - coord.line)
        line, col = line + 1, 0
    return coord


def _before(coord: Coord) -> Coord:
    """Just past the token before ``coord`` (a bundle's type, before its name)."""
    from cfpromise.syntax.errors import file_lines
    lines = file_lines(coord.file, {}) or []
    line, col = coord.line - 1, coord.col - 1
    while 0 <= line < len(lines):
        row = lines[line][:col]
        if row.strip():
            end = len(row.rstrip())
            return Coord(coord.file, line + 1, end + 1,
                         coord.cf and coord.cf + line + 1 - coord.line)
        line -= 1
        col = len(lines[line]) if line >= 0 else 0
    return coord

