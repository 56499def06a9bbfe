"""``insert_lines``: make sure promised lines are in the file, at the promised place.

A port of cf-agent 3.21's VerifyLineInsertions and its helpers, working on line
indices instead of a linked list (every index is shifted when a line is
inserted before it, which is what keeping a pointer amounts to):

* the text to insert is the promiser (``insert_type`` literal/string, split at
  newlines; ``preserve_block`` keeps the block together, ``preserve_all_lines``
  inserts even lines already present) or the lines of the file it names
  (``file``, ``file_preserve_block``), optionally variable-expanded
  (``expand_scalars``);
* without a locator the text goes at the end of the region/file (``after``), or
  at the very top of the file (``before`` -- cf-agent prepends to the file even
  when a region is selected);
* with ``select_line_matching`` the first/last matching line of the region is
  the locator and the text goes just before or after it;
* a line is not inserted when it is already anywhere in the region (compared
  with ``whitespace_policy``), when the whole block already follows the
  locator, or when the neighbouring line on the insertion side is the line
  itself; ``insert_select`` filters the lines.
"""
from __future__ import annotations

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.api import PromiseRun, handler
from cfpromise.promises.edit import matching, regions
from cfpromise.promises.edit.buffer import (EditBuffer, EditRun, as_list, boolean, current,
                                            no_buffer)
from cfpromise.promises.edit.delete_lines import match_block
from cfpromise.promises.edit.location import Location, find_locator, read_location
from cfpromise.promises.files import bridge

_WHITESPACE_OPTIONS = ("ignore_leading", "ignore_trailing", "ignore_embedded", "exact_match")


class Cursor:
    """The positions an insertion keeps track of (None: cf-agent's NULL item).

    A plain slotted class (see :mod:`cfpromise.promises.edit.buffer`) that keeps what
    the attrs class it replaces did: equal by value, so unhashable (an insertion stops
    tracking a cursor by identity, :meth:`Insertion.release`); :meth:`copy` is what
    ``attrs.evolve(cursor)`` was."""

    __slots__ = ("begin", "end", "location", "prev")

    def __init__(self, begin: int | None, end: int | None, location: int | None,
                 prev: int | None) -> None:
        self.begin = begin
        self.end = end
        self.location = location
        self.prev = prev

    def copy(self) -> Cursor:
        return Cursor(self.begin, self.end, self.location, self.prev)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Cursor:
            return NotImplemented
        return (self.begin, self.end, self.location, self.prev) == \
            (other.begin, other.end, other.location, other.prev)  # type: ignore[attr-defined]

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"Cursor(begin={self.begin!r}, end={self.end!r}, location={self.location!r}, "
                f"prev={self.prev!r})")

    def shift(self, at: int) -> None:
        """A line was inserted at index ``at``: positions at or after it move down."""
        if self.begin is not None and self.begin >= at:
            self.begin += 1
        if self.end is not None and self.end >= at:
            self.end += 1
        if self.location is not None and self.location >= at:
            self.location += 1
        if self.prev is not None and self.prev >= at:
            self.prev += 1


