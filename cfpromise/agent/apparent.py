"""cf-agent's "Apparent bundle ... was undeclared" error: a bare word that names nothing.

A constraint's value written without quotes (``comment => hello``, ``create => true``,
``usebundle => nosuch``) is, to cf-agent 3.21's parser, a reference: each time a
promise is expanded (DeRefCopyPromise, libpromises/promises.c), such a value is looked
up as a body of the constraint's own type, then as a bundle of that type, of type
agent, of type common; when none answers (and the attribute is not ``if`` or
``ifvarclass``), cf-agent logs

    Apparent bundle 'hello' was undeclared, but used in a promise near line N of FILE
    (possible unquoted literal value)

and goes on with the word as the value.  It expands every promise of every bundle
whose class guard holds once while the policy loads (its preliminary convergence;
custom promise types are not among those sections), then again at each evaluation;
cf-lite says it at the same two moments (:func:`load_round`, and the engine's
:meth:`~cfpromise.agent.evaluation.Evaluation.eval_promise` through :func:`say`).

What a promise would say depends on the policy only, so it is worked out once per
promise and kept in its :class:`~cfpromise.agent.promiseinfo.PromiseInfo`.
"""
from __future__ import annotations

from cfpromise.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# the conditions cf-agent reads as class expressions, never as references
_NOT_REFERENCES = ("if", "ifvarclass")


def lines(agent: Any, bundle: ast.Bundle, promise: ast.Promise) -> tuple[str, ...]:
    """The errors expanding ``promise`` (of ``bundle``) logs, in constraint order."""
    said = []
    namespace = bundle.namespace
    for c in promise.constraints:
        rval = c.rval
        if type(rval) is not ast.Scalar or rval.kind != ast.BARE or c.lval in _NOT_REFERENCES:
            continue
        name = rval.value
        if agent.resolver.find(name, c.lval, namespace) is not None:
            continue
        if agent.find_bundle(name, namespace, (c.lval, "agent", "common")) is not None:
            continue
        said.append(f"Apparent bundle '{name}' was undeclared, but used in a promise near "
                    f"line {promise.coord.line} of {bundle.coord.file} (possible unquoted "
                    f"literal value)")
    return tuple(said)


def say(agent: Any, facts: Any, bundle: ast.Bundle) -> None:
    """Log what expanding the promise of ``facts`` says (worked out on first use)."""
    said = facts.apparent
    if said is None:
        said = facts.apparent = lines(agent, bundle, facts.promise)
    for line in said:
        agent.out.log("error", line)


def load_round(agent: Any) -> None:
    """The expansion of every promise of every bundle while the policy loads: each
    section but a custom promise type's, each promise whose class guard holds now."""
    from cfpromise.agent.promiseinfo import guard_info
    ctx = agent.ctx
    custom = agent.custom_types
    for bundle in agent.policy.bundles:
        for section in bundle.sections:
            if section.name in custom:
                continue
            for promise in section.promises:
                facts = guard_info(agent.infos, promise)
                if facts.guarded and not ctx.class_tree_holds(facts.guard):
                    continue
                say(agent, facts, bundle)
