"""methods promises: call a bundle (``usebundle``) with arguments, maybe inheriting classes.

The promise's outcome merges the called bundle's promises (failed if any
failed, repaired if any was repaired, else kept).  ``useresult => "r"`` gets the
bundle's return values (reports with ``bundle_return_value_index``) as the
array ``r[...]`` in the calling bundle.  The promise takes a lock (``ifelapsed``,
default one minute) around the call, as cf-agent does: without ``-K`` a second
run within the minute does not call the bundle again.  The call itself (arity,
warn-only, the merged outcome) is the engine's (``call_bundle`` of the evaluator
contract in :mod:`cfpromise.promises.api`), shared with promise types that call a
bundle (``service_bundle``, ``home_bundle``).
"""
from __future__ import annotations

from cfpromise.agent.bundleargs import PendingArgument, bundle_reference
from cfpromise.agent.outcome import Outcome
from cfpromise.promises.evaluators import Step, evaluator

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@evaluator("methods")
def evaluate(step: Step) -> Outcome | None:
    agent = step.agent
    ev = step.ev
    use = step.promise.get("usebundle")
    if use is None:
        name, args = step.promiser, []
    else:
        before = ev.unresolved
        ref = bundle_reference(use.rval, ev)
        if ref is None:
            return Outcome.FAILED
        name, args = ref
        if ev.unresolved and not before:
            args = _expanded_again(step, args)
    named = "$(" not in name and "${" not in name
    namespace = step.run.bundle.namespace
    if named and agent.find_bundle(name, namespace) is None:
        # VerifyMethod looks the bundle up before it binds any argument: a missing one is
        # fatal in the first pass, whatever the arguments still wait for
        agent.find_or_fail(name, namespace, step.where(), step)
        return Outcome.SKIPPED          # (ignore_missing_bundles)
    if ev.unresolved:
        if not step.last:
            return None         # (cf-lite waits for the values: docs/language.md, passes)
        if not named:
            # the name as far as it expands names no bundle (cf-agent says this in pass 1
            # already)
            step.log("error", "A variable seems to have been used for the name of the "
                              "method. In this case, the promiser also needs to contain the "
                              "unique name of the method")
            if agent.find_or_fail(name, namespace, step.where(), step) is None:
                return Outcome.SKIPPED
    attributes = agent.attributes(step)
    if attributes is None:
        return None
    step.attributes = attributes
    run = step.run
    if agent.seen_before(step, attributes):      # cf-agent's lock cache (promisehash)
        return Outcome.SKIPPED
    bundle = agent.find_or_fail(name, run.bundle.namespace, step.where(), step)
    if bundle is None:
        return Outcome.SKIPPED
    action = attributes.get("action") if isinstance(attributes.get("action"), dict) else {}
    warn_only = action.get("action_policy") in ("warn", "nop")
    inherit = attributes.get("inherit") in ("true", "yes", "on")
    if warn_only or (args and len(bundle.args) != len(args)):
        outcome, sub = agent.call_bundle(bundle, args, inherit=None, warn_only=warn_only,
                                         where=step.where(), written=name)
        return outcome
    key = agent.lock(step, attributes)
    if key is False:
        return Outcome.SKIPPED
    try:
        outcome, sub = agent.call_bundle(bundle, args, inherit=run.frame if inherit else None,
                                         warn_only=False, where=step.where())
    finally:
        agent.unlock(key)
    result = attributes.get("useresult")
    if isinstance(result, str) and result:
        for index, var in _returned(step.ctx, sub.bundle):
            step.ctx.set_var(run.bundle.namespace, run.bundle.name, f"{result}[{index}]",
                             var.type, var.value, ("source=bundle",))
    return outcome


def _returned(ctx: Any, bundle: Any) -> list[tuple[str, Any]]:
    """The called bundle's return values (GetReturnValue): each ``last-result[INDEX]`` of
    its scope, from this call or an earlier one, in the variable table's order."""
    from cfpromise.eval.variables import split_indices
    prefix = f"{bundle.namespace}:{bundle.name}."
    found = {prefix + name: var for name, var in
             ctx.vars.scope_items(bundle.namespace, bundle.name)
             if name.startswith("last-result[")}
    out = []
    for key in ctx.vars.table_order(list(found)):
        base, indices = split_indices(key[len(prefix):])
        if base == "last-result" and len(indices) == 1:
            out.append((indices[0], found[key]))
    return out


def _expanded_again(step: Step, args: list[Any]) -> list[Any]:
    """cf-agent expands a bundle's arguments once more as it binds them, in the called
    bundle's scope: a reference that a value brought in (a data container's or a
    function-made array's element) resolves there when it is qualified; an unqualified
    one names nothing yet and stays as written (so the parameter holds it)."""
    from cfpromise.eval.expand import Expander
    ctx = step.ctx
    resolve = ctx.resolve_ref

    def qualified(ref: str) -> Any:
        return resolve(ref) if ("." in ref.split("[", 1)[0] or ":" in ref) else None

    exp = Expander(qualified, ctx.current_bindings)
    out = [exp.expand(a) if isinstance(a, str) and "$" in a
           and not isinstance(a, PendingArgument) else a for a in args]
    step.ev.unresolved = any(isinstance(a, str) and ("$(" in a or "${" in a) for a in out)
    return out
