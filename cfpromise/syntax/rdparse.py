"""A recursive-descent fast path for well-formed policy, falling back to the LR parser.

Why: a cold parse of masterfiles' ``lib/files.cf`` spent ~35 ms in the general
machinery -- a scanner making a token tuple and a Coord per token, then a
table-driven LR loop calling a ``p_*`` rule per reduction -- about 10 us per
token (issue #15).  Here the text is read by a handful of anchored regexes, one
per place in the grammar, each reading as much as it can of what usually comes
there: a constraint ``lval => "string",`` (or ``lval =>`` and the head of a call
or of a list), a list item or a call argument with the ``,`` or ``)`` after it, a
block's head with its arguments and its ``{``, a promiser, a class guard.  The
AST nodes are built directly, lines counted incrementally (``str.count``), and no
per-token objects made.

The contract: :func:`parse` returns exactly the AST :func:`parser.parse` builds
through the LR path (``==`` and every Coord, ``line`` and quote alike) or
``None``, never anything else.  It returns ``None`` whenever it meets anything it
does not handle -- any syntax error, a macro (``@if``...), a CR, an odd character
-- and the caller then parses the text again through the scanner and the LR
driver, so every diagnostic stays as it was.  tests/syntax/test_rdparse_differential.py
holds it to that on every policy file at hand and on generated text.

Matching the tokens PLY's lexer makes (see :mod:`.lexer`): PLY tries its rules in
order, and at a given character only some rules can start.  Where the regexes
here expect a token they try the same rules in the same order, or guard the
token with a lookahead that rules the earlier ones out:

* a word is an IDENTIFIER only if no CLASS starts there (``(?!CLASS)``: the run
  of class characters from it holds no ``::``), it is followed by no ``:``
  (which would make it a SYMBOL or a promise type), it is at most 1,023
  characters long and is not ``bundle``, ``body`` or ``promise``;
* a quoted string is a QSTRING only if no VARCLASS (``"..."::``, which ends at
  the first quote, escaped or not) starts there;
* ``(`` and ``)`` can start a CLASS too, and are guarded like a word.

Only ``\\n``, spaces, tabs and ``#`` comments separate tokens here, so a text
with a CR goes to the LR path, whose lines then follow CFEngine's CRLF count.

What the time goes to (a parse of lib/files.cf, about 29 M instructions, was 42 M):
regexes (a quarter), the nodes and their Coords (a third), the Python around them.
What makes SRE slow, and is avoided in the patterns here: a call costs about 2,000
instructions before it reads a character, so one match reads a whole construct
where it can; a repeated group (``(?:...)*``) sets up state even for no
iteration, so a group repeat sits behind a literal (see _WS) and simple repeats are
possessive (``*+``), which SRE runs without backtracking state; a character class costs about 40 instructions a
character where one excluded character (``[^"]``) costs about 5 -- SRE has a tight
loop for it, backwards too when a literal follows the repeat -- hence _quoted and
_VARCLASS; and each class guard rescans the run of class characters after it, so
a block's head, where that run is the whole line, has one lookahead for the line
instead (_HEAD).  The nodes are made without their constructors (see "the nodes").

Macros (:func:`_macros`): the ``@if``/``@else``/``@endif`` lines at the start of
a line are run first, as the lexer runs them, and blanked out of the text (their
newlines kept) together with the regions a false ``@if`` skips; the parse then
reads the blanked text, with CFEngine's line (``Coord.cf``) less the skipped
newlines before each token.  A line-start ``@`` is a macro only outside a
string: a string spanning more than one line that covers a blanked region sends
the text to the LR path, and so does any macro the lexer would reject or that
is not at the start of its line.
"""
from __future__ import annotations

from cfpromise.fast import precompiled
from cfpromise.syntax import ast
from cfpromise.syntax.convert import data_lvals, inline_data, policy, replace_repeats
from cfpromise.syntax.errors import Coord
from cfpromise import CFENGINE_COMPAT_VERSION
# the lexer's token patterns (character classes written as ASCII ranges, see _cls)
from cfpromise.syntax.lexer import (_ID, _WHITESPACE_IN_CLASS, CLASS_RE, KNOWN_FEATURES,
                                    MAX_IDENTIFIER, NAKEDVAR_RE, SYMBOL_RE, _macro_accepts,
                                    deescape)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class _Bail(Exception):
    """Something the fast path does not handle: parse through the LR path instead."""


