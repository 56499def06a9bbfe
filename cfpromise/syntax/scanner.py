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
from cfpromise.syntax.lexer import (CLASS_RE, MAX_IDENTIFIER, NAKEDVAR_RE, RESERVED, _ID,
                                    _WHITESPACE_IN_CLASS, Lexer, _cls, _macro_accepts,
                                    _master_lexer, deescape, simple_coord)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@record
class Token:
    """One token as the parser sees it (``p[i]`` in a grammar rule, read by index:
    ``parser._TYPE``...).  :meth:`FastLexer.scan` makes them as plain tuples of these
    fields, cheaper than this record (and than PLY's LexToken object), and gives the
    punctuation no rule reads the Coord of (``(``, ``,``, ``;``, ``=>``, ``->``) none:
    its ``coord`` is then the count of lines skipped before it, from which
    ``lexer.simple_coord`` makes the Coord when an error needs it."""

    type: str
    value: str
    lexpos: int
    coord: Coord
    quote: str | None = None     # a QSTRING's quote character


_new_tuple = tuple.__new__
# Before every token: whitespace and comments (atomic, so that no alternative is
# ever tried inside them).
_SKIP_PREFIX = r"[ \t\r\n]*+(?:\#(?>[^\n]*+[ \t\r\n]*+(?:\#[^\n]*+[ \t\r\n]*+)*)|)"
_SCANNER: list[tuple[Any, list[str | None], Any]] = []

# The named regex: PLY's master regex with these rules first.  PLY tries its rules in
# order, and SRE pays for each rule it tries and fails.  Each of these can start only
# with characters no rule before it in PLY's order can start with (the macros start
# with "@"; a CLASS, SYMBOL, PROMISE_TYPE or IDENTIFIER with a word character, a
# non-ASCII one or one of ``.|&!():``; a VARCLASS, like a string, with a quote), so
# the token is the one PLY's order gives.
_FIRST = (("h_PUNCT", "[{},;]"), ("t_ASSIGN", None), ("t_VARCLASS", None), ("t_QSTRING", None))
_KIND = {"h_PUNCT": "LITERAL"}

# The characters a CLASS holds after its first one.  A word (a run of _ID) is PLY's
# CLASS when the run of these from its start holds a `::` (the word itself holds no
# `:`), else its SYMBOL or PROMISE_TYPE when a `:` follows it, else its IDENTIFIER.
_CLASS_RUN = _cls("\t .|&!():")
# The one-pass regex's groups after the separators' (see FastLexer): one per common
# kind of token, each guarded so that it matches only where PLY's order gives that
# kind -- punctuation (`(` and `)` where no CLASS starts), a word no CLASS, SYMBOL or
# PROMISE_TYPE starts at, a quoted string with no backslash (no escape to undo) and
# no `::` after it (no VARCLASS), a naked variable (no earlier rule starts with `$(`, `${`, `@(` or `@{`),
# a promise type no CLASS or SYMBOL starts at, a class guard (PLY's first rule for a
# word) -- then anything else PLY's lexer reads, or one character: the named regex
# reads that again to know its rule.  A word takes the `=>` or `(` after it on its
# line (a constraint's `lval =>`, a call's `name(`), a string, a `}` or a `)` the `;`
# or `,` after it on its line: two tokens from one item, which halves the regex's
# set-up per item and the loop's cost for them (`=`, `;` and `,` start no other
# rule's token, and no CLASS starts at a `(` after a word no CLASS starts at).
# (The optional groups for the follower are greedy, not possessive: before 3.11.5
# SRE could keep what a failed possessive group had read, CPython issues 100061 and
# 106052; nothing follows them in an item, so the two read the same.)
# Punctuation whose Coord no rule reads (see Token), by kind; the rest is its own kind.
_LAZY_PUNCT = {"(": "(", ",": ",", ";": ";", "=>": "ASSIGN", "->": "ARROW"}
_FAST_GROUPS = (
    f"[{{,;]|=>|->|\\((?!{_CLASS_RUN}*::)|(?:}}|\\)(?!{_CLASS_RUN}*::))(?:[ \\t]*+[;,])?",
    f"{_ID}++(?![:]|{_CLASS_RUN}*::)(?:[ \\t]*+(?:=>|\\())?",
    "(?:\"(?![^\"]*\\\\)[^\"]*+\"|'(?![^']*\\\\)[^']*+')(?!::)(?:[ \\t]*+[;,])?",
    NAKEDVAR_RE,
    f"[a-zA-Z_]++:(?![:]|{_ID}|{_CLASS_RUN}*::)",
    CLASS_RE,
)


