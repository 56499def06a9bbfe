"""Source coordinates and policy errors.

Every AST node and every diagnostic carries a :class:`Coord`.  A
:class:`PolicyError` holds one or more :class:`Diagnostic` records and renders
them the way cf-promises does::

    ./bad.cf:6:14: error: Expected ',', got 'perms'
        mode => "644" perms
                 ^
"""
from __future__ import annotations

import gc

from cfpromise.fast.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable


@record
class Coord:
    """A position in a policy file: 1-based line and column (immutable; a NamedTuple
    because the lexer makes one per token and this is the cheapest immutable record)."""

    file: str
    line: int
    col: int
    # CFEngine's own line count (it skips lines inside an ignored @if), what -p json
    # reports; 0 means "the same as line".
    cf: int = 0

    @property
    def cfline(self) -> int:
        return self.cf or self.line

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def __reduce__(self) -> tuple[type, tuple[str, int, int, int]]:
        # Pickled as a call of the class: the policy cache holds one Coord per node
        # (1,500 for lib/files.cf), and a namedtuple's own reduce (__getnewargs__ through
        # copyreg) takes twice as long to dump (1.9 -> 1.2 ms for those).
        return Coord, tuple(self)


NO_COORD = Coord("<builtin>", 0, 0)


@record
class Diagnostic:
    """One message about the policy, with where it points."""

    coord: Coord
    message: str
    severity: str = "error"
    source_line: str | None = None
    # a check made on the parsed policy (cf-promises' PolicyCheck), not by its parser:
    # it names the line only (column 0) and shows no source line
    bare: bool = False

    def render(self) -> str:
        text = f"{self.coord}: {self.severity}: {self.message}"
        # (cf-promises' parser shows the line it is on once it has read a line break:
        # an error on a file's first line has no source line and no caret)
        if self.source_line is not None and (self.coord.line != 1 or self.severity != "error"):
            caret_col = max(self.coord.col, 1)
            text += "\n" + self.source_line + "\n" + " " * (caret_col - 1) + "^"
        return text


class PolicyError(Exception):
    """Bad policy: syntax errors, failed checks.  Carries its diagnostics."""

    def __init__(self, diagnostics: Iterable[Diagnostic] | Diagnostic) -> None:
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        super().__init__(self.render())

    @classmethod
    def at(cls, coord: Coord, message: str, source_line: str | None = None) -> PolicyError:
        return cls(Diagnostic(coord, message, "error", source_line))

    @property
    def coord(self) -> Coord:
        return self.diagnostics[0].coord

    def render(self) -> str:
        return "\n".join(d.render() for d in self.diagnostics)


def file_lines(file: str, cache: dict[str, list[str] | None]) -> list[str] | None:
    """``file``'s lines (None: unreadable), read once per ``cache``: the diagnostics of a
    check show the source lines of their files."""
    if file not in cache:
        try:
            with open(file, encoding="utf-8", errors="surrogateescape") as fh:
                cache[file] = fh.read().split("\n")
        except OSError:
            cache[file] = None
    return cache[file]


def source_line_of(text: str, line: int) -> str | None:
    """The text of 1-based ``line`` in ``text`` (without its newline)."""
    lines = text.split("\n")
    if 1 <= line <= len(lines):
        return lines[line - 1].rstrip("\r")
    return None


class gc_paused:
    """``with gc_paused():`` no cyclic garbage collection inside: for parsing and reading
    the policy cache.

    Both make tens of thousands of tuples and AST nodes that live on (and no
    cycles), and each 700 allocations start a collection that traverses the young
    ones again: about 10% of a cold masterfiles validation.  Collection resumes
    afterwards (if it was on), so nothing is left uncollected.  (A class, not a
    contextlib.contextmanager: a one-shot program's start does not import contextlib.)"""

    __slots__ = ("_was_on",)

    def __enter__(self) -> None:
        self._was_on = gc.isenabled()
        if self._was_on:
            gc.disable()

    def __exit__(self, *exc_info: object) -> None:
        if self._was_on:
            gc.enable()
