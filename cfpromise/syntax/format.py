"""The canonical policy layout (``cf-lite-promises -p cf``): a formatter, like gofmt.

:func:`format_policy` prints a parsed :class:`~cfpromise.syntax.ast.Policy` in one
fixed, readable layout::

    bundle agent main(a, b)
    {
      vars:
          "x" string => "one";
          "y"
            slist   => { "a", "b" },
            comment => "two attributes: one per line, '=>' aligned";

        linux.!foo::
          "z";
    }

Blocks are separated by one blank line; promise types are indented 2, class
guards 4, promises 6 and their attributes 8.  A promise with a single short
attribute stays on one line; a list that is too long for a line (or holds a
multi-line string) gets one item per line.

The invariant is ``parse(format_policy(p)) == p`` for every policy the parser
produces (AST equality ignores coordinates and the original quote character).
What the AST does not hold is not printed: **comments, blank lines of the
original, quote style and attribute repeats that the parser replaced are lost**.

How strings are printed (derived from :func:`cfpromise.syntax.lexer.deescape`,
which turns ``\\\\``, ``\\"`` and ``\\'`` into the character in all three quote styles,
drops a backslash and the newline after it (taking the next character as is),
and keeps any other backslash):

* a backslash is printed as is when the next character of the value exists and
  is not one of ``\\ " '`` or a newline (so ``^\\s+$`` stays ``"^\\s+$"``);
  otherwise it is doubled;
* the quote character is escaped (``\\"`` or ``\\'``); backquoted strings have
  no escape for the backquote (their inside is still de-escaped), so they are
  used only for values without one;
* of double quotes, single quotes and backquotes the style needing the fewest
  added backslashes wins, ties going in that order (a data container's JSON
  text is single-quoted whenever that reads back);
* a quoted string whose first inner quote is followed by ``::`` would lex as a
  ``"$(x)"::`` class guard; that style is avoided, and when no style is left the
  ``::`` is moved behind a backslash-newline continuation (``\\"\\<newline>::``),
  which the lexer drops;
* every piece of text the printer makes up (strings, guards, names) is checked
  by lexing it, so a candidate the lexer would read differently is never used.

Namespaces: ``body file control { namespace => "ns"; }`` switches the namespace
of the blocks that follow it, and it is itself a body of the policy, so no such
body is ever added.  Blocks are printed in source order (by coordinates) and
the printer follows the switches; a block whose namespace differs from the
current one is printed with a qualified name (``bundle agent ns:name``).

An AST that no policy text can produce (a bare scalar that is not an
identifier, a variable guard combined with a class guard, ...) raises
:class:`ValueError`.
"""
from __future__ import annotations

import functools
import math
from typing import Any, Iterable, Sequence

from cfpromise.syntax import ast
from cfpromise.syntax.errors import PolicyError
from cfpromise.syntax.lexer import Lexer

WIDTH = 100          # the line length lists and single-attribute promises must fit in
TYPE_INDENT = "  "
GUARD_INDENT = "    "
PROMISE_INDENT = "      "
ATTR_INDENT = "        "

# After a backslash, these characters would make the lexer de-escape the pair.
_SPECIAL_AFTER_BACKSLASH = frozenset("\\\"'\n")
_QUOTES = ('"', "'", "`")


@functools.lru_cache(maxsize=8192)
def _token(text: str) -> tuple[str, str] | None:
    """``(type, value)`` of the single token ``text`` lexes to; None if it is not one token.

    Every piece of text the printer makes up is checked with the lexer itself, so
    the printer cannot drift from the lexer's rules."""
    lexer = Lexer("<format>")
    try:
        lexer.input(text)
        tok = lexer.token()
        if tok is None or lexer.token() is not None:
            return None
    except PolicyError:
        return None
    return tok.type, tok.value


# --- strings --------------------------------------------------------------------

