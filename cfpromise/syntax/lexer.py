"""The CFEngine 3 lexer (PLY), with CFEngine's quirks where they change meaning.

CFEngine's own lexer is flex, which takes the *longest* match among all rules;
PLY tries rules in order.  The rules below are ordered so that the first rule
that matches is also the longest one flex would pick:

* a class guard (``linux.!foo::``) may contain spaces and colons, so on one
  line ``vars: any::`` is a single class token, exactly as in CFEngine;
* ``ns:name`` (a symbol) beats the promise type ``ns:``;
* ``"$(x)"::`` (a variable class guard) beats a quoted string.

Strings are de-escaped the CFEngine way: ``\\\\``, ``\\"`` and ``\\'`` stand for
the character, a backslash before a newline drops both (continuation), any
other backslash stays.  Backquoted strings end at the next backquote.

Macros (``@if minimum_version(3.7)``, ``maximum_version``, ``between_versions``,
``feature``, ``@else``, ``@endif``) are handled here with an exclusive
``ignore`` state.  CFEngine does not count the lines inside an ignored region;
``Token.cfline`` reproduces its count (for ``-p json``) while ``Token.line`` is
the true line (for error messages).
"""
from __future__ import annotations

from bisect import bisect_left

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def TOKEN(regex: str) -> Any:
    """PLY's ``@TOKEN`` (a rule's regex given by a name, set as ``f.regex``), defined here
    so that importing this module does not import PLY: the fast scanner reads PLY's
    generated tables (``_lextab.py``) itself, and PLY's lexer is built only for what
    the scanner hands to it (@else, a false @if, errors)."""
    def set_regex(f: Any) -> Any:
        f.regex = regex
        return f
    return set_regex

from cfpromise.fast import precompiled
from cfpromise import CFENGINE_COMPAT_VERSION
from cfpromise.syntax.errors import Coord, Diagnostic, PolicyError, source_line_of

# Features `@if feature(...)` knows about in CFEngine 3.21 on Linux.
KNOWN_FEATURES = frozenset({
    "def_json_preparse", "host_specific_data_load", "copyfrom_restrict_keys",
    "tls_1_0", "tls_1_1", "tls_1_2", "tls_1_3", "xml", "yaml", "curl",
})

RESERVED = {"bundle": "BUNDLE", "body": "BODY", "promise": "PROMISE"}

tokens = (
    "BUNDLE", "BODY", "PROMISE", "IDENTIFIER", "SYMBOL", "QSTRING", "NAKEDVAR",
    "CLASS", "VARCLASS", "PROMISE_TYPE", "ASSIGN", "ARROW", "BADCHAR",
)
literals = "{}(),;"
states = (("skipping", "exclusive"),)

def _cls(extra: str = "", *, word: bool = True) -> str:
    """A character class of ``extra`` (and the identifier characters a-zA-Z0-9_ when
    ``word``) plus every non-ASCII character, as a negated class of ASCII ranges: it
    means the same as a ``\\x80-\\U0010ffff`` range but compiles a hundred times
    faster, and the ranges (``\\x00-\\x2f``...) compile faster again than the ~60
    characters listed one by one (these classes fill the scanners' regexes: the fast
    parser's compile at start-up cost more than its parse of lib/files.cf)."""
    allowed = set(extra)
    if word:
        allowed |= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
    banned = [c for c in range(128) if chr(c) not in allowed]
    ranges: list[str] = []
    i = 0
    while i < len(banned):
        j = i
        while j + 1 < len(banned) and banned[j + 1] == banned[j] + 1:
            j += 1
        ranges.append(f"\\x{banned[i]:02x}" + (f"-\\x{banned[j]:02x}" if j > i else ""))
        i = j + 1
    return "[^" + "".join(ranges) + "]"


_ID = _cls()
_VAR_INNER = _cls("[].:") + "++"
_VAR_IDX = _cls(".:") + r"++\[" + _cls("$(){}.:") + r"++\]+"
NAKEDVAR_RE = (rf"[$@]\({_VAR_INNER}\)|[$@]\{{{_VAR_INNER}\}}"
               rf"|[$@]\({_VAR_IDX}\)|[$@]\{{{_VAR_IDX}\}}")
