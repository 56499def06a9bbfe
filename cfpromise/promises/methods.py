"""methods promises: call a bundle (``usebundle``) with arguments, maybe inheriting classes.

The promise's outcome merges the called bundle's promises (failed if any
failed, repaired if any was repaired, else kept).  ``useresult => "r"`` gets the
bundle's return values (reports with ``bundle_return_value_index``) as the
array ``r[...]`` in the calling bundle.  The promise takes a lock (``ifelapsed``,
default one minute) around the call, as cf-agent does: without ``-K`` a second
run within the minute does not call the bundle again.
"""
from __future__ import annotations

from cfpromise.agent.bodies import reference
from cfpromise.agent.outcome import Outcome, merge
from cfpromise.promises.evaluators import Step, evaluator


@evaluator("methods")
def evaluate(step: Step) -> Outcome | None:
    agent = step.agent
    ev = step.ev
    use = step.promise.get("usebundle")
    if use is None:
        name, args = step.promiser, []
    else:
        ref = reference(use.rval, ev)
        if ref is None:
            return Outcome.FAILED
        name, args = ref
    if ev.unresolved:
        if not step.last:
            return None
        if "$(" in name or "${" in name:
            step.log("verbose", f"Skipping {step.where()}: the bundle name '{name}' does not "
                                "resolve")
            return Outcome.SKIPPED
    attributes = agent.attributes(step)
    if attributes is None:
        return None
    step.attributes = attributes
    run = step.run
    bundle = agent.find_bundle(name, run.bundle.namespace)
    if bundle is None:
        if agent.control.get("ignore_missing_bundles") in ("true", "yes", "on"):
            return Outcome.SKIPPED
        from cfpromise.agent.engine import FatalError
        raise FatalError(f"A method attempted to use a bundle '{name}' that was apparently "
                         f"not defined ({step.where()})")
    if len(bundle.args) != len(args):
        step.log("error", f"Bundle '{name}' expects {len(bundle.args)} argument(s), "
                          f"{len(args)} given ({step.where()})")
        return Outcome.FAILED
    action = attributes.get("action") if isinstance(attributes.get("action"), dict) else {}
    if action.get("action_policy") in ("warn", "nop"):
        step.log("warning", f"Bundle '{bundle.name}' should be invoked, but only a warning was "
                            f"promised ({step.where()})")
        return Outcome.WARN
    inherit = attributes.get("inherit") in ("true", "yes", "on")
    key = agent.lock(step, attributes)
    if key is False:
        return Outcome.SKIPPED
    try:
        sub = agent.run_bundle(bundle, list(args), inherit=run.frame if inherit else None)
    finally:
        agent.unlock(key)
    outcome = merge(sub.outcomes)
    if outcome is Outcome.SKIPPED:
        outcome = Outcome.KEPT
    result = attributes.get("useresult")
    if isinstance(result, str) and result:
        for key, value in sub.return_values.items():
            step.ctx.set_var(run.bundle.namespace, run.bundle.name, f"{result}[{key}]",
                             "string", value)
    if outcome is Outcome.WARN:
        step.log("warning", f"Method '{bundle.name}' invoked repairs, but only warnings "
                            "promised")
    elif outcome.not_kept:
        step.log("error", f"Method '{bundle.name}' failed in some repairs")
    return outcome