def _scanner() -> tuple[Any, list[str | None], Any]:
    """The scanner's two regexes, built once per process from PLY's master regex: the
    named one (PLY's rules, reordered as above, each in a group named after it), the
    token kind of each of its groups (None for groups inside a rule), and the
    one-pass one (:data:`_FAST_GROUPS`)."""
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
        anything = "|".join(f"(?:{body})" for body in rules.values())
        first = [(name, regex if regex is not None else rules.pop(name)) for name, regex in _FIRST]
        ordered = first + list(rules.items())
        alternatives = "|".join(f"(?P<{name}>{regex})" for name, regex in ordered)
        named = precompiled.compile(f"{_SKIP_PREFIX}(?:{alternatives})", flags)
        kinds: list[str | None] = [None] * (named.groups + 1)
        for name, number in named.groupindex.items():
            kinds[number] = _KIND.get(name) or kind_of.get(name) or "ignore"
        groups = "|".join(f"({body})" for body in _FAST_GROUPS)
        fast = precompiled.compile(f"({_SKIP_PREFIX})(?:{groups}|((?:{anything})|[\\s\\S]))",
                                   flags)
        _SCANNER.append((named, kinds, fast))
    return _SCANNER[0]


class FastLexer:
    """The whole text scanned in one loop into tuples of :class:`Token`'s fields: PLY's tokens.

    Profiling a cold parse of masterfiles put a third of its time in the lexer: per
    token, PLY's generic loop, a separate match for the whitespace before it, a
    bisect for its line and a Coord built through NamedTuple's Python ``__new__``;
    then, in a loop of one ``match`` per token, SRE's set-up on every call (more
    than most tokens cost to read) and its cost per rule tried and failed (a rule's
    group is entered before its first character is tried).

    Here one ``findall`` reads the whole text (SRE's set-up once), with a regex whose
    guarded groups say the common kinds of token (see :data:`_FAST_GROUPS`) and
    whose last one reads whatever else PLY's lexer would, which the named regex
    (PLY's master regex, its rules in its order) then reads again; so the token
    chosen is PLY's, rule order included.  Lines are counted incrementally (the
    newlines in the separators before each token), and Coords are made with
    ``tuple.__new__``.  A kept ``@if`` block's ``@if`` and ``@endif`` are handled
    here too (real policy has them: masterfiles' lib/files.cf has seven), so that
    such a file never needs PLY's lexer built.  Anything else -- ``@else``, a false
    ``@if`` and the skipping state inside it, a misplaced macro, a string with a bad
    character, an overlong identifier, a class with spaces, a character no rule
    reads, a text with CRLF line ends -- is handed to PLY's lexer (or the Lexer's
    own coordinate functions) at the same position, so errors and macros behave
    exactly as before; the scan goes on (another ``findall``) where PLY's token ends.

    :meth:`scan` returns the tokens and the error that stopped the scan, if any: the
    parser raises that error only when it asks for the token after the last one, as
    it would have met it reading token by token (the lexer never depends on the
    parser's state).  :meth:`token` gives the same stream one token at a time."""

    def __init__(self, owner: Lexer) -> None:
        self.owner = owner
        self._tokens: list[tuple[Any, ...]] | None = None
        self._error: PolicyError | None = None
        self._next = 0

    def input(self, text: str) -> None:
        self.owner.input(text)
        self._tokens = None

    def token(self) -> Token | None:
        """The next token as a :class:`Token` record, its Coord made if it has none."""
        if self._tokens is None:
            self._tokens, self._error = self.scan()
            self._next = 0
        if self._next < len(self._tokens):
            self._next += 1
            kind, value, lexpos, coord, quote = self._tokens[self._next - 1]
            if coord.__class__ is not Coord:
                coord = simple_coord(self.owner, lexpos, coord)
            return Token(kind, value, lexpos, coord, quote)
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        return None

    def scan(self) -> tuple[list[tuple[Any, ...]], PolicyError | None]:
        """Every token of the text, and the error met after the last one (or None)."""
        owner = self.owner
        text = owner.text
        out: list[tuple[Any, ...]] = []
        try:
            self._scan(owner, text, out)
        except PolicyError as exc:
            return out, exc
        return out, None

    def _scan(self, owner: Lexer, text: str, out: list[tuple[Any, ...]]) -> None:
        # Only a delegated token can change the lexer's state, and PLY returns one only
        # once it is back in INITIAL (no rule of the skipping state returns a token).
        named, kinds, fast = _scanner()
        findall = fast.findall
        append = out.append
        filename = owner.filename
        plain = "\r\n" not in text        # else CFEngine's CRLF line count: the Lexer's own
        new, coord_type = _new_tuple, Coord
        reserved = RESERVED.get
        lazy = _LAZY_PUNCT.get
        skipped = owner.skipped
        pos = 0
        # the line of position `pos`, and the position before that line starts (a column
        # is then `start - col0`)
        line, col0 = 1, -1
        while True:             # a findall from `pos`, again after each token PLY reads
            for ws, punct, word, string, naked, ptype, guard, other in findall(text, pos):
                if "\n" in ws:
                    line += ws.count("\n")
                    col0 = pos + ws.rfind("\n")
                start = pos + len(ws)
                if punct:
                    pos = start + len(punct)
                    kind = lazy(punct)
                    if kind is not None:            # no Coord: see Token
                        append((kind, punct, start, skipped, None))
                        continue
                    kind = value = punct
                    if len(punct) > 1:              # `}` or `)`, then its `;` or `,`
                        kind = value = punct[0]
                        append((kind, kind, start,
                                new(coord_type, (filename, line, start - col0,
                                                 line - skipped)) if plain
                                else simple_coord(owner, start), None))
                        follower = punct[-1]
                        append((follower, follower, pos - 1, skipped, None))
                        continue
                elif word:
                    pos = start + len(word)
                    follower = word[-1]
                    if follower == ">" or follower == "(":     # the word, then `=>` or `(`
                        word = word[:-2 if follower == ">" else -1].rstrip(" \t")
                        if len(word) <= MAX_IDENTIFIER:
                            append((reserved(word, "IDENTIFIER"), word, start,
                                    new(coord_type, (filename, line, start - col0,
                                                     line - skipped)) if plain
                                    else simple_coord(owner, start), None))
                            if follower == ">":
                                append(("ASSIGN", "=>", pos - 2, skipped, None))
                            else:
                                append(("(", "(", pos - 1, skipped, None))
                            continue
                        kind = None
                    else:
                        kind = (reserved(word, "IDENTIFIER") if pos - start <= MAX_IDENTIFIER
                                else None)
                    value = word
                elif string:
                    pos = start + len(string)
                    follower = string[-1]
                    if follower == ";" or follower == ",":     # the string, then that
                        string = string[:-1].rstrip(" \t")
                    if "\n" in string:
                        lines = string.count("\n")
                        coord = (new(coord_type, (filename, line, start - col0,
                                                  line + lines - skipped)) if plain
                                 else owner.token_coord(start, start + len(string) - 1))
                        line += lines
                        col0 = start + string.rfind("\n")
                    elif plain:
                        coord = new(coord_type, (filename, line, start - col0,
                                                 line - skipped))
                    else:
                        coord = simple_coord(owner, start)
                    append(("QSTRING", string[1:-1], start, coord, string[0]))
                    if follower == ";" or follower == ",":
                        append((follower, follower, pos - 1, skipped, None))
                    continue
                elif naked:
                    pos = start + len(naked)
                    kind = "NAKEDVAR"
                    value = naked
                elif ptype:
                    pos = start + len(ptype)
                    kind = "PROMISE_TYPE"
                    value = ptype[:-1]
                elif guard:
                    pos = start + len(guard)
                    kind = None if _WHITESPACE_IN_CLASS.fullmatch(guard) else "CLASS"
                    value = guard[:-2]
                else:
                    kind, value, pos = self._other(
                        owner, named.match(text, start), kinds, text, start, out,
                        (filename, line, start - col0, line - skipped) if plain else None)
                    if "\n" in text[start:pos]:      # a string or a VARCLASS over lines
                        line += text.count("\n", start, pos)
                        col0 = text.rfind("\n", start, pos)
                    if kind == "":                  # done: a macro, or a token made
                        continue
                if kind is None:                    # PLY's own lexer, from `start`
                    ply = owner.lexer
                    ply.lexpos = start
                    tok = ply.token()
                    if tok is None:
                        return
                    append((tok.type, tok.value, tok.lexpos, tok.coord,
                            getattr(tok, "quote", None)))
                    pos = ply.lexpos
                    skipped = owner.skipped
                    line = text.count("\n", 0, pos) + 1
                    col0 = text.rfind("\n", 0, pos)
                    break
                if plain:
                    coord = new(coord_type, (filename, line, start - col0,
                                             line - skipped))
                else:
                    coord = simple_coord(owner, start)
                append((kind, value, start, coord, None))
            else:
                return

    @staticmethod
    def _other(owner: Lexer, m: Any, kinds: list[str | None], text: str, start: int,
               out: list[tuple[Any, ...]], at: tuple[str, int, int, int] | None
               ) -> tuple[str | None, str, int]:
        """A token the one-pass regex has no group for, read by the named regex ``m``
        at ``start``: its kind, value and end; the kind None to hand it to PLY's lexer,
        "" when it is done here (a kept macro's bound; a string or a VARCLASS, whose
        Token this appends to ``out``).  ``at`` is the Coord's fields at ``start`` in a
        text with no CRLF (None: the Lexer's own coordinate functions, whose index of
        the text's newlines is then made)."""
        if m is None:
            return None, "", start
        k = m.lastindex
        pos = m.end()
        kind = kinds[k]
        value = text[start:pos]
        if kind == "QSTRING" or kind == "VARCLASS":     # t_QSTRING (an escape in it), t_VARCLASS
            if at is None:
                coord = (owner.token_coord(start, pos - 1) if "\n" in value
                         else simple_coord(owner, start))
            else:           # CFEngine's line at the token's last character
                filename, line, col, cfline = at
                coord = _new_tuple(Coord, (filename, line, col, cfline + value.count("\n")))
            if kind == "QSTRING":
                out.append(("QSTRING", deescape(value[1:-1]), start, coord, value[0]))
            else:
                out.append(("VARCLASS", value[1:-3], start, coord, None))
            return "", value, pos
        if kind == "MACRO_IF" or kind == "MACRO_ENDIF":
            # a kept @if block's bounds (what t_MACRO_IF/t_MACRO_ENDIF do when they
            # raise nothing and do not start skipping): no token
            if start == 0 or text[start - 1] == "\n":
                if kind == "MACRO_ENDIF":
                    if owner.if_depth > 0:
                        owner.if_depth -= 1
                        return "", value, pos
                elif owner.if_depth == 0:
                    macro, _, arg = value[4:-1].partition("(")
                    if _macro_accepts(owner, macro, arg):
                        owner.if_depth += 1
                        return "", value, pos
            return None, value, pos
        if kind in ("SYMBOL", "ASSIGN", "ARROW", "NAKEDVAR"):
            return kind, value, pos
        if kind == "ignore":
            # a comment the separators could not take: one at the end of the text
            # (the one-pass regex needs a token after its separators).  PLY skips it.
            return "", value, pos
        if kind == "LITERAL":
            return value, value, pos
        if kind == "IDENTIFIER" and pos - start <= MAX_IDENTIFIER:
            return RESERVED.get(value, kind), value, pos
        if kind == "PROMISE_TYPE":
            return kind, value[:-1], pos
        if kind == "CLASS" and not _WHITESPACE_IN_CLASS.fullmatch(value):
            return kind, value[:-2], pos
        return None, value, pos     # @else, a class with whitespace, a comment at the end...