CLASS_RE = _cls(".|&!():") + _cls("\t .|&!():") + "*::"
SYMBOL_RE = f"{_ID}++:{_ID}+"
IDENTIFIER_RE = f"{_ID}+"
_NEWLINE = precompiled.compile("\n")
_CRLF = precompiled.compile("\r\n")
_WHITESPACE_IN_CLASS = precompiled.compile(r".*[_A-Za-z0-9][ \t]+[_A-Za-z0-9].*")
_VERSION = precompiled.compile(r"\d+(?:\.\d+)*")


# CFEngine's escapes in a quoted string: a backslash before a newline drops both and
# keeps the character after them whatever it is; before a backslash or a quote, keeps
# that character; before anything else it stays (and that character is read as usual).
_ESCAPE = precompiled.compile("\\\\(?:\n(.?)|([\\\\\"']))", precompiled.DOTALL)


def _unescaped(m: Any) -> str:
    return m[m.lastindex]


def deescape(body: str) -> str:
    """CFEngine's de-escaping of a quoted string's inside."""
    if "\\" not in body:
        return body
    return _ESCAPE.sub(_unescaped, body)


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("."))


def compare_version(current: str, wanted: str) -> int:
    """-1, 0 or 1 comparing ``current`` with ``wanted`` on the components ``wanted`` gives."""
    want = _version_tuple(wanted)
    have = _version_tuple(current)[: len(want)]
    have = have + (0,) * (len(want) - len(have))
    return (have > want) - (have < want)


_VERSION_ARG = r"\d{1,10}(?:\.\d{1,10}){0,2}"
_VERSION_ARG_RE = precompiled.compile(_VERSION_ARG)
_VERSION_PAIR = precompiled.compile(rf"({_VERSION_ARG}) *, *({_VERSION_ARG})")
_FEATURE_ARG = precompiled.compile(r"[a-zA-Z0-9_]+")
# macro -> which results of compare_version(current, argument) accept the block
_VERSION_MACROS = {
    "minimum_version": (0, 1), "maximum_version": (-1, 0), "before_version": (-1,),
    "at_version": (0,), "after_version": (1,),
}


def _macro_accepts(owner: "Lexer", kind: str, arg: str) -> bool | None:
    """Whether an ``@if kind(arg)`` block is kept; None for an unknown or malformed macro."""
    if kind == "feature":
        return arg in owner.features if _FEATURE_ARG.fullmatch(arg) else None
    if kind in _VERSION_MACROS:
        if not _VERSION_ARG_RE.fullmatch(arg):
            return None
        return compare_version(owner.version, arg) in _VERSION_MACROS[kind]
    if kind == "between_versions":
        m = _VERSION_PAIR.fullmatch(arg)
        if not m:
            return None
        return (compare_version(owner.version, m.group(1)) >= 0
                and compare_version(owner.version, m.group(2)) <= 0)
    return None


