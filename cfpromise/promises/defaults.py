"""defaults promises: give a bundle variable a value when it is undefined, empty or matches."""
from __future__ import annotations

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.evaluators import Step, evaluator
from cfpromise.promises.vars import define


@evaluator("defaults")
def evaluate(step: Step) -> Outcome | None:
    run = step.run
    current = step.ctx.vars.get(run.bundle.namespace, run.bundle.name, step.promiser)
    regex_c = step.promise.get("if_match_regex")
    if current is not None:
        if regex_c is None:
            if current.value not in ("", [], None):
                return Outcome.KEPT
        else:
            import re
            pattern = step.ev.text(regex_c.rval.value)
            values = current.value if isinstance(current.value, list) else [current.value]
            if not any(isinstance(v, str) and re.fullmatch(pattern, v) for v in values):
                return Outcome.KEPT
    return define(step, run.bundle.name, ("string", "slist"))
