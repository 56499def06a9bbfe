"""What a run did, told afterwards: JSON run report, summary line, timing, detailed exit codes.

:class:`RunRecorder` is an :class:`~cfpromise.agent.observer.Observer`; the
agent calls it as promises and bundles finish, and it keeps one
:class:`PromiseRecord` per promise iteration and bundle call (vars and
classes, evaluated again in every pass, are merged into one record).  At the
end of the run (:meth:`RunRecorder.run_finished`) it

* reports every promise that never ran because it waited for a handle that
  got no outcome (a notice per promise: a promise never waits silently);
* writes the JSON run report (``--report json[=FILE]``; without FILE to
  ``WORKDIR/outputs/report.json``, never to stdout where ``R:`` lines go);
* prints the summary line (``--summary``, or by default when stdout is a
  terminal; run from cron the agent stays as quiet as cf-agent);
* prints the slowest promises and bundles (``--timing``);
* maps the exit code (``--detailed-exitcodes``, see :func:`detailed_exit_code`).

Compliance follows cf-agent's "Promises observed to be kept/repaired/not
repaired": only promise types that act on the host count (not vars, classes,
meta, defaults); compliance is kept plus repaired over all actuated ones;
promises skipped (failed or missing dependency) are counted apart and are not
part of it.

Waiting promises are found by :class:`~cfpromise.agent.waiting.WaitingTracker`,
which the recorder extends: each is told and recorded as skipped.

The JSON report (``"format": "cf-lite-run-report"``, ``"version": 1``) holds
``policy``, ``workdir``, ``started``, ``dry_run``, ``aborted``, ``fatal``,
``exit_code``; ``promises``: one object per promise iteration and bundle call
with ``bundle`` (``ns:name``), ``promise_type``, ``promiser``, ``handle``,
``file``, ``line``, ``pass``, ``outcome`` (an :class:`Outcome` value),
``changes`` (what handlers noted: ``kind`` plus details), ``seconds``,
``counted`` (false for vars, classes, meta, defaults), ``reason`` and
``waiting`` for skipped ones, ``enabled_by`` for one whose guard holds through a
class another promise's ``classes`` body defined on an outcome (``class``, and that
promise's ``bundle``, ``promise_type``, ``promiser``, ``handle``, ``file``, ``line``,
``outcome``); ``bundles``: each bundle call with its
``seconds``; ``summary``: ``kept``, ``repaired``, ``not_kept`` (``warned``
among them), ``skipped``, ``actuated``, ``compliance`` (percent, null when
nothing was actuated), ``changes``, ``run_seconds``; ``autoloaded``: the files read
from the bundle path (``file``, ``for``, ``reference``, ``when``: load or run-time,
see :mod:`cfpromise.agent.autoload`).
"""
from __future__ import annotations

import enum
import json
import os
from cfpromise.atomic import write_atomically
import time
from typing import Any, Callable, TextIO

import attrs

from cfpromise.agent.loading import EXIT_ABORTED, EXIT_FATAL
from cfpromise.agent.outcome import Outcome, merge
from cfpromise.agent.waiting import Waiting, WaitingTracker

NOT_COUNTED = frozenset({"vars", "classes", "meta", "defaults"})
TOP = 10
REPORT_NAME = "report.json"
REPORT_FORMAT = "cf-lite-run-report"
SEPARATOR = "T: " + "." * 57


class ExitCode(enum.IntEnum):
    """``--detailed-exitcodes`` (bits 2 and 4); 1 (fatal) and 6 (abort) pass through."""

    NO_CHANGE = 0
    FATAL = 1
    CHANGES = 2
    FAILURES = 4
    BOTH = 6


@attrs.define(slots=True)
class ReportOptions:
    report: str | None = None          # path of the JSON report; None: none
    summary: bool = False              # print the summary line
    timing: bool = False               # print the slowest promises and bundles
    timing_output: bool = False        # cf-agent -t: T: lines in verbose mode
    detailed_exitcodes: bool = False