class Lexer:
    """A PLY lexer over one policy text.  Use :meth:`input` then :meth:`token`."""


    def __init__(self, filename: str = "<string>", version: str = CFENGINE_COMPAT_VERSION,
                 features: frozenset[str] = KNOWN_FEATURES) -> None:
        self.filename = filename
        self.version = version
        self.features = features
        self._ply: Any = None
        self.text = ""
        self.reset()

    @property
    def lexer(self) -> Any:
        """This text's PLY lexer, made on first use (a well-formed file without macros
        never needs it: see :class:`cfpromise.syntax.scanner.FastLexer`)."""
        if self._ply is None:
            self._ply = _master_lexer().clone()
            self._ply.owner = self
            self._ply.begin("INITIAL")
            self._ply.input(self.text)
        return self._ply

    def reset(self) -> None:
        # Lines come from an index of the text's newlines (bisect), so whitespace
        # needs no callback; CFEngine's count differs only by the newlines of
        # ignored @if regions (``skipped``) and its double count of CRLF.  The
        # index is made on first use: the scanner counts lines itself.
        self._newlines: list[int] | None = None
        self.crlfs: list[int] = ([m.start() for m in _CRLF.finditer(self.text)]
                                 if "\r\n" in self.text else [])
        self.skipped = 0
        self.if_depth = 0
        self.namespace = "default"      # parser state: `body file control` namespace
        # parser state: the guard inside a body, (classes, a quoted guard's text or None)
        self.body_guard: tuple[str, str | None] = ("any", None)
        # the errors cf-promises' lexer says and reads on past (its yyerror in a rule
        # that still gives the token), by the token's offset: see :meth:`said`
        self.lexed: dict[int, list[Diagnostic]] = {}
        # the parser's errors of the class guards it reduced, by offset (cfpromise.syntax.guards)
        self.guarded: dict[int, Diagnostic] = {}
        self.ended_at: int | None = None    # the first refused macro's offset: see ended

    @property
    def newlines(self) -> list[int]:
        """The offsets of the text's newlines."""
        if self._newlines is None:
            self._newlines = [m.start() for m in _NEWLINE.finditer(self.text)]
        return self._newlines

    def input(self, text: str) -> None:
        self.text = text
        self.reset()
        if self._ply is not None:
            self._ply.begin("INITIAL")
            self._ply.input(text)

    def token(self) -> Any:
        tok = self.lexer.token()
        if tok is None:
            self.check_end()
        return tok

    def check_end(self) -> None:
        """At the end of the text: an @if still open is an error (not when a refused
        macro ended the parser's input before: it never reads the end of the text)."""
        if self.if_depth > 0 and self.ended_at is None:
            skipping = self._ply is not None and self._ply.current_state() == "skipping"
            state = "in ignore_state" if skipping else "without ignore_state"
            self.error(len(self.text), f"EOF seen while @if was waiting for @endif {state}")

    # -- positions -----------------------------------------------------------
    def line_of(self, lexpos: int) -> tuple[int, int]:
        """(1-based line, offset where that line starts) of ``lexpos``."""
        index = bisect_left(self.newlines, lexpos)
        return index + 1, (self.newlines[index - 1] + 1 if index else 0)

    def cfline_of(self, lexpos: int, line: int) -> int:
        """CFEngine's line for a position on real ``line``."""
        extra = bisect_left(self.crlfs, lexpos) if self.crlfs else 0
        return line + extra - self.skipped

    def coord(self, lexpos: int) -> Coord:
        line, start = self.line_of(lexpos)
        return Coord(self.filename, line, lexpos - start + 1)

    def token_coord(self, lexpos: int, end: int) -> Coord:
        """Where a token starts, with CFEngine's line at its last character ``end``."""
        line, start = self.line_of(lexpos)
        end_line = line if end <= lexpos or "\n" not in self.text[lexpos:end] \
            else self.line_of(end)[0]
        return Coord(self.filename, line, lexpos - start + 1, self.cfline_of(end, end_line))

    def said(self, lexpos: int, end: int, message: str) -> None:
        """An error of the token at ``lexpos`` that the lexer says where it then
        stands (one past the token, ``end``) and gives the token all the same: the
        parser says it as it reads the token (:data:`lexed`)."""
        coord = self._cf(self.coord(end), end)
        self.lexed.setdefault(lexpos, []).append(
            Diagnostic(coord, message, source_line=source_line_of(self.text, coord.line)))

    def ended(self, t: Any, message: str) -> Any:
        """A macro cf-promises' lexer refuses: it says so where it stands (the macro's
        start: its column is not counted) and gives the parser the end of the input,
        ``t`` as a token of type ``$end`` -- and reads on after it, if asked again."""
        coord = self._cf(self.coord(t.lexpos), t.lexpos)
        self.lexed.setdefault(t.lexpos, []).append(
            Diagnostic(coord, message, source_line=source_line_of(self.text, coord.line)))
        t.type = "$end"
        if self.ended_at is None:
            self.ended_at = t.lexpos
        return _simple(t)

    def _cf(self, coord: Coord, lexpos: int) -> Coord:
        """``coord`` with CFEngine's line (``cf``) when it differs (an @if ignored)."""
        cf = self.cfline_of(lexpos, coord.line)
        return coord._replace(cf=cf) if cf != coord.line else coord

    def error(self, lexpos: int, message: str) -> None:
        coord = self.coord(lexpos)
        raise PolicyError.at(coord, message, source_line_of(self.text, coord.line))

    def at_line_start(self, lexpos: int) -> bool:
        return lexpos == 0 or self.text[lexpos - 1] == "\n"


