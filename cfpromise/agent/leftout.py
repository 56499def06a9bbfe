"""The bundles cf-agent's parser leaves out, as the cf-promises it validates with sees them.

cf-agent 3.21 installs only the bundles of the types it runs (common, agent, edit_line,
edit_xml: cfpromise.schema.deprecations.RELEVANT), and no agent bundle a removed body
hides: a server, monitor, runagent... bundle is not in its policy at all.  The
cf-promises it runs first installs every bundle and resolves their vars as it loads each
file (PolicyResolve): their functions are called (``execresult()``'s command runs) and
their errors printed, as cf-promises prints them, though the agent defines none of their
variables.  :func:`pre_evaluate` is a file's loading round of vars with those bundles in
their place, evaluated for what they say and do only.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cfpromise.syntax import ast


def remember(agent: Any, parsed: ast.Policy, kept: ast.Policy) -> None:
    """``parsed`` (every bundle) was read as ``kept`` (cf-agent's bundles)."""
    files = agent.__dict__.setdefault("left_out_files", {})
    files[id(kept)] = (kept, parsed.bundles)


def every_bundle(agent: Any, policy: ast.Policy) -> tuple[ast.Bundle, ...]:
    """``policy``'s bundles as cf-promises has them: those cf-agent left out too."""
    found = getattr(agent, "left_out_files", {}).get(id(policy))
    return found[1] if found is not None and found[0] is policy else policy.bundles


def in_file_order(agent: Any, bundles: Any) -> list[ast.Bundle]:
    """The policy's ``bundles`` with those cf-agent left out in their places, file by
    file (cf-promises' whole-policy round, :mod:`cfpromise.agent.lockwarn`)."""
    files = getattr(agent, "left_out_files", {})
    if not files:
        return list(bundles)
    home = {id(b): parsed for kept, parsed in files.values() for b in kept.bundles}
    out: list[ast.Bundle] = []
    done: set[int] = set()
    for bundle in bundles:
        parsed = home.get(id(bundle))
        if parsed is None:
            out.append(bundle)
        elif id(parsed) not in done:
            done.add(id(parsed))
            out.extend(parsed)
    return out


def evaluate_for_cf_promises(agent: Any, bundle: ast.Bundle) -> None:
    """A left-out ``bundle``'s vars, for what cf-promises says of them only."""
    sink = getattr(agent.ctx, "fn_messages", None)
    if sink is not None:
        _as_cf_promises(agent, sink, bundle)


def pre_evaluate(agent: Any, policy: ast.Policy) -> None:
    """The vars of the bundles of ``policy`` that are not common, in policy order
    (engine's pre_evaluate_vars), with those the agent left out when it validates."""
    found = getattr(agent, "left_out_files", {}).get(id(policy))
    sink = getattr(agent.ctx, "fn_messages", None)
    if found is None or found[0] is not policy or sink is None or not sink.validating:
        agent.pre_evaluate_vars(policy.bundles)
        return
    kept = {id(b) for b in policy.bundles}
    for bundle in found[1]:
        if id(bundle) in kept:
            agent.pre_evaluate_vars((bundle,))
        elif bundle.type != "common":
            _as_cf_promises(agent, sink, bundle)


def _as_cf_promises(agent: Any, sink: Any, bundle: ast.Bundle) -> None:
    """``bundle``'s vars evaluated for cf-promises' lines and the calls' side effects; the
    variables they defined are removed again."""
    store = agent.ctx.vars
    before = set(store.vars)
    sink.promises_only = True
    try:
        agent.pre_evaluate_vars((bundle,))
    finally:
        sink.promises_only = False
        for key in [k for k in store.vars if k not in before]:
            ns, _, rest = key.partition(":")
            scope, _, name = rest.partition(".")
            store.remove(ns, scope, name)
