"""Date and time built-ins: now, on, ago, accumulated, laterthan, strftime.

Like cf-agent these build a ``struct tm`` from six arguments and let
``mktime`` normalise it in local time (so ``on(2000, 13, 0, ...)`` is a valid
date in 2001).  ``on`` counts months and days from 0, ``laterthan`` from 1;
``accumulated`` is plain arithmetic (30-day months, 365-day years).  ``now`` is
the agent's start time: the engine's ``sys.systime`` when it is defined,
otherwise the time of the first call in the run (kept in ``ctx.cache``).
"""
from __future__ import annotations

import time as _time

from cfpromise.eval.functions.api import FunctionError, builtin
from cfpromise.eval.functions.common import argv, int_arg

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence

    from cfpromise.eval.functions.api import FunctionContext, Value


def start_time(ctx: FunctionContext) -> int:
    """The agent's start time (CFSTARTTIME)."""
    systime = ctx.lookup("sys.systime")
    if systime is not None:
        try:
            return int(systime.value)
        except (TypeError, ValueError):
            pass
    return int(ctx.cache.setdefault(("time", "start"), int(_time.time())))


def _mktime(year: int, month0: int, mday: int, hour: int, minute: int, second: int,
            isdst: int = -1) -> int:
    try:
        return int(_time.mktime((year, month0 + 1, mday, hour, minute, second, 0, 1, isdst)))
    except (OverflowError, ValueError):
        return -1


def _six(fn: str, args: Sequence[Value]) -> list[int]:
    return [int_arg(a) for a in argv(fn, args, 6)]


@builtin("now")
def now(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    argv("now", args, 0)
    return str(start_time(ctx))


@builtin("on")
def on(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """Seconds since the epoch of the local date; month and day count from 0."""
    y, mo, d, h, mi, s = _six("on", args)
    result = _mktime(y, mo, d + 1, h, mi, s)
    if result == -1:
        ctx.log("info", "Illegal time value")
    return str(result)


@builtin("laterthan")
def laterthan(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """True if now is later than the local date (month and day from 1)."""
    y, mo, d, h, mi, s = _six("laterthan", args)
    return int(_time.time()) > _mktime(y, mo - 1, d, h, mi, s)


@builtin("ago")
def ago(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """The time that many years, months, ... before now."""
    y, mo, d, h, mi, s = _six("ago", args)
    tm = _time.localtime(_time.time())
    try:
        result = int(_time.mktime((tm.tm_year - y, tm.tm_mon - mo, tm.tm_mday - d,
                                   tm.tm_hour - h, tm.tm_min - mi, tm.tm_sec - s,
                                   tm.tm_wday, tm.tm_yday, tm.tm_isdst)))
    except (OverflowError, ValueError):
        return "0"
    return "0" if result < 0 else str(result)


@builtin("accumulated")
def accumulated(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    y, mo, d, h, mi, s = _six("accumulated", args)
    total = s + mi * 60 + h * 3600 + d * 86400 + mo * 30 * 86400 + y * 365 * 86400
    return str(total)


@builtin("strftime")
def strftime(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    mode, fmt, when = argv("strftime", args, 3)
    seconds = int_arg(when)
    try:
        tm = _time.gmtime(seconds) if mode == "gmtime" else _time.localtime(seconds)
        text = _time.strftime(fmt, tm)
    except (OverflowError, ValueError, OSError) as exc:
        raise FunctionError(f"Function strftime, the given time stamp '{seconds}' was "
                            f"invalid. ({exc})") from None
    if text == "":
        raise FunctionError("Function strftime: the format gives an empty string")
    return text