def simple_coord(owner: Lexer, lexpos: int, skipped: int | None = None) -> Coord:
    """The coordinates of a one-line token starting at ``lexpos`` (``skipped``: the
    lines an ``@if`` skipped before it, if not the lexer's count now)."""
    newlines = owner.newlines
    index = bisect_left(newlines, lexpos)
    start = newlines[index - 1] + 1 if index else 0
    cfline = index + 1 - (owner.skipped if skipped is None else skipped)
    if owner.crlfs:
        cfline += bisect_left(owner.crlfs, lexpos)
    return Coord(owner.filename, index + 1, lexpos - start + 1, cfline)


def _simple(t: Any) -> Any:
    """Attach the coordinates of a one-line token."""
    t.coord = simple_coord(t.lexer.owner, t.lexpos)
    return t


# --- rules for the INITIAL state ---------------------------------------------
# (PLY orders function rules by their line in this file: keep the order.)

# Whitespace and comments are discarded by PLY itself (no callback): lines come
# from the newline index.
t_ignore_SPACE = r"[ \t\r\n]+"
t_ignore_COMMENT = r"\#[^\n]*"


def t_MACRO_IF(t: Any) -> Any:
    r"@if\ [a-z_]+\([^)\n]*\)"
    owner: Lexer = t.lexer.owner
    text = t.value
    if not owner.at_line_start(t.lexpos):
        return owner.ended(t, "fatal: macro @if must be at beginning of the line.")
    if owner.if_depth > 0:
        if text.startswith("@if feature("):
            t.value = text[:-1]     # (its rule has cut the ')' off its text by then)
        return owner.ended(t, "fatal: nested @if macros are not allowed")
    kind, _, arg = text[4:-1].partition("(")
    accepted = _macro_accepts(owner, kind, arg)
    if accepted is None:
        owner.error(t.lexpos, f"Unknown or malformed macro '{text}'")
    owner.if_depth += 1
    if not accepted:
        t.lexer.begin("skipping")
    return None


def t_MACRO_ELSE(t: Any) -> Any:
    r"@else"
    owner: Lexer = t.lexer.owner
    if owner.if_depth <= 0:
        return owner.ended(t, "fatal: @else macro without a matching @if are not allowed")
    t.lexer.begin("skipping")
    return None


def t_MACRO_ENDIF(t: Any) -> Any:
    r"@endif"
    owner: Lexer = t.lexer.owner
    if not owner.at_line_start(t.lexpos):
        return owner.ended(t, "fatal: macro @endif must be at beginning of the line.")
    if owner.if_depth <= 0:
        return owner.ended(t, "fatal: @endif macros without a matching @if are not allowed")
    owner.if_depth -= 1
    return None


def t_VARCLASS(t: Any) -> Any:
    r"(?>\"(?![^\"]*\x00)[^\"]*+\"::|'(?![^']*\x00)[^']*+'::)"
    owner: Lexer = t.lexer.owner
    t.coord = owner.token_coord(t.lexpos, t.lexpos + len(t.value) - 1)
    t.value = t.value[1:-3]
    return t


@TOKEN(CLASS_RE)
def t_CLASS(t: Any) -> Any:
    owner: Lexer = t.lexer.owner
    if _WHITESPACE_IN_CLASS.fullmatch(t.value):
        owner.said(t.lexpos, t.lexpos + len(t.value),
                   "class names can't be separated by whitespace without an intervening operator")
    t.value = t.value[:-2]
    return _simple(t)


@TOKEN(SYMBOL_RE)
def t_SYMBOL(t: Any) -> Any:
    return _simple(t)


def t_PROMISE_TYPE(t: Any) -> Any:
    r"[a-zA-Z_]++:"
    t.value = t.value[:-1]
    return _simple(t)


# cf-promises' limit on a bare word (CF_MAXVARSIZE - 1 characters).
MAX_IDENTIFIER = 1023


@TOKEN(IDENTIFIER_RE)
def t_IDENTIFIER(t: Any) -> Any:
    if len(t.value) > MAX_IDENTIFIER:
        t.lexer.owner.said(t.lexpos, t.lexpos + len(t.value), "identifier too long")
    t.type = RESERVED.get(t.value, "IDENTIFIER")
    return _simple(t)


