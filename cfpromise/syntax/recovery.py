"""cf-promises' recovery from a syntax error at the start of a bundle's body.

Right after a bundle's ``{`` 3.21's grammar wants a promise type or the ``}``
(``bundle_statements: ... | error``).  Anything else there -- most often a class guard
written before any promise type, ``bundle agent x { any:: vars: ...`` -- is met by
bison's error recovery, whose words cf-promises prints in this order:

* ``FILE:L:C: error: syntax error``, then ``... error: Expected promise type, got 'T'``
  (the error rule's own message), both where the lexer stands once it has read the
  token T: one past its last character, with the source line and a caret;
* then, while the next token is neither a promise type nor the ``}``, bison (still
  recovering, so no new "syntax error") drops it and reduces the same error rule:
  ``Expected promise type, got 'T2'`` at that token's end, and so on;
* a promise type or the ``}`` ends the recovery; the end of the file ends the parse.

T is the token as written (``yytext``): a quoted string with its quotes, a class guard
with its ``::``.  Past twelve errors the parser says "Too many errors" and stops.

A token the top level does not take (after such a ``}``, say) is its error rule's
"Expected 'bundle' or 'body' keyword, wrong input 'T'", and the parse stops.

Otherwise the parser goes on as though the dropped tokens were not there, installing
nothing of that bundle: the rest of the file is parsed again without them, and its
other bundles and bodies get the parser's checks (unknown attributes, values...).
While bison recovers (until three tokens are read past the error) a new error is said
without a "syntax error" line.

Any other syntax error -- or one of these whose recovery does not get through the file
-- is said by running cf-promises' grammar with its error rules over the tokens
(:func:`bison_errors`, :mod:`cfpromise.syntax.bison`): every error it says, with the
checks its parser makes as it goes (:mod:`cfpromise.syntax.bisoncheck`).
"""
from __future__ import annotations

from cfpromise.syntax.errors import Coord, Diagnostic, PolicyError, source_line_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Sequence

# what the grammar accepts right after a bundle's '{' (and nowhere else), and at the top
BUNDLE_START = frozenset({"PROMISE_TYPE", "}"})
TOP_LEVEL = frozenset({"BUNDLE", "BODY", "PROMISE", "$end"})
MAX_ERRORS = 12        # ParseErrorVColumnOffset: "Too many errors" past this many
_QUIET = 3             # bison's yyerrstatus: tokens to read before a new "syntax error"


def recover(text: str, filename: str, tokens: list[Any], error: Any,
            run: Callable[[list[Any]], Any],
            said: Callable[[], list[Diagnostic]] = list,
            ) -> tuple[list[Diagnostic], Any, list[int]] | None:
    """cf-promises' errors for the syntax error ``error`` (an ``lr.SyntaxErrorAt``) met
    parsing ``tokens`` when its recovery only drops tokens at a bundle's start and the
    rest parses: (its errors, the blocks parsed past them, the offsets of the '{' of
    each bundle left out); otherwise None (:func:`bison_errors` says them).
    ``run`` parses a token list (raising ``lr.SyntaxErrorAt``); ``said()``: once the
    rest parsed, the errors the lexer said of the tokens read and the parser's of the
    guards it reduced (cfpromise.syntax.guards), in its order, put in the file's with
    the rest."""
    current = [tok for tok in tokens if len(tok) == 5]     # (without the parser's sentinel)
    out: list[Diagnostic] = []
    skipped: list[int] = []
    resumed = -_QUIET
    while True:
        accepted = frozenset(error.expected)
        index = next((i for i, tok in enumerate(current) if tok is error.token), None)
        known = index is not None and accepted in (BUNDLE_START, TOP_LEVEL)
        if not known:
            return None         # (bison's recovery goes on otherwise: see bison_errors)
        bad = current[index]
        raw, coord = _after(text, filename, bad)
        if index - resumed >= _QUIET:
            out.append(_at(text, coord, "syntax error"))
        if accepted == TOP_LEVEL:
            return None
        end = index
        while end < len(current) and current[end][0] not in BUNDLE_START \
                and len(out) <= MAX_ERRORS:
            raw, coord = _after(text, filename, current[end])
            out.append(_at(text, coord, f"Expected promise type, got '{raw}'"))
            end += 1
        if len(out) > MAX_ERRORS or end == len(current):
            return None                 # (too many, or the end: aborted)
        skipped.append(current[index - 1][2])
        current = current[:index] + current[end:]
        resumed = index
        try:
            blocks = run(list(current))
            return merged(said(), out), blocks, skipped
        except _syntax_error(error) as again:
            error = again


