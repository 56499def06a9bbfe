"""What cf-agent 3.21 makes of a promise as it pushes the promise's frame, before its
iteration engine decides whether there is any iteration at all.

EvalContextStackPushPromiseFrame computes ``with`` (EvaluateFinalRval: its references
expanded, its calls made) and ExpandPromise then ``$(this.handle)`` (PutHandleVariable),
without the iteration's bindings; only then may the engine skip the promise (a wheel that
names no variable: ``$(a ${b)``).  cf-lite computes both with each iteration, which is
the same but for what the expansion says of a broken reference: said here for a promise
whose ``with`` or handle holds one, once each time the promise is evaluated (and its
promisee with each iteration, as ExpandDeRefPromise expands it: :func:`promisee`).  The
promisee's references are iteration wheels as the promiser's are.  Then, as
the engine does with each iteration, a ``with`` whose value holds a reference left open
(``x$(a``) is said as the parser says it (IsCf3VarString: "Broken variable syntax").

An ``ifelse()`` among a promise's attributes makes ExpandPromiseAndDo actuate it once
even when the engine gives no iteration (:func:`iterations`).  The expanded arguments
of the calls made for a promise that IsCf3Scalar says are left open are said as the
parser says them (:func:`say_args`; a vars promise's at its own count).
"""
from __future__ import annotations

from cfpromise.eval.expand import combinations, holds_broken, prepare_iteration, promise_probe
from cfpromise.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterator

# the attributes whose references left unresolved never make a promise wait
NEVER_WAIT = ("comment", "handle", "with", "meta")


def iterations(ctx: Any, promise: ast.Promise, texts: tuple[str, ...]
               ) -> Iterator[dict[str, str]]:
    """The iterations of a promise whose texts hold references (its bindings), and one
    without bindings for a promise with an ifelse() that has none (:func:`actuates_once`)."""
    done = False
    if prepare_iteration(texts, ctx.log):
        for bindings in combinations(promise_probe(texts, ctx.expander, ctx.log)):
            done = True
            yield bindings
    if not done and actuates_once(promise):
        yield {}


def say_args(agent: Any, ev: Any, ptype: str) -> None:
    """The arguments IsCf3Scalar said are left open, of the calls made for a promise
    that is no vars promise (cfpromise.agent.yyerrors)."""
    if ev.broken_args and ptype != "vars":
        from cfpromise.agent.yyerrors import check_args
        check_args(agent, ev.broken_args)
        ev.broken_args.clear()


def before_iterations(agent: Any, facts: Any) -> None:
    """The ``with`` and handle of the promise ``facts`` describes, expanded as the frame is
    pushed, when they hold a broken reference (see the module docstring)."""
    with_c, handle_c = facts.with_c, facts.handle_c
    texts = [t for c in (with_c, handle_c) if c is not None for t in _texts(c.rval)]
    if not any(holds_broken(t) for t in texts):
        return
    from cfpromise.eval.rvals import RvalEvaluator, with_value
    ev = RvalEvaluator(agent.ctx, {})
    if with_c is not None:
        with_value(ev, with_c.rval)
    if handle_c is not None:
        ev.text(handle_c.rval.value)


def promisee(promise: ast.Promise, ev: Any) -> None:
    """The promise's promisee expanded with each iteration, after its promiser
    (ExpandDeRefPromise), when it holds a broken reference: what that says."""
    if promise.promisee is not None and any(holds_broken(t)
                                            for t in _texts(promise.promisee)):
        unresolved, failed = ev.unresolved, ev.failed_call
        ev.value(promise.promisee, want_list=True)
        ev.unresolved, ev.failed_call = unresolved, failed


def _texts(rval: ast.Rval) -> list[str]:
    from cfpromise.agent.promiseinfo import rval_texts
    return list(rval_texts(rval))


def check_with(agent: Any, value: Any) -> None:
    """A ``with`` value holding a reference left open, said as the parser says it."""
    if type(value) is str and "$" in value:
        from cfpromise.agent.yyerrors import check_value
        check_value(agent, value)


def actuates_once(promise: ast.Promise) -> bool:
    """Whether an ``ifelse()`` is one of the promise's attributes: cf-agent actuates the
    promise once even when its iteration engine gives no iteration (an empty wheel), its
    references as they are (ExpandPromiseAndDo's actuate_ifelse)."""
    return any(type(c.rval) is ast.FnCall and c.rval.name == "ifelse"
               for c in promise.constraints)
