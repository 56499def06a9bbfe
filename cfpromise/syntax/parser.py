"""The CFEngine 3 grammar (PLY LALR) building the AST of :mod:`cfpromise.syntax.ast`.

Grammar rules live in the ``p_*`` docstrings.  Tables are generated once into
``cfpromise/syntax/_parsetab.py`` (``python -m cfpromise.syntax.parser``) and
loaded read-only from the package; nothing is written at run time.

Per-parse state (file name, current namespace) lives on the Lexer object of the
parse under way, ``_STATE[-1]``.  A rule reads a terminal as ``p[i]``: its Token
(under the driver of :mod:`.lr` and under PLY alike, see :func:`cfpromise.syntax.reference.reference_parse`).
Internally rval productions return
``(node, endline)`` pairs, ``endline`` being CFEngine's line at the rval's last
token: that is the line cf-promises reports for an attribute.

Parse-time conversions that CFEngine itself makes:

* a string given to a ``data`` attribute that parses as a JSON object or array
  becomes a :class:`Data` container, any other string ``parsejson("...")``;
* ``body file control { namespace => "ns"; }`` switches the namespace of the
  blocks that follow it in the same file.
"""
from __future__ import annotations

import os
import sys
from operator import itemgetter

from cfpromise.schema import schema
from cfpromise.syntax import ast, cfjson, guards, lr, recovery
from cfpromise.syntax.errors import Coord, PolicyError, gc_paused, source_line_of
from cfpromise.syntax.lexer import (Lexer, lines_to_next_token, simple_coord,  # noqa: F401
                                    tokens)  # (PLY reads `tokens`)
from cfpromise.syntax.scanner import FastLexer
from cfpromise.syntax.convert import (canonical_json, data_lvals as _data_lvals, inline_data,  # noqa: F401
                                      policy as _policy, replace_repeats as _replace_repeats)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

start = "specification"
# A terminal's Token (scanner.Token: a plain tuple from the scanner, the record from PLY)
_TYPE, _VALUE, _LEXPOS, _COORD, _QUOTE = range(5)

_TOKEN_NAMES = {
    "BUNDLE": "'bundle'", "BODY": "'body'", "PROMISE": "'promise'",
    "IDENTIFIER": "identifier", "SYMBOL": "identifier", "QSTRING": "quoted string",
    "NAKEDVAR": "variable", "CLASS": "class guard", "VARCLASS": "class guard",
    "PROMISE_TYPE": "promise type", "ASSIGN": "'=>'", "ARROW": "'->'", "$end": "end of file",
}


# --- blocks -------------------------------------------------------------------

def p_specification(p: Any) -> None:
    """specification : blocks
                     | empty"""
    p[0] = p[1] or []


@lr.builds_list
def p_blocks(p: Any) -> None:
    """blocks : blocks block
              | block"""
    if len(p) == 3:
        p[1].append(p[2])
        p[0] = p[1]
    else:
        p[0] = [p[1]]


@lr.passes_through
def p_block(p: Any) -> None:
    """block : bundle
             | body
             | promise_block"""
    p[0] = p[1]


@lr.passes_through
def p_blockid(p: Any) -> None:
    """blockid : IDENTIFIER
               | SYMBOL"""
    p[0] = p[1]


@lr.passes_through
def p_blocktype(p: Any) -> None:
    """blocktype : IDENTIFIER"""
    p[0] = p[1]


def p_bundle(p: Any) -> None:
    """bundle : BUNDLE blocktype blockid arglist '{' sections '}'"""
    lexer = _STATE[-1]
    namespace, name = _split_name(lexer, p[3][_VALUE])
    # (a promise type CFEngine removed is kept apart at each guard: its parser warns of
    # each and skips the rest of the bundle from the first, where a section's place stops
    # moving to its latest guard: cfpromise.schema.deprecations)
    from cfpromise.schema.deprecations import removed_guard
    merged: dict[Any, tuple[str, Coord, list[ast.Promise]]] = {}
    skipping = False
    for coord, name_, promises in p[6]:
        removed = removed_guard(p[2][_VALUE], name_)
        key = coord if removed else name_
        if key in merged:
            merged[key] = (name_, merged[key][1] if skipping else coord,
                           merged[key][2] + promises)
        else:
            merged[key] = (name_, coord, promises)
        skipping = skipping or removed
    sections = tuple(ast.PromiseSection(n, tuple(ps), c) for n, c, ps in merged.values())
    p[0] = ast.Bundle(p[2][_VALUE], name, tuple(p[4]), sections, namespace, p[3][_COORD])


