"""``delete_lines``: remove the lines (or multi-line blocks) that match the promiser.

VerifyLineDeletions/DeletePromisedLinesMatching of cf-agent 3.21:

1. With ``select_region`` the region must be found; if it is not, or its
   ``select_end`` is missing and may not run to the end of the file, the
   promise is interrupted and tried again in the next pass.
2. Each line of the region (delimiters only if included) is a candidate.  The
   promiser, split at newlines, is a block of regexes that must match that
   many consecutive lines from the candidate on (each line as a whole); with
   ``not_matching`` a candidate is deleted when the block does *not* match.
   ``delete_select`` lists must also accept the candidate line.
3. A match deletes the whole block (``Deleted the promised line N '...'``);
   under warn-only it warns once per matching line and deletes nothing.
"""
from __future__ import annotations

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.api import PromiseRun, handler
from cfpromise.promises.edit import matching, regions
from cfpromise.promises.edit.buffer import EditRun, boolean, current, no_buffer


def match_block(chunk: list[str], lines: list[str], start: int, stop: int | None,
                regex: bool) -> int:
    """MatchRegion: how many lines the block ``chunk`` matches from ``start`` on (0: none);
    the block may not reach the line at ``stop``."""
    n = len(lines)
    ip = start
    matched = 0
    for k, part in enumerate(chunk):
        if ip is None or ip >= n:
            return 0
        line = lines[ip]
        if regex:
            if not matching.full(part, line):
                return 0
        elif part != line:
            return 0
        matched += 1
        if stop is not None and ip == stop:
            return 0
        if ip + 1 < n:
            ip += 1
        else:
            if k + 1 < len(chunk):
                return 0
            break
    return matched


@handler("delete_lines")
def verify_line_deletions(run: PromiseRun) -> Outcome | None:
    buf = current(run)
    if buf is None:
        return no_buffer(run)
    er = EditRun(run, buf)
    not_matching = boolean(run.attributes.get("not_matching"), False)
    chunk = run.promiser.split("\n")
    if len(chunk) > 1 and not_matching:
        er.log("error", "Makes no sense to promise multi-line delete with not_matching. Cannot "
                        "be satisfied for all lines as a block.")
    region = regions.read_region(run.body("select_region"), run.agent)
    lines = buf.lines
    if region.present:
        sel = regions.select(lines, region, buf.filename)
        if not sel.ok:
            er.log("verbose", sel.reason)
            if region.include_start or region.include_end:
                er.log("error", f"The promised line deletion '{run.promiser}' could not select "
                                  f"an edit region in '{buf.filename}' (this is a good thing, as "
                                  "policy suggests deleting the markers)")
            else:
                er.log("error", f"The promised line deletion '{run.promiser}' could not select an "
                                f"edit region in '{buf.filename}' (but the delimiters were expected "
                                "in the file)")
            return er.retry_later(Outcome.INTERRUPTED)
        if regions.end_missing(sel, region):
            er.log("error", f"The promised end pattern '{region.end}' was not found when "
                              f"selecting region to delete in '{buf.filename}'")
            return er.retry_later(Outcome.INTERRUPTED)
        first, stop = regions.body_span(sel, region, len(lines))
        terminator: int | None = None if sel.end is None else stop
    else:
        first, terminator = 0, None

    selector = matching.line_selector(run.body("delete_select"), "delete_if_")
    warn_only = er.warn_only
    noedits = True
    ip = first
    while ip < len(lines) and (terminator is None or ip < terminator):
        count = match_block(chunk, lines, ip, terminator, regex=True)
        if not_matching:
            count = 0 if count else 1
        if not matching.select_line(selector, lines[ip]):
            ip += 1
            continue
        if not count:
            ip += 1
            continue
        er.log("verbose", f"Delete chunk of {count} lines")
        noedits = False
        if warn_only:
            if er.would(f"Should delete line '{lines[ip]}' from {buf.filename}"):
                del lines[ip:ip + count]
                if terminator is not None:
                    terminator -= count
            else:
                ip += 1
            continue
        for number in range(1, count + 1):
            er.change(f"Deleted the promised line {number} '{lines[ip]}' from {buf.filename}")
            del lines[ip]
            if terminator is not None:
                terminator -= 1
    if noedits:
        er.kept(f"No need to delete lines from {buf.filename}, ok")
    return er.finish()
