"""``process_select``: which of the processes matching the promiser count (SelectProcess).

Each criterion of the body that holds for a process adds its name to a set:
``process_owner`` (any of the regexes fully matches the user), ``pid``,
``ppid``, ``pgid``, ``vsize``, ``rsize``, ``priority``, ``threads`` (the value
within ``"min,max"``), ``ttime`` (accumulated CPU seconds within
``ttime_range``), ``stime`` (start time within ``stime_range``, epoch seconds),
``status``, ``command``, ``tty`` (the regex fully matches).  ``process_result``
is a class expression over those names.  A criterion that is not set never
holds.  Without ``process_result`` cf-agent 3.21 joins the criteria that held
with ``.``, so every process is selected (its errors are logged before the lock, in every pass: handler.py).

The promiser itself is matched (unanchored) against the command line before
any of this: see :func:`promiser_matches`.
"""
from __future__ import annotations

from cfpromise.eval.functions import pcre
from cfpromise.eval.functions.common import CF_NOINT, int_from_string
from cfpromise.promises.processes.table import Process
from cfpromise.syntax import classexpr

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

# criterion -> (body attribute, the process's value)
RANGES: dict[str, tuple[str, Callable[[Process], int]]] = {
    "pid": ("pid", lambda p: p.pid),
    "ppid": ("ppid", lambda p: p.ppid),
    "pgid": ("pgid", lambda p: p.pgid),
    "vsize": ("vsize", lambda p: p.vsize),
    "rsize": ("rsize", lambda p: p.rsize),
    "ttime": ("ttime_range", lambda p: p.ttime),
    "stime": ("stime_range", lambda p: p.start),
    "priority": ("priority", lambda p: p.priority),
    "threads": ("threads", lambda p: p.threads),
}
# criterion -> (body attribute, the process's text); None: no such ps column on Linux
REGEXES: dict[str, tuple[str, Callable[[Process], str] | None]] = {
    "status": ("status", None),
    "command": ("command", lambda p: p.command),
    "tty": ("tty", lambda p: p.tty),
}


class SelectError(Exception):
    """A range cf-agent cannot make sense of (a fatal error there)."""


def parse_range(value: Any, attribute: str) -> tuple[int, int] | None:
    """``"min,max"`` (irange's form) -> (min, max); None when not set."""
    if value is None or value == "":
        return None
    text = ",".join(str(v) for v in value) if isinstance(value, list) else str(value)
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2:
        raise SelectError(f"Could not make sense of integer range [{text}] ({attribute})")
    low, high = (int_from_string(p) for p in parts)
    if low == CF_NOINT or high == CF_NOINT:
        raise SelectError(f"Could not make sense of integer range [{text}] ({attribute})")
    return low, high


def promiser_matches(regex: Any, process: Process) -> bool:
    """The promiser regex found anywhere in the command line."""
    return pcre.search(regex, process.command) is not None


def criteria(body: dict[str, Any], process: Process) -> set[str]:
    """The names of the criteria of ``body`` that hold for ``process``."""
    held: set[str] = set()
    owners = body.get("process_owner")
    for owner in owners if isinstance(owners, list) else [owners] if owners else []:
        if isinstance(owner, str) and _full(owner, process.user):
            held.add("process_owner")
            break
    for name, (attribute, value) in RANGES.items():
        bounds = parse_range(body.get(attribute), attribute)
        if bounds is not None and bounds[0] <= value(process) <= bounds[1]:
            held.add(name)
    for name, (attribute, text) in REGEXES.items():
        regex = body.get(attribute)
        if isinstance(regex, str) and text is not None and _full(regex, text(process)):
            held.add(name)
    return held


def selected(body: dict[str, Any], process: Process) -> bool:
    """True if ``process`` passes the ``process_select`` body."""
    held = criteria(body, process)
    result = body.get("process_result")
    if not isinstance(result, str) or not result:
        return True
    try:
        tree = classexpr.parse(result)
    except Exception:
        return False
    return classexpr.evaluate(tree, lambda name: name in held)


def _full(regex: str, text: str) -> bool:
    try:
        return pcre.full_match(regex, text)
    except pcre.RegexError:
        return False
