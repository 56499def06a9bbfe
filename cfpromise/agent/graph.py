"""``cf-lite-agent --graph``: the plan of the policy a run would load, printed, nothing run.

The policy is loaded as a run loads it (:mod:`cfpromise.agent.loading`: inputs
holding variables are resolved by evaluating the common bundles), its plan built
(:mod:`cfpromise.agent.plan`), restricted to what ``--only`` selects
(:mod:`cfpromise.agent.only`) and rendered.  It sits above all three, which do
not know one another's entry points.
"""
from __future__ import annotations

from typing import Any

from cfpromise.agent.output import say
from cfpromise.agent.plan import build_plan, render
from cfpromise.agent.programs import validation_failed


def agent_graph(agent: Any, fmt: str = "dot", stream: Any = None,
                only: list[str] | None = None) -> int:
    """``cf-lite-agent --graph``: load the policy as a run would (inputs with variables are
    resolved by evaluating common bundles' vars and classes), print its plan (with
    ``only``, the part ``--only`` selects), run nothing.
    Returns the exit code: 1 when the policy does not load."""
    import sys

    from cfpromise.agent import loading
    from cfpromise.syntax.errors import PolicyError
    loading.prepare_workdir(agent.options.workdir)
    loading.install_facts(agent)
    try:
        loading.load(agent)
    except PolicyError as exc:
        loading.report_errors(exc.diagnostics, agent.options.start_dir)
        say("error", "There are syntax errors in policy files")
        return loading.EXIT_FATAL
    except loading.LoadError as exc:
        loading.report_errors(exc.diagnostics, agent.options.start_dir)
        validation_failed(agent.options)
        return loading.EXIT_FATAL
    for item in agent.options.bundlesequence or ():
        for name in item.split(","):        # -b names load from the bundle path as in a run
            if name:
                agent.find_bundle(name, "default")
    plan = build_plan(agent.policy, path=agent.options.file,
                      bundlesequence=agent.options.bundlesequence)
    if only:                # --only: the selected part (cfpromise.agent.only)
        from cfpromise.agent.only import NothingSelected, restrict_plan
        try:
            plan = restrict_plan(plan, agent.policy, only)
        except NothingSelected as exc:
            say("error", str(exc))
            return loading.EXIT_FATAL
    (stream or sys.stdout).write(render(plan, fmt))
    return loading.EXIT_OK