class Insertion:
    __slots__ = ("er", "lines", "location", "sourcetype", "selector", "policy", "warn_only",
                 "promiser_parts", "cursors")

    def __init__(self, er: EditRun, lines: list[str], location: Location, sourcetype: str,
                 selector: tuple[str, list[str]] | None, policy: list[str], warn_only: bool,
                 promiser_parts: list[str]) -> None:
        self.er = er
        self.lines = lines
        self.location = location
        self.sourcetype = sourcetype
        self.selector = selector
        self.policy = policy
        self.warn_only = warn_only
        self.promiser_parts = promiser_parts
        self.cursors: list[Cursor] = []

    def _insert(self, at: int, line: str) -> None:
        """Insert ``line`` at index ``at``; every live position moves with its line."""
        self.lines.insert(at, line)
        for cur in self.cursors:
            cur.shift(at)

    def release(self, cur: Cursor) -> None:
        """Stop moving ``cur`` with inserted lines: the last tracked cursor that *is* it (not
        one equal to it: a copy equals its original until a line moves one of them)."""
        for i in range(len(self.cursors) - 1, -1, -1):
            if self.cursors[i] is cur:
                del self.cursors[i]
                return

    @property
    def preserve_all_lines(self) -> bool:
        return self.sourcetype == "preserve_all_lines"

    @property
    def preserve_block(self) -> bool:
        return self.sourcetype in ("preserve_block", "preserve_all_lines", "file_preserve_block")

    def in_region(self, line: str, begin: int | None, end: int | None) -> bool:
        """IsItemInRegion."""
        if begin is None:
            return False
        lines = self.lines
        stop = len(lines) if end is None else min(end, len(lines))
        policy = self.policy
        if not policy:
            return line in lines[begin:stop]
        return any(matching.match_policy(line, lines[i], policy) for i in range(begin, stop))

    def neighbour_matches(self, location: int | None, line: str, before: bool) -> bool:
        """NeighbourItemMatches: the line next to the locator, on the insertion side."""
        lines = self.lines
        if before:
            if location is None or location == 0 or location >= len(lines):
                return False         # no line has the locator as its successor
            return matching.match_policy(line, lines[location - 1], self.policy)
        if location is None or location + 1 >= len(lines):
            return False
        return matching.match_policy(line, lines[location + 1], self.policy)

    # -- InsertLineAtLocation -----------------------------------------------------------
    def insert_line(self, line: str, cur: Cursor) -> bool:
        lines = self.lines
        er = self.er
        name = er.filename
        before = self.location.before
        if cur.prev is None and before:
            if not lines:
                return self._put(0, line,
                                 f"Should insert the promised line '{line}' into '{name}'",
                                 f"Inserted the promised line '{line}' into '{name}'")
            if lines[0] != line:
                return self._put(0, line, f"Should prepend promised line '{line}' to '{name}'",
                                 f"Prepended the promised line '{line}' to {name}")
            er.kept(f"Promised line '{line}' exists at start of file '{name}'")
            return False
        preserve_block = self.preserve_block      # (file_preserve_block and preserve_all_lines too)
        if before:
            if not preserve_block and self.neighbour_matches(cur.location, line, True):
                er.kept(f"Promised line '{line}' exists before locator in '{name}'")
                return False
            return self._put(0 if cur.prev is None else cur.prev + 1, line,
                             f"Should insert line '{line}' into '{name}' before locator",
                             f"Inserted the promised line '{line}' into '{name}' before locator")
        if not preserve_block and self.neighbour_matches(cur.location, line, False):
            er.kept(f"Promised line '{line}' exists after locator in '{name}'")
            return False
        return self._put(len(lines) if cur.location is None else cur.location + 1, line,
                         f"Should insert line '{line}' into '{name}' after locator",
                         f"Inserted the promised line '{line}' into '{name}' after locator")

    def _put(self, at: int, line: str, should: str, done: str) -> bool:
        """Insert ``line`` at index ``at`` and tell it (``done``); when only warnings are
        promised, warn (``should``) and insert into the buffer only as ``would`` says."""
        if self.warn_only:
            if self.er.would(should):
                self._insert(at, line)
            return True
        self._insert(at, line)
        self.er.change(done)
        return True

    def _advance(self, cur: Cursor) -> None:
        n = len(self.lines)
        if cur.prev is not None:
            cur.prev = cur.prev + 1 if cur.prev + 1 < n else None
        else:
            cur.prev = 0 if n else None
        if cur.location is not None:
            cur.location = cur.location + 1 if cur.location + 1 < n else None
        else:
            cur.location = 0 if n else None

    # -- InsertCompoundLineAtLocation ----------------------------------------------------
    def insert_compound(self, chunk: str, outer: Cursor) -> bool:
        """InsertCompoundLineAtLocation (its positions are its own copies, as in C)."""
        cur = outer.copy()
        self.cursors.append(cur)
        try:
            return self._insert_compound(chunk, cur)
        finally:
            self.release(cur)

    def _insert_compound(self, chunk: str, cur: Cursor) -> bool:
        er = self.er
        parts = chunk.split("\n")
        if not self.preserve_all_lines and cur.location is not None \
                and match_block(parts, self.lines, cur.location, None, regex=False):
            er.kept(f"Promised chunk '{er.run.promiser}' exists within selected region of "
                    f"{er.filename} (promise kept)")
            return False
        changed = False
        for part in parts:
            if not matching.select_line(self.selector, part):
                continue
            if not self.preserve_block and self.in_region(part, cur.begin, cur.end):
                er.kept(f"Promised chunk '{er.run.promiser}' exists within selected region of "
                        f"{er.filename} (promise kept)")
                continue
            if self.insert_line(part, cur):
                changed = True
            if self.preserve_block and self.location.before and cur.location is None \
                    and cur.prev is None:
                cur.location = 0 if self.lines else None
            self._advance(cur)
        return changed

    def insert_file(self, text_lines: list[str], outer: Cursor) -> bool:
        """InsertFileAtLocation: each line of the source file, in order."""
        cur = outer.copy()
        self.cursors.append(cur)
        try:
            return self._insert_file(text_lines, cur)
        finally:
            self.release(cur)

    def _insert_file(self, text_lines: list[str], cur: Cursor) -> bool:
        changed = False
        file_preserve = self.sourcetype == "file_preserve_block"
        for line in text_lines:
            if not matching.select_line(self.selector, line):
                continue
            if not file_preserve and self.in_region(line, cur.begin, cur.end):
                self.er.kept(f"Promised file line '{line}' exists within file "
                             f"{self.er.filename} (promise kept)")
                continue
            changed |= self.insert_compound(line, cur)
            n = len(self.lines)
            if cur.prev is not None:
                cur.prev = cur.prev + 1 if cur.prev + 1 < n else None
            else:
                cur.prev = 0 if n else None
            if cur.location is not None:       # (a NULL location stays NULL, as in C)
                cur.location = cur.location + 1 if cur.location + 1 < n else None
        return changed

    def at_location(self, text: str | list[str], cur: Cursor) -> bool:
        if isinstance(text, list):
            return self.insert_file(text, cur)
        return self.insert_compound(text, cur)

    # -- InsertMultipleLinesToRegion ----------------------------------------------------
    def to_region(self, text: str | list[str], begin: int | None, end: int | None) -> bool:
        lines = self.lines
        if not lines:
            return self.at_location(text, Cursor(begin, end, None, None))
        if self.location.before:
            if begin is None:
                return False
            return self.at_location(text, Cursor(begin, end, begin, None))
        if begin is None:
            return False
        parts = self.promiser_parts
        prev: int | None = None
        for ip in range(begin, len(lines)):
            if not self.preserve_all_lines and match_block(parts, lines, ip, end, regex=False):
                self.er.kept(f"Promised chunk '{self.er.run.promiser}' exists within selected "
                             f"region of {self.er.filename} (promise kept)")
                return False
            if ip + 1 < len(lines) and end is not None and ip + 1 == end:
                return self.at_location(text, Cursor(begin, end, ip, prev))
            if ip + 1 >= len(lines):
                return self.at_location(text, Cursor(begin, end, ip, prev))
            prev = ip
        return False


