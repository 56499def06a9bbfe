"""Promise types the engine evaluates itself (vars, classes, meta, defaults, methods, reports).

They need more of the engine than a PromiseRun offers (the evaluation context,
the pass number, bundle calls), so they receive a :class:`Step`.  They register
in :data:`EVALUATORS` like handlers do in HANDLERS; an evaluator returns the
outcome, ``Outcome.SKIPPED`` when nothing happened (the promise is evaluated
again in the next pass), or None to wait for a later pass.
"""
from __future__ import annotations

from cfpromise.agent.outcome import Outcome
from cfpromise.eval.cmap import string_set_order
from cfpromise.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


class Step:
    """One iteration of one promise being evaluated.  A plain slotted class, not attrs:
    the engine makes one per promise and it is on every run's start path (see ast.py)."""

    __slots__ = ("agent", "run", "ptype", "promise", "bindings", "ev", "promiser", "_last",
                 "handle", "attributes", "seconds", "own_classes", "logged")

    def __init__(self, agent: Any, run: Any, ptype: str, promise: ast.Promise,
                 bindings: dict[str, str], ev: Any, promiser: str, last: bool,
                 handle: str | None = None, attributes: dict[str, Any] | None = None,
                 seconds: float = 0.0) -> None:
        self.agent = agent            # api.EvaluatorServices (the engine's Agent)
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
        self.own_classes = False      # the handler set its outcome classes (own_classes)
        self.logged = False           # the handler wrote its action log (action_log)

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


# Attributes every evaluator may read (here, not in vars.py, which imports this module:
# classes.py needs them too, and a module this one loads must not import them from vars)
def meta_tags(step: Step) -> tuple[str, ...]:
    """The promise's meta tags, expanded."""
    c = step.promise.get("meta")
    if c is None or type(c.rval) is ast.FnCall:
        return ()           # (a call is no list: the run stops on it, agent.commoneval)
    value = step.ev.value(c.rval, want_list=True)
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, str))
    return (value,) if isinstance(value, str) else ()


def promise_tags(step: Step) -> tuple[str, ...]:
    """The tags a vars or classes promise gives what it defines: cf-agent 3.21 adds
    ``source=promise`` then each meta tag to a StringSet, so a repeated tag is kept once
    and more than 14 tags come out in the set's hashed order (getvariablemetatags(),
    getclassmetatags(), the ``--show-evaluated-*`` tables)."""
    return tuple(string_set_order(("source=promise",) + meta_tags(step)))


def promise_comment(step: Step) -> str | None:
    """The promise's comment, expanded (None without one)."""
    c = step.promise.get("comment")
    if c is None or not isinstance(c.rval, ast.Scalar):
        return None
    return step.ev.text(c.rval.value)


def promise_ref(step: Step) -> list[str]:
    """cf-agent's PromiseRef of the promise at hand: where it is, then its comment and
    its promisees, expanded (:func:`cfpromise.promises.api.referred`)."""
    from cfpromise.promises.api import belongs, referred
    promise = step.promise
    lines = [belongs(step.run.bundle.name, promise.coord,
                     getattr(step.agent.options, "start_dir", "") or "")]
    promisee = promise.promisee
    ev = step.ev
    before = ev.unresolved
    try:
        comment = promise_comment(step)
        listed = isinstance(promisee, ast.List)
        value = None if promisee is None else ev.value(promisee, want_list=listed)
    finally:
        ev.unresolved = before
    return lines + referred(comment, value, listed)


if TYPE_CHECKING:
    Evaluator = Callable[[Step], Outcome | None]

EVALUATORS: dict[str, Evaluator] = {}


def evaluator(promise_type: str) -> Callable[[Evaluator], Evaluator]:
    def register(fn: Evaluator) -> Evaluator:
        EVALUATORS[promise_type] = fn
        return fn
    return register


# The modules whose evaluators register above, imported by :func:`load` (the engine calls
# it when it is imported), not when this module is: they import this module themselves,
# and one of them imported first would otherwise meet the others half-initialised.
MODULES = ("classes", "defaults", "meta", "methods", "reports", "vars")


def load() -> dict[str, Evaluator]:
    """EVALUATORS, with every evaluator module imported."""
    for name in MODULES:        # (__import__: importlib and warnings stay off the start path)
        __import__(f"cfpromise.promises.{name}")
    return EVALUATORS