@attrs.define(slots=True)
class PromiseRecord:
    bundle: str                        # ns:name
    ptype: str
    promiser: str
    handle: str | None
    file: str
    line: int
    pass_no: int
    outcome: Outcome
    seconds: float = 0.0
    changes: list[dict[str, Any]] = attrs.Factory(list)
    reason: str = ""
    evaluations: int = 1
    waiting: bool = False              # never ran: waited for a handle without outcome
    enabled_by: list[dict[str, Any]] = attrs.Factory(list)   # outcomes defining its guard

    @property
    def counted(self) -> bool:
        return self.ptype not in NOT_COUNTED

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "bundle": self.bundle, "promise_type": self.ptype, "promiser": self.promiser,
            "handle": self.handle, "file": self.file, "line": self.line, "pass": self.pass_no,
            "outcome": self.outcome.value, "changes": [_details(c) for c in self.changes],
            "seconds": round(self.seconds, 6), "counted": self.counted}
        if self.reason:
            out["reason"] = self.reason
        if self.evaluations > 1:
            out["evaluations"] = self.evaluations
        if self.waiting:
            out["waiting"] = True
        if self.enabled_by:
            out["enabled_by"] = self.enabled_by
        return out


@attrs.define(slots=True)
class BundleRecord:
    bundle: str                        # ns:name
    type: str
    file: str
    line: int
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {"bundle": self.bundle, "type": self.type, "file": self.file, "line": self.line,
                "seconds": round(self.seconds, 6)}


@attrs.define(slots=True)
class Summary:
    kept: int = 0
    repaired: int = 0
    not_kept: int = 0
    warned: int = 0                    # the not kept ones that only warned (-n, action_policy)
    skipped: int = 0
    changes: int = 0                   # changes noted by handlers
    run_seconds: float = 0.0

    @classmethod
    def of(cls, records: list[PromiseRecord], run_seconds: float) -> Summary:
        s = cls(run_seconds=run_seconds)
        for r in records:
            if not r.counted:
                continue
            s.changes += len(r.changes)
            if r.outcome is Outcome.KEPT:
                s.kept += 1
            elif r.outcome is Outcome.REPAIRED:
                s.repaired += 1
            elif r.outcome is Outcome.SKIPPED:
                s.skipped += 1
            else:
                s.not_kept += 1
                s.warned += r.outcome is Outcome.WARN
        return s

    @property
    def actuated(self) -> int:
        return self.kept + self.repaired + self.not_kept

    @property
    def compliance(self) -> float | None:
        """Kept plus repaired, in percent of the actuated promises (None: none)."""
        if not self.actuated:
            return None
        return 100.0 * (self.kept + self.repaired) / self.actuated

    def line(self) -> str:
        compliance = "n/a" if self.compliance is None else f"{self.compliance:.2f}%"
        return (f"Summary: {self.kept} kept, {self.repaired} repaired, {self.not_kept} not kept, "
                f"{self.skipped} skipped; compliance {compliance} of {self.actuated} promises; "
                f"run time {self.run_seconds:.3f} s")

    def to_json(self) -> dict[str, Any]:
        c = self.compliance
        return {"kept": self.kept, "repaired": self.repaired, "not_kept": self.not_kept,
                "warned": self.warned, "skipped": self.skipped, "actuated": self.actuated,
                "compliance": None if c is None else round(c, 2), "changes": self.changes,
                "run_seconds": round(self.run_seconds, 6)}


def detailed_exit_code(summary: Summary, exit_code: int, dry_run: bool = False) -> int:
    """Puppet's ``--detailed-exitcodes`` on CFEngine's outcomes.

    0: nothing changed; 2: something was repaired; 4: something was not kept;
    6: both.  A run that ended fatally keeps 1, and one stopped by
    ``abortclasses`` keeps cf-agent's 6 (its failure bit rightly says the host
    did not converge; the JSON report tells the abort apart).  Under ``-n`` a
    promise that only warned is a change that would be made (2), not a
    failure; in a real run a warning (``action_policy => "warn"``) is not kept
    (4), as cf-agent counts it.
    """
    if exit_code != 0:
        return exit_code
    would_change = summary.warned if dry_run else 0
    code = 0
    if summary.repaired or would_change:
        code |= ExitCode.CHANGES
    if summary.not_kept - would_change > 0:
        code |= ExitCode.FAILURES
    return code


def default_report_path(workdir: str) -> str:
    return os.path.join(workdir, "outputs", REPORT_NAME)