def bison_errors(text: str, filename: str, tokens: list[Any], after: Exception | None,
                 at_end: Sequence[Diagnostic] = (), lexed: dict[int, list[Diagnostic]] = {},
                 ) -> tuple[list[Diagnostic], bool]:
    """Every error cf-promises says of ``tokens`` (cf-lite's, the text's up to a lexer
    error ``after``), by :mod:`cfpromise.syntax.bison`, and whether they are more than it
    says before "Too many errors".  Raises ``after`` if the parse reads up to it;
    ``at_end``: the lexer's errors at the end of the text (an @if left open), said
    each time the parser reads there; ``lexed``: the lexer's errors of tokens (by
    offset), said as the parser reads each."""
    current = [tok for tok in tokens if len(tok) == 5]     # (without the parser's sentinel)
    # the line breaks inside quoted strings: cf-promises' lexer counts the line there but
    # not its column, nor does it take the new line as the one it shows
    inside = [(tok[2], _after(text, filename, tok)[0]) for tok in current
              if tok[0] in ("QSTRING", "VARCLASS")]
    inside = [(start, start + len(raw)) for start, raw in inside if "\n" in raw]

    def where(i: int) -> tuple[str, Coord]:
        if i < len(current):
            return _after(text, filename, current[i])
        if after is not None:
            raise after
        line = text.count("\n") + 1
        shift = _after(text, filename, current[-1])[1] if current else None
        shift = shift.cf - shift.line if shift is not None and shift.cf else 0
        return "", Coord(filename, line, len(text) - (text.rfind("\n") + 1) + 1,
                         line + shift if shift else 0)

    def at(coord: Coord, message: str) -> Diagnostic:
        if not inside:
            return _at(text, coord, message)
        end = _offset(text, coord)
        start = text.rfind("\n", 0, end)
        while any(a < start < b for a, b in inside):
            start = text.rfind("\n", 0, start)
        coord = coord._replace(col=end - start)
        if start < 0:                   # (no line break read yet: no line shown)
            return Diagnostic(coord, message, bare=coord.line > 1)
        shown = text[start + 1:].split("\n", 1)[0]
        return Diagnostic(coord, message, source_line=shown)
    from cfpromise.syntax import bison                  # (on the error path only)
    from cfpromise.syntax.bisoncheck import Checks
    said, _ = bison.errors(current, where, [(d.coord, d) for d in at_end], Checks,
                           {at: [(d.coord, d) for d in ds] for at, ds in lexed.items()})
    out: list[Diagnostic] = []
    count = 0               # (errors: a check's plain log line, with no place, is none)
    for coord, message in said:
        if coord is not None:
            count += 1
            if count > MAX_ERRORS + 1:
                break
        if isinstance(message, bison.Warned):
            out.append(at(*message)._replace(severity="warning"))
            continue
        out.append(message if isinstance(message, Diagnostic) else at(coord, message))
    return cf_lines(out), count > MAX_ERRORS


def _syntax_error(error: Any) -> type:
    return type(error)


def _at(text: str, coord: Coord, message: str) -> Diagnostic:
    return Diagnostic(coord, message, source_line=source_line_of(text, coord.line))


def _offset(text: str, coord: Coord) -> int:
    """The offset in ``text`` of ``coord`` (a line and column as :func:`_after` gives)."""
    start = 0
    for _ in range(coord.line - 1):
        start = text.index("\n", start) + 1
    return start + coord.col - 1


