"""When evaluating a vars or classes promise again cannot change anything.

A bundle call evaluates its vars section twice per pass (before and after its
classes) and its classes once, for up to three passes, so that values defined
late converge: up to six evaluations of every vars promise whose value is not a
constant (and a round of vars, classes, vars for each common bundle in each of
cf-agent's PolicyResolves while the policy loads).  Once
the values have converged the later evaluations redo the same work for the same
result.  This module tells the engine when it may leave such an evaluation out,
keeping the results exactly as they were.

The rule is a fixed point.  Evaluating a vars or classes promise is a function
of what it reads: the variables, the classes, the bundles loaded, the promises
of the call already done, and (through functions such as ``fileexists()``) the
host.  Call the state before an evaluation *S*.  If an evaluation of the
promise starting in *S*

* changed no variable and no class (so it ended in *S* too),
* logged nothing that is shown (a line would be missing otherwise; a message
  below the output's level is not shown, and the level is part of the state), and
* deferred nothing: it did not wait for a later pass, and its result did not
  depend on whether the pass is the last one (an unresolved value is defined as
  written, a function error is logged, an unresolved condition is decided only
  in the last pass),

then evaluating it again in state *S* does the same again: nothing changes and
nothing is said.  The engine records *S* as the promise's settled state in the
bundle call and leaves out an evaluation of it while the state is still *S*.
So a converged pass costs one evaluation of each promise, and the passes after
it only evaluate what still waits (and, after that changed something, the rest
again).

The state is compared through counters, never by copying it: the variable
store and the context count their changes (storing an equal value counts none,
see :func:`cfpromise.eval.variables.same_variable`), the output counts the log
lines it shows, and the agent counts what may change the host or the policy:
any other section evaluated (files, commands, methods...), any policy file
added, and any outcome of a handle (what ``depends_on`` reads).  Functions that run commands (``execresult()``...) are memoised for the
run and the time functions read the run's start, so they answer the same each
time; ``randomint()`` does not (:data:`VARYING`): a promise calling it never settles,
nor does one with an action body that calls a memoised function (``ifelapsed => "0"``
calls it again each time, ENT-7478).

The rule is off while something watches every evaluation: the ``-v`` trace,
an observer that counts evaluations (:attr:`Observer.every_evaluation`, the run
report does), ``--only``'s promise filter, and an output that does not count the
lines it shows.
"""
from __future__ import annotations

from cfpromise.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# the promise types the rule applies to (their evaluators only read the state and
# define variables or classes)
SETTLING = frozenset({"vars", "classes"})


def state(agent: Any) -> tuple[int, ...]:
    """The counters that stand for the state an evaluation reads (see the module)."""
    ctx = agent.ctx
    out = agent.out
    return (ctx.vars.changes, ctx.class_changes, out.shown, out.threshold, agent.world_changes)


def enabled(agent: Any) -> bool:
    """Whether nothing watches every evaluation (see the module)."""
    return agent.trace is None and agent.promise_filter is None and not any(
        getattr(o, "every_evaluation", False) for o in agent.observers) \
        and isinstance(getattr(agent.out, "shown", None), int)   # an output that counts


def run_section(agent: Any, run: Any, section: Any, settling: bool) -> None:
    """Evaluate ``section``'s promises in bundle call ``run``, leaving out a vars or
    classes promise whose evaluation would change nothing: evaluated before in this
    very state without effect (``settling``: the rule is on, see :func:`enabled`)."""
    name = section.name
    if not settling or name not in SETTLING:
        for promise in section.promises:
            agent.eval_promise(run, name, promise)
        return
    settled = run.settled
    now = state(agent)      # nothing happens between two promises of the section
    for promise in section.promises:
        if settled.get(id(promise)) == now:
            continue
        before, deferrals = now, agent.deferrals
        agent.eval_promise(run, name, promise)
        now = state(agent)
        if agent.deferrals == deferrals and now == before and not varying(agent, promise):
            settled[id(promise)] = before


# functions whose result differs from call to call though nothing else changed: a
# promise calling one is evaluated in every pass, as in cf-agent (an evaluation that
# changed nothing says nothing about the next one)
VARYING = frozenset({"randomint"})


def varying(agent: Any, promise: Any) -> bool:
    memo = agent.handler_state.setdefault("settle.varying", {})
    found = memo.get(id(promise))
    if found is None or found[0] is not promise:
        hit = _calls_varying(promise)
        if not hit and promise.get("action") is not None:
            from cfpromise.agent.promiseinfo import calls_cached     # (rare: not on start)
            hit = calls_cached(promise)
        found = memo[id(promise)] = (promise, hit)
    return found[1]


def _calls_varying(promise: Any) -> bool:
    # (loops, not any() over a generator: one that stops early costs its GeneratorExit;
    # and the import once, not in each of the 900 promises' first call)
    for c in promise.constraints:
        for r in ast.walk_rval(c.rval):
            if isinstance(r, ast.FnCall) and r.name in VARYING:
                return True
    return False
