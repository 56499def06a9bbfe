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
cf-lite says it at the same two moments (:mod:`cfpromise.agent.prelim`, and the engine's
:meth:`~cfpromise.agent.evaluation.Evaluation.eval_promise` through :func:`say`).

What a promise would say depends on the policy only, so it is worked out once per
promise and kept in its :class:`~cfpromise.agent.promiseinfo.PromiseInfo`.
"""
from __future__ import annotations

from cfpromise.syntax import ast
from cfpromise.syntax.names import candidates, find_block

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
        name, types = rval.value, (c.lval, "agent", "common")
        if _defined(agent, name, c.lval, namespace, types):
            continue
        # not in the policy: what the autoloader would find (cfpromise.agent.autoload)
        if agent.resolver.find(name, c.lval, namespace) is not None \
                or agent.find_bundle(name, namespace, types) is not None:
            continue
        from cfpromise.promises.api import shown_path     # (the file as it was given)
        shown = shown_path(bundle.coord.file, agent.options.start_dir)
        said.append(f"Apparent bundle '{name}' was undeclared, but used in a promise near "
                    f"line {promise.coord.line} of {shown} (possible unquoted literal value)")
    return tuple(said)


def _defined(agent: Any, name: str, lval: str, namespace: str, types: tuple[str, ...]) -> bool:
    """Whether a block the policy defines answers (the common case: a body reference)."""
    bodies = agent.bodies
    for ns, short in candidates(name, namespace):
        if (ns, short, lval) in bodies:
            return True
    return find_block(agent.bundles, name, namespace, types) is not None


def say_once_known(agent: Any, facts: Any, bundle: ast.Bundle) -> None:
    """Log what expanding the promise of ``facts`` says (worked out on first use and
    kept in its PromiseInfo: an empty tuple once it is known to say nothing)."""
    said = facts.apparent
    if said is None:
        said = facts.apparent = lines(agent, bundle, facts.promise)
    say(agent, said)


def say(agent: Any, said: tuple[str, ...]) -> None:
    """Log the lines :func:`lines` worked out for a promise."""
    for line in said:
        agent.out.log("error", line)