def p_body(p: Any) -> None:
    """body : BODY blocktype blockid arglist '{' bodyattribs '}'"""
    lexer = _STATE[-1]
    namespace, name = _split_name(lexer, p[3][_VALUE])
    constraints = _replace_repeats(p[6], p[2][_VALUE])
    body = ast.Body(p[2][_VALUE], name, tuple(p[4]), constraints, namespace, p[3][_COORD])
    if body.type == "file" and body.name == "control":
        # (any other value is an error of the parser's checks: cfpromise.schema.validate)
        for c in constraints:
            if c.lval == "namespace" and isinstance(c.rval, ast.Scalar):
                lexer.namespace = c.rval.value
    p[0] = body


def p_promise_block(p: Any) -> None:
    """promise_block : PROMISE blocktype blockid '{' bodyattribs '}'"""
    namespace, name = _split_name(_STATE[-1], p[3][_VALUE])
    p[0] = ast.PromiseBlock(p[2][_VALUE], name, tuple(p[5]), namespace, p[3][_COORD])


def p_arglist(p: Any) -> None:
    """arglist : empty
               | '(' ')'
               | '(' aitems ')'
               | '(' aitems ',' ')'"""
    p[0] = p[2] if len(p) > 3 else []


def p_aitems(p: Any) -> None:
    """aitems : aitems ',' IDENTIFIER
              | IDENTIFIER"""
    if len(p) == 4:
        p[1].append(p[3][_VALUE])
        p[0] = p[1]
    else:
        p[0] = [p[1][_VALUE]]


# --- bundle bodies --------------------------------------------------------------

@lr.builds_list
def p_sections(p: Any) -> None:
    """sections : sections section
                | empty"""
    if len(p) == 3:
        p[1].append(p[2])
        p[0] = p[1]
    else:
        p[0] = []


def p_section(p: Any) -> None:
    """section : PROMISE_TYPE classpromises"""
    tok = p[1]
    classes, varclass = "any", None
    promises: list[ast.Promise] = []
    for item in p[2]:
        if len(item) == 4:                      # a promise (see p_promise); a guard is a Token
            promiser, promisee, constraints, coord = item
            promises.append(_Promise(promiser, constraints, promisee, classes, varclass, coord))
        elif item[_TYPE] == "CLASS":
            classes, varclass = item[_VALUE], None
            guards.check(_STATE[-1], item)
        else:                                   # VARCLASS
            classes, varclass = "any", item[_VALUE]
    p[0] = (tok[_COORD], tok[_VALUE], promises)


@lr.builds_list
def p_classpromises(p: Any) -> None:
    """classpromises : classpromises classpromise
                     | empty"""
    if len(p) == 3:
        p[1].append(p[2])
        p[0] = p[1]
    else:
        p[0] = []


@lr.passes_through
def p_classpromise_guard(p: Any) -> None:
    """classpromise : CLASS
                    | VARCLASS"""
    p[0] = p[1]


@lr.passes_through
def p_classpromise_promise(p: Any) -> None:
    """classpromise : promise"""
    p[0] = p[1]


def p_promise(p: Any) -> None:
    """promise : QSTRING ';'
               | QSTRING constraints ';'
               | QSTRING ARROW rval ';'
               | QSTRING ARROW rval constraints ';'"""
    tok = p[1]
    promisee = None
    constraints: list[ast.Constraint] = []
    if len(p) == 4:
        constraints = p[2]
    elif len(p) >= 5:
        promisee = p[3][0]
        if len(p) == 6:
            constraints = p[4]
    # (promiser, promisee, constraints, coord): the Promise is made in p_section, once
    # the class guard over it is known
    p[0] = (tok[_VALUE], promisee, _replace_repeats(constraints), tok[_COORD])


@lr.builds_list
def p_constraints(p: Any) -> None:
    """constraints : constraints ',' constraint
                   | constraint"""
    if len(p) == 4:
        p[1].append(p[3])
        p[0] = p[1]
    else:
        p[0] = [p[1]]


def p_constraint(p: Any) -> None:
    """constraint : IDENTIFIER ASSIGN rval"""
    tok = p[1]
    rval, endline = p[3]
    if tok[_VALUE] in _data_lvals() and isinstance(rval, ast.Scalar) and rval.kind != ast.BARE:
        rval = inline_data(rval)
    p[0] = ast.Constraint(tok[_VALUE], rval, tok[_COORD], endline)


# --- body bodies ------------------------------------------------------------------