# Spaces, tabs, newlines and comments (written so that where there is no comment no
# repeat of a group is entered: SRE sets one up at a cost, even for no iteration).
# A repeated group is never possessive here (``(?:...)*+``): before 3.11.5, SRE could
# keep what a failed repetition of one had read (CPython issues 100061 and 106052).
_WS = r"[ \t\n]*+(?:\#(?>[^\n]*+[ \t\n]*+(?:\#[^\n]*+[ \t\n]*+)*)|)"
_NOCLASS = f"(?!{CLASS_RE})"
_UNRESERVED = f"(?!(?:bundle|body|promise)(?!{_ID}))"
_WORD = f"{_ID}{{1,{MAX_IDENTIFIER}}}+"
_BARE_IDENT = f"{_UNRESERVED}{_WORD}(?![:]|{_ID})"     # an IDENTIFIER if no CLASS starts there
_IDENT = f"{_NOCLASS}{_BARE_IDENT}"
_SYMBOL = f"{_NOCLASS}(?>{SYMBOL_RE})"


def _quoted(quote: str) -> str:
    """PLY's string in ``quote``s, its loop unrolled: where no backslash comes before
    the first quote (the lookahead, whose scan SRE runs fast), up to that quote; else
    escapes and all.  Both read the same strings: a character class such as
    ``[^"\\]`` costs SRE about ten times a ``[^"]`` per character."""
    return (f"{quote}(?:(?![^{quote}]*\\\\)[^{quote}]*+"
            f"|[^{quote}\\\\]*+(?:\\\\(?s:.)[^{quote}\\\\]*+)*){quote}")


# PLY's QSTRING (the same strings, matched faster).  Not guarded against a VARCLASS:
# see _Parser.scalar.
_QSTRING = f"(?>{_quoted(chr(34))}|{_quoted(chr(39))}|`[^`]*+`)"     # (atomic: see _WS)
_NAKED = f"(?>{NAKEDVAR_RE})"
# PLY's VARCLASS, "[^"\x00]*":: and its single-quoted twin (as fast as _quoted).
_VARCLASS = r"""(?>"(?![^"]*\x00)[^"]*+"::|'(?![^']*\x00)[^']*+'::)"""
# A scalar token: a string, a naked variable or a name (what a call's name can be too).
# (An IDENTIFIER is tried before a SYMBOL: PLY tries them the other way round, but
# never both match, the IDENTIFIER being followed by no `:`.)
_NAME = f"{_NOCLASS}(?:{_BARE_IDENT}|(?>{SYMBOL_RE}))|{_NAKED}"
_VALUE = f"{_QSTRING}|{_NAME}"
# What ends an item in a list or a call, or the rval of a constraint.
_FOLLOWER = f"[{{}},;]|{_NOCLASS}[()]"
# A scalar rval followed by `,` or `;`.  The class-guard lookahead is left out of it,
# and of an lval: what follows them (`=>`, or `,` or `;` after spaces, tabs, newlines
# or comments) ends any run of class characters, so no CLASS can start in them.
_SCALAR_RVAL = (f"{_QSTRING}|{_NAKED}|{_UNRESERVED}"
                f"(?>{_ID}{{1,{MAX_IDENTIFIER}}}+(?![:])|{SYMBOL_RE})")


def _constraint_re(ends: str) -> str:
    """`lval =>` (l) and, where the rval starts on the lval's line and is one of the
    common ones, what the pattern can read of it: a scalar and the `,` or `;` after
    it (r, e), a call's name and its `(` on that line (f, c), a list's `{` (b).
    Groups 1 to 6."""
    return (f"(?P<l>{_UNRESERVED}{_WORD})(?:[ \\t]*+=>[ \\t]*+"
            f"(?:(?P<r>{_SCALAR_RVAL}){_WS}(?P<e>[{ends}])"
            f"|(?P<f>{_NAME})[ \\t]*+{_NOCLASS}(?P<c>\\()|(?P<b>\\{{)|)"
            f"|{_WS}=>{_WS})")


