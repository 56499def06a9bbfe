"""Promise types the engine evaluates itself (vars, classes, meta, defaults, methods, reports).

They need more of the engine than a PromiseRun offers (the evaluation context,
the pass number, bundle calls), so they receive a :class:`Step`.  They register
in :data:`EVALUATORS` like handlers do in HANDLERS; an evaluator returns the
outcome, ``Outcome.SKIPPED`` when nothing happened (the promise is evaluated
again in the next pass), or None to wait for a later pass.
"""
from __future__ import annotations

from cfpromise.agent.outcome import Outcome
from cfpromise.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


class Step:
    """One iteration of one promise being evaluated.  A plain slotted class, not attrs:
    the engine makes one per promise and it is on every run's start path (see ast.py)."""

    __slots__ = ("agent", "run", "ptype", "promise", "bindings", "ev", "promiser", "_last",
                 "handle", "attributes", "seconds")

    def __init__(self, agent: Any, run: Any, ptype: str, promise: ast.Promise,
                 bindings: dict[str, str], ev: Any, promiser: str, last: bool,
                 handle: str | None = None, attributes: dict[str, Any] | None = None,
                 seconds: float = 0.0) -> None:
        self.agent = agent            # cfpromise.agent.engine.Agent
        self.run = run                # cfpromise.agent.engine.BundleRun
        self.ptype = ptype
        self.promise = promise
        self.bindings = bindings
        self.ev = ev                  # RvalEvaluator with these bindings
        self.promiser = promiser
        self._last = last             # the last pass: act even with unresolved variables
        self.handle = handle
        self.attributes = attributes
        self.seconds = seconds

    @property
    def last(self) -> bool:
        """Whether this is the last pass: act even with unresolved variables.  Asked
        before the last pass, the answer may change later, so the engine notes that the
        promise's result is not final (cfpromise.agent.settle)."""
        if not self._last:
            self.agent.deferrals += 1
        return self._last

    @property
    def ctx(self) -> Any:
        return self.agent.ctx

    def where(self) -> str:
        c = self.promise.coord
        return (f"{self.ptype} promise '{self.promiser}' in bundle '{self.run.bundle.name}' "
                f"({c.file}:{c.line})")

    def log(self, level: str, message: str) -> None:
        self.agent.out.log(level, message)


if TYPE_CHECKING:
    Evaluator = Callable[[Step], Outcome | None]

EVALUATORS: dict[str, Evaluator] = {}


def evaluator(promise_type: str) -> Callable[[Evaluator], Evaluator]:
    def register(fn: Evaluator) -> Evaluator:
        EVALUATORS[promise_type] = fn
        return fn
    return register


def _load() -> None:
    from cfpromise.promises import classes, defaults, meta, methods, reports, vars  # noqa: F401


_load()
