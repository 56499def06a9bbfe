"""Class expressions: parse once to a small tree, evaluate many times.

Grammar (CFEngine's precedence: ``!`` binds tightest, then ``.``/``&`` (and),
then ``|``/``||`` (or))::

    expr    := term ( ("|" | "||") term )*
    term    := factor ( ("." | "&") factor )*
    factor  := "!" factor | "(" expr ")" | NAME
    NAME    := [A-Za-z0-9_:\\x80-]+   (a namespace prefix ``ns:name`` is part of the name)

A tree is nested tuples: ``("or", a, b)``, ``("and", a, b)``, ``("not", a)`` or a
plain ``str`` class name.  :func:`evaluate` takes a predicate for names, so the
same code serves defined classes, hard classes and tests; the names ``true``
and ``false`` are truth values, never looked up.  Results of parsing
are cached: guards repeat a lot in real policy.
"""
from __future__ import annotations

from cfpromise.fast.memo import lru_cache

from cfpromise.fast import precompiled

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Union

    Tree = Union[str, tuple]

# A name is any run of characters other than ASCII punctuation/space (keeps ':' for
# namespaces); the negated class is far cheaper to compile than a wide Unicode range.
_TOKEN = precompiled.compile(r"\s*(\|\||[|.&!()]|[^\x00-\x2f\x3b-\x40\x5b-\x5e\x60\x7b-\x7f]+)")


class ClassExprError(ValueError):
    """A class expression that does not parse."""


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ClassExprError(f"Syntax error in context string '{text}'")
        out.append(m.group(1))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, tokens: list[str], text: str) -> None:
        self.toks = tokens
        self.i = 0
        self.text = text

    def fail(self) -> ClassExprError:
        return ClassExprError(f"Syntax error in context string '{self.text}'")

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def expr(self) -> Tree:
        left = self.term()
        while self.peek() in ("|", "||"):
            self.i += 1
            left = ("or", left, self.term())
        return left

    def term(self) -> Tree:
        left = self.factor()
        while self.peek() in (".", "&"):
            self.i += 1
            left = ("and", left, self.factor())
        return left

    def factor(self) -> Tree:
        tok = self.peek()
        if tok is None:
            raise self.fail()
        self.i += 1
        if tok == "!":
            return ("not", self.factor())
        if tok == "(":
            inner = self.expr()
            if self.peek() != ")":
                raise self.fail()
            self.i += 1
            return inner
        if tok in ("|", "||", ".", "&", ")"):
            raise self.fail()
        return tok


@lru_cache(maxsize=4096)
def parse(text: str) -> Tree:
    """Parse a class expression; raises ClassExprError."""
    parser = _Parser(_tokens(text), text)
    tree = parser.expr()
    if parser.peek() is not None:
        raise parser.fail()
    return tree


# Names that are truth values in any class expression, defined classes or not (cf-agent's
# EvalExpression reads them before it looks a name up).
LITERALS: dict[str, bool] = {"true": True, "false": False}


def evaluate(tree: Tree, is_defined: Callable[[str], bool]) -> bool:
    if isinstance(tree, str):
        literal = LITERALS.get(tree)
        return is_defined(tree) if literal is None else literal
    op = tree[0]
    if op == "not":
        return not evaluate(tree[1], is_defined)
    if op == "and":
        return evaluate(tree[1], is_defined) and evaluate(tree[2], is_defined)
    return evaluate(tree[1], is_defined) or evaluate(tree[2], is_defined)


def is_valid(text: str) -> bool:
    try:
        parse(text)
    except ClassExprError:
        return False
    return True


def literal_failure(text: str) -> int | None:
    """Where cf-promises' check of an ``if``/``ifvarclass`` literal (ValidateClassLiteral:
    ParseExpression on the text as written, blanks included) gives up: None when the
    text starts with a complete expression (what follows is not looked at), else the
    offset of the character it stopped at.  A class name is a run of terms, each a token
    or a variable reference ``$(qname)``/``@{qname}`` whose inner name is such a run
    again, maybe ``ns.name``; the first term must parse (a broken reference there,
    ``"$(x"``, is the error), a later one that does not ends the name."""
    n = len(text)

    def token(i: int) -> int:
        j, inside = i, False
        while j < n:
            c = text[j]
            if c.isascii() and (c.isalnum() or c in "_:"):
                pass
            elif c == "[":
                inside = True
            elif c == "]":
                inside = False
            elif not (c == " " and inside):
                break
            j += 1
        return j

    def reference(i: int) -> tuple[bool, int]:
        if i + 1 >= n or text[i] not in "$@":
            return False, i
        if text[i + 1] not in "({":
            return False, i + 1
        ok, p = qname(i + 2)
        if not ok:
            return ok, p
        closing = ")" if text[i + 1] == "(" else "}"
        return (True, p + 1) if p < n and text[p] == closing else (False, p)

    def term(i: int) -> tuple[bool, int]:
        j = token(i)
        return (True, j) if j > i else reference(i)

    def name(i: int) -> tuple[bool, int]:
        ok, p = term(i)
        if not ok:
            return ok, p
        while True:
            more, q = term(p)
            if not more:
                return True, p
            p = q

    def qname(i: int) -> tuple[bool, int]:
        ok, p = name(i)
        if not ok or p == n or text[p] != ".":
            return ok, p
        return name(p + 1)

    # ParseExpression's or / and / not / primary, read left to right with a count of the
    # parentheses open (not by recursion: a guard may be thousands of terms long)
    i, depth = 0, 0
    while True:
        # an operand: at most one "!", then a "(" or a name
        if i < n and text[i] == "!":
            i += 1
            if i < n and text[i] == "(":
                depth, i = depth + 1, i + 1
                continue
        elif i < n and text[i] == "(":
            depth, i = depth + 1, i + 1
            continue
        ok, i = name(i)
        if not ok:
            return i
        # after an operand: an operator, or the ")" of an open parenthesis
        while True:
            if i < n and text[i] in ".&":       # ("&&" is not skipped, "||" is)
                i += 1
                break
            if i < n and text[i] == "|":
                i += 2 if i + 1 < n and text[i + 1] == "|" else 1
                break
            if depth == 0:
                return None                     # (what follows is not looked at)
            if i < n and text[i] == ")":
                depth, i = depth - 1, i + 1
                continue
            return i
