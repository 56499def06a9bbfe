"""A function call's literal arguments against its parameter types, as cf-agent 3.21's
CallFunction checks them before each call (fatal: "In function 'f', error in variable
'v', '...'"), so that ``cf-lite-promises -c`` and a run stop where cf-promises and
cf-agent stop, and nowhere else.

cf-agent checks the arguments *as written* (``fp->args``), not their values: an
argument holding a reference (``"$(mode)"``, ``@(list)``) or a nested call is never
checked.  int and real parameters are parsed as IntFromString/DoubleFromString parse
(``"1x"`` is 1) and held to their range; an option must be one of its choices; a
string must match its range (an absolute-path range and an empty string have their
own messages).  Class expressions are left to the functions.
"""
from __future__ import annotations

from cfpromise.eval.functions.api import FatalFunctionError
from cfpromise.schema.values import ValueError_, check_int, check_option, check_real, \
    is_unexpanded
from cfpromise.syntax.ast import Scalar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Sequence

ABSPATH_RANGE = '"?(/.*)'

# (function, position, text) -> None when fine, else (logged error or "", fatal reason)
_VERDICTS: dict[tuple[str, int, str], tuple[str, str] | None] = {}
# function -> (position, type, range) of the parameters a literal can fail: every call
# of a function runs check_args (2,000 calls in a masterfiles run), most of them have none
_CHECKED: dict[str, tuple[tuple[int, str, str], ...]] = {}


def _checked(name: str) -> tuple[tuple[int, str, str], ...]:
    from cfpromise.schema import schema
    sig = schema().functions.get(name)
    found = _CHECKED[name] = () if sig is None else tuple(
        (i, ptype, prange or "") for i, (ptype, prange, _desc) in enumerate(sig.params)
        if ptype in ("int", "real", "option")
        or (ptype == "string" and prange and prange != ".*"))
    return found


def _string_verdict(text: str, range_: str) -> tuple[str, str] | None:
    if not range_ or range_ == ".*":
        return None
    if range_ == ABSPATH_RANGE:
        return None if text.startswith(("/", '"/')) else ("", "Filename is not an absolute path")
    from cfpromise.schema.typematch import compiled_range
    pattern = compiled_range(range_)
    if pattern is None or pattern.fullmatch(text):
        return None
    return ("", "Empty scalar value is out of range" if text == ""
            else "Scalar value is out of range")


def _verdict(ptype: str, range_: str, text: str) -> tuple[str, str] | None:
    try:
        if ptype == "int":
            check_int(text, range_)
        elif ptype == "real":
            check_real(text, range_)
        elif ptype == "option":
            check_option(text, range_)
        elif ptype == "string":
            return _string_verdict(text, range_)
    except ValueError_ as exc:
        message = str(exc)
        if ptype == "int" and message != "Integer is out of range":
            return message, "Cannot parse value as integer"
        if ptype == "real":
            parse = "" if message == "Real number is out of range" else message
            return parse, "Real value is out of range"
        return "", message
    return None


def check_args(name: str, written: Sequence[Any], log: Callable[[str, str], None]) -> None:
    """Raise FatalFunctionError for the first literal argument of ``written`` (the call's
    arguments as parsed) that its parameter does not accept; ``log`` gets the parse
    error cf-agent prints before it."""
    checked = _CHECKED.get(name)
    if checked is None:
        checked = _checked(name)
    for i, ptype, range_ in checked:
        if i >= len(written):
            break
        arg = written[i]
        if arg.__class__ is not Scalar:
            continue
        text = arg.value
        if not isinstance(text, str) or is_unexpanded(text):
            continue
        key = (name, i, text)
        if key in _VERDICTS:
            verdict = _VERDICTS[key]
        else:
            verdict = _VERDICTS[key] = _verdict(ptype, range_, text)
        if verdict is not None:
            logged, reason = verdict
            if logged:
                log("error", logged)
            raise FatalFunctionError(f"In function '{name}', error in variable '{text}', "
                                     f"'{reason}'")