def t_LITERAL(t: Any) -> Any:
    r"[{}(),;]"
    t.type = t.value
    return _simple(t)


def t_ASSIGN(t: Any) -> Any:
    r"=>"
    return _simple(t)


def t_ARROW(t: Any) -> Any:
    r"->"
    return _simple(t)


def t_QSTRING(t: Any) -> Any:
    r"\"(?:(?![^\"]*\\)[^\"]*+|[^\"\\]*+(?:\\(?s:.)[^\"\\]*+)*)\"|'(?:(?![^']*\\)[^']*+|[^'\\]*+(?:\\(?s:.)[^'\\]*+)*)'|`[^`]*+`"
    raw = t.value
    if "\n" in raw:
        t.coord = t.lexer.owner.token_coord(t.lexpos, t.lexpos + len(raw) - 1)
    else:
        _simple(t)
    t.quote = raw[0]
    t.value = deescape(raw[1:-1])
    return t


@TOKEN(NAKEDVAR_RE)
def t_NAKEDVAR(t: Any) -> Any:
    return _simple(t)

t_ignore = ""


def t_error(t: Any) -> None:
    ch = t.value[0]
    # Any other character -- a quote no string closes too -- goes to the parser, which
    # rejects it with its position.
    t.type = "BADCHAR"
    t.value = ch
    t.lexer.skip(1)
    return _simple(t)


# --- rules for the skipping state (inside a false @if) ---------------------------

def t_skipping_MACRO_ELSE(t: Any) -> None:
    r"@else"
    t.lexer.begin("INITIAL")


def t_skipping_MACRO_ENDIF(t: Any) -> None:
    r"@endif"
    owner: Lexer = t.lexer.owner
    t.lexer.begin("INITIAL")
    if owner.if_depth <= 0:
        owner.error(t.lexpos, "fatal: @endif macros without a matching @if are not allowed")
    owner.if_depth -= 1


def t_skipping_newline(t: Any) -> None:
    r"\r?\n"
    owner: Lexer = t.lexer.owner
    owner.skipped += 2 if t.value == "\r\n" else 1   # CFEngine does not count these lines


def t_skipping_line(t: Any) -> None:
    r"[^@\n\r][^\n]*"


def t_skipping_char(t: Any) -> None:
    r"."


t_skipping_ignore = ""


def t_skipping_error(t: Any) -> None:
    t.lexer.skip(1)


_MASTER: list[Any] = []


LEXTAB = "cfpromise.syntax._lextab"


def _master_lexer() -> Any:
    """Build PLY's master lexer once per process (cloned for each Lexer).

    The generated table module ``_lextab.py`` ships with the package (made by
    ``python -m cfpromise.syntax.parser``); with it PLY skips validation and the
    per-token type check.  Without it the lexer is built from the rules, and
    nothing is ever written at run time."""
    if not _MASTER:
        import importlib.util
        import sys

        import ply.lex as lex
        module = sys.modules[__name__]
        if importlib.util.find_spec(LEXTAB) is not None:
            built = lex.lex(module=module, reflags=precompiled.VERBOSE, optimize=True,
                            lextab=LEXTAB, errorlog=lex.NullLogger())
        else:
            built = lex.lex(module=module, reflags=precompiled.VERBOSE, errorlog=lex.NullLogger())
        _MASTER.append(built)
    return _MASTER[0]


def write_lextab(outdir: str) -> str:
    """Regenerate ``_lextab.py`` in ``outdir`` from the rules above."""
    import os
    import sys

    import ply.lex as lex
    path = os.path.join(outdir, "_lextab.py")
    if os.path.exists(path):
        os.remove(path)
    lexer = lex.lex(module=sys.modules[__name__], reflags=precompiled.VERBOSE, errorlog=lex.NullLogger())
    lexer.writetab("_lextab", outdir)
    return path


def lines_to_next_token(text: str, pos: int) -> int:
    """Line breaks between ``pos`` and the next token (blanks and comments skipped)."""
    count, end = 0, len(text)
    while pos < end:
        ch = text[pos]
        if ch == "\n":
            count += 1
        elif ch == "#":
            pos = text.find("\n", pos)
            if pos < 0:
                break
            continue
        elif not ch.isspace():
            break
        pos += 1
    return count