# What can come next in a promise: a constraint, `-> promisee` or the `;` ending it.
_PROMISE_NEXT = precompiled.compile(f"{_WS}(?:{_constraint_re(',;')}|(?P<a>->)|(?P<s>;))")
# What can come next in a body: a constraint, a class guard or the `}` ending it.
_BODY_NEXT = precompiled.compile(
    f"{_WS}(?:{_constraint_re(';')}|(?P<vc>{_VARCLASS})|(?P<g>(?>{CLASS_RE}))|(?P<end>\\}}))")
# An item of a list or an argument of a call (group 2) and what follows it, on the
# item's line (3) or not (4), or what follows alone (5: the list's `}`, the call's
# `)`); group 1 is set (to "") when a newline comes before the item.  (Where a
# newline is, each `[ \t]*+` alternative fails at it and the _WS one is taken.)
_ITEM = precompiled.compile(
    f"(?:[ \\t]*+|{_WS}())(?:({_VALUE})(?:[ \\t]*+({_FOLLOWER})|{_WS}({_FOLLOWER}))"
    f"|({_FOLLOWER}))")
# What follows an item: on its line (1) or not (2).
_FOLLOW = precompiled.compile(f"[ \\t]*+({_FOLLOWER})|{_WS}({_FOLLOWER})")
# An rval anywhere else: a list's `{` (b), a scalar (v), a call's name and `(` (c).
_RVAL = precompiled.compile(f"{_WS}(?:(?P<b>\\{{)|(?P<v>{_VALUE})(?:{_WS}{_NOCLASS}(?P<c>\\()|))")
# Whatever a general token can be (the arglist's fallback reads these).
_TOKEN = precompiled.compile(
    f"{_WS}(?:(?P<q>{_QSTRING})|(?P<p>[{{}},;])|{_NOCLASS}(?:(?P<s>(?>{SYMBOL_RE}))|(?P<o>[()])"
    f"|(?P<i>{_BARE_IDENT}))|(?P<v>{_NAKED}))")
# What can come next in a promise section: PLY's rules in PLY's order.
_SECTION_ITEM = precompiled.compile(
    f"{_WS}(?:(?P<vc>{_VARCLASS})|(?P<q>{_QSTRING})|(?P<c>(?>{CLASS_RE}))"
    f"|(?P<t>[a-zA-Z_]+):(?![:]|{_ID})|(?P<e>\\}}))")
# A block's head: its kind, type and name.
_ANY_HEAD = precompiled.compile(
    f"{_WS}{_NOCLASS}(?P<k>bundle|body|promise)(?![:]|{_ID}){_WS}(?P<t>{_IDENT}){_WS}"
    f"(?P<n>{_SYMBOL}|{_IDENT})")
# The same on one line, with the arguments if any (a: the text between the
# parentheses), then the `{`: most heads.  The class guards of _ANY_HEAD's tokens
# (and of the arguments) are one lookahead here, as a CLASS is a run of class
# characters ending in `::` and no such run spans a newline: none starts on a line
# with no `::` after the keyword.  The arguments are words up to 1,023 characters
# long (what follows them ends each), not yet checked for reserved ones.
_ARG = f"{_ID}{{1,{MAX_IDENTIFIER}}}+[ \\t]*+"
_HEAD = precompiled.compile(
    f"{_WS}(?![^\\n]*::)(?P<k>bundle|body|promise)(?![:]|{_ID})[ \\t]+(?P<t>{_BARE_IDENT})"
    f"[ \\t]+(?P<n>{_BARE_IDENT}|(?>{SYMBOL_RE}))"
    f"(?:[ \\t]*+\\((?P<a>[ \\t]*+(?:{_ARG}(?:,[ \\t]*+{_ARG})*(?:,[ \\t]*+|)|))\\)|)"
    f"{_WS}\\{{")
_RESERVED = frozenset(("bundle", "body", "promise"))
_VARCLASS_AT = precompiled.compile(_VARCLASS)
_LPAREN = precompiled.compile(f"{_WS}{_NOCLASS}\\(")
_OPEN = precompiled.compile(f"{_WS}\\{{")
_END = precompiled.compile(f"{_WS}\\Z")