def _encode(value: str, quote: str) -> tuple[str, int]:
    """The inside of a ``quote``-quoted string reading back as ``value``; and how many
    backslashes were added."""
    out: list[str] = []
    added = 0
    last = len(value) - 1
    for i, ch in enumerate(value):
        if ch == "\\":
            if i == last or value[i + 1] in _SPECIAL_AFTER_BACKSLASH:
                out.append("\\\\")
                added += 1
            else:
                out.append("\\")
        elif ch == quote and quote != "`":
            out.append("\\" + ch)
            added += 1
        else:
            out.append(ch)
    return "".join(out), added


@functools.lru_cache(maxsize=8192)
def quote_string(value: str) -> str:
    """``value`` as a quoted string that the lexer reads back as ``value``."""
    candidates: list[tuple[int, int, str]] = []
    for order, quote in enumerate(_QUOTES):
        if quote == "`" and "`" in value:
            continue
        inside, added = _encode(value, quote)
        candidates.append((added, order, quote + inside + quote))
    candidates.sort()
    inside, _ = _encode(value, '"')
    k = inside.find('"')
    if k >= 0:   # '"::' would start a "$(x)":: guard: hide the '::' behind a continuation
        candidates.append((0, 0, '"' + inside[: k + 1] + "\\\n" + inside[k + 1:] + '"'))
    for _, _, text in candidates:
        if _token(text) == ("QSTRING", value):
            return text
    raise ValueError(f"string {value!r} cannot be written")


# --- data containers -----------------------------------------------------------------

