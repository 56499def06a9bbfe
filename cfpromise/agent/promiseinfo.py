"""What the engine knows of a promise before evaluating it, worked out once per promise.

The engine evaluates a promise up to three times per bundle call (a common
bundle's vars twice per pass, and the common bundles once more while the policy
loads): on masterfiles some 10,000 evaluations of 3,000 promises.  Everything
here depends only on the promise as written, never on variables, classes or the
pass, so it is computed the first time the promise is met and kept for the run
(the class guard first; the rest once the guard holds, which for about half of
masterfiles' promises it never does on a given host):

* the strings that may drive implicit iteration (promiser, constraint values,
  arguments of functions that are not lazy, a ``$(f)(...)`` function name) and
  whether any of them holds a ``$`` at all (none: the promise has exactly one
  iteration, with no bindings);
* the class guard, parsed (``promise.classes``; None when it is ``any``);
* the constraints the engine reads on every evaluation (``with``, ``handle``,
  ``if``/``ifvarclass``/``unless`` in that order, ``depends_on``);
* its default ``this.handle`` (cf-agent's PromiseID, when it has no handle);
* the promise's file and directory for ``this.promise_filename`` and
  ``this.promise_dirname`` (an absolute path only; a relative one is resolved
  against the working directory each time, as before).

:func:`info` keys a table the agent keeps for its run by ``id(promise)`` and
checks the entry is for that very node, so a promise built later at a recycled
address gets its own entry.
"""
from __future__ import annotations

import os

from cfpromise.eval.context import class_tree
from cfpromise.eval.expand import NeedIteration
from cfpromise.eval.functions.api import REGISTRY
from cfpromise.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterator

    from cfpromise.syntax.classexpr import Tree

CONDITIONS = ("if", "ifvarclass", "unless")
# the attributes of a promise the engine evaluates itself (vars, classes, reports...) that
# its evaluator does not read, but cf-agent's expansion calls at each evaluation
MORE = ("comment", "handle")


class PromiseInfo:
    """The facts about one promise that evaluation cannot change (see the module)."""

    __slots__ = ("promise", "texts", "dynamic", "guard_texts", "static", "guarded", "guard",
                 "with_c", "handle_c", "conditions", "depends_c", "filename", "dirname", "line",
                 "complete", "fresh_c", "apparent", "prelim", "more_calls", "default_handle")

    def __init__(self, promise: ast.Promise, complete: bool = True) -> None:
        """``complete``: False works out only the class guard (``guarded``, ``guard``);
        :meth:`finish` does the rest.  Most promises of a large policy are guarded by
        classes that never hold on the host (masterfiles: about half), and the engine
        needs nothing else of those."""
        self.promise = promise
        self.guarded = promise.classes != "any"
        # the guard's tree, as EvalContext.eval_class_expr reads it (None: never holds)
        self.guard: Tree | None = class_tree(promise.classes) if self.guarded else None
        self.complete = False
        # what expanding it logs of its bare words (cfpromise.agent.apparent; None: not yet)
        self.apparent: tuple[str, ...] | None = None
        # what the preliminary convergence calls of it (cfpromise.agent.prelim.Plan;
        # None: not worked out yet)
        self.prelim: Any = None
        if complete:
            self.finish()

    def finish(self) -> None:
        """Work out the facts besides the guard (see __init__)."""
        promise = self.promise
        self.texts: tuple[str, ...] = tuple(texts(promise))
        self.dynamic = "$" in "".join(self.texts)
        varclass = promise.varclass
        # the texts when a quoted guard iterates too ("$(list).x"::)
        self.guard_texts = self.texts + (varclass,) if varclass is not None else self.texts
        # one iteration without bindings whatever the variables hold (a quoted guard
        # without "$" never iterates)
        self.static = not self.dynamic and (varclass is None or "$" not in varclass)
        self.with_c = promise.get("with")
        handle = promise.get("handle")
        self.handle_c = handle if handle is not None and isinstance(handle.rval, ast.Scalar) \
            else None
        self.conditions = tuple((lval, c) for lval in CONDITIONS
                                if (c := promise.get(lval)) is not None)
        self.depends_c = promise.get("depends_on")
        # its MORE attributes that call a function (cfpromise.agent.prelim.call_more)
        self.more_calls = tuple(c for c in promise.constraints if c.lval in MORE and
                                any(isinstance(r, ast.FnCall) for r in ast.walk_rval(c.rval)))
        # an action body, when the promise calls a function whose result is cached: its
        # ifelapsed decides whether the cache answers (the engine, ENT-7478)
        action = promise.get("action")
        self.fresh_c = action if action is not None and calls_cached(promise) else None
        filename = promise.coord.file
        self.filename = filename if os.path.isabs(filename) else None
        self.dirname = os.path.dirname(filename) if self.filename is not None else None
        self.line = str(promise.coord.line)
        # ``this.handle`` of a promise without one (cf-agent's PromiseID)
        self.default_handle = default_handle(promise)
        self.complete = True

    def paths(self) -> tuple[str, str]:
        """(``this.promise_filename``, ``this.promise_dirname``): cf-agent keeps a relative
        path's "./" and puts the working directory in front."""
        if self.filename is not None:
            return self.filename, self.dirname       # type: ignore[return-value]
        filename = os.path.join(os.getcwd(), self.promise.coord.file)
        return filename, os.path.dirname(filename)