def _after(text: str, filename: str, tok: Any) -> tuple[str, Coord]:
    """The token as written, and the position one past its last character."""
    ttype, value, start = tok[0], tok[1], tok[2]
    if ttype in ("QSTRING", "VARCLASS"):
        quote = text[start]
        end = start + 1
        while end < len(text) and text[end] != quote:
            end += 2 if text[end] == "\\" else 1
        end += 1
        if ttype == "VARCLASS":
            end = text.index("::", end) + 2
    elif ttype == "PROMISE_TYPE":
        end = start + len(value) + 1
    elif ttype == "CLASS":
        end = text.index("::", start + len(value)) + 2
    elif ttype == "$end":               # (a macro the lexer refused: not counted)
        end = start
    else:
        end = start + len(value)
    line = text.count("\n", 0, end) + 1
    col = end - (text.rfind("\n", 0, end) + 1) + 1
    # (CFEngine's line, in ``cf``: the lines of an @if's ignored part are not counted)
    at = tok[3]
    shift = -at if at.__class__ is int else (at.cf - line if at.cf else 0)
    return (value if ttype == "$end" else text[start:end]), \
        Coord(filename, line, col, line + shift if shift else 0)


def cf_lines(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """``diagnostics`` at CFEngine's lines (their coordinates' ``cf``, when it differs),
    as cf-promises' parser counts them."""
    return [d._replace(coord=d.coord._replace(line=d.coord.cf)) if d.coord.cf else d
            for d in diagnostics]


def merged(recovered: list[Diagnostic], checks: list[Diagnostic], first: bool = False,
           ) -> list[Diagnostic]:
    """The recovery's errors and the parser's checks of the blocks past it, in the
    order the parser meets them (a check's plain log lines, at line 0, go with the
    error after them; ``first``: a check's error before a recovery's at the same
    place).  ``recovered`` is in the parser's order already: one never goes before
    an error said before it (a guard's own check, said after the lexer's error of the
    same token, points back into it: cfpromise.syntax.guards)."""
    keyed = []
    pending: list[Diagnostic] = []
    for d in checks:
        pending.append(d)
        if d.coord.line > 0:
            keyed += [((d.coord.line, d.coord.col, 0 if first else 1), p) for p in pending]
            pending = []
    last = (0, 0)
    for d in recovered:
        last = max(last, (d.coord.line, d.coord.col))
        keyed.append(((*last, 1 if first else 0), d))
    keyed.sort(key=lambda item: item[0])
    return [d for _, d in keyed] + pending


def capped(diagnostics: list[Diagnostic]) -> tuple[list[Diagnostic], bool]:
    """A file's parser errors as cf-promises says them: its parser counts each error it
    says (a plain log line, at line 0, and a check of the parsed policy, ``bare``, are
    none) and exits after the thirteenth ("Too many errors"); whether it did."""
    count = 0
    for i, d in enumerate(diagnostics):
        if d.coord.line > 0 and not d.bare:
            count += 1
            if count > MAX_ERRORS:
                return diagnostics[:i + 1], True
    return diagnostics, False


def raise_capped(diagnostics: list[Diagnostic]) -> None:
    """Raise a file's parser errors (:func:`capped`), ``too_many`` when they stop it."""
    said, too_many = capped(diagnostics)
    raised = PolicyError(said)
    raised.too_many = too_many      # type: ignore[attr-defined]
    raise raised from None


def bundles_at(policy: Any, text: str, offsets: list[int]) -> frozenset[int]:
    """id()s of the bundles whose bodies open at ``offsets`` (of their '{'): for each,
    the last bundle named before it."""
    out = set()
    for offset in offsets:
        line = text.count("\n", 0, offset) + 1
        col = offset - text.rfind("\n", 0, offset)
        before = [b for b in policy.bundles if (b.coord.line, b.coord.col) < (line, col)]
        if before:
            out.add(id(before[-1]))
    return frozenset(out)
