"""The in-memory file an edit_line bundle works on, and what its promises share.

A files promise with ``edit_line`` (or a CFEngine template) loads the file once
into an :class:`EditBuffer` -- a list of lines without their newlines, as
cf-agent's LoadFileAsItemList makes it -- runs the bundle against it, and
writes the file once at the end if the lines differ from the file.  The edit
promises change ``lines`` in place and count their edits.

cf-agent prints the messages of the changes an edit promise makes only once
the file is saved (a bundle that deletes a line and inserts it again prints
nothing), so change messages are queued in :attr:`EditBuffer.messages` and
the files promise flushes them before ``Edited file '...'``.  Errors and
warnings are printed at once.

:class:`EditRun` is the per-promise helper every edit_line handler uses: it
records results the way cf-agent's cfPS does (each result sets the promise's
outcome classes), queues change messages, and prints the closing
``<type> promise '...' repaired`` / ``Warnings encountered ...`` /
``Errors encountered ...`` line.
"""
from __future__ import annotations

from typing import Any

from cfpromise.agent.outcome import Outcome, merge
from cfpromise.promises.api import PromiseRun
from cfpromise.promises.files.attributes import as_list, boolean  # noqa: F401  (shared helpers)


# The name cf-agent uses in its closing message for each edit promise type.
_DISPLAY = {"field_edits": "fields_edit"}


def split_lines(text: str) -> list[str]:
    """LoadFileAsItemList: lines without newlines; a final newline adds no empty line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def join_lines(lines: list[str]) -> str:
    """SaveItemListAsFile: every line followed by a newline."""
    return "".join(line + "\n" for line in lines)


def join_continuations(lines: list[str]) -> list[str]:
    """edit_defaults recognize_join as cf-agent 3.21 does it: a line ending in a backslash
    continues on the next -- and cf-agent keeps only the last line of such a group
    (the joined text is lost; observed, and reproduced for compatibility)."""
    return [line for line in lines if not line.endswith("\\")]


# EditBuffer and EditRun (and the other classes of the edit modules) are plain slotted
# classes and @record classes, not attrs classes: a files promise with edit_line -- common
# in policy run from cron every few minutes -- loads these modules, and attrs' import
# (with inspect, ast, dis, tokenize) and its code generation per class were a large part
# of such a run's start.

class EditBuffer:
    """A file being edited: its lines and what the edits did."""

    __slots__ = ("filename", "lines", "original", "edits", "dry_run", "messages", "forced",
                 "empty_before_use")

    def __init__(self, filename: str, lines: list[str], original: list[str] | None = None,
                 dry_run: bool = False) -> None:
        self.filename = filename
        self.lines = lines
        # the file as loaded, for the comparison (None: no file that reads as lines --
        # any edit differs from it)
        self.original: list[str] | None = original
        self.edits = 0                      # cf-agent's num_edits
        self.dry_run = dry_run              # -n: edits are simulated here, never saved
        self.messages: list[tuple[str, str]] = []    # queued change messages
        self.forced = False                 # a CFEngine template: always compared with the file
        self.empty_before_use = False       # $(edit.empty_before_use)

    def queue(self, level: str, message: str) -> None:
        self.messages.append((level, message))


class EditRun:
    """One actuation of an edit_line promise against the buffer."""

    __slots__ = ("run", "buffer", "results", "own_warn")

    def __init__(self, run: PromiseRun, buffer: EditBuffer) -> None:
        self.run = run
        self.buffer = buffer
        self.results: list[Outcome] = []
        # the promise's own action_policy is warn (or nop)
        action = run.attributes.get("action")
        self.own_warn = isinstance(action, dict) and \
            action.get("action_policy", "fix") in ("warn", "nop")

    @property
    def warn_only(self) -> bool:
        """This promise only warns: -n, or its own action_policy."""
        return self.buffer.dry_run or self.own_warn

    @property
    def filename(self) -> str:
        return self.buffer.filename

    def log(self, level: str, message: str) -> None:
        self.run.agent.log(level, message)

    def _result(self, outcome: Outcome) -> None:
        self.results.append(outcome)
        self.run.agent.record_result(self.run, outcome)

    def kept(self, message: str | None = None) -> None:
        if message:
            self.log("verbose", message)
        self._result(Outcome.KEPT)

    def change(self, message: str) -> None:
        """A change made in the buffer; its message waits for the file to be saved."""
        self.buffer.queue("info", message)
        self.buffer.edits += 1
        self._result(Outcome.REPAIRED)

    @property
    def simulate(self) -> bool:
        """-n (not the promise's own action_policy): warn as cf-agent does, but still make
        the change in the buffer -- never saved -- so that the files promise can show the
        would-be result as a diff."""
        return self.buffer.dry_run and not self.own_warn

    def would(self, should: str) -> bool:
        """A warn-only change: report it; True when it is to be simulated in the buffer."""
        self.warn(should)
        if self.simulate:
            self.buffer.edits += 1
            return True
        return False

    def warn(self, should: str) -> None:
        """``Should ...``: what a warn-only promise would have done."""
        if self.buffer.dry_run:
            self.log("warning", should)
        else:
            self.log("warning", f"{should}, but only warning promised")
        self._result(Outcome.WARN)

    def fail(self, message: str, *, level: str = "error",
             outcome: Outcome = Outcome.INTERRUPTED) -> None:
        self.log(level, message)
        self._result(outcome)

    def promise_ref(self, level: str = "error") -> None:
        for line in self.run.promise_ref():
            self.log(level, line)

    @property
    def outcome(self) -> Outcome:
        result = merge(self.results)
        return Outcome.KEPT if result is Outcome.SKIPPED else result

    def finish(self) -> Outcome:
        """The closing message cf-agent prints for the promise, then its outcome."""
        outcome = self.outcome
        name = _DISPLAY.get(self.run.promise_type, self.run.promise_type)
        who = f"{name} promise '{self.run.promiser}'"
        if outcome is Outcome.KEPT:
            self.log("verbose", f"No changes done for the {who}")
        elif outcome is Outcome.REPAIRED:
            self.buffer.queue("info", f"{who} repaired")
        elif outcome is Outcome.WARN:
            self.log("warning", f"Warnings encountered when actuating {who}")
        else:
            self.log("error", f"Errors encountered when actuating {who}")
        return outcome

    def retry_later(self, outcome: Outcome) -> Outcome | None:
        """A result reached before cf-agent takes the promise's lock (no region yet): the
        promise is evaluated again in the next pass.  None until the last pass."""
        from cfpromise.promises.files import bridge
        self.run.agent.record_result(self.run, outcome)
        if bridge.last_pass(self.run.agent):
            return outcome
        return None


def current(run: PromiseRun) -> EditBuffer | None:
    buffer = run.agent.edit_buffer()
    return buffer if isinstance(buffer, EditBuffer) else None


def no_buffer(run: PromiseRun) -> Outcome:
    run.agent.log("error", f"{run.promise_type} promise '{run.promiser}' outside an edit_line "
                           "bundle called by a files promise")
    return Outcome.FAILED
