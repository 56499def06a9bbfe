"""``select_region``: the part of the file an edit promise works on (SelectRegion).

The region is found by scanning from the top: the first line matching
``select_start`` opens it, then the first later line matching ``select_end``
closes it.  Lines are addressed by index; ``begin``/``end`` are the indices of
the delimiter lines themselves (None when absent) and each promise type decides
whether the delimiters belong to the region (``include_start_delimiter``,
``include_end_delimiter``).  Without ``select_end`` -- or when it is not found
and ``select_end_match_eof`` allows it -- the region runs to the end of the file.
"""
from __future__ import annotations

from typing import Any

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.api import PromiseRun, again
from cfpromise.promises.edit import matching
from cfpromise.promises.edit.buffer import boolean
from cfpromise.promises.files import bridge
from cfpromise.fast.records import record


# Region and Selection are @record classes, not attrs classes: see
# cfpromise.promises.edit.buffer.

@record
class Region:
    start: str | None = None
    end: str | None = None
    include_start: bool = False
    include_end: bool = False
    end_match_eof: bool = False

    @property
    def present(self) -> bool:
        return self.start is not None or self.end is not None


NO_REGION = Region()


def read_region(body: dict[str, Any], agent: Any) -> Region:
    """The select_region body; ``select_end_match_eof`` defaults to body agent control's."""
    if not body:
        return NO_REGION
    default_eof = boolean(bridge.agent_control(agent).get("select_end_match_eof"), False)
    start = body.get("select_start")
    end = body.get("select_end")
    return Region(
        start=str(start) if start not in (None, "") else None,
        end=str(end) if end not in (None, "") else None,
        include_start=boolean(body.get("include_start_delimiter"), False),
        include_end=boolean(body.get("include_end_delimiter"), False),
        end_match_eof=boolean(body.get("select_end_match_eof"), default_eof))


@record
class Selection:
    """What SelectRegion found: indices of the delimiter lines."""

    ok: bool
    begin: int | None = None
    end: int | None = None
    reason: str = ""


def select(lines: list[str], region: Region, filename: str) -> Selection:
    """SelectRegion over ``lines``."""
    beg: int | None = None
    end: int | None = None
    n = len(lines)
    for i in range(n):
        line = lines[i]
        if region.start is not None and beg is None and matching.full(region.start, line):
            if not region.include_start and i == n - 1:
                return Selection(False, reason=(
                    f"The promised start pattern '{region.start}' found an empty region at "
                    f"the end of file '{filename}'"))
            beg = i
            continue
        if region.end is not None and beg is not None and end is None \
                and matching.full(region.end, line):
            end = i
            break
    if beg is None and region.start is not None:
        return Selection(False, reason=(
            f"The promised start pattern '{region.start}' was not found when selecting edit "
            f"region in '{filename}'"))
    return Selection(True, beg, end)


def end_missing(selection: Selection, region: Region) -> bool:
    """The region has a select_end that was not found and may not run to the end of file."""
    return selection.end is None and region.end is not None and not region.end_match_eof


def body_span(selection: Selection, region: Region, count: int) -> tuple[int, int]:
    """[first, stop) of the lines strictly inside the region, delimiters included as asked
    (the span delete_lines, replace_patterns and field_edits work on)."""
    if selection.begin is None:
        first = 0
    else:
        first = selection.begin if region.include_start else selection.begin + 1
    if selection.end is None:
        stop = count
    else:
        stop = selection.end + 1 if region.include_end else selection.end
    return first, max(first, stop)


def whole_span(run: Any, er: Any, lines: list[str], filename: str,
               what: str) -> tuple[int, int] | None:
    """[first, stop) of the lines field_edits and replace_patterns scan: from the region's
    start line to its end line (the whole file without ``select_region``).  None, once
    the failure is logged, when the region cannot be selected (the caller retries later)."""
    region = read_region(run.body("select_region"), run.agent)
    if not region.present:
        return 0, len(lines)
    sel = select(lines, region, filename)
    if not sel.ok:
        er.log("verbose", sel.reason)
        er.log("error", f"The promised {what} '{run.promiser}' could not select an edit region "
                        f"in '{filename}'")
        return None
    return (sel.begin if sel.begin is not None else 0,
            sel.end if sel.end is not None else len(lines))


# what cf-agent calls each edit promise type when its region cannot be selected, and
# what its missing end pattern was for
_WHAT = {"delete_lines": "line deletion", "insert_lines": "line insertion",
         "replace_patterns": "pattern replace", "field_edits": "column edit"}
_END_FOR = {"delete_lines": "delete", "insert_lines": "insert"}


@again("delete_lines", "insert_lines", "replace_patterns", "field_edits")
def region_again(run: PromiseRun) -> Outcome | None:
    """cf-agent selects an edit promise's region before its lock, so in each pass of the
    edit bundle, also for a promise done in an earlier one: a region its own edit took
    away (delete_lines of the markers, a replacement of the start line) is an error
    again, and the promise is interrupted in that pass (its repair_failed classes are
    defined beside the repaired ones of the pass that edited)."""
    from cfpromise.promises.edit.buffer import EditRun, current
    region = read_region(run.body("select_region"), run.agent)
    if not region.present:
        return
    buf = current(run)
    if buf is None:
        return
    er = EditRun(run, buf)
    ptype = run.promise_type
    sel = select(buf.lines, region, buf.filename)
    if not sel.ok:
        er.log("verbose", sel.reason)
        tail = ""
        if ptype == "delete_lines":
            tail = (" (this is a good thing, as policy suggests deleting the markers)"
                    if region.include_start or region.include_end
                    else " (but the delimiters were expected in the file)")
        er.log("error", f"The promised {_WHAT[ptype]} '{run.promiser}' could not select an "
                        f"edit region in '{buf.filename}'{tail}")
        return Outcome.INTERRUPTED
    if ptype in _END_FOR and end_missing(sel, region):
        er.log("error", f"The promised end pattern '{region.end}' was not found when "
                        f"selecting region to {_END_FOR[ptype]} in '{buf.filename}'")
        return Outcome.INTERRUPTED
    return None
