"""Promises that never ran because they waited for a handle with no outcome.

:class:`WaitingTracker` is the one observer every run has (a promise never
waits silently); the run report's recorder extends it.  Waiting promises are
found at the end of each full bundle call: a promise with a literal
``depends_on`` that did not run in the call, whose class guard holds (evaluated
in the bundle's frame, so bundle-scoped classes count), and one of whose literal
handles has no outcome yet.  A ``depends_on`` written with variables cannot be
judged afterwards and is left out.  When the engine tells such promises itself
(``promise_waiting``, on the last pass), that is used instead and nothing is
counted twice.  At the end of the run each gets a notice.
"""
from __future__ import annotations

from cfpromise.agent.observer import Observer
from cfpromise.agent.order import PASSES, bundle_order
from cfpromise.fast.records import record
from cfpromise.schema.depends import needed_handles

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@record
class Waiting:
    bundle: str                        # ns:name
    ptype: str
    promiser: str
    handle: str | None                 # the waiting promise's own handle
    file: str
    line: int
    pass_no: int
    reason: str

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def waiting_reason(handle: str, bundle: str) -> str:
    return f"it depends on '{handle}', which got no outcome by the end of bundle '{bundle}'"


class WaitingTracker(Observer):
    """Tells, at the end of the run, every promise that waited for ever."""

    def __init__(self) -> None:
        self.running = False
        self.waiting: list[Waiting] = []
        self._ran: dict[int, set[int]] = {}      # id(BundleRun) -> ids of promises that ran

    def run_started(self, agent: Any) -> None:
        self.running = True

    def promise_done(self, agent: Any, step: Any, outcome: Any, seconds: float,
                     changes: list[dict[str, Any]]) -> None:
        if self.running:
            self._ran.setdefault(id(step.run), set()).add(id(step.promise))

    def promise_skipped(self, agent: Any, step: Any, reason: str) -> None:
        if self.running:
            self._ran.setdefault(id(step.run), set()).add(id(step.promise))

    def promise_waiting(self, agent: Any, step: Any, handle: str) -> None:
        if not self.running:
            return
        self._ran.setdefault(id(step.run), set()).add(id(step.promise))
        bundle, coord = step.run.bundle, step.promise.coord
        self.waited(Waiting(f"{bundle.namespace}:{bundle.name}", step.ptype, step.promiser,
                            step.handle, coord.file, coord.line, step.run.pass_no,
                            waiting_reason(handle, bundle.name)))

    def bundle_finished(self, agent: Any, bundle: Any, run: Any, seconds: float) -> None:
        ran = self._ran.pop(id(run), set())
        if self.running and getattr(run, "types", None) is None:
            self._find_waiting(agent, bundle, run, ran)

    def run_finished(self, agent: Any, exit_code: int) -> int:
        for w in self.waiting:
            agent.out.log("notice", f"Promise '{w.promiser}' ({w.where}) never ran: {w.reason}")
        return exit_code

    def waited(self, entry: Waiting) -> None:
        """One more promise that waited for ever (subclasses record it too)."""
        self.waiting.append(entry)

    def _find_waiting(self, agent: Any, bundle: Any, run: Any, ran: set[int]) -> None:
        ran = ran | {key[0] for key in getattr(run, "done", ())}
        handles = getattr(agent, "handles", {})
        for ptype in bundle_order(bundle):
            section = bundle.section(ptype)
            if section is None:
                continue
            for promise in section.promises:
                if id(promise) in ran or promise.get("depends_on") is None:
                    continue
                missing = [h for h, _ in needed_handles(promise) if h not in handles]
                if not missing or not _guard_holds(agent, run, promise):
                    continue
                handle_c = promise.get("handle")
                handle = getattr(handle_c.rval, "value", None) if handle_c is not None else None
                coord = promise.coord
                self.waited(Waiting(f"{bundle.namespace}:{bundle.name}", ptype, promise.promiser,
                                    handle, coord.file, coord.line, PASSES,
                                    waiting_reason(missing[0], bundle.name)))


def _guard_holds(agent: Any, run: Any, promise: Any) -> bool:
    """The promise's class guard, evaluated in its bundle's frame (its local classes)."""
    if promise.classes == "any" and promise.varclass is None:
        return True
    ctx = agent.ctx
    ctx.push(run.frame)
    try:
        if promise.classes != "any" and not ctx.eval_class_expr(promise.classes):
            return False
        if promise.varclass is not None:
            exp = ctx.expander()
            guard = exp.expand(promise.varclass)
            if exp.unresolved or not ctx.eval_class_expr(guard):
                return False
        return True
    finally:
        ctx.pop()
