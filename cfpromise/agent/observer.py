"""What the engine tells about a run, for reports, summaries and timing.

The engine calls every registered :class:`Observer` at these points; the
default methods do nothing, so an observer implements only what it needs.
Observers never change the run.
"""
from __future__ import annotations

from cfpromise.agent.outcome import Outcome

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Observer:
    # True: the observer needs every evaluation of a vars or classes promise, even one
    # that changes nothing (the engine leaves those out otherwise: cfpromise.agent.settle)
    every_evaluation = False

    def run_started(self, agent: Any) -> None:
        """Policy loaded and validated; the bundlesequence is about to run."""

    def bundle_started(self, agent: Any, bundle: Any, args: list[Any]) -> None: ...

    def bundle_finished(self, agent: Any, bundle: Any, run: Any, seconds: float) -> None: ...

    def promise_done(self, agent: Any, step: Any, outcome: Outcome, seconds: float,
                     changes: list[dict[str, Any]]) -> None:
        """A promise iteration was actuated; ``step`` has ptype, promise (coords),
        promiser, handle, run.pass_no and run.bundle; ``changes`` lists what changed
        (as handlers noted it through AgentServices.note_change)."""

    def promise_waiting(self, agent: Any, step: Any, handle: str) -> None:
        """A promise ended its bundle call's last pass still waiting for ``handle``,
        which has no outcome (no promise with that handle ran)."""

    def promise_skipped(self, agent: Any, step: Any, reason: str) -> None:
        """A promise was not actuated for a reason worth reporting (a failed dependency)."""

    def outcome_classes(self, agent: Any, step: Any, outcome: Outcome, names: list[str]) -> None:
        """The ``classes`` body of ``step``'s promise defined ``names`` on ``outcome``."""

    def run_finished(self, agent: Any, exit_code: int) -> int:
        """The run is over; may print summaries.  Returns the exit code to use."""
        return exit_code
