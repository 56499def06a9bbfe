"""The state of one files promise actuation: its attributes, results and messages.

cf-agent reports every result of a files promise as it reaches it (cfPS): the
message at its level, and the promise's outcome classes for that result.  A
promise that finds a file present (kept) and fixes its mode (repaired) sets
both its kept and its repaired classes.  :class:`FileRun` does the same
through ``AgentServices.record_result``; the handler returns the merged
outcome, which the engine records as usual.

Warn-only promises (``-n`` or ``action_policy => "warn"``) say what they
would do in cf-agent's words: ``Should ...`` under ``-n``, ``Should ..., but
only warning promised`` under warn.
"""
from __future__ import annotations

import os

from cfpromise.agent.outcome import Outcome, merge
from cfpromise.promises.api import PromiseRun
from cfpromise.promises.files.attributes import FileAttrs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class FileRun:
    """One files promise being actuated (and the file it is at).

    A plain slotted class rather than an attrs class: masterfiles' dry run loads
    this module, and attrs' import and class generation were a large part of what
    its promise-type modules cost at start (see :mod:`cfpromise.promises.files.attributes`).
    ``verbose``, ``dry_run`` and ``sim`` come from the agent.
    """

    __slots__ = ("run", "a", "results", "path", "verbose", "dry_run", "_stats", "source",
                 "sim", "promiser", "held")

    def __init__(self, run: PromiseRun, a: FileAttrs) -> None:
        from cfpromise.promises.files import bridge
        self.run = run
        self.a = a
        self.results: list[Outcome] = []
        self.path = ""                    # the file being handled (the promiser, or a match)
        self.promiser = run.promiser      # as the closing line names it ("d/." chopped: "d")
        self._stats: dict[tuple[bool, str], Any] = {}
        self.source: Any = None           # where copy_from reads (files/sources.py)
        # verbose messages are shown (else not even built)
        self.verbose = bridge.level_enabled(run.agent, "verbose")
        # --simulate: the changes chroot (files/chrooted.py)
        self.sim = getattr(run.agent, "simulation", None)
        # -n (or dryrun in body agent control); under --simulate files promises do change
        # things: in the chroot
        self.dry_run = False if self.sim is not None else bridge.dry_run(run.agent)
        self.held: list[str] | None = None  # info messages held back (:meth:`holding_info`)

    def note_rename(self, old: str, new: str) -> None:
        """--simulate: renames are shown apart from the changed files."""
        if self.sim is not None:
            self.sim.record_renamed(old, new)

    # -- stat, once per file until something changes ----------------------------------
    def lstat(self, path: str) -> Any:
        """os.lstat (None when missing), remembered until the next change."""
        key = (False, path)
        if key not in self._stats:
            try:
                self._stats[key] = os.lstat(path)
            except OSError:
                self._stats[key] = None
        return self._stats[key]

    def stat(self, path: str) -> Any:
        """os.stat (None when missing), remembered until the next change."""
        key = (True, path)
        if key not in self._stats:
            try:
                self._stats[key] = os.stat(path)
            except OSError:
                self._stats[key] = None
        return self._stats[key]

    def forget(self) -> None:
        self._stats.clear()

    # -- basics ---------------------------------------------------------------------
    @property
    def agent(self) -> Any:
        return self.run.agent

    @property
    def warn_only(self) -> bool:
        """-n or action_policy warn/nop: inspect and report, change nothing."""
        return self.dry_run or self.a.action_warn

    def log(self, level: str, message: str) -> None:
        if level == "info" and self.held is not None:
            self.held.append(message)
            return
        self.run.agent.log(level, message)

    def log_now(self, level: str, message: str) -> None:
        """A message never held back (cf-lite's own would-be diffs)."""
        self.run.agent.log(level, message)

    def holding_info(self) -> "_Held":
        """cf-agent's log buffer around an edit (ScheduleEditOperation): its info
        messages are printed at the end only when the edit repaired the promise
        (a file made for a rendering that then fails is not announced)."""
        return _Held(self)

    def _result(self, outcome: Outcome, counted: bool = True) -> None:
        """Set the classes of ``outcome``; ``counted``: it also counts in the promise's
        merged outcome (cf-agent's results that its caller drops do not)."""
        if outcome is not Outcome.KEPT:
            self._stats.clear()
        if counted:
            self.results.append(outcome)
        self.run.agent.record_result(self.run, outcome)

    # -- results (cfPS) ---------------------------------------------------------------
    def kept(self, message: str | None = None, level: str = "verbose",
             counted: bool = True) -> Outcome:
        if message:
            self.log(level, message)
        self._result(Outcome.KEPT, counted)
        return Outcome.KEPT

    def change(self, message: str, level: str = "info", counted: bool = True) -> Outcome:
        self.log(level, message)
        self._result(Outcome.REPAIRED, counted)
        return Outcome.REPAIRED

    def fail(self, message: str, level: str = "error",
             outcome: Outcome = Outcome.FAILED, counted: bool = True) -> Outcome:
        self.log(level, message)
        self._result(outcome, counted)
        return outcome

    def interrupted(self, message: str, level: str = "error") -> Outcome:
        return self.fail(message, level, Outcome.INTERRUPTED)

    def denied(self, message: str, level: str = "error") -> Outcome:
        return self.fail(message, level, Outcome.DENIED)

    def note(self, outcome: Outcome, message: str, level: str = "error") -> None:
        """A result whose classes are set but which does not count in the promise's
        merged outcome (cf-agent's Record* calls that leave the promise's result as it
        was)."""
        self.log(level, message)
        self._result(outcome, counted=False)

    def should(self, message: str, counted: bool = True) -> Outcome:
        """MakingChanges: what would be done (with ", but only warning promised" under
        action_policy warn/nop, with -n or without)."""
        if not self.a.action_warn:
            self.log("warning", message)
        else:
            self.log("warning", f"{message}, but only warning promised")
        self._result(Outcome.WARN, counted)
        return Outcome.WARN

    def warning(self, message: str) -> Outcome:
        """A warning result with a message of its own."""
        self.log("warning", message)
        self._result(Outcome.WARN)
        return Outcome.WARN

    def promise_ref(self, level: str = "error") -> None:
        for line in self.run.promise_ref():
            self.log(level, line)

    @property
    def outcome(self) -> Outcome:
        return merge(self.results)

    def summary(self) -> None:
        """The closing line cf-agent 3.21 prints for a files promise that did not go well."""
        outcome = self.outcome
        who = f"files promise '{self.promiser}'"
        if outcome is Outcome.WARN:
            self.log("warning", f"Warnings encountered when actuating {who}")
        elif outcome.not_kept:
            self.log("error", f"Errors encountered when actuating {who}")
        elif outcome is Outcome.KEPT:
            self.log("verbose", f"No changes done for the {who}")


class _Held:
    __slots__ = ("fr", "start", "outer")

    def __init__(self, fr: FileRun) -> None:
        self.fr = fr
        self.start = 0
        self.outer: list[str] | None = None

    def __enter__(self) -> None:
        self.outer, self.fr.held = self.fr.held, []
        self.start = len(self.fr.results)

    def __exit__(self, *exc: object) -> None:
        fr = self.fr
        held, fr.held = fr.held or [], self.outer
        if merge(fr.results[self.start:]) is Outcome.REPAIRED:
            for message in held:
                fr.log("info", message)


def note_change(fr: FileRun, **info: object) -> None:
    """Tell the run report what changed (AgentServices.note_change), when the agent can.
    Costly details (a content diff) are given as functions, called only if a report
    is written.  (Here, not in :mod:`.editing`, so that a mode change does not load
    the editing modules.)"""
    agent = fr.run.agent
    if hasattr(agent, "note_change"):
        agent.note_change(fr.run, **info)
