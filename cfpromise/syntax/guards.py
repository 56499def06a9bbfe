"""The parser's check of a class guard (``expr::``), where cf-promises 3.21 says it.

cf-promises' grammar checks a guard as it reduces it (``class: CLASS_GUARD``, right
after reading the token, in a bundle's promises and a body's attributes alike):
ValidateClassLiteral parses the text before ``::`` as written (blanks included) and,
when no expression starts it, says "Syntax error in context string" on the guard's own
line, at the column just past the ``::`` moved back by what the parse left unread
(:func:`cfpromise.syntax.classexpr.literal_failure`: ``a..b::`` at the second ``.``).
So a bad guard is said once, whether one promise, several or none follow it; a
quoted guard (``"$(x)"::``) is not checked; a guard the grammar does not take (one
before a bundle's first promise type: a syntax error) is never reduced, so never
checked.

These are parser errors (counted towards "Too many errors"), said in the order of
the file with the lexer's errors of the same token after them: the parser records
them here by the token's offset (:attr:`Lexer.guarded`, one per token however often a
retried parse reduces it) and :mod:`cfpromise.syntax.parser` says them with the
parser's other checks.  While bison recovers from a syntax error the same check is
:meth:`cfpromise.syntax.bisoncheck.Checks.guard`.

Masterfiles has thousands of guards, mostly a few texts: a text's verdict is cached.
"""
from __future__ import annotations

from cfpromise.fast.memo import lru_cache
from cfpromise.syntax.classexpr import literal_failure
from cfpromise.syntax.errors import Coord, Diagnostic, source_line_of
from cfpromise.syntax.lexer import Lexer, simple_coord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MESSAGE = "Syntax error in context string"


@lru_cache(maxsize=4096)
def failure(text: str) -> int | None:
    """The offset in ``text`` (a guard without its ``::``) where ValidateClassLiteral's
    parse gives up, or None when it accepts it."""
    return literal_failure(text)


def offset(text: str, at: int) -> int:
    """The column offset of a failure at ``at`` from one past the guard's ``::``."""
    return at - len(text)


def check(lexer: Lexer, tok: Any) -> None:
    """The parser reduced the guard token ``tok`` (a CLASS: type, value, offset, Coord,
    quote): record its error, if any, in ``lexer.guarded``."""
    text = tok[1]
    at = failure(text)
    if at is None:
        return
    lexpos, start = tok[2], tok[3]
    if start.__class__ is not Coord:        # (the scanner's: the lines skipped before it)
        start = simple_coord(lexer, lexpos, start)
    # (one past the token -- its text and the "::", on one line -- moved back)
    coord = start._replace(col=start.col + len(text) + 2 + offset(text, at))
    lexer.guarded[lexpos] = Diagnostic(coord, MESSAGE,
                                       source_line=source_line_of(lexer.text, coord.line))


def said(lexer: Lexer, lexed: dict[int, list[Diagnostic]]) -> list[Diagnostic]:
    """The lexer's errors ``lexed`` and the parser's guard errors, by the token's offset
    (a token's lexer errors first: it is read before it is reduced)."""
    at = sorted({*lexed, *lexer.guarded})
    out: list[Diagnostic] = []
    for pos in at:
        out += lexed.get(pos, ())
        if pos in lexer.guarded:
            out.append(lexer.guarded[pos])
    return out