def _sanity(run: PromiseRun, er: EditRun, sourcetype: str, policy: list[str]) -> bool:
    ok = True
    pos, neg = matching.selector_count(run.body("insert_select"), "insert_if_")
    if neg > 1:
        er.log("error", "Line insertion selection promise is meaningless - the alternatives are "
                        "mutually exclusive (only one is allowed)")
        ok = False
    if pos and neg:
        er.log("error", "Line insertion selection promise is meaningless - cannot mix positive "
                        "and negative constraints")
        ok = False
    exact = ignore = False
    for opt in policy:
        if opt == "exact_match":
            exact = True
        else:
            ignore = True
            if sourcetype == "preserve_block":
                er.log("error", "Line insertion should not use whitespace policy with "
                                "preserve_block")
                ok = False
    if exact and ignore:
        er.log("error", "Line insertion selection promise is meaningless - cannot mix "
                        "exact_match with other ignore whitespace options")
        ok = False
    return ok


def _source_text(run: PromiseRun, er: EditRun, sourcetype: str,
                 expand: bool) -> str | list[str] | None:
    if sourcetype not in ("file", "file_preserve_block"):
        return run.promiser
    try:
        with open(run.promiser, "rb") as fh:
            data = fh.read().decode("utf-8", "surrogateescape")
    except IsADirectoryError:
        er.fail(f"Could not read file {run.promiser}: Is a directory")
        return None
    except OSError as exc:
        er.fail(f"Could not read file '{run.promiser}'. (fopen: {exc.strerror})")
        return None
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if expand:
        lines = [bridge.expand(run.agent, line) for line in lines]
    return lines


@handler("insert_lines")
def verify_line_insertions(run: PromiseRun) -> Outcome | None:
    buf = current(run)
    if buf is None:
        return no_buffer(run)
    return insert_into(run, buf)


def insert_into(run: PromiseRun, buf: EditBuffer) -> Outcome | None:
    """VerifyLineInsertions of ``run`` against ``buf`` (also used by CFEngine templates)."""
    er = EditRun(run, buf)
    attributes = run.attributes
    sourcetype = str(attributes.get("insert_type") or "literal")
    policy = [p for p in as_list(attributes.get("whitespace_policy")) if p in _WHITESPACE_OPTIONS]
    if not _sanity(run, er, sourcetype, policy):
        er.log("error", f"The promised line insertion '{run.promiser}' breaks its own promises")
        return er.retry_later(Outcome.INTERRUPTED)
    region = regions.read_region(run.body("select_region"), run.agent)
    lines = buf.lines
    if region.present:
        sel = regions.select(lines, region, buf.filename)
        if not sel.ok:
            er.log("verbose", sel.reason)
            er.log("error", f"The promised line insertion '{run.promiser}' could not select an "
                            f"edit region in '{buf.filename}'")
            return er.retry_later(Outcome.INTERRUPTED)
        if regions.end_missing(sel, region):
            er.log("error", f"The promised end pattern '{region.end}' was not found when "
                              f"selecting region to insert in '{buf.filename}'")
            return er.retry_later(Outcome.INTERRUPTED)
        begin, end = sel.begin, sel.end
    else:
        begin, end = (0 if lines else None), None
    expand = boolean(attributes.get("expand_scalars"), False)
    text = _source_text(run, er, sourcetype, expand)
    if text is None:
        return er.finish()
    location = read_location(run.body("location"))
    ins = Insertion(er, lines, location, sourcetype,
                    matching.line_selector(run.body("insert_select"), "insert_if_"),
                    policy, er.warn_only, run.promiser.split("\n"))
    if location.line_matching is None:
        ins.to_region(text, begin, end)
    else:
        found = find_locator(lines, location.line_matching, begin, end, location.first)
        if found is None:
            er.fail(f"The promised line insertion '{run.promiser}' could not select a locator "
                    f"matching regex '{location.line_matching}' in '{buf.filename}'")
            return er.outcome
        match, prev = found
        ins.at_location(text, Cursor(begin, end, match, prev))
    return er.finish()
