"""``location`` bodies of insert_lines: where a promised line goes.

``before_after`` (default ``after``) says on which side of the locator the text
goes, ``select_line_matching`` picks the locator line (a regex matched against
whole lines of the region), ``first_last`` (default ``last``) which of several
matching lines.  Without ``select_line_matching`` the text goes at the end of the
region (``after``) or at its start (``before``).
"""
from __future__ import annotations

from typing import Any

from cfpromise.promises.edit import matching
from cfpromise.fast.records import record


@record             # (not attrs: see cfpromise.promises.edit.buffer)
class Location:
    before: bool = False
    first: bool = False
    line_matching: str | None = None


DEFAULT = Location()


def read_location(body: dict[str, Any]) -> Location:
    if not body:
        return DEFAULT
    line_matching = body.get("select_line_matching")
    return Location(
        before=str(body.get("before_after", "after")).strip() == "before",
        first=str(body.get("first_last", "last")).strip() == "first",
        line_matching=str(line_matching) if line_matching not in (None, "") else None)


def find_locator(lines: list[str], pattern: str, begin: int | None, end: int | None,
                 first: bool) -> tuple[int, int | None] | None:
    """SelectItemMatching: (index of the locator, index of the line before it or None).

    The search runs over [begin, end) (end None: to the end of the file; begin None:
    nothing to search, as cf-agent's loop from a NULL item)."""
    if begin is None:
        return None
    stop = len(lines) if end is None else end
    found: int | None = None
    for i in range(begin, stop):
        if matching.full(pattern, lines[i]):
            found = i
            if first:
                break
    if found is None:
        return None
    return found, (found - 1 if found > 0 else None)
