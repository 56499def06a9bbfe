"""The one-pass scanner the parser reads its tokens from: PLY's tokens, made faster.

Why a module of its own: :mod:`.lexer` holds the token rules, which PLY reads
and from which its generated ``_lextab.py`` (the master regex) is made, and the
PLY lexer that runs them where the rules' callbacks matter (macros, errors).
This module is the hot loop over the same master regex that the parser
(:func:`cfpromise.syntax.parser.parse`) uses on every file: it must give PLY's
tokens exactly (``tests/syntax/test_fastlexer.py``), so it has no rules of its own
and hands anything unusual to PLY's lexer at the same position.
"""
from __future__ import annotations

from cfpromise.fast import precompiled
from cfpromise.fast.records import record
from cfpromise.syntax.errors import Coord, PolicyError
from cfpromise.syntax.lexer import (MAX_IDENTIFIER, RESERVED, _WHITESPACE_IN_CLASS, Lexer,
                                    _macro_accepts, _master_lexer, deescape, simple_coord)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@record
class Token:
    """One token as the parser sees it (``p.slice[i]`` in a grammar rule): a tuple made
    with ``tuple.__new__`` in the scanner's loop, cheaper than PLY's LexToken object."""

    type: str
    value: str
    lexpos: int
    coord: Coord
    quote: str | None = None     # a QSTRING's quote character


_new_tuple = tuple.__new__
# After every token: skip whitespace and comments (atomic, so that no alternative is
# ever tried inside them), then PLY's own master regex with its rules in its order.
_SKIP_PREFIX = r"[ \t\r\n]*+(?:\#(?>[^\n]*+[ \t\r\n]*+(?:\#[^\n]*+[ \t\r\n]*+)*)|)"
_SKIP = precompiled.compile(_SKIP_PREFIX, precompiled.VERBOSE)
_SCANNER: list[tuple[Any, list[str | None]]] = []

# PLY tries its rules in order, and SRE pays for each rule it tries and fails (most
# tokens are punctuation and strings, which come late in PLY's order).  The scanner's
# regex tries these first: each can start only with characters no rule before it in
# PLY's order can start with (the macros start with "@"; a CLASS, SYMBOL, PROMISE_TYPE
# or IDENTIFIER with a word character, a non-ASCII one or one of ``.|&!():``; a
# VARCLASS, like a string, with a quote), so the token is the one PLY's order gives.
# (The ``(`` and ``)`` literals can start a CLASS and keep their place.)
_FIRST = (("h_PUNCT", "[{},;]"), ("t_ASSIGN", None), ("t_VARCLASS", None), ("t_QSTRING", None))
_KIND = {"h_PUNCT": "LITERAL"}


def _scanner() -> tuple[Any, list[str | None]]:
    """The scanner's regex (built once per process from PLY's master regex, its rules
    reordered as above) and the token kind of each of its groups (None for groups
    inside a rule)."""
    if not _SCANNER:
        try:        # PLY's generated table: no need to build PLY's lexer to read it
            from cfpromise.syntax import _lextab
            (pattern, index), = _lextab._lexstatere["INITIAL"]
            flags = _lextab._lexreflags
        except ImportError:
            (regex, index), = _master_lexer().lexstatere["INITIAL"]
            pattern, flags = regex.pattern, regex.flags
        kind_of = {entry[0]: entry[1] or "ignore" for entry in index if entry}
        # PLY's master regex is `(?P<t_RULE>regex)|(?P<t_RULE>regex)|...`, in its order
        rules = {}
        for part in pattern[len("(?P<"):].split("|(?P<"):
            name, _, body = part.partition(">")
            rules[name] = body[:-1]
        first = [(name, regex if regex is not None else rules.pop(name)) for name, regex in _FIRST]
        ordered = first + list(rules.items())
        alternatives = "|".join(f"(?P<{name}>{regex})" for name, regex in ordered)
        fast = precompiled.compile(f"{_SKIP_PREFIX}(?:{alternatives})", flags)
        kinds: list[str | None] = [None] * (fast.groups + 1)
        for name, number in fast.groupindex.items():
            kinds[number] = _KIND.get(name) or kind_of.get(name) or "ignore"
        _SCANNER.append((fast, kinds))
    return _SCANNER[0]


