"""A recursive-descent fast path for well-formed policy, falling back to the LR parser.

Why: a cold parse of masterfiles' ``lib/files.cf`` spent ~35 ms in the general
machinery -- a scanner making a token tuple and a Coord per token, then a
table-driven LR loop calling a ``p_*`` rule per reduction -- about 10 us per
token (issue #15).  Here the text is read by a handful of anchored regexes, one
per place in the grammar, and the common constructs (``lval => "string";``, a
promiser, a class guard) by one match each; the AST nodes are built directly,
lines counted incrementally (``str.count``), and no per-token objects made.

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

import re

from cfpromise import precompiled
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


_WS = r"(?>(?:[ \t\n]+|\#[^\n]*)*)"
_NOCLASS = f"(?!{CLASS_RE})"
_IDENT = (f"{_NOCLASS}(?!(?:bundle|body|promise)(?!{_ID}))"
          f"(?>{_ID}{{1,{MAX_IDENTIFIER}}})(?![:]|{_ID})")
_SYMBOL = f"{_NOCLASS}(?>{SYMBOL_RE})"
# PLY's QSTRING, its loop unrolled (the same strings, matched faster).  Not guarded
# against a VARCLASS: see _Parser.scalar.
_QSTRING = (r"""(?>"[^"\\]*(?:\\(?:.|\n)[^"\\]*)*\""""
            r"""|'[^'\\]*(?:\\(?:.|\n)[^'\\]*)*'|`[^`]*`)""")
_NAKED = f"(?>{NAKEDVAR_RE})"
_VARCLASS = r"""(?>"[^"\x00]*"::|'[^'\x00]*'::)"""

# Whatever a general token can be where an rval or its parts are read.
_TOKEN = precompiled.compile(
    f"{_WS}(?:(?P<q>{_QSTRING})|(?P<p>[{{}},;])|{_NOCLASS}(?:(?P<s>(?>{SYMBOL_RE}))|(?P<o>[()])"
    f"|(?P<i>{_IDENT[len(_NOCLASS):]}))|(?P<v>{_NAKED}))")
# `lval => scalar` then `,` or `;`: the most common construct.  The class-guard
# lookahead is left out of the tokens here: what follows each of them (`=>`, `,`,
# `;` after spaces, tabs, newlines or comments) ends any run of class characters,
# so no CLASS can start in them.
_SIMPLE = precompiled.compile(
    f"{_WS}(?P<l>(?!(?:bundle|body|promise)(?!{_ID})){_ID}{{1,{MAX_IDENTIFIER}}})"
    f"{_WS}=>{_WS}(?P<r>{_QSTRING}|{_NAKED}|(?!(?:bundle|body|promise)(?!{_ID}))"
    f"(?>{SYMBOL_RE}|{_ID}{{1,{MAX_IDENTIFIER}}}))"
    f"{_WS}(?P<e>[,;])")
_LVAL = precompiled.compile(f"{_WS}(?P<l>{_IDENT}){_WS}=>")
# What can come next in a promise section: PLY's rules in PLY's order.
_SECTION_ITEM = precompiled.compile(
    f"{_WS}(?:(?P<vc>{_VARCLASS})|(?P<q>{_QSTRING})|(?P<c>(?>{CLASS_RE}))"
    f"|(?P<t>[a-zA-Z_]+):(?![:]|{_ID})|(?P<e>\\}}))")
_BODY_ITEM = precompiled.compile(f"{_WS}(?:(?P<vc>{_VARCLASS})|(?P<c>(?>{CLASS_RE}))|(?P<e>\\}}))")
_HEAD = precompiled.compile(
    f"{_WS}{_NOCLASS}(?P<k>bundle|body|promise)(?![:]|{_ID}){_WS}(?P<t>{_IDENT}){_WS}"
    f"(?P<n>{_SYMBOL}|{_IDENT})")
_VARCLASS_AT = precompiled.compile(_VARCLASS)
_ARROW = precompiled.compile(f"{_WS}->")
_LPAREN = precompiled.compile(f"{_WS}{_NOCLASS}\\(")
_RPAREN = precompiled.compile(f"{_WS}{_NOCLASS}\\)")
_OPEN = precompiled.compile(f"{_WS}\\{{")
_SEMI = precompiled.compile(f"{_WS};")
_END = precompiled.compile(f"{_WS}\\Z")

_MAX_DEPTH = 100          # calls nested deeper go to the LR path
_new = tuple.__new__
_SCALAR, _LIST, _CALL, _CONSTRAINT = ast.Scalar, ast.List, ast.FnCall, ast.Constraint
_QUOTED, _BARE, _NAKED_KIND = ast.QUOTED, ast.BARE, ast.NAKED


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
_SKIP_END = precompiled.compile(r"^@(?:else|endif)", re.MULTILINE)


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
    def coord(self, start: int) -> Coord:
        """The Coord of a one-line token at ``start`` (not before the last one asked)."""
        text = self.text
        nl = text.count("\n", self.known, start)
        if nl:
            self.line += nl
            self.line_start = text.rfind("\n", self.known, start) + 1
        self.known = start
        line = self.line
        if start >= self.skip_at:
            skips = self.skips
            while skips and skips[0][0] <= start:
                self.skipped = skips.pop(0)[1]
            self.skip_at = skips[0][0] if skips else len(text) + 1
        return _new(Coord, (self.filename, line, start - self.line_start + 1,
                            line - self.skipped))

    def multiline(self, coord: Coord, raw: str, start: int) -> Coord:
        """The Coord of a token ``raw`` at ``start`` holding a newline, from the Coord
        of its start: CFEngine's line is its last one.  Bails when the token covers a
        region _macros() blanked out (a line-start ``@`` inside a string)."""
        end = start + len(raw)
        for first, last in self.blanks:
            if first < end and start < last:
                raise _Bail
        return _new(Coord, (coord[0], coord[1], coord[2], coord[3] + raw.count("\n")))

    def scalar(self, raw: str, start: int) -> ast.Scalar:
        """The Scalar of token ``raw`` at ``start`` (a string, a naked variable or a name)."""
        coord = self.coord(start)
        first = raw[0]
        if first in "\"'`":
            inner = raw[1:-1]
            if "\\" in inner and first != "`" and _VARCLASS_AT.match(self.text, start):
                raise _Bail       # an escaped quote: the lexer makes a VARCLASS of "a\"::
            if "\n" in raw:
                coord = self.multiline(coord, raw, start)
            return _SCALAR(deescape(inner) if "\\" in inner else inner, _QUOTED, coord, first)
        if first in "$@":
            return _SCALAR(raw, _NAKED_KIND, coord, "")
        return _SCALAR(raw, _BARE, coord, "")

    # -- blocks ----------------------------------------------------------------------------
    def blocks(self) -> list[Any]:
        out: list[Any] = []
        text = self.text
        while True:
            m = _HEAD.match(text, self.pos)
            if m is None:
                if _END.match(text, self.pos):
                    return out
                raise _Bail
            self.pos = m.end()
            kind, btype, name = m.group("k", "t", "n")
            coord = self.coord(m.start("n"))
            if ":" in name:
                namespace, _, name = name.partition(":")
            else:
                namespace = self.namespace
            if kind == "promise":
                self.expect(_OPEN)
                out.append(ast.PromiseBlock(btype, name, tuple(self.bodyattribs()), namespace,
                                            coord))
                continue
            args = self.arglist()
            self.expect(_OPEN)
            if kind == "bundle":
                out.append(ast.Bundle(btype, name, args, self.sections(), namespace, coord))
                continue
            constraints = replace_repeats(self.bodyattribs())
            body = ast.Body(btype, name, args, constraints, namespace, coord)
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
                start = m.start("q")
                promises.append(self.promise(m.group("q"), start, classes, varclass))
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
                return tuple(ast.PromiseSection(n, tuple(ps), c)
                             for n, (c, ps) in merged.items())

    def promise(self, raw: str, start: int, classes: str, varclass: str | None) -> ast.Promise:
        coord = self.coord(start)
        if "\n" in raw:
            coord = self.multiline(coord, raw, start)
        inner = raw[1:-1]
        promiser = deescape(inner) if "\\" in inner else inner
        text = self.text
        promisee = None
        m = _ARROW.match(text, self.pos)
        if m is not None:
            self.pos = m.end()
            promisee = self.rval()[0]
        constraints: list[ast.Constraint] = []
        simple = _SIMPLE.match
        data = self.data_lvals
        while True:
            m = simple(text, self.pos)
            if m is not None:
                self.pos = m.end()
                lval = m.group("l")
                lcoord = self.coord(m.start("l"))
                rval = self.scalar(m.group("r"), m.start("r"))
                line = rval.coord[3]
                if lval in data and rval.kind != _BARE:
                    rval = inline_data(rval)
                constraints.append(_CONSTRAINT(lval, rval, lcoord, line))
                if m.group("e") == ";":
                    break
                continue
            m = _LVAL.match(text, self.pos)
            if m is None:
                if constraints:          # after a ','
                    raise _Bail
                self.expect(_SEMI)
                break
            self.pos = m.end()
            lval = m.group("l")
            lcoord = self.coord(m.start("l"))
            rval, line = self.rval()
            if lval in data and isinstance(rval, ast.Scalar) and rval.kind != _BARE:
                rval = inline_data(rval)
            constraints.append(_CONSTRAINT(lval, rval, lcoord, line))
            m = _TOKEN.match(text, self.pos)
            if m is None or m.lastgroup != "p":
                raise _Bail
            self.pos = m.end()
            end = m.group("p")
            if end == ";":
                break
            if end != ",":
                raise _Bail
        return ast.Promise(promiser, replace_repeats(constraints), promisee, classes, varclass,
                           coord)

    # -- bodies --------------------------------------------------------------------------------
    def bodyattribs(self) -> list[ast.Constraint]:
        text = self.text
        simple = _SIMPLE.match
        out: list[ast.Constraint] = []
        classes: str | None = "any"
        while True:
            m = simple(text, self.pos)
            if m is not None and m.group("e") == ";":
                if classes is None:
                    raise _Bail
                self.pos = m.end()
                lcoord = self.coord(m.start("l"))
                rval = self.scalar(m.group("r"), m.start("r"))
                out.append(_CONSTRAINT(m.group("l"), rval, lcoord, rval.coord[3], classes))
                continue
            m = _BODY_ITEM.match(text, self.pos)
            if m is not None:
                self.pos = m.end()
                kind = m.lastgroup
                if kind == "e":
                    return out
                if kind == "vc":
                    if "\n" in m.group("vc"):
                        raise _Bail
                    classes = None
                    continue
                value = m.group("c")[:-2]
                if (" " in value or "\t" in value) and _WHITESPACE_IN_CLASS.fullmatch(value):
                    raise _Bail
                classes = value
                continue
            m = _LVAL.match(text, self.pos)
            if m is None or classes is None:
                raise _Bail
            self.pos = m.end()
            lcoord = self.coord(m.start("l"))
            rval, line = self.rval()
            self.expect(_SEMI)
            out.append(_CONSTRAINT(m.group("l"), rval, lcoord, line, classes))

    # -- rvals ----------------------------------------------------------------------------------
    def rval(self) -> tuple[ast.Rval, int]:
        """An rval and CFEngine's line at its end."""
        m = _TOKEN.match(self.text, self.pos)
        if m is None:
            raise _Bail
        kind = m.lastgroup
        if kind == "p":
            if m.group("p") != "{":
                raise _Bail
            coord = self.coord(m.start("p"))
            self.pos = m.end()
            return self.list_items(coord)
        if kind == "o":
            raise _Bail
        return self.item(m)

    def item(self, m: Any) -> tuple[ast.Rval, int]:
        """A scalar or a call whose first token ``m`` (a _TOKEN match) has been read."""
        kind = m.lastgroup
        raw = m.group(kind)
        start = m.start(kind)
        self.pos = m.end()
        if kind != "q":
            paren = _LPAREN.match(self.text, self.pos)
            if paren is not None:
                coord = self.coord(start)
                self.pos = paren.end()
                return self.call(raw, coord)
        node = self.scalar(raw, start)
        return node, node.coord[3]

    def call(self, name: str, coord: Coord) -> tuple[ast.FnCall, int]:
        """A call's arguments and its ``)``, after ``name(``."""
        self.depth += 1
        if self.depth > _MAX_DEPTH:      # the LR path has no recursion limit
            raise _Bail
        text = self.text
        args: list[ast.Rval] = []
        m = _RPAREN.match(text, self.pos)
        if m is None:
            while True:
                m = _TOKEN.match(text, self.pos)
                if m is None or m.lastgroup in ("p", "o"):
                    raise _Bail
                args.append(self.item(m)[0])
                m = _TOKEN.match(text, self.pos)
                if m is None:
                    raise _Bail
                kind = m.lastgroup
                if kind == "o" and m.group("o") == ")":
                    break
                if kind != "p" or m.group("p") != ",":
                    raise _Bail
                self.pos = m.end()
            end = m.start("o")
        else:
            end = m.end() - 1
        self.pos = m.end()
        self.depth -= 1
        return _CALL(name, tuple(args), coord), self.coord(end)[3]

    def list_items(self, coord: Coord) -> tuple[ast.List, int]:
        """A list's items and its ``}``, after the ``{`` at ``coord``."""
        text = self.text
        items: list[ast.Rval] = []
        while True:
            m = _TOKEN.match(text, self.pos)
            if m is None:
                raise _Bail
            kind = m.lastgroup
            if kind == "p":
                if m.group("p") != "}":
                    raise _Bail
                break
            if kind == "o":
                raise _Bail
            items.append(self.item(m)[0])
            m = _TOKEN.match(text, self.pos)
            if m is None or m.lastgroup != "p":
                raise _Bail
            sep = m.group("p")
            if sep == "}":
                break
            if sep != ",":
                raise _Bail
            self.pos = m.end()
        self.pos = m.end()
        return _LIST(tuple(items), coord), self.coord(m.start("p"))[3]
