"""An expanded attribute value against its type and range, as cf-agent 3.21 checks the
constraints of an expanded promise while it loads the policy (CheckConstraintTypeMatch).

Used by :mod:`cfpromise.agent.precheck` for the values only known once expanded (a body's
parameters, variables).  :func:`type_match` gives what cf-agent logs on the way (the
integer and real parsers' and the mode parser's own errors) and the error that stops the
run, in cf-agent's words, or None; a value still holding a reference is never an error
(cf-agent cannot check an unexpanded value: a string, an int, a real or a range holds
one when IsCf3VarString says so, :mod:`cfpromise.syntax.varstring`, whose broken
references are collected for the caller to say).  What each type checks:

* ``string`` (and each item of an ``slist``): ``mode``/``search_mode`` must parse as a
  mode; then the range must match the whole value (an empty range is anything), else
  "Empty scalar value is out of range", "Filename is not an absolute path" (the
  absolute-path range) or "Scalar value is out of range";
* ``int``: a CFEngine integer ("Cannot parse value as integer") within the range;
* ``real``: not ``inf``, a real number within the range;
* ``option``: one of the range's comma-separated words;
* ``context``: matching the range;
* ``irange``/``rrange``: two numbers "a,b", not bracketed, within the range.
"""
from __future__ import annotations

from cfpromise.fast.memo import lru_cache  # (functools is not on the start path)
from cfpromise.schema.values import ValueError_, parse_int, parse_real
from cfpromise.syntax.varstring import naked, walk

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

ABSPATH_RANGE = '"?(/.*)'
_DOTALL = 16                        # re.S (re is not on the start path)
_NOINT = -678                       # CF_NOINT: what a failed integer parse reads as
_INFINITY = 999999999
_LISTS = {"slist": "string", "ilist": "int", "rlist": "real", "olist": "option",
          "clist": "context"}


@lru_cache(maxsize=512)
def compiled_range(range_: str) -> re.Pattern[str] | None:
    """A syntax range as a pattern (None: one re cannot compile), for the run-time and the
    parse-time checks (cfpromise.schema.validate) alike.  A dot matches a newline, as in
    every regex cf-agent compiles (CompileRegex's PCRE_DOTALL): a command written over
    several lines (masterfiles' check_update_postproc) is in the absolute-path range."""
    import warnings
    from cfpromise.fast import precompiled
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # PCRE ranges like [+-=] make re warn
        try:
            return precompiled.compile(range_, _DOTALL)
        except precompiled.error:
            return None


def _references(text: str, broken: list[str] | None) -> bool:
    """IsCf3VarString: whether ``text`` holds a reference; a broken one is added to
    ``broken`` (the parser's error, said by the caller)."""
    references, is_broken = walk(text)
    if is_broken and broken is not None:
        broken.append(text)
    return references


def _int(text: str, logged: list[str]) -> int:
    """IntFromString: the value, or CF_NOINT after logging why not."""
    try:
        return parse_int(text)
    except ValueError_ as exc:
        message = str(exc)
        # (quiet where a '$' may yet converge: no number and a '$' anywhere, or a '$'
        # right after the number)
        if not (message.startswith("Failed to parse") and "$" in text
                or message.startswith("Anomalous ending '$")):
            logged.append(message)
        return _NOINT


def _real(text: str, logged: list[str]) -> float | None:
    """DoubleFromString: the value, or None after logging why not."""
    try:
        return parse_real(text)
    except ValueError_ as exc:
        logged.append(str(exc))
        return None


def _bounds(range_: str | None) -> tuple[str, str]:
    lo, _, hi = (range_ or "").partition(",")
    return lo.strip(), hi.strip()


def _int_bounds(range_: str | None) -> tuple[float, float]:
    lo, hi = _bounds(range_)
    try:
        low = float(int(lo))
    except ValueError:
        low = float("-inf")
    if hi == "inf":
        return low, float(_INFINITY)
    try:
        return low, float(int(hi))
    except ValueError:
        return low, float("inf")


def _real_bounds(range_: str | None) -> tuple[float, float]:
    lo, hi = _bounds(range_)
    try:
        return float(lo), float(hi)
    except ValueError:
        return float("-inf"), float("inf")