def p_bodyattribs(p: Any) -> None:
    """bodyattribs : bodyattribs bodyattrib
                   | empty"""
    if len(p) == 2:
        p[0] = []
        _STATE[-1].body_guard = _ANY
        return
    item = p[2]
    if item is not None:
        p[1].append(item)
    p[0] = p[1]


def p_bodyattrib_class(p: Any) -> None:
    """bodyattrib : CLASS"""
    _STATE[-1].body_guard = (p[1][_VALUE], None)
    guards.check(_STATE[-1], p[1])
    p[0] = None


def p_bodyattrib_varclass(p: Any) -> None:
    """bodyattrib : VARCLASS"""
    _STATE[-1].body_guard = ("any", p[1][_VALUE])    # (its attributes: a parser error)
    p[0] = None


def p_bodyattrib_selection(p: Any) -> None:
    """bodyattrib : IDENTIFIER ASSIGN rval ';'"""
    lexer = _STATE[-1]
    tok = p[1]
    rval, endline = p[3]
    p[0] = ast.Constraint(tok[_VALUE], rval, tok[_COORD], endline, *lexer.body_guard)


# --- rvals --------------------------------------------------------------------------

def p_rval_scalar(p: Any) -> None:
    """rval : IDENTIFIER
            | SYMBOL
            | QSTRING
            | NAKEDVAR"""
    ttype, value, lexpos, coord, quote = p[1]
    kind = _SCALAR_KINDS.get(ttype, _BARE)
    line = coord.cf or coord.line                # (Coord.cfline, without a call)
    if kind is not _QUOTED:
        # (bison reads the token after a word or a naked reference before it reduces
        # the rval: the attribute's line is that token's)
        line += lines_to_next_token(_STATE[-1].text, lexpos + len(value))
    p[0] = (_Scalar(value, kind, coord, quote if kind is _QUOTED else ""), line)


@lr.passes_through
def p_rval_call(p: Any) -> None:
    """rval : fncall"""
    p[0] = p[1]


def p_rval_list(p: Any) -> None:
    """rval : '{' '}'
            | '{' litems '}'
            | '{' litems ',' '}'"""
    items = tuple(map(_node, p[2])) if len(p) > 3 else ()
    p[0] = (ast.List(items, p[1][_COORD]), p[len(p) - 1][_COORD].cfline)


@lr.builds_list
def p_litems(p: Any) -> None:
    """litems : litems ',' litem
              | litem"""
    if len(p) == 4:
        p[1].append(p[3])
        p[0] = p[1]
    else:
        p[0] = [p[1]]


def p_litem(p: Any) -> None:
    """litem : IDENTIFIER
             | SYMBOL
             | QSTRING
             | NAKEDVAR"""
    ttype, value, _, coord, quote = p[1]
    kind = _SCALAR_KINDS.get(ttype, _BARE)
    p[0] = (_Scalar(value, kind, coord, quote if kind is _QUOTED else ""),
            coord.cf or coord.line)          # (Coord.cfline, without a call)


@lr.passes_through
def p_litem_call(p: Any) -> None:
    """litem : fncall"""
    p[0] = p[1]


def p_fncall(p: Any) -> None:
    """fncall : fname '(' ')'
              | fname '(' fargs ')'"""
    args = tuple(map(_node, p[3])) if len(p) == 5 else ()
    name_tok = p[1]
    p[0] = (ast.FnCall(name_tok[_VALUE], args, name_tok[_COORD]), p[len(p) - 1][_COORD].cfline)


@lr.passes_through
def p_fname(p: Any) -> None:
    """fname : IDENTIFIER
             | SYMBOL
             | NAKEDVAR"""
    p[0] = p[1]


@lr.builds_list
def p_fargs(p: Any) -> None:
    """fargs : fargs ',' farg
             | farg"""
    if len(p) == 4:
        p[1].append(p[3])
        p[0] = p[1]
    else:
        p[0] = [p[1]]


def p_farg(p: Any) -> None:
    """farg : IDENTIFIER
            | SYMBOL
            | QSTRING
            | NAKEDVAR"""
    ttype, value, _, coord, quote = p[1]
    kind = _SCALAR_KINDS.get(ttype, _BARE)
    p[0] = (_Scalar(value, kind, coord, quote if kind is _QUOTED else ""),
            coord.cf or coord.line)          # (Coord.cfline, without a call)


@lr.passes_through
def p_farg_call(p: Any) -> None:
    """farg : fncall"""
    p[0] = p[1]


@lr.passes_through
def p_empty(p: Any) -> None:
    """empty :"""
    p[0] = None