def _json(value: Any) -> str:
    """JSON that CFEngine's reader (:mod:`cfjson`) reads back as ``value``: it keeps
    ``\\uXXXX`` literally, so characters are written as themselves."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"no JSON for {value!r}")
        return repr(value)
    if isinstance(value, str):
        text = value.replace("\\", "\\\\").replace('"', '\\"')
        return '"' + text.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t") + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_json(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_json(_key(k))}: {_json(v)}" for k, v in value.items()) + "}"
    raise ValueError(f"no JSON for {type(value).__name__}")


def _key(key: Any) -> str:
    return key if isinstance(key, str) else _json(key)


def _yaml_string(value: str) -> str:
    out: list[str] = []
    for i, ch in enumerate(value):
        if ch in "\\\"":
            out.append("\\" + ch)
        elif ch in "({" and i and value[i - 1] == "$":
            out.append(f"\\x{ord(ch):02x}")    # "$(" would make the parser call parseyaml()
        elif " " <= ch <= "~":
            out.append(ch)
        elif ord(ch) <= 0xFF:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return '"' + "".join(out) + '"'


def _yaml(value: Any) -> str:
    """YAML flow text for ``value`` with no ``$(`` in it (JSON has no way to hide one)."""
    if isinstance(value, str):
        return _yaml_string(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        mantissa, e, exponent = repr(value).partition("e")
        if "." not in mantissa:
            mantissa += ".0"
        return mantissa + e + exponent
    if isinstance(value, list):
        return "[" + ", ".join(_yaml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_yaml(_key(k))}: {_yaml(v)}" for k, v in value.items()) + "}"
    return _json(value)


def data_text(data: ast.Data) -> str:
    """The string that a ``data`` attribute turns back into ``data``: the original
    text when it still does, else JSON, else (values holding ``$(``) YAML."""
    from cfpromise.syntax.parser import inline_data  # the parser's own conversion

    candidates = [data.text] if data.text else []
    try:
        candidates.append(_json(data.value))
    except ValueError:
        pass
    candidates.append("--- " + _yaml(data.value))
    for text in candidates:
        if inline_data(ast.Scalar(text)) == data:
            return text
    raise ValueError(f"data container cannot be written as policy text: {data.canonical}")


# --- rvals ----------------------------------------------------------------------------

def _bare(name: str, what: str) -> str:
    token = _token(name)
    if token is None or token[0] not in ("IDENTIFIER", "SYMBOL") or token[1] != name:
        raise ValueError(f"{what} {name!r} is not an identifier")
    return name


def _naked(name: str) -> bool:
    return _token(name) == ("NAKEDVAR", name)


def _scalar(s: ast.Scalar) -> str:
    if s.kind == ast.QUOTED:
        return quote_string(s.value)
    if s.kind == ast.NAKED:
        if not _naked(s.value):
            raise ValueError(f"{s.value!r} is not a naked variable reference")
        return s.value
    return _bare(s.value, "bare value")


def _fname(name: str) -> str:
    return name if _naked(name) else _bare(name, "function name")


def inline(rval: ast.Rval) -> str:
    """``rval`` on one line (strings may still hold newlines)."""
    if isinstance(rval, ast.Scalar):
        return _scalar(rval)
    if isinstance(rval, ast.List):
        if not rval.items:
            return "{}"
        return "{ " + ", ".join(inline(i) for i in rval.items) + " }"
    if isinstance(rval, ast.FnCall):
        return f"{_fname(rval.name)}(" + ", ".join(inline(a) for a in rval.args) + ")"
    if isinstance(rval, ast.Data):
        text = data_text(rval)
        single = "'" + _encode(text, "'")[0] + "'"     # JSON reads best in single quotes
        return single if _token(single) == ("QSTRING", text) else quote_string(text)
    raise ValueError(f"not an rval: {rval!r}")


def render(rval: ast.Rval, indent: str, used: int) -> str:
    """``rval`` starting at column ``used`` of a line indented ``indent``: a list that
    does not fit (or holds a newline) is written one item per line."""
    text = inline(rval)
    if not isinstance(rval, ast.List) or not rval.items:
        return text
    if used + len(text) <= WIDTH and "\n" not in text:
        return text
    items = [indent + "  " + inline(i) for i in rval.items]
    return "{\n" + ",\n".join(items) + "\n" + indent + "}"


def _attributes(constraints: Sequence[ast.Constraint], indent: str, sep: str) -> list[str]:
    """Attribute lines with ``=>`` aligned: each ends with ``sep``, the last with ``;``."""
    width = max(len(_bare(c.lval, "attribute")) for c in constraints)
    lines = []
    for n, c in enumerate(constraints):
        head = f"{indent}{c.lval.ljust(width)} => "
        end = ";" if n == len(constraints) - 1 else sep
        lines.append(head + render(c.rval, indent, len(head)) + end)
    return lines


# --- guards ---------------------------------------------------------------------------

def _class_guard(classes: str) -> str:
    text = classes + "::"
    if _token(text) != ("CLASS", classes):
        raise ValueError(f"class guard {classes!r} cannot be written")
    return text


def _var_guard(varclass: str) -> str:
    for quote in "\"'":
        text = quote + varclass + quote + "::"
        if _token(text) == ("VARCLASS", varclass):
            return text
    raise ValueError(f"variable class guard {varclass!r} cannot be written")


# --- blocks ---------------------------------------------------------------------------

def _promise(p: ast.Promise) -> list[str]:
    head = PROMISE_INDENT + quote_string(p.promiser)
    if p.promisee is not None:
        head += " -> "
        head += render(p.promisee, PROMISE_INDENT, len(head))
    if not p.constraints:
        return [head + ";"]
    if len(p.constraints) == 1:
        c = p.constraints[0]
        one = f"{head} {_bare(c.lval, 'attribute')} => {inline(c.rval)};"
        if len(one) <= WIDTH and "\n" not in one:
            return [one]
    return [head] + _attributes(p.constraints, ATTR_INDENT, ",")


def _section(section: ast.PromiseSection) -> list[str]:
    if _token(section.name + ":") != ("PROMISE_TYPE", section.name):
        raise ValueError(f"promise type {section.name!r} cannot be written")
    lines = [f"{TYPE_INDENT}{section.name}:"]
    current: tuple[str, str | None] = ("any", None)
    for p in section.promises:
        guard = (p.classes, p.varclass)
        if guard != current:
            if p.varclass is not None and p.classes != "any":
                raise ValueError("a promise cannot have both a class and a variable guard")
            if len(lines) > 1:
                lines.append("")
            text = _var_guard(p.varclass) if p.varclass is not None else _class_guard(p.classes)
            lines.append(GUARD_INDENT + text)
            current = guard
        lines += _promise(p)
    return lines


def _header(keyword: str, block_type: str, name: str, args: Sequence[str] | None) -> str:
    text = f"{keyword} {_bare(block_type, 'block type')} {_bare(name, 'block name')}"
    if args:
        text += "(" + ", ".join(_bare(a, "parameter") for a in args) + ")"
    return text


def _bundle(b: ast.Bundle, name: str) -> list[str]:
    lines = [_header("bundle", b.type, name, b.args), "{"]
    for n, section in enumerate(b.sections):
        if n:
            lines.append("")
        lines += _section(section)
    return lines + ["}"]


def _body_lines(constraints: Sequence[ast.Constraint]) -> list[str]:
    """A body's attributes, one per line, with a guard line where the guard changes."""
    if all(c.classes == "any" for c in constraints):
        return _attributes(constraints, TYPE_INDENT, ";") if constraints else []
    lines: list[str] = []
    groups: list[tuple[str, list[ast.Constraint]]] = []
    for c in constraints:
        if groups and groups[-1][0] == c.classes:
            groups[-1][1].append(c)
        else:
            groups.append((c.classes, [c]))
    for n, (classes, group) in enumerate(groups):
        if n:
            lines.append("")
        if n or classes != "any":
            lines.append(TYPE_INDENT + _class_guard(classes))
        lines += _attributes(group, GUARD_INDENT, ";")
    return lines


def _body(b: ast.Body | ast.PromiseBlock, name: str) -> list[str]:
    if isinstance(b, ast.Body):
        header = _header("body", b.type, name, b.args)
    else:
        header = _header("promise", b.type, name, None)
    return [header, "{"] + _body_lines(b.constraints) + ["}"]


Block = ast.Bundle | ast.Body | ast.PromiseBlock


def source_order(policy: ast.Policy) -> list[Block]:
    """Bundles, bodies and promise blocks merged back into the order they were written
    (by coordinates); the order within each kind is always kept."""
    queues: list[list[Block]] = [list(policy.bundles), list(policy.bodies),
                                 list(policy.promise_blocks)]
    heads = [0, 0, 0]
    out: list[Block] = []
    while True:
        live = [k for k in range(3) if heads[k] < len(queues[k])]
        if not live:
            return out
        k = min(live, key=lambda k: (_position(queues[k][heads[k]]), k))
        out.append(queues[k][heads[k]])
        heads[k] += 1


def _position(block: Block) -> tuple[str, int, int]:
    return (block.coord.file, block.coord.line, block.coord.col)


def _namespace_switch(block: Block) -> str | None:
    """The namespace a ``body file control`` switches to (the parser takes the last one)."""
    if not (isinstance(block, ast.Body) and block.type == "file" and block.name == "control"):
        return None
    switch = None
    for c in block.constraints:
        if c.lval == "namespace":
            if not (isinstance(c.rval, ast.Scalar) and c.rval.kind == ast.QUOTED):
                raise ValueError("namespace must be a constant scalar string")
            switch = c.rval.value
    return switch


def format_blocks(blocks: Iterable[Block]) -> str:
    """``blocks`` in the canonical layout, in the order given."""
    namespace = "default"
    chunks: list[str] = []
    for block in blocks:
        name = block.name
        if block.namespace != namespace:
            name = f"{block.namespace}:{block.name}"
            if _token(name) != ("SYMBOL", name):
                raise ValueError(f"namespace {block.namespace!r} cannot qualify a block name")
        lines = _bundle(block, name) if isinstance(block, ast.Bundle) else _body(block, name)
        chunks.append("\n".join(lines) + "\n")
        switch = _namespace_switch(block)
        if switch is not None:
            namespace = switch
    return "\n".join(chunks)


def format_policy(policy: ast.Policy) -> str:
    """The whole policy in the canonical layout (``-p cf``)."""
    return format_blocks(source_order(policy))
