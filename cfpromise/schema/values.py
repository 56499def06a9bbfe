"""Literal value checks and parsers for attribute types (int, real, option, context, ranges).

These mirror CFEngine's own rules: an int may carry a unit suffix (``10k``,
``2M``, ``5%``) or be ``inf``/``now``; a range like ``0,99999999999`` bounds it;
an option must be one of the comma-separated choices; a class expression must
match the range's character set.  Anything still holding a variable reference
(``$(x)``, ``@(x)``) cannot be judged before evaluation and is accepted.
"""
from __future__ import annotations

import time

from cfpromise.fast import precompiled
from cfpromise.fast.memo import lru_cache  # (functools is not on the start path)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

INFINITY = 999999999
_INT_SUFFIX = {"k": 1000, "K": 1024, "m": 1000 ** 2, "M": 1024 ** 2, "g": 1000 ** 3, "G": 1024 ** 3}
_INT_RE = precompiled.compile(r"\s*([+-]?\d+)(.*)", precompiled.S)
_REAL_RE = precompiled.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(.*)", precompiled.S)


class ValueError_(ValueError):
    """A literal that does not fit its attribute type."""


def is_unexpanded(text: str) -> bool:
    return "$(" in text or "${" in text or "@(" in text or "@{" in text


def _unit(text: str, rest: str, kind: str) -> str | None:
    """What follows the number, as libntech's ``sscanf(s, "%lld%c%s")`` splits it: the
    unit character, or None; ValueError_ when a word follows that character ("1.5" as an
    integer, "1 k", "1kk"); any other single character is ignored ("1x" is 1)."""
    if not rest:
        return None
    c, tail = rest[0], rest[1:].split()
    if tail:
        raise ValueError_(f"Anomalous ending '{c}{tail[0][0]}' while parsing {kind} number: "
                          f"{text}")
    return c


def parse_int(text: str) -> int:
    """CFEngine's integer syntax (IntFromString); raises ValueError_ with its wording."""
    if text == "inf":
        return INFINITY
    if text == "now":
        return int(time.time())
    m = _INT_RE.fullmatch(text)
    if not m:
        raise ValueError_(f"Failed to parse integer number: {text}")
    value = int(m.group(1))
    unit = _unit(text, m.group(2), "integer")
    if unit in _INT_SUFFIX:
        return value * _INT_SUFFIX[unit]
    if unit == "%":
        if value < 0 or value > 100:
            raise ValueError_(f"Percentage out of range: {value}")
        return -value            # CFEngine encodes percentages as negative numbers
    return value


def parse_real(text: str) -> float:
    """CFEngine's real syntax (DoubleFromString)."""
    m = _REAL_RE.fullmatch(text)
    if not m:
        raise ValueError_(f"Failed to parse real number: {text}")
    value = float(m.group(1))
    unit = _unit(text, m.group(2), "real")
    if unit in _INT_SUFFIX:
        return value * _INT_SUFFIX[unit]
    if unit == "%":
        if value < 0 or value > 100:
            raise ValueError_(f"Percentage out of range: {text}")
        return -value
    return value


def _bounds(range_: str, parse: object) -> tuple[float, float] | None:
    if not range_ or "," not in range_:
        return None
    lo, _, hi = range_.partition(",")
    try:
        return (parse(lo.strip()), parse(hi.strip()))  # type: ignore[operator]
    except ValueError:
        return None


def check_int(text: str, range_: str | None) -> None:
    value = parse_int(text)
    bounds = _bounds(range_ or "", parse_int)
    if bounds and text not in ("inf", "now") and not text.endswith("%") \
            and not (bounds[0] <= value <= bounds[1]):
        raise ValueError_("Integer is out of range")


def check_real(text: str, range_: str | None) -> None:
    value = parse_real(text)
    bounds = _bounds(range_ or "", parse_real)
    if bounds and not (bounds[0] <= value <= bounds[1]):
        raise ValueError_("Real number is out of range")


def check_option(text: str, range_: str | None) -> None:
    if range_ and text not in range_.split(","):
        raise ValueError_("Selection is out of bounds")


@lru_cache(maxsize=64)
def _regex(range_: str) -> re.Pattern[str]:
    return precompiled.compile(range_)


def check_context(text: str, range_: str | None) -> None:
    if range_ and not _regex(range_).fullmatch(text):
        raise ValueError_("Context string is invalid/out of range")


def check_irange(text: str, range_: str | None) -> None:
    parts = text.split(",")
    if len(parts) != 2:
        raise ValueError_("Integer range is invalid")
    for part in parts:
        parse_int(part.strip())


def check_rrange(text: str, range_: str | None) -> None:
    parts = text.split(",")
    if len(parts) != 2:
        raise ValueError_("Real range is invalid")
    for part in parts:
        parse_real(part.strip())


LIST_KINDS = frozenset({"slist", "ilist", "rlist", "olist", "clist"})


def runtime_check(lval: str, value: object, kind: str, range_: str | None) -> None:
    """An expanded attribute value against its type, with cf-agent's run-time wording."""
    if kind in LIST_KINDS and not isinstance(value, list):
        shown = value if isinstance(value, str) else ("any" if value is True else
                                                      "!any" if value is False else value)
        raise ValueError_(f"In attribute '{lval}', Attempted to give a scalar to a non-scalar "
                          f"type. Given attribute value '{shown}'")
    checker = CHECKERS.get(kind)
    if checker is None:
        return
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, str) and not is_unexpanded(item):
            try:
                checker(item, range_)
            except ValueError_ as exc:
                raise ValueError_(f"In attribute '{lval}', {exc}. Given attribute value "
                                  f"'{item}'") from None


CHECKERS = {
    "int": check_int, "ilist": check_int,
    "real": check_real, "rlist": check_real,
    "option": check_option, "olist": check_option,
    "context": check_context, "clist": check_context,
    "irange": check_irange, "rrange": check_rrange,
}