def p_error(tok: Any) -> None:
    """PLY's error hook (the reference parse only: :func:`parse` runs :mod:`.lr`)."""
    parser = _PARSER[0] if _PARSER else None
    accepted: list[str] = []
    if parser is not None and getattr(parser, "statestack", None):
        accepted = list(parser.action[parser.statestack[-1]])
    syntax_error(_STATE[-1], None if tok is None else tok.value, accepted)


def syntax_error(lexer: Lexer, tok: Any, accepted: list[str]) -> None:
    """Raise the error for ``tok`` (None: the end of the text) where the parser
    accepts the token types ``accepted``."""
    expected = sorted({_TOKEN_NAMES.get(t, f"'{t}'") for t in accepted})
    if tok is None:
        lexer.check_end()
        pos = len(lexer.text)
        coord = lexer.coord(pos)
        msg = "Unexpected end of file"
        if expected:
            msg += f", expected {_one_of(expected)}"
        raise PolicyError.at(coord, msg, source_line_of(lexer.text, coord.line))
    ttype, value, lexpos, coord, quote = tok
    if coord.__class__ is not Coord:            # not made by the scanner: see scanner.Token
        coord = simple_coord(lexer, lexpos, coord)
    shown = value if ttype != "QSTRING" else quote + value + quote
    if ttype == "CLASS":
        shown += "::"
    elif ttype == "PROMISE_TYPE":
        shown += ":"
    msg = f"Expected {_one_of(expected)}, got '{shown}'" if expected else f"Unexpected '{shown}'"
    raise PolicyError.at(coord, msg, source_line_of(lexer.text, coord.line))


# --- helpers ------------------------------------------------------------------------