def _string(lval: str, text: str, range_: str | None, logged: list[str],
            broken: list[str] | None) -> str | None:
    if not range_ or naked(text):
        return None
    if lval in ("mode", "search_mode"):
        from cfpromise.promises.files.modes import parse_mode
        # (its error lines only: an info line is not shown without -I)
        if parse_mode(text, lambda level, message: level == "error"
                      and logged.append(message)) is None:
            return "Error parsing Unix permission string"
    pattern = compiled_range(range_)
    if range_ == text or pattern is None or pattern.fullmatch(text):
        return None
    if _references(text, broken):
        return None
    if text == "":
        return "Empty scalar value is out of range"
    if range_ == ABSPATH_RANGE:
        return "Filename is not an absolute path"
    return "Scalar value is out of range"


def _scalar(lval: str, text: str, kind: str, range_: str | None,
            logged: list[str], broken: list[str] | None) -> str | None:
    if kind == "string":
        return _string(lval, text, range_, logged, broken)
    if kind == "int":
        if _references(text, broken):
            return None
        value = _int(text, logged)
        if value == _NOINT:
            return "Cannot parse value as integer"
        low, high = _int_bounds(range_)
        return "Integer is out of range" if not low <= value <= high else None
    if kind == "real":
        if text == "inf":
            return "Keyword 'inf' has an integer value, cannot be used as real"
        if _references(text, broken):
            return None
        real = _real(text, logged)
        low, high = _real_bounds(range_)
        return "Real value is out of range" if real is None or not low <= real <= high \
            else None
    if kind == "option":
        if naked(text):
            return None
        return None if text in (range_ or "").split(",") else "Selection is out of bounds"
    if kind == "context":
        if not range_:
            return None
        pattern = compiled_range(range_)
        return None if range_ == text or pattern is None or pattern.fullmatch(text) \
            else "Context string is invalid/out of range"
    if kind in ("irange", "rrange"):
        return _range(text, kind, range_, logged, broken)
    return None


def _range(text: str, kind: str, range_: str | None, logged: list[str],
           broken: list[str] | None) -> str | None:
    if text[:1] in ("[", "("):
        return "Real range specification should not be enclosed in brackets - just 'a,b'"
    if kind == "rrange" and text == "inf":
        return "Keyword 'inf' has an integer value, cannot be used as real"
    if _references(text, broken):
        return None
    parts = _split(text)
    if len(parts) != 2:
        return "Range format specifier should be of form 'a,b'' but got multiple items"
    if kind == "irange":
        low, high = _int_bounds(range_)
        for part in parts:
            if not low <= _int(part, logged) <= high:
                return "Integer is out of range"
        return None
    rlow, rhigh = _real_bounds(range_)
    for part in parts:
        real = _real(part, logged)
        if real is None or not rlow <= real <= rhigh:
            return "Real value is out of range"
    return None


def _split(text: str, sep: str = ",") -> list[str]:
    """SplitString: the items between unescaped separators (``\\,`` is a comma, ``\\\\``
    a backslash), empty ones kept ("1,2," is three)."""
    items: list[str] = []
    item: list[str] = []
    at, n = 0, len(text)
    while at < n:
        char = text[at]
        if char == "\\" and at + 1 < n and text[at + 1] in ("\\", sep):
            at += 1
            item.append(text[at])
        elif char == sep:
            items.append("".join(item))
            item = []
        else:
            item.append(char)
        at += 1
    items.append("".join(item))
    return items


def type_match(lval: str, value: object, kind: str, range_: str | None,
               broken: list[str] | None = None) -> tuple[list[str], str | None]:
    """(messages cf-agent logs on the way, the type error or None) for ``value`` (a
    string or a list of strings) given to an attribute of type ``kind``; the texts whose
    reference IsCf3VarString finds broken on the way are added to ``broken``."""
    logged: list[str] = []
    if isinstance(value, list):
        item_kind = _LISTS.get(kind)
        if item_kind is None:
            return logged, "Attempted to give a list to a non-list type"
        for item in value:
            if isinstance(item, str):
                error = _scalar(lval, item, item_kind, range_, logged, broken)
                if error is not None:
                    return logged, error
        return logged, None
    if not isinstance(value, str) or kind in _LISTS:
        return logged, None
    return logged, _scalar(lval, value, kind, range_, logged, broken)
