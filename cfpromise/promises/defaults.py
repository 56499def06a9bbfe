"""defaults promises: give a bundle variable a value when it is undefined, or when its value
matches ``if_match_regex`` -- as cf-agent 3.21's DefaultVarPromise decides it:

* undefined: the default is set;
* a string, int or real: only when ``if_match_regex`` is given and matches the whole value
  (without it, a defined value stays, even an empty one);
* a list: when ``if_match_regex`` matches one of its items, and always without it;
* anything else (a data container): always.

The variable is removed first, so the default may change its type."""
from __future__ import annotations

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.evaluators import Step, evaluator
from cfpromise.promises.vars import define

_SCALARS = frozenset({"string", "int", "real"})
_LISTS = frozenset({"slist", "ilist", "rlist"})


@evaluator("defaults")
def evaluate(step: Step) -> Outcome | None:
    run = step.run
    ns, scope = run.bundle.namespace, run.bundle.name
    current = step.ctx.vars.get(ns, scope, step.promiser)
    if current is not None:
        regex_c = step.promise.get("if_match_regex")
        if current.type in _SCALARS or current.type in _LISTS:
            if regex_c is None:
                if current.type in _SCALARS:
                    return Outcome.KEPT
            else:
                import re
                pattern = step.ev.text(regex_c.rval.value)
                values = current.value if current.type in _LISTS else [current.value]
                if not any(isinstance(v, str) and re.fullmatch(pattern, v) for v in values):
                    return Outcome.KEPT
        step.ctx.vars.remove(ns, scope, step.promiser)
    return define(step, scope, ("string", "slist"))
