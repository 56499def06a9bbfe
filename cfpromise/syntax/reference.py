"""PLY's own parser loop over cf-lite's grammar: the reference the tests hold
:func:`cfpromise.syntax.parser.parse` (its scanner, its LR driver :mod:`.lr`) to.

Kept apart from the parser that programs run: only the tests build PLY's parser.
"""
from __future__ import annotations

from cfpromise.syntax import ast, parser
from cfpromise.syntax.scanner import Token

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class _ReferenceTokens:
    """PLY's lexer as PLY's parser reads it in :func:`reference_parse`: each token's
    value is its :class:`~cfpromise.syntax.scanner.Token`, so that a rule's ``p[i]``
    is the Token under PLY as under :mod:`.lr`."""

    def __init__(self, ply: Any) -> None:
        self.ply = ply

    def token(self) -> Any:
        tok = self.ply.token()
        if tok is not None:
            tok.value = Token(tok.type, tok.value, tok.lexpos, tok.coord,
                              getattr(tok, "quote", None))
        return tok


def reference_parse(text: str, filename: str = "<string>") -> ast.Policy:
    """:func:`cfpromise.syntax.parser.parse` by PLY itself (its lexer, its parser loop): the reference the
    differential tests hold :func:`cfpromise.syntax.parser.parse` to.  Builds PLY's parser on first use."""
    lexer = parser.Lexer(filename)
    lexer.input(text)
    parser._STATE.append(lexer)
    try:
        blocks = parser._parser().parse(lexer=_ReferenceTokens(lexer.lexer), tracking=False)
        lexer.check_end()
    finally:
        parser._STATE.pop()
    policy = parser._policy(blocks, filename)
    if lexer.lexed or lexer.guarded:
        parser._lexed(lexer, policy)
    return policy
