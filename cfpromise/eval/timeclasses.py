"""Time-based hard classes and the per-run time variables of cf-agent 3.21.

cf-agent defines, for the instant the run starts, one set of classes from the
broken-down *local* time (the process time zone: ``TZ`` or /etc/localtime)
and the same set again from UTC with the prefix ``GMT_``:

    Lcycle_<year % 3>   Yr<year>   <Month name>   <Weekday name>   Day<mday>
    <shift>             Hr<HH>  Hr<H>             Q<quarter>       Hr<HH>_Q<quarter>
    Min<MM>             Min<MM>_<MM+5 % 60>

where the shift is Night (00-05), Morning (06-11), Afternoon (12-17) or
Evening (18-23), the quarter is ``minute // 15 + 1`` and the five-minute
interval starts at ``minute // 5 * 5`` (``Min55_00`` wraps).  Every class is
tagged ``time_based,cfengine_internal_time_based_autoremove,source=agent``
plus ``hardclass``.  All of this was checked against cf-agent 3.21 run under
faketime at several instants and time zones.

The matching ``sys`` variables are ``sys.date`` (``ctime()`` of local time),
``sys.cdate`` (its canonified form), ``sys.systime`` (epoch seconds) and
``sys.sysday`` (days since the epoch); see :func:`time_vars`.
"""
from __future__ import annotations

import time

from cfpromise.eval.canon import canonify

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime, tzinfo
    from typing import Union

    Instant = Union[datetime, float, int]

TIME_CLASS_TAGS: tuple[str, ...] = (
    "time_based",
    "cfengine_internal_time_based_autoremove",
    "source=agent",
    "hardclass",
)
TIME_VAR_TAGS: tuple[str, ...] = ("time_based", "source=agent")

MONTHS: tuple[str, ...] = (
    "January", "February", "March", "April", "May", "June", "July",
    "August", "September", "October", "November", "December",
)
# Indexed by struct_time.tm_wday (Monday == 0), which is also CFEngine's order.
WEEKDAYS: tuple[str, ...] = (
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
)
SHIFTS: tuple[str, ...] = ("Night", "Morning", "Afternoon", "Evening")


def epoch_seconds(now: Instant | None) -> float:
    """Return ``now`` (a datetime, epoch seconds or None for 'now') as epoch seconds."""
    if now is None:
        return time.time()
    if isinstance(now, (int, float)):
        return float(now)
    return now.timestamp()


def _broken_down(now: Instant, tz: tzinfo | None) -> tuple[time.struct_time, time.struct_time]:
    """Return (local, UTC) broken-down times for ``now``."""
    seconds = int(epoch_seconds(now) // 1)
    utc = time.gmtime(seconds)
    if tz is None:
        local = time.localtime(seconds)
    else:
        from datetime import datetime

        local = datetime.fromtimestamp(seconds, tz).timetuple()
    return local, utc


def _names_for(tm: time.struct_time, prefix: str) -> list[str]:
    """The time class names of one broken-down time, with ``prefix``."""
    year, hour, minute = tm.tm_year, tm.tm_hour, tm.tm_min
    quarter = minute // 15 + 1
    start = minute // 5 * 5
    names = [
        f"Lcycle_{year % 3}",
        f"Yr{year:04d}",
        MONTHS[tm.tm_mon - 1],
        WEEKDAYS[tm.tm_wday],
        f"Day{tm.tm_mday}",
        SHIFTS[hour // 6],
        f"Hr{hour:02d}",
        f"Hr{hour}",
        f"Q{quarter}",
        f"Hr{hour:02d}_Q{quarter}",
        f"Min{minute:02d}",
        f"Min{start:02d}_{(start + 5) % 60:02d}",
    ]
    return [prefix + name for name in names]


def time_class_names(now: Instant, *, tz: tzinfo | None = None) -> list[str]:
    """The local then ``GMT_`` time class names for ``now`` (no duplicates)."""
    local, utc = _broken_down(now, tz)
    return _names_for(local, "") + _names_for(utc, "GMT_")


def time_classes(now: Instant, *, tz: tzinfo | None = None) -> dict[str, tuple[str, ...]]:
    """Map each time class of ``now`` to its tags, as cf-agent 3.21 defines them.

    ``now`` is an aware or naive datetime (naive means local time, as in
    ``datetime.timestamp()``) or epoch seconds.  The unprefixed classes use
    ``tz`` when given, else the process's local time zone like cf-agent; the
    ``GMT_`` classes always use UTC.
    """
    return {name: TIME_CLASS_TAGS for name in time_class_names(now, tz=tz)}


def time_vars(
    now: Instant, *, tz: tzinfo | None = None
) -> dict[str, tuple[str, object, tuple[str, ...]]]:
    """``sys.date``, ``sys.cdate``, ``sys.systime`` and ``sys.sysday`` for ``now``.

    Values are strings, as CFEngine stores them (``systime``/``sysday`` have
    type ``int``).  ``date`` is ``ctime()`` of the local time without the
    newline, e.g. ``Sat Nov 21 07:58:44 2026``.
    """
    seconds = int(epoch_seconds(now) // 1)
    local, _ = _broken_down(seconds, tz)
    date = time.asctime(local)
    return {
        "systime": ("int", str(seconds), TIME_VAR_TAGS),
        "sysday": ("int", str(seconds // 86400), TIME_VAR_TAGS),
        "date": ("string", date, TIME_VAR_TAGS),
        "cdate": ("string", canonify(date), TIME_VAR_TAGS),
    }