_MAX_DEPTH = 100          # calls nested deeper go to the LR path
_new = tuple.__new__
_SCALAR, _LIST = ast.Scalar, ast.List
_QUOTED, _BARE, _NAKED_KIND = ast.QUOTED, ast.BARE, ast.NAKED


# -- the nodes ----------------------------------------------------------------------------
# Made as object.__new__ and the slots' own setters (ast.make_*: see there why).
_obj = object.__new__
_SCALAR_SET = ast.setters(ast.Scalar)     # made in _Parser.scalar
_make_call = ast.make_call
_make_section = ast.make_section
_make_constraint = ast.make_constraint
_make_promise_block = ast.make_promise_block
_make_promise = ast.make_promise
_make_bundle = ast.make_bundle
_make_body = ast.make_body


def parse(text: str, filename: str = "<string>") -> ast.Policy | None:
    """The policy in ``text``, or None: parse it through the LR path instead."""
    if "\r" in text:
        return None
    blanks: list[tuple[int, int]] = []
    skips: list[tuple[int, int]] = []
    if "@" in text and (text[0] == "@" or "\n@" in text):
        done = _macros(text, blanks, skips)
        if done is None:
            return None
        text = done
    try:
        return policy(_Parser(text, filename, blanks, skips).blocks(), filename)
    except _Bail:
        return None


_MACRO_IF = precompiled.compile(r"@if [a-z_]+\([^)\n]*\)")
_SKIP_END = precompiled.compile(r"^@(?:else|endif)", precompiled.MULTILINE)


class _Version:
    """What :func:`lexer._macro_accepts` reads of the Lexer (its defaults, as parse() uses)."""

    version = CFENGINE_COMPAT_VERSION
    features = KNOWN_FEATURES


def _macros(text: str, blanks: list[tuple[int, int]],
            skips: list[tuple[int, int]]) -> str | None:
    """``text`` with its macros and the regions they skip blanked out, or None (a case
    left to the lexer).  Fills ``blanks`` with the (start, end) of each blanked region
    and ``skips`` with (end, newlines skipped up to there) for each skipped one.

    This is the lexer's macro handling, for macros at the start of a line: ``@if
    kind(arg)`` (kept: go on; not kept: skip), ``@else`` (skip), ``@endif``; a skipped
    region ends at the next line starting with ``@else`` or ``@endif``, and none of its
    lines may start with ``@@`` nor its first line hold an ``@`` (the lexer's skipping
    state reads those differently)."""
    out: list[str] = []
    depth = 0
    skipped = 0
    done = 0                 # text[:done] has been copied to `out`
    pos = 0
    while True:
        if pos == 0 and text[0] == "@":
            start = 0
        else:
            start = text.find("\n@", pos) + 1
            if start == 0:
                break
        skip = False
        macro = _MACRO_IF.match(text, start)
        if macro is not None:
            if depth > 0:
                return None
            kind, _, arg = macro.group()[4:-1].partition("(")
            accepted = _macro_accepts(_Version, kind, arg)      # type: ignore[arg-type]
            if accepted is None:
                return None
            depth += 1
            end = macro.end()
            skip = not accepted
        elif text.startswith("@else", start):
            if depth <= 0:
                return None
            end = start + 5
            skip = True
        elif text.startswith("@endif", start):
            if depth <= 0:
                return None
            depth -= 1
            end = start + 6
        else:
            return None
        if skip:
            eol = text.find("\n", end)
            if eol < 0 or "@" in text[end:eol]:
                return None
            stop = _SKIP_END.search(text, eol)
            if stop is None:
                return None
            region = text[end:stop.start()]
            if "\n@@" in region:
                return None
            skipped += region.count("\n")
            skips.append((stop.start(), skipped))
            if text.startswith("@else", stop.start()):   # back to reading tokens
                end = stop.start() + 5
            else:
                depth -= 1
                end = stop.start() + 6
        out.append(text[done:start])
        blank = text[start:end]
        out.append(" " * len(blank) if "\n" not in blank else
                   "\n".join(" " * len(part) for part in blank.split("\n")))
        blanks.append((start, end))
        done = pos = end
    if depth > 0:
        return None
    out.append(text[done:])
    return "".join(out)


