"""Agent output in cf-agent's format: ``R:`` reports and levelled log lines.

Which stream: cf-agent's logger writes every level on standard output; only the
parser's diagnostics (``FILE:LINE:COL: error: ...`` with the source line and caret
under it) go to standard error, as cf-promises writes them, and cf-agent passes its
validating cf-promises' standard error through.  :func:`say` is a log line printed
before (or without) an agent's :class:`Output`, :func:`diagnose` a parser diagnostic:
it flushes standard output first, so the two streams interleave in printing order
when they go to one file.

Levels, lowest first: debug, verbose, info, notice, warning, error.  The
default shows notice and above (as cf-agent), ``-I`` adds info, ``-v``
verbose, ``-d`` debug.  Lines go to stdout like cf-agent's, with cf-agent's
right-aligned prefixes (``   error: ``, ``  notice: ``, ``    info: ``); ``-l``
puts a timestamp in front of every log message (as cf-agent 3.21: on its first line,
never on the lines a multi-line message continues with, nor on ``R:`` reports).  Like
cf-agent's logger, a message's one trailing newline ends its line rather than adding an
empty one (a dry-run report of ``"x$(const.n)"`` is one line).

``output_prefix`` of body common control (:meth:`Output.set_prefix`, once the policy is
read, as cf-agent's PolicyResolve sets it: what loading said has none) goes, with a space,
in front of the info, verbose and debug lines only -- before their timestamp, after their
colour; notice (``Q:`` lines too), warning, error and ``R:`` reports never have it.  It is
folded into the per-level labels, so an unprefixed run pays nothing for it.
"""
from __future__ import annotations

import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, TextIO

LEVELS = {"debug": 0, "verbose": 1, "info": 2, "notice": 3, "warning": 4, "error": 5, "critical": 6}
PREFIX = {level: f"{level:>8}: " for level in LEVELS} | {"critical": "CRITICAL: "}  # as cf-agent
# --color: cf-agent's colour per level (the reset follows the line's newline, as in cf-agent)
_NO_LEADS = dict.fromkeys(LEVELS, "")
COLOR = {"critical": "\x1b[31m", "error": "\x1b[31m", "warning": "\x1b[33m",
         "notice": "\x1b[32m", "info": "\x1b[32m", "verbose": "\x1b[34m"}


class Output:
    def __init__(self, level: str = "notice", timestamps: bool = False,
                 stream: TextIO | None = None) -> None:
        self.threshold = LEVELS[level]
        self.timestamps = timestamps
        self.stream = stream or sys.stdout
        self.counts: dict[str, int] = {}
        self.shown = 0          # log lines at a level shown (cfpromise.agent.settle)
        # --simulate: messages name the host paths the changes chroot stands for
        self.rewrite: Callable[[str], str] | None = None
        # called (once) before the next line is written: the verbose trace holds a
        # promise banner back until the promise prints something (cfpromise.agent.trace)
        self.before_write: Callable[[], None] | None = None
        self.color = False
        self.labels = PREFIX    # each level's label: set_prefix puts the prefix in front
        self.leads = _NO_LEADS  # (-l) what goes before the timestamp, by level

    def set_prefix(self, prefix: str) -> None:
        """body common control's ``output_prefix``: from now on in front of the info,
        verbose and debug lines (an empty one: none)."""
        leads = {level: f"{prefix} " if prefix and LEVELS[level] <= LEVELS["info"] else ""
                 for level in LEVELS}
        self.leads = leads
        self.labels = {level: leads[level] + PREFIX[level] for level in LEVELS}

    def enabled(self, level: str) -> bool:
        return LEVELS[level] >= self.threshold

    def _write(self, line: str, newline: bool = True) -> None:
        if self.before_write is not None:
            self.before_write()
        self.stream.write(line + "\n" if newline else line)

    def log(self, level: str, message: str) -> None:
        self.counts[level] = self.counts.get(level, 0) + 1
        if LEVELS[level] >= self.threshold:
            self.shown += 1
            if self.rewrite is not None:
                message = self.rewrite(message)
            if message.endswith("\n"):
                message = message[:-1]
            label = self.labels[level]
            if self.timestamps:     # (the prefix, then the time, then the level)
                label = (self.leads[level] + time.strftime("%Y-%m-%dT%H:%M:%S%z ")
                         + PREFIX[level])
            if self.color and level in COLOR:     # (the timestamp coloured too, as cf-agent)
                self._write(COLOR[level] + label + message + "\n\x1b[0m", newline=False)
                return
            for i, line in enumerate(message.split("\n")):
                self._write((label if i == 0 else "") + line)

    def report(self, text: str) -> None:
        self._write("R: " + text)

    def flush(self) -> None:
        self.stream.flush()


def say(level: str, message: str, stamped: bool = False) -> None:
    """A log line with no agent's :class:`Output` at hand (loading, validation verdicts,
    the failsafe, the command line): on standard output, as cf-agent's logger writes
    every level; ``stamped``: after the time, as with -l."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z ") if stamped else ""
    sys.stdout.write(stamp + PREFIX[level] + message + "\n")


def diagnose(text: str) -> None:
    """A parser diagnostic, on standard error after what standard output holds."""
    sys.stdout.flush()
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