def default_handle(promise: ast.Promise) -> str:
    """cf-agent's name for a promise without a handle: ``promise_`` and its file's
    canonified base name and the line its promiser ends on."""
    from cfpromise.eval.canon import canonify
    line = promise.coord.line + promise.promiser.count("\n")
    return f"promise_{canonify(os.path.basename(promise.coord.file))}_{line}"


def this_handle(handle: str | None, facts: PromiseInfo, ctx: Any = None,
                bindings: dict[str, str] | None = None) -> str:
    """``this.handle``: the promise's own handle expanded (``handle``), canonified (cf-agent's
    PutHandleVariable), else its default name.  cf-agent expands it without the iteration's
    bindings: an iterated list stays as written (``h-$(list)`` is ``h___list_``)."""
    if handle is None or facts.handle_c is None:
        return facts.default_handle
    from cfpromise.eval.canon import canonify
    if bindings and ctx is not None and "$" in facts.handle_c.rval.value:
        from cfpromise.eval.rvals import RvalEvaluator
        handle = RvalEvaluator(ctx, {}).text(facts.handle_c.rval.value)
    return canonify(handle)


def info(table: dict[int, PromiseInfo], promise: ast.Promise) -> PromiseInfo:
    """The :class:`PromiseInfo` of ``promise`` in ``table`` (computed on first use)."""
    found = table.get(id(promise))
    if found is None or found.promise is not promise:
        found = table[id(promise)] = PromiseInfo(promise)
    elif not found.complete:
        found.finish()
    return found


def guard_info(table: dict[int, PromiseInfo], promise: ast.Promise) -> PromiseInfo:
    """The :class:`PromiseInfo` of ``promise`` in ``table``, maybe only its guard worked
    out (see PromiseInfo.__init__): the engine asks this first, and :func:`info` or
    :meth:`PromiseInfo.finish` once the guard holds."""
    found = table.get(id(promise))
    if found is None or found.promise is not promise:
        found = table[id(promise)] = PromiseInfo(promise, complete=False)
    return found


def calls_cached(promise: ast.Promise) -> bool:
    """Whether a constraint of ``promise`` calls a function whose result is cached for
    the run (``execresult()`` and the other system functions)."""
    for c in promise.constraints:
        for r in ast.walk_rval(c.rval):
            if isinstance(r, ast.FnCall):
                fn = REGISTRY.get(r.name)
                if fn is not None and fn.cached:
                    return True
    return False


def texts(promise: ast.Promise) -> Iterator[str]:
    """Every string of a promise that may drive iteration (not lazy function arguments)."""
    yield promise.promiser
    if promise.promisee is not None:     # (iterated too: MapIteratorsFromRval)
        yield from rval_texts(promise.promisee)
    for c in promise.constraints:
        yield from rval_texts(c.rval)


def rval_texts(rval: ast.Rval) -> Iterator[str]:
    if isinstance(rval, ast.Scalar):
        yield rval.value
    elif isinstance(rval, ast.List):
        for item in rval.items:
            yield from rval_texts(item)
    elif isinstance(rval, ast.FnCall):
        if "$" in rval.name:
            yield rval.name           # $(bundles)("z"): the called name iterates too
        fn = REGISTRY.get(rval.name)
        if fn is not None and fn.lazy:
            return
        for arg in rval.args:
            yield from rval_texts(arg)


def quoted_guard(ctx: Any, promise: ast.Promise) -> bool | None:
    """A quoted class guard (``"$(x)"::``, cf-agent's ifvarclass) as the promise meets it:
    None when it does not hold (or does not resolve yet), True when it names a list (a
    guard per iteration, decided with each iteration), False when it holds."""
    exp = ctx.expander(iterate=True)
    try:
        guard = exp.expand(promise.varclass)
    except NeedIteration:
        return True
    if exp.unresolved or not ctx.eval_class_expr(guard):
        return None
    return False


def calls_a_function(promise: ast.Promise) -> bool:
    """Whether any constraint of ``promise`` calls a function."""
    # (loops, not any() over a generator: one that stops early costs its GeneratorExit)
    for c in promise.constraints:
        for r in ast.walk_rval(c.rval):
            if isinstance(r, ast.FnCall):
                return True
    return False