class FastLexer:
    """The whole text scanned in one loop into :class:`Token` tuples, PLY's tokens exactly.

    Profiling a cold parse of masterfiles put a third of its time in the lexer: per
    token, PLY's generic loop (or, before this, a per-token inlined copy of it), a
    separate match for the whitespace before it, a bisect for its line and a Coord
    built through NamedTuple's Python ``__new__``.  Here one regex match per token
    skips the whitespace and comments before it and matches PLY's own master regex
    (so the token chosen is PLY's, rule order included); lines are counted
    incrementally from the previous token (``str.count``), and tokens and Coords are
    made with ``tuple.__new__``.  A kept ``@if`` block's ``@if`` and ``@endif`` are
    handled here too (real policy has them: masterfiles' lib/files.cf has seven), so
    that such a file never needs PLY's lexer built.  Anything else -- ``@else``, a
    false ``@if`` and the skipping state inside it, a misplaced macro, a string with a bad character, an overlong
    identifier, a class with spaces, no match at all, a text with CRLF line ends --
    is handed to PLY's lexer (or the Lexer's own coordinate functions) at the same
    position, so errors and macros behave exactly as before.

    :meth:`scan` returns the tokens and the error that stopped the scan, if any: the
    parser raises that error only when it asks for the token after the last one, as
    it would have met it reading token by token (the lexer never depends on the
    parser's state).  :meth:`token` gives the same stream one token at a time."""

    def __init__(self, owner: Lexer) -> None:
        self.owner = owner
        self._tokens: list[Token] | None = None
        self._error: PolicyError | None = None
        self._next = 0

    def input(self, text: str) -> None:
        self.owner.input(text)
        self._tokens = None

    def token(self) -> Token | None:
        if self._tokens is None:
            self._tokens, self._error = self.scan()
            self._next = 0
        if self._next < len(self._tokens):
            self._next += 1
            return self._tokens[self._next - 1]
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        return None

    def scan(self) -> tuple[list[Token], PolicyError | None]:
        """Every token of the text, and the error met after the last one (or None)."""
        owner = self.owner
        text = owner.text
        out: list[Token] = []
        try:
            self._scan(owner, text, out)
        except PolicyError as exc:
            return out, exc
        return out, None

    def _scan(self, owner: Lexer, text: str, out: list[Token]) -> None:
        # Only a delegated token can change the lexer's state, and PLY returns one only
        # once it is back in INITIAL (no rule of the skipping state returns a token).
        regex, kinds = _scanner()
        match = regex.match
        append = out.append
        count = text.count
        rfind = text.rfind
        filename = owner.filename
        plain = "\r\n" not in text        # else CFEngine's CRLF line count: the Lexer's own
        new, coord_type, token_type = _new_tuple, Coord, Token
        reserved = RESERVED.get
        whitespace_in_class = _WHITESPACE_IN_CLASS.fullmatch
        skipped = owner.skipped
        n = len(text)
        pos = 0
        known, line, line_start = 0, 1, 0    # the line of position `known` and its start
        while True:
            m = match(text, pos)
            if m is None:
                start = _SKIP.match(text, pos).end()
                if start >= n:
                    return
                kind = None
            else:
                k = m.lastindex
                start, pos = m.span(k)
                kind = kinds[k]
                if kind == "QSTRING":
                    value = text[start:pos]
                    if "\n" in value:
                        coord = owner.token_coord(start, pos - 1)
                    elif not plain:
                        coord = simple_coord(owner, start)
                    else:
                        nl = count("\n", known, start)
                        if nl:
                            line += nl
                            line_start = rfind("\n", known, start) + 1
                        known = start
                        coord = new(coord_type, (filename, line, start - line_start + 1,
                                                 line - skipped))
                    inner = value[1:-1]
                    append(new(token_type, ("QSTRING",
                                            deescape(inner) if "\\" in inner else inner,
                                            start, coord, value[0])))
                    continue
                value = text[start:pos]
                if kind == "LITERAL":
                    kind = value
                elif kind == "IDENTIFIER":
                    kind = reserved(value, kind) if pos - start <= MAX_IDENTIFIER else None
                elif kind == "PROMISE_TYPE":
                    value = value[:-1]
                elif kind == "CLASS":
                    if whitespace_in_class(value):
                        kind = None
                    else:
                        value = value[:-2]
                elif kind == "MACRO_IF" or kind == "MACRO_ENDIF":
                    # a kept @if block's bounds (what t_MACRO_IF/t_MACRO_ENDIF do
                    # when they raise nothing and do not start skipping): no token
                    if start == 0 or text[start - 1] == "\n":
                        if kind == "MACRO_ENDIF":
                            if owner.if_depth > 0:
                                owner.if_depth -= 1
                                continue
                        elif owner.if_depth == 0:
                            macro, _, arg = value[4:-1].partition("(")
                            if _macro_accepts(owner, macro, arg):
                                owner.if_depth += 1
                                continue
                    kind = None
                elif kind == "VARCLASS":            # t_VARCLASS
                    append(new(token_type, ("VARCLASS", value[1:-3], start,
                                            owner.token_coord(start, pos - 1), None)))
                    continue
                elif kind not in ("ASSIGN", "SYMBOL", "NAKEDVAR", "ARROW"):
                    kind = None                     # @else
            if kind is None:                        # PLY's own lexer, from `start`
                ply = owner.lexer
                ply.lexpos = start
                tok = ply.token()
                if tok is None:
                    return
                append(new(token_type, (tok.type, tok.value, tok.lexpos, tok.coord,
                                        getattr(tok, "quote", None))))
                pos = ply.lexpos
                skipped = owner.skipped
                continue
            if plain:
                nl = count("\n", known, start)
                if nl:
                    line += nl
                    line_start = rfind("\n", known, start) + 1
                known = start
                coord = new(coord_type, (filename, line, start - line_start + 1,
                                         line - skipped))
            else:
                coord = simple_coord(owner, start)
            append(new(token_type, (kind, value, start, coord, None)))