class RunRecorder(WaitingTracker):
    """Records a run through the observer events; reports at its end (module docstring)."""

    # it counts a vars or classes promise's evaluations and their time: the engine must
    # not leave out evaluations that change nothing (cfpromise.agent.settle)
    every_evaluation = True

    def __init__(self, options: ReportOptions | None = None, *,
                 stream: TextIO | None = None, clock: Callable[[], float] = time.perf_counter) -> None:
        super().__init__()
        self.options = options or ReportOptions()
        self.stream = stream
        self.clock = clock
        self.started = clock()
        self.started_at = time.time()
        self.records: list[PromiseRecord] = []
        self.bundles: list[BundleRecord] = []
        self.exit_code: int | None = None
        # per open bundle call (id of its BundleRun): iteration key -> record
        self._open: dict[int, dict[Any, PromiseRecord]] = {}
        # class -> the promise outcome that defined it (classes bodies): enabled_by
        self._origins: dict[str, dict[str, Any]] = {}

    # -- events ----------------------------------------------------------------------
    def promise_done(self, agent: Any, step: Any, outcome: Outcome, seconds: float,
                     changes: list[dict[str, Any]]) -> None:
        if not self.running:
            return
        super().promise_done(agent, step, outcome, seconds, changes)
        key = (id(step.promise), step.promiser, _bindings(step))
        table = self._open.setdefault(id(step.run), {})
        record = table.get(key)
        if record is not None:          # vars and classes: evaluated again in a later pass
            record.outcome = merge([record.outcome, outcome])
            record.seconds += seconds
            record.changes += [dict(c) for c in changes]
            record.evaluations += 1
            return
        record = self._record(step, outcome, seconds)
        record.changes = [dict(c) for c in changes]
        if self._origins:
            record.enabled_by = self._enabled_by(agent, step.promise)
        table[key] = record
        self.records.append(record)
        if self.options.timing_output and record.counted and step.ptype not in ("methods",
                                                                                 "reports"):
            self._timing_lines(agent, step.promiser, seconds)

    def promise_skipped(self, agent: Any, step: Any, reason: str) -> None:
        if not self.running:
            return
        super().promise_skipped(agent, step, reason)
        record = self._record(step, Outcome.SKIPPED, 0.0)
        record.reason = reason
        self.records.append(record)

    def outcome_classes(self, agent: Any, step: Any, outcome: Outcome, names: list[str]) -> None:
        if not self.running:
            return
        bundle = step.run.bundle
        origin = {"bundle": f"{bundle.namespace}:{bundle.name}", "promise_type": step.ptype,
                  "promiser": step.promiser, "handle": step.handle,
                  "file": step.promise.coord.file, "line": step.promise.coord.line,
                  "outcome": outcome.value}
        for name in names:
            self._origins[name] = origin

    def _enabled_by(self, agent: Any, promise: Any) -> list[dict[str, Any]]:
        """The outcomes that defined a class of ``promise``'s guard (notify edges,
        cfpromise.agent.notify), while those classes are still defined."""
        from cfpromise.agent.notify import guard_classes
        out = []
        for name in guard_classes(promise):
            short = name.rpartition(":")[2]
            origin = self._origins.get(short)
            if origin is not None and agent.ctx.eval_class_expr(name):
                out.append({"class": name, **origin})
        return out

    def waited(self, entry: Waiting) -> None:
        super().waited(entry)
        self.records.append(PromiseRecord(*entry[:7], Outcome.SKIPPED, reason=entry.reason,
                                          waiting=True))

    def bundle_finished(self, agent: Any, bundle: Any, run: Any, seconds: float) -> None:
        self._open.pop(id(run), None)
        super().bundle_finished(agent, bundle, run, seconds)
        if not self.running:
            return
        name = f"{bundle.namespace}:{bundle.name}"
        self.bundles.append(BundleRecord(name, bundle.type, bundle.coord.file, bundle.coord.line,
                                         seconds))
        if self.options.timing_output:
            out = agent.out
            out.log("verbose", f"T: This measurement event, alias '{name}', measured at time "
                               f"{time.ctime()}")
            out.log("verbose", f"T:   This execution measured {seconds:.6f} seconds")

    def run_finished(self, agent: Any, exit_code: int) -> int:
        seconds = self.clock() - self.started
        summary = self.summary(seconds)
        super().run_finished(agent, exit_code)
        dry_run = bool(getattr(agent.options, "dry_run", False))
        final = exit_code
        if self.options.detailed_exitcodes:
            final = detailed_exit_code(summary, exit_code, dry_run)
        self.exit_code = final
        if self.options.report:
            try:
                write_atomically(self.options.report,
                                 json.dumps(self.to_json(agent, summary, exit_code, final),
                                            indent=2, default=str) + "\n")
            except OSError as exc:
                agent.out.log("error", f"Could not write the run report '{self.options.report}'"
                                       f": {exc}")
        stream = self.stream or agent.out.stream
        if self.options.timing:
            for line in self.timing_lines(seconds):
                stream.write(line + "\n")
        if self.options.summary:
            stream.write(summary.line() + "\n")
        return final

    # -- results ---------------------------------------------------------------------
    def summary(self, run_seconds: float | None = None) -> Summary:
        if run_seconds is None:
            run_seconds = self.clock() - self.started
        return Summary.of(self.records, run_seconds)

    def to_json(self, agent: Any, summary: Summary, exit_code: int, final: int) -> dict[str, Any]:
        from cfpromise import __version__
        options = agent.options
        return {
            "format": REPORT_FORMAT, "version": 1, "agent": f"cf-lite-agent {__version__}",
            "policy": options.file, "workdir": options.workdir,
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(self.started_at)),
            "dry_run": bool(options.dry_run),
            "aborted": exit_code == EXIT_ABORTED, "fatal": exit_code == EXIT_FATAL,
            "exit_code": final,
            "promises": [r.to_json() for r in self.records],
            "bundles": [b.to_json() for b in self.bundles],
            "autoloaded": [f.to_json() for f in
                           getattr(getattr(agent, "autoloader", None), "loaded", ())],
            "summary": summary.to_json()}

    def timing_lines(self, run_seconds: float, top: int = TOP) -> list[str]:
        """The slowest promises and bundles (bundle times include the bundles they call)."""
        lines = [f"T: Slowest promises (top {top}):"]
        actuated = [r for r in self.records if r.outcome is not Outcome.SKIPPED]
        for r in sorted(actuated, key=lambda r: -r.seconds)[:top]:
            lines.append(f"T: {r.seconds:10.6f} s  {r.ptype} '{_short(r.promiser)}' in "
                         f"{r.bundle} ({r.where})")
        totals: dict[tuple[str, str, int], list[float]] = {}
        for b in self.bundles:
            totals.setdefault((b.bundle, b.file, b.line), []).append(b.seconds)
        lines.append(f"T: Slowest bundles (top {top}, including the bundles they call):")
        ranked = sorted(totals.items(), key=lambda kv: -sum(kv[1]))[:top]
        for (name, file, line), times in ranked:
            calls = f", {len(times)} calls" if len(times) > 1 else ""
            lines.append(f"T: {sum(times):10.6f} s  {name} ({file}:{line}){calls}")
        lines.append(f"T: This execution measured {run_seconds:.6f} seconds")
        return lines

    # -- helpers ---------------------------------------------------------------------
    def _record(self, step: Any, outcome: Outcome, seconds: float) -> PromiseRecord:
        bundle = step.run.bundle
        coord = step.promise.coord
        return PromiseRecord(f"{bundle.namespace}:{bundle.name}", step.ptype, step.promiser,
                             step.handle, coord.file, coord.line, step.run.pass_no, outcome,
                             seconds)

    def _timing_lines(self, agent: Any, promiser: str, seconds: float) -> None:
        """cf-agent's ``-t`` lines for one promise (shown in verbose mode)."""
        for text in (SEPARATOR, f"T: Promise timing summary for {promiser}",
                     "T: No measurement_class attribute set in action body",
                     f"T: This execution measured {seconds:.6f} seconds "
                     "(use measurement_class to track)", SEPARATOR):
            agent.out.log("verbose", text)


def _details(change: dict[str, Any]) -> dict[str, Any]:
    """A noted change with its costly details (given as functions, e.g. a diff) worked out."""
    return {k: v() if callable(v) else v for k, v in change.items()}


def _bindings(step: Any) -> tuple[tuple[str, str], ...]:
    bindings = getattr(step, "bindings", None) or {}
    return tuple(sorted(bindings.items()))


def _short(text: str, width: int = 60) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= width else text[:width - 3] + "..."
