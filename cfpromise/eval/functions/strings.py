"""String and regular-expression built-ins.

cf-agent works on C strings, so lengths, heads and tails, reversal, case
changes, ``escape`` and ``format`` widths count *bytes* (``string_length("é")``
is 2); see :mod:`.common` for how such results come back as ``str``.  Regular
expressions use :mod:`.pcre`: ``regcmp`` is CFEngine's "full match" (first
match covering the whole string), ``regextract``/``data_regextract`` take the
first match anywhere.  ``regex_replace`` follows CFEngine 3.21's pcre_wrap
substitution (``$1``/``\\1``, ``$&``, ``$+``; ``$$`` stays ``$$``).
"""
from __future__ import annotations

import re

from cfpromise.eval.canon import canonify as _canonify
from cfpromise.eval.functions import jsondata, pcre
from cfpromise.eval.functions import messages
from cfpromise.eval.functions.api import FunctionError, builtin
from cfpromise.eval.functions.common import (
    argv, c_double, calling, check_qualified, double_from_string, flat_args, int_arg,
    scalar, to_bytes, to_text)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Sequence

    from cfpromise.eval.functions.api import FunctionContext, Value

# ---------------------------------------------------------------------------
# Plain string transformations


@builtin("canonify")
def canonify(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (text,) = argv("canonify", args, 1)
    return _canonify(text)


@builtin("canonifyuniquely")
def canonifyuniquely(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (text,) = argv("canonifyuniquely", args, 1)
    import hashlib
    digest = hashlib.sha1(to_bytes(text)).hexdigest()
    return _canonify(f"{text}_{digest}")


@builtin("concat")
def concat(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return "".join(flat_args("concat", args))


@builtin("escape")
def escape(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """Backslash before every byte that is not an ASCII letter or digit."""
    (text,) = argv("escape", args, 1)
    out = bytearray()
    for byte in to_bytes(text):
        if not (48 <= byte <= 57 or 65 <= byte <= 90 or 97 <= byte <= 122):
            out.append(92)
        out.append(byte)
    return to_text(bytes(out))


@builtin("string_downcase")
def string_downcase(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (text,) = argv("string_downcase", args, 1)
    return to_text(to_bytes(text).lower())       # bytes.lower() is ASCII only, as tolower()


@builtin("string_upcase")
def string_upcase(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (text,) = argv("string_upcase", args, 1)
    return to_text(to_bytes(text).upper())


@builtin("string_reverse")
def string_reverse(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (text,) = argv("string_reverse", args, 1)
    return to_text(to_bytes(text)[::-1])


@builtin("string_length")
def string_length(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (text,) = argv("string_length", args, 1)
    return str(len(to_bytes(text)))


@builtin("string_head")
def string_head(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    text, count = argv("string_head", args, 2)
    data = to_bytes(text)
    n = int_arg(count)
    if n < 0:
        n = max(0, len(data) - abs(n))
    return to_text(data[:n])


@builtin("string_tail")
def string_tail(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    text, count = argv("string_tail", args, 2)
    data = to_bytes(text)
    n = int_arg(count)
    if n < 0:
        return to_text(data[min(abs(n), len(data)):])
    if n < len(data):
        return to_text(data[len(data) - n:])
    return text


@builtin("string_trim")
def string_trim(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (text,) = argv("string_trim", args, 1)
    return text.strip(" \t\n\r\f\v")


@builtin("string_replace")
def string_replace(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    text, match, substitute = argv("string_replace", args, 3)
    if match == "":
        return text
    return text.replace(match, substitute)


@builtin("string")
def string(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """Its argument as text; a list or data container as compact JSON."""
    (value,) = argv("string", args, 1, raw=(0,))
    if isinstance(value, (list, dict)):
        return jsondata.dumps(value, pretty=False)
    text = scalar(value, "string", 0)
    if text.startswith(("@(", "@{")):
        from cfpromise.eval.functions.common import collect
        data = collect(ctx, text)
        if data is not None:
            return jsondata.dumps(data, pretty=False)
    return text


@builtin("lastnode")
def lastnode(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    text, separator = argv("lastnode", args, 2)
    parts = pcre.split(text, separator, 100, True)
    if not parts:
        raise FunctionError(f"Function 'lastnode' found nothing in '{text}'")
    return parts[-1]


@builtin("string_split")
def string_split(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    text, regex, maxent = argv("string_split", args, 3)
    n = int_arg(maxent)
    if n < 1:
        raise FunctionError(f"Function 'string_split' called with invalid maxent argument: "
                            f"'{n}' (should be > 0).")
    return pcre.split_no_overflow(text, regex, n)


@builtin("splitstring")
def splitstring(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    text, regex, maxent = argv("splitstring", args, 3)
    try:
        return pcre.split(text, regex, max(0, int_arg(maxent)), True)
    except pcre.RegexError as exc:         # RlistFromSplitRegex: the text whole, once said
        messages.say(ctx, "regex.compile", message=str(exc))
        return [text]


# ---------------------------------------------------------------------------
# Comparisons


@builtin("strcmp")
def strcmp(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    a, b = argv("strcmp", args, 2)
    return a == b


def _less_greater(ctx: FunctionContext, fn: str, args: Sequence[Value], rising: bool) -> bool:
    a, b = argv(fn, args, 2)
    if _is_real(a) and _is_real(b):
        x = double_from_string(a)
        y = double_from_string(b) if x is not None else None    # (cf-agent's ||)
        if x is None or y is None:
            messages.say_number(ctx, "real", a if x is None else b)
            raise FunctionError(f"Function '{fn}': failed to parse real number "
                                f"'{a if x is None else b}'")
        return x > y if rising else x < y
    ba, bb = to_bytes(a), to_bytes(b)
    return ba > bb if rising else ba < bb


def _is_real(text: str) -> bool:
    value = c_double(text)
    return value is not None and value != -123.45


@builtin("isgreaterthan")
def isgreaterthan(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _less_greater(ctx, "isgreaterthan", args, True)


@builtin("islessthan")
def islessthan(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _less_greater(ctx, "islessthan", args, False)


# ---------------------------------------------------------------------------
# Regular expressions


@builtin("regcmp")
def regcmp(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    regex, text = argv("regcmp", args, 2)
    try:
        return pcre.full_match(regex, text)
    except pcre.RegexError as exc:         # StringMatchFull: no match, once said
        messages.say(ctx, "regex.compile", message=str(exc))
        return False


@builtin("regextract")
def regextract(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """True if ``regex`` matches ``text``; defines ``array[0]``, ``array[1]``,
    ``array[name]``... with the captures."""
    regex, text, array = argv("regextract", args, 3)
    if calling(ctx):       # no promise to qualify the array's name with
        check_qualified(ctx, array, "caller.array")
    try:
        found = pcre.captures(regex, text)
    except pcre.RegexError as exc:         # 3.21 compiles it itself: no match, said at verbose
        ctx.log("verbose", str(exc))
        return False
    if not found:
        return False
    for key, value in found:
        ctx.define_variable(f"{array}[{key}]", "string", value,
                            ("source=function", "function=regextract"))
    return True


@builtin("data_regextract")
def data_regextract(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    regex, text = argv("data_regextract", args, 2)
    found = pcre.captures(regex, text)
    if not found:
        raise FunctionError(f"Function 'data_regextract': regex '{regex}' does not match")
    result: dict[str, Any] = {}
    for key, value in found:
        result.pop(key, None)
        result[key] = value
    return result


_REPL_OPTIONS = {"i": "i", "m": "m", "s": "s", "x": "x"}


def _compile_replacement(template: str, groups: int) -> list[str | int]:
    """pcre_wrap's replacement parser: text pieces and submatch numbers
    (-1 for the unsupported ``$``` / ``$'``)."""
    parts: list[str | int] = []
    text: list[str] = []
    i, n, quoted = 0, len(template), False
    controls = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "a": "\x07", "e": "\x1b", "0": "\0"}
    while i < n:
        ch = template[i]
        nxt = template[i + 1] if i + 1 < n else ""
        if ch == "\\" and (nxt == "" or nxt not in "123456789"):
            if quoted:
                text.append(ch)
                i += 1
                quoted = False
            elif nxt and nxt in controls:
                text.append(controls[nxt])
                i += 2
            else:
                quoted = True
                i += 1
            continue
        if ch in "\\$" and not quoted and i < n - 1:
            if nxt.isdigit():
                j = i + 1
                while j < n and template[j].isdigit():
                    j += 1
                parts.append("".join(text))
                text = []
                parts.append(int(template[i + 1:j]))
                i = j
                continue
            if ch == "$" and nxt in "'`+&":
                parts.append("".join(text))
                text = []
                parts.append({"+": groups, "&": 0}.get(nxt, -1))
                i += 2
                continue
        text.append(ch)
        i += 1
        quoted = False
    parts.append("".join(text))
    return parts


@builtin("regex_replace")
def regex_replace(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    text, regex, replacement, options = argv("regex_replace", args, 4)
    if "U" in options:
        raise FunctionError("Function 'regex_replace': the 'U' (ungreedy) option is not "
                            "supported by cf-lite")
    flags = "".join(_REPL_OPTIONS[c] for c in options if c in _REPL_OPTIONS)
    try:
        rx = pcre.compile_regex(regex, flags)
    except pcre.RegexError:
        raise messages.fail("regex.replace", fn="regex_replace", regex=regex,
                            replacement=replacement, options=options) from None
    data = to_bytes(text)
    groups = rx.groups
    parts: list[bytes | int]
    if "T" in options:
        parts = [to_bytes(replacement)]
    else:
        parts = [to_bytes(p) if isinstance(p, str) else p
                 for p in _compile_replacement(replacement, groups)]
    out = bytearray()
    offset = last = 0
    while True:
        m = rx.search(data, offset)
        if m is None:
            break
        out += data[last:m.start()]
        for part in parts:
            if isinstance(part, bytes):
                out += part
            elif 0 <= part <= groups and m.group(part):
                out += m.group(part)
        last = m.end()
        if "g" not in options:
            break
        if m.end() == offset:
            if offset < len(data):
                offset += 1
            else:
                break
        else:
            offset = m.end()
    out += data[last:]
    return to_text(bytes(out))


# ---------------------------------------------------------------------------
# format()

_PIECE = re.compile(r"%%|%[^diouxXeEfFgGaAcsCSpnm%]*?[diouxXeEfFgGaAcsCSpnm]", re.S)
_SPEC = re.compile(r"%([-+ #0]*)(\d*)(?:\.(\d*))?([a-zA-Z]*)$")


def _c_format(piece: str, value: Any) -> bytes:
    """snprintf(piece, value) for the conversions format() passes through."""
    m = _SPEC.match(piece)
    if not m:
        return to_bytes(piece)
    flags, width, precision, conv = m.groups()
    conv = conv.lstrip("l")
    if len(conv) != 1:
        return to_bytes(piece)     # glibc prints a conversion it does not know as written
    spec = "%" + flags + width + ("." + precision if precision is not None else "")
    if isinstance(value, bytes):
        return (spec.encode() + b"s") % value
    if conv in ("o", "x", "X") and isinstance(value, int) and value < 0:
        value &= 2**64 - 1
    if conv == "o" and "#" in flags:
        digits = "%o" % abs(value)
        body = digits if digits.startswith("0") else "0" + digits
        spec2 = "%" + flags.replace("#", "") + width + "s"
        return (spec2 % (("-" if value < 0 else "") + body)).encode()
    return (spec + conv).encode() % value


@builtin("format")
def format_(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    if not args:
        raise FunctionError("Function 'format' requires at least one argument")
    fmt = scalar(args[0], "format", 0)
    data: list[Any] = []
    for i, a in enumerate(args[1:], 1):
        if isinstance(a, list):
            data.extend(scalar(x, "format", i) for x in a)
        elif isinstance(a, dict):
            data.append(a)
        else:
            data.append(scalar(a, "format", i))
    first = fmt.find("%")
    if first < 0:
        return fmt
    out = bytearray(to_bytes(fmt[:first]))
    rest = fmt[first:]
    while rest:
        m = _PIECE.match(rest)
        if not m:
            break
        piece = m.group(0)
        rest = rest[m.end():]
        if piece == "%%":
            out += b"%"
        else:
            if not data:
                raise messages.fail("format.short")
            value = data.pop(0)
            out += _format_piece(ctx, piece, value)
        literal_end = rest.find("%")
        literal_end = len(rest) if literal_end < 0 else literal_end
        out += to_bytes(rest[:literal_end])
        rest = rest[literal_end:]
    return to_text(bytes(out))


def _format_piece(ctx: FunctionContext, piece: str, value: Any) -> bytes:
    for bad in "hLqjzt":
        if bad in piece:
            raise messages.fail("format.modifier", char=bad, spec=piece)
    if isinstance(value, dict):
        text = ""
    else:
        text = value
    if "d" in piece or "o" in piece or "x" in piece:
        number = _c_long(text)
        return _c_format(piece, number)
    if "f" in piece:
        real = c_double(text) or 0.0
        return _c_format(piece, real)
    if "s" in piece:
        return _c_format(piece, to_bytes(text))
    if "S" in piece:
        rendered = _format_structure(ctx, value)
        return _c_format(piece.replace("S", "s"), to_bytes(rendered))
    return b"(unhandled format)"


def _c_long(text: str) -> int:
    m = re.match(r"\s*([+-]?\d+)", text)
    return int(m.group(1)) if m else 0


def _format_structure(ctx: FunctionContext, value: Any) -> str:
    """%S: a data container as compact JSON, an slist as ``{ "a", "b" }``."""
    if isinstance(value, dict):
        return jsondata.dumps(value, pretty=False)
    var = ctx.lookup(value)
    if var is not None and var.type == "data":
        return jsondata.dumps(var.value, pretty=False)
    if var is not None and var.type == "slist":
        items = ", ".join('"' + str(v).replace('"', '\\"') + '"' for v in var.value)
        return "{ " + items + " }"
    if var is not None and var.type not in ("slist", "ilist", "rlist"):
        messages.say(ctx, "format.not_list", type=var.type)
    raise FunctionError(f"format() with %S specifier needs a data container or a list "
                        f"instead of '{value}'.")
