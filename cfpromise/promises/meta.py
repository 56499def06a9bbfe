"""meta promises: tags about the bundle, kept as variables of the scope ``<bundle>_meta``."""
from __future__ import annotations

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.evaluators import Step, evaluator
from cfpromise.promises.vars import define


@evaluator("meta")
def evaluate(step: Step) -> Outcome | None:
    return define(step, step.run.bundle.name + "_meta", ("string", "slist", "data"))