class _Parser:
    """One parse: the text, where it is, and the line count up to ``known``."""

    __slots__ = ("text", "filename", "pos", "known", "line", "line_start", "namespace",
                 "data_lvals", "blanks", "skips", "skipped", "skip_at", "depth")

    def __init__(self, text: str, filename: str, blanks: list[tuple[int, int]],
                 skips: list[tuple[int, int]]) -> None:
        self.text = text
        self.filename = filename
        self.pos = 0
        self.known = 0            # the position the line count has reached
        self.line = 1             # ... its line
        self.line_start = 0       # ... and where that line starts
        self.namespace = "default"
        self.data_lvals = data_lvals()
        self.depth = 0            # calls nested here
        self.blanks = blanks      # the regions _macros() blanked out
        self.skips = skips        # (end of a skipped region, newlines skipped up to there)
        self.skipped = 0          # the newlines skipped before `known`
        self.skip_at = skips[0][0] if skips else len(text) + 1   # where that changes next

    # -- positions -----------------------------------------------------------------------
    def _line_at(self, start: int) -> int:
        """The line of ``start`` (not before the last position asked); sets line_start."""
        text = self.text
        nl = text.count("\n", self.known, start)
        if nl:
            self.line += nl
            self.line_start = text.rfind("\n", self.known, start) + 1
        self.known = start
        if start >= self.skip_at:
            self.skip(start)
        return self.line

    def coord(self, start: int) -> Coord:
        """The Coord of a one-line token at ``start`` (not before the last one asked)."""
        line = self._line_at(start)
        return _new(Coord, (self.filename, line, start - self.line_start + 1,
                            line - self.skipped))

    def coords(self, start: int, other: int) -> tuple[Coord, Coord]:
        """The Coords of a token at ``start`` and of one at ``other`` further on its
        line (``coord()`` twice, the line counted once)."""
        line = self._line_at(start)
        col = start - self.line_start + 1
        filename, cf = self.filename, line - self.skipped
        return (_new(Coord, (filename, line, col, cf)),
                _new(Coord, (filename, line, col + other - start, cf)))

    def cfline(self, start: int) -> int:
        """``self.coord(start).cf``, without making the Coord."""
        return self._line_at(start) - self.skipped

    def skip(self, start: int) -> None:
        """Count the newlines skipped by the regions _macros() blanked before ``start``."""
        skips = self.skips
        while skips and skips[0][0] <= start:
            self.skipped = skips.pop(0)[1]
        self.skip_at = skips[0][0] if skips else len(self.text) + 1

    def multiline(self, coord: Coord, raw: str, start: int) -> Coord:
        """The Coord of a token ``raw`` at ``start`` holding a newline, from the Coord
        of its start: CFEngine's line is its last one.  Bails when the token covers a
        region _macros() blanked out (a line-start ``@`` inside a string)."""
        end = start + len(raw)
        for first, last in self.blanks:
            if first < end and start < last:
                raise _Bail
        return _new(Coord, (coord[0], coord[1], coord[2], coord[3] + raw.count("\n")))

    def scalar(self, raw: str, start: int, coord: Coord) -> ast.Scalar:
        """The Scalar of token ``raw`` at ``start`` (a string, a naked variable or a
        name), ``coord`` the Coord of its start."""
        first = raw[0]
        if first in "\"'`":
            value = inner = raw[1:-1]
            if "\\" in inner:
                if first != "`" and _VARCLASS_AT.match(self.text, start):
                    raise _Bail   # an escaped quote: the lexer makes a VARCLASS of "a\"::
                value = deescape(inner)
            if "\n" in raw:
                coord = self.multiline(coord, raw, start)
            kind, quote = _QUOTED, first
        else:
            value, kind, quote = raw, _NAKED_KIND if first in "$@" else _BARE, ""
        node = _obj(_SCALAR)                  # ast.Scalar(value, kind, coord, quote)
        set_value, set_kind, set_coord, set_quote = _SCALAR_SET
        set_value(node, value)
        set_kind(node, kind)
        set_coord(node, coord)
        set_quote(node, quote)
        return node

    # -- blocks ----------------------------------------------------------------------------
    def blocks(self) -> list[Any]:
        out: list[Any] = []
        text = self.text
        while True:
            m = _HEAD.match(text, self.pos)
            if m is not None:
                kind, btype, name, arglist = m.group(1, 2, 3, 4)
                coord = self.coord(m.start(3))
                self.pos = m.end()
                if arglist is None:
                    args: tuple[str, ...] = ()
                elif kind == "promise":
                    raise _Bail
                else:
                    names = arglist.replace(" ", "").replace("\t", "").split(",")
                    if not names[-1]:    # none, or a comma after the last
                        names.pop()
                    if not _RESERVED.isdisjoint(names):
                        raise _Bail
                    args = tuple(names)
            else:
                if _END.match(text, self.pos):
                    return out
                m = _ANY_HEAD.match(text, self.pos)
                if m is None:
                    raise _Bail
                kind, btype, name = m.group(1, 2, 3)
                coord = self.coord(m.start(3))
                self.pos = m.end()
                args = self.arglist() if kind != "promise" else ()
                self.expect(_OPEN)
            if ":" in name:
                namespace, _, name = name.partition(":")
            else:
                namespace = self.namespace
            if kind == "promise":
                out.append(_make_promise_block(btype, name, self.bodyattribs(False), namespace,
                                               coord))
                continue
            if kind == "bundle":
                out.append(_make_bundle(btype, name, args, self.sections(), namespace, coord))
                continue
            constraints = self.bodyattribs(True)
            body = _make_body(btype, name, args, constraints, namespace, coord)
            if btype == "file" and name == "control":
                for c in constraints:
                    if c.lval == "namespace":
                        if not (isinstance(c.rval, ast.Scalar) and c.rval.kind == ast.QUOTED):
                            raise _Bail
                        self.namespace = c.rval.value
            out.append(body)

    def expect(self, regex: Any) -> int:
        """Match ``regex`` (a one-token pattern) here, or bail; the token's end."""
        m = regex.match(self.text, self.pos)
        if m is None:
            raise _Bail
        self.pos = m.end()
        return self.pos

    def arglist(self) -> tuple[str, ...]:
        m = _LPAREN.match(self.text, self.pos)
        if m is None:
            return ()
        self.pos = m.end()
        args: list[str] = []
        while True:
            m = _TOKEN.match(self.text, self.pos)
            if m is None:
                raise _Bail
            kind = m.lastgroup
            if kind == "o" and m.group("o") == ")":
                self.pos = m.end()
                return tuple(args)
            if kind != "i":
                raise _Bail
            args.append(m.group("i"))
            m = _TOKEN.match(self.text, m.end())
            if m is None:
                raise _Bail
            self.pos = m.end()
            kind = m.lastgroup
            if kind == "o" and m.group("o") == ")":
                return tuple(args)
            if kind != "p" or m.group("p") != ",":
                raise _Bail

    # -- bundles -------------------------------------------------------------------------------
    def sections(self) -> tuple[ast.PromiseSection, ...]:
        text = self.text
        match = _SECTION_ITEM.match
        merged: dict[str, tuple[Coord, list[ast.Promise]]] = {}
        promises: list[ast.Promise] | None = None
        classes, varclass = "any", None
        while True:
            m = match(text, self.pos)
            if m is None:
                raise _Bail
            self.pos = m.end()
            kind = m.lastgroup
            if kind == "q":
                if promises is None:
                    raise _Bail               # a promise before any promise type
                promises.append(self.promise(m.group("q"), m.start("q"), classes, varclass))
            elif kind == "c":
                if promises is None:
                    raise _Bail
                value = m.group("c")[:-2]
                if (" " in value or "\t" in value) and _WHITESPACE_IN_CLASS.fullmatch(value):
                    raise _Bail
                classes, varclass = value, None
            elif kind == "t":
                name = m.group("t")
                coord = self.coord(m.start("t"))
                if name in merged:          # a repeated type: its promises join the
                    promises = merged[name][1]  # first one's, its Coord is the last one's
                    merged[name] = (coord, promises)
                else:
                    promises = []
                    merged[name] = (coord, promises)
                classes, varclass = "any", None
            elif kind == "vc":
                if promises is None:
                    raise _Bail
                if "\n" in m.group("vc"):
                    raise _Bail
                classes, varclass = "any", m.group("vc")[1:-3]
            else:
                return tuple(_make_section(n, tuple(ps), c)
                             for n, (c, ps) in merged.items())

    def promise(self, raw: str, start: int, classes: str, varclass: str | None) -> ast.Promise:
        coord = self.coord(start)
        if "\n" in raw:
            coord = self.multiline(coord, raw, start)
        inner = raw[1:-1]
        promiser = deescape(inner) if "\\" in inner else inner
        text = self.text
        match = _PROMISE_NEXT.match
        data = self.data_lvals
        promisee = None
        m = match(text, self.pos)
        if m is not None and m.lastgroup == "a":
            self.pos = m.end()
            promisee = self.rval()[0]
            m = match(text, self.pos)
        constraints: list[ast.Constraint] = []
        lvals: set[str] = set()
        while True:
            if m is None:
                raise _Bail
            self.pos = m.end()
            kind = m.lastgroup
            if kind == "s":              # `;` after the promiser or the promisee
                if constraints:
                    raise _Bail
                break
            if kind == "a":
                raise _Bail
            lval = m.group(1)
            lcoord, rval, line, end = self.constraint_rval(m, kind)
            if end != "," and end != ";":
                raise _Bail
            if lval in data and rval.__class__ is _SCALAR and rval.kind != _BARE:
                rval = inline_data(rval)
            constraints.append(_make_constraint(lval, rval, lcoord, line, "any"))
            lvals.add(lval)
            if end == ";":
                break
            m = match(text, self.pos)
        return _make_promise(promiser, tuple(constraints) if len(lvals) == len(constraints)
                             else replace_repeats(constraints), promisee, classes, varclass, coord)

    # -- bodies --------------------------------------------------------------------------------
    def bodyattribs(self, replace: bool) -> tuple[ast.Constraint, ...]:
        """The constraints of a body (``replace``: a repeated one replaces the first)
        or of a promise block, up to its ``}``."""
        text = self.text
        match = _BODY_NEXT.match
        out: list[ast.Constraint] = []
        seen: set[tuple[str, str]] = set()
        classes: str | None = "any"
        while True:
            m = match(text, self.pos)
            if m is None:
                raise _Bail
            self.pos = m.end()
            kind = m.lastgroup
            if kind == "end":
                if replace and len(seen) < len(out):
                    return replace_repeats(out)
                return tuple(out)
            if kind == "vc":
                if "\n" in m.group("vc"):
                    raise _Bail
                classes = None
                continue
            if kind == "g":
                value = m.group("g")[:-2]
                if (" " in value or "\t" in value) and _WHITESPACE_IN_CLASS.fullmatch(value):
                    raise _Bail
                classes = value
                continue
            if classes is None:
                raise _Bail
            lval = m.group(1)
            lcoord, rval, line, end = self.constraint_rval(m, kind)
            if end != ";":
                raise _Bail
            out.append(_make_constraint(lval, rval, lcoord, line, classes))
            seen.add((lval, classes))

    # -- rvals ----------------------------------------------------------------------------------
    def constraint_rval(self, m: Any, kind: str) -> tuple[Coord, ast.Rval, int, str]:
        """For a constraint whose `lval =>` a _PROMISE_NEXT or _BODY_NEXT match ``m``
        has read, with what the match holds of the rval (``kind``: a scalar and the
        token after it, a call's name and `(`, a list's `{`, or nothing): the lval's
        Coord, the rval, CFEngine's line at its end and the token after it."""
        if kind == "e":                  # the whole scalar rval and its `,` or `;`
            start = m.start(2)
            lcoord, rcoord = self.coords(m.start(1), start)
            rval = self.scalar(m.group(2), start, rcoord)
            return lcoord, rval, rval.coord[3], m.group(3)
        if kind == "c":
            start = m.start(4)
            lcoord, coord = self.coords(m.start(1), start)
            rval, line = self.call(m.group(4), coord, start)
        elif kind == "b":
            start = m.start(6)
            lcoord, coord = self.coords(m.start(1), start)
            rval, line = self.list_items(coord, start)
        else:
            lcoord = self.coord(m.start(1))
            rval, line = self.rval()
        follow = _FOLLOW.match(self.text, self.pos)
        if follow is None:
            raise _Bail
        self.pos = follow.end()
        here, apart = follow.group(1, 2)
        return lcoord, rval, line, here or apart

    def rval(self) -> tuple[ast.Rval, int]:
        """An rval and CFEngine's line at its end."""
        m = _RVAL.match(self.text, self.pos)
        if m is None:
            raise _Bail
        self.pos = m.end()
        kind = m.lastgroup
        if kind == "b":
            start = m.start("b")
            return self.list_items(self.coord(start), start)
        raw = m.group("v")
        if kind == "c":
            if raw[0] in "\"'`":        # a string then `(`: a syntax error
                raise _Bail
            return self.call(raw, self.coord(m.start("v")), -1)
        start = m.start("v")
        node = self.scalar(raw, start, self.coord(start))
        return node, node.coord[3]

    def call(self, name: str, coord: Coord, at: int) -> tuple[ast.FnCall, int]:
        """A call's arguments and its ``)``, after ``name(``, and CFEngine's line at
        the ``)``.  ``coord`` is the name's Coord and ``at`` where the name is, or -1
        when a newline comes before the ``(`` (see :meth:`item`)."""
        self.depth += 1
        if self.depth > _MAX_DEPTH:      # the LR path has no recursion limit
            raise _Bail
        args: list[ast.Rval] = []
        while True:
            node, follow, at = self.item(coord, at)
            if node is None:
                if follow == ")" and not args:      # no arguments
                    break
                raise _Bail
            args.append(node)
            if follow == ")":
                break
            if follow != ",":
                raise _Bail
        self.depth -= 1
        line = coord[3] if at >= 0 else self.cfline(self.pos - 1)      # at the `)`
        return _make_call(name, tuple(args), coord), line

    def list_items(self, coord: Coord, at: int) -> tuple[ast.List, int]:
        """A list's items and its ``}``, after the ``{`` at ``at`` whose Coord is
        ``coord``, and CFEngine's line at the ``}``."""
        items: list[ast.Rval] = []
        while True:
            node, follow, at = self.item(coord, at)
            if node is None:                # none, or a comma after the last
                if follow == "}":
                    break
                raise _Bail
            items.append(node)
            if follow == "}":
                break
            if follow != ",":
                raise _Bail
        line = coord[3] if at >= 0 else self.cfline(self.pos - 1)      # at the `}`
        return _LIST(tuple(items), coord), line

    def item(self, anchor: Coord, at: int) -> tuple[ast.Rval | None, str, int]:
        """The next item of a list or argument of a call and what follows it, or None
        and the list's ``}`` or the call's ``)`` (or what else comes).

        ``anchor`` is the Coord of the list's ``{`` or the call's name, at ``at``,
        and ``at`` stays -1 once a newline has come after it: until then the items
        are on its line, and their Coords (and the line at the end) are made from it
        without counting lines.  The ``at`` returned is that for what follows."""
        m = _ITEM.match(self.text, self.pos)
        if m is None:
            raise _Bail
        self.pos = m.end()
        newline, raw, follow, apart, alone = m.group(1, 2, 3, 4, 5)
        if raw is None:
            return None, alone, at if newline is None else -1
        start = m.start(2)
        if at < 0 or newline is not None:
            coord = self.coord(start)
        else:                            # on the anchor's line: no line to count
            coord = _new(Coord, (anchor[0], anchor[1], anchor[2] + start - at, anchor[3]))
        if follow == "(" or apart == "(":
            if raw[0] in "\"'`":
                raise _Bail
            node, line = self.call(raw, coord, start if follow else -1)
            m = _FOLLOW.match(self.text, self.pos)
            if m is None:
                raise _Bail
            self.pos = m.end()
            follow, apart = m.group(1, 2)
        else:
            node = self.scalar(raw, start, coord)
            line = node.coord[3]
        if follow is None or line != anchor[3] or at < 0 or newline is not None:
            return node, follow or apart, -1
        return node, follow, at