def _one_of(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


# A scalar token's kind (the rval rules make its Scalar, with CFEngine's line at it).
_SCALAR_KINDS = {"QSTRING": ast.QUOTED, "NAKEDVAR": ast.NAKED}
_Scalar, _QUOTED, _BARE, _Promise = ast.Scalar, ast.QUOTED, ast.BARE, ast.Promise
_ANY = ("any", None)            # a body's guard: (classes, quoted guard)
_node = itemgetter(0)           # an rval's node, from its (node, endline) pair


def _split_name(lexer: Lexer, name: str) -> tuple[str, str]:
    if ":" in name:
        ns, _, short = name.partition(":")
        return ns, short
    return lexer.namespace, name


# --- the parser object ------------------------------------------------------------

_PARSER: list[Any] = []
_STATE: list[Lexer] = []       # the Lexer of each parse under way, the innermost last
_TABMODULE = "cfpromise.syntax._parsetab"


def ply_module() -> Any:
    """This module as PLY reads it, each grammar rule's docstring with its lines stripped.

    PLY's grammar signature (``_lr_signature`` in ``_parsetab.py``) is made from the
    rules' docstrings, and Python 3.13 strips their indentation when it compiles
    them: stripped here on every interpreter, the signature and the generated tables
    are the same on 3.11, 3.12 and 3.13.  (Not done at import: only PLY reads them.)"""
    module = sys.modules[__name__]
    for name, value in list(vars(module).items()):
        if name.startswith("p_") and callable(value) and value.__doc__:
            value.__doc__ = "\n".join(line.strip() for line in value.__doc__.splitlines())
    return module


def _build(write_tables: bool = False, outputdir: str | None = None) -> Any:
    import ply.yacc as yacc             # PLY's own parser: the reference, and table writing
    return yacc.yacc(module=ply_module(), tabmodule=_TABMODULE, start=start,
                     write_tables=write_tables, outputdir=outputdir, debug=False,
                     errorlog=yacc.NullLogger())


def _parser() -> Any:
    if not _PARSER:
        _PARSER.append(_build())
    return _PARSER[0]


_TABLES: list[lr.Tables] = []


def _tables() -> lr.Tables:
    """PLY's generated tables (``_parsetab.py``) bound to the rules above, once per process."""
    if not _TABLES:
        import importlib
        _TABLES.append(lr.Tables(importlib.import_module(_TABMODULE), globals()))
    return _TABLES[0]


def parse(text: str, filename: str = "<string>", recover: bool = True) -> ast.Policy:
    """Parse one policy text.  Raises :class:`PolicyError` with a position on bad input.

    The text is scanned in one pass (:class:`~cfpromise.syntax.scanner.FastLexer`), then
    the grammar's rules run over the tokens in :mod:`cfpromise.syntax.lr`, PLY's
    algorithm over PLY's tables without PLY's per-symbol objects.  This is the one
    parser; :func:`cfpromise.syntax.reference.reference_parse` (PLY's own loop) is only the tests' oracle."""
    lexer = Lexer(filename)
    lexer.input(text)
    scanner = FastLexer(lexer)
    _STATE.append(lexer)
    try:
        with gc_paused():
            tokens, after = scanner.scan()
            try:
                blocks = lr.parse(_tables(), tokens, after)
            except lr.SyntaxErrorAt as exc:
                if recover:         # (not for the tests' comparison with PLY's own loop)
                    _recover(lexer, text, filename, tokens, after, exc)
                syntax_error(lexer, exc.token, list(exc.expected))
                raise AssertionError("unreachable") from None
    finally:
        _STATE.pop()
    lexer.check_end()
    policy = _policy(blocks, filename)
    if lexer.lexed or lexer.guarded:
        _lexed(lexer, policy, _read(lexer, tokens))
    return policy


def _read(lexer: Lexer, tokens: list[Any]) -> dict[int, list[Any]]:
    """The lexer's errors of the tokens the parser reads: up to the first end of the
    input it gives (a macro it refused), where a parse that gets there ends."""
    end = next((tok[2] for tok in tokens if tok[0] == "$end" and len(tok) == 5), None)
    return {at: ds for at, ds in lexer.lexed.items() if end is None or at <= end}


def _lexed(lexer: Lexer, policy: ast.Policy, lexed: dict[int, list[Any]] | None = None,
           ) -> None:
    """Raise the errors the lexer said of a file that parses (``lexed``: of the tokens
    read, all by default), with the parser's checks of the file (cf-promises' parser
    read on past them)."""
    from cfpromise.schema.validate import parse_stage
    said = recovery.cf_lines(guards.said(lexer, lexer.lexed if lexed is None else lexed))
    recovery.raise_capped(recovery.merged(said, parse_stage(policy, frozenset())))


def _recover(lexer: Lexer, text: str, filename: str, tokens: list[Any], after: Any,
             exc: lr.SyntaxErrorAt) -> None:
    """Raise cf-promises' errors for a syntax error it recovers from
    (:mod:`cfpromise.syntax.recovery`), with the parser's checks of the blocks it
    installs past it; return when it has no recovery."""
    def said() -> list[Any]:    # (once the rest parsed: the guards it reduced are known)
        return recovery.cf_lines(guards.said(lexer, _read(lexer, tokens)))
    found = recovery.recover(text, filename, tokens, exc,
                             lambda toks: lr.parse(_tables(), toks, after), said)
    if found is None:
        try:
            lexer.check_end()
            at_end = []
        except PolicyError as open_if:
            at_end = open_if.diagnostics
        said, too_many = recovery.bison_errors(text, filename, tokens, after, at_end,
                                               lexer.lexed)
        if not said:
            return
        raised = PolicyError(said)
        raised.too_many = too_many      # type: ignore[attr-defined]
        raise raised from None
    errors, blocks, skipped = found
    if blocks is not None:
        from cfpromise.schema.validate import parse_stage
        policy = _policy(blocks, filename)
        skip = recovery.bundles_at(policy, text, skipped)
        errors = recovery.merged(errors, parse_stage(policy, skip))
    recovery.raise_capped(errors)


def parse_file(path: str, display_name: str | None = None) -> ast.Policy:
    """Read and parse a policy file (UTF-8, undecodable bytes kept as surrogates)."""
    with open(path, "rb") as fh:
        data = fh.read()
    return parse(data.decode("utf-8", "surrogateescape"), display_name or path)


def as_entry(policy: ast.Policy) -> ast.Policy:
    """The policy file given on the command line: its ``__main__`` bundle is ``main``."""
    if not any(b.name == "__main__" for b in policy.bundles):
        return policy
    bundles = tuple(ast.evolve(b, name="main") if b.name == "__main__" else b
                    for b in policy.bundles)
    return ast.evolve(policy, bundles=bundles)


def write_tables() -> str:
    """Regenerate ``_parsetab.py`` and ``_lextab.py`` beside this module."""
    from cfpromise.syntax.lexer import write_lextab
    outdir = os.path.dirname(os.path.abspath(__file__))
    write_lextab(outdir)
    import ply.yacc as yacc
    yacc.yacc(module=ply_module(), tabmodule="_parsetab", start=start,
              write_tables=True, outputdir=outdir, debug=False, errorlog=yacc.NullLogger())
    return os.path.join(outdir, "_parsetab.py")


if __name__ == "__main__":
    print(write_tables())
