"""The policy as the cf-promises cf-agent runs to validate sees it: without -D classes.

cf-agent 3.21 validates a policy by running ``cf-promises -c <file>`` (with ``-b`` and
``--ignore-preferred-augments`` when it was given them; generic_agent.c,
GenericAgentArePromisesValid) and none of its ``-D``/``--define`` classes.  So in that
run a class a common bundle derives from a -D class is not defined, one derived from
its absence (``not``, ``!dd``) is, a ``bundlesequence`` or ``inputs`` guarded by a -D
class is the other one -- and what cf-promises says (its promise-locking warnings,
:mod:`cfpromise.agent.lockwarn`) and whether it accepts the policy follow from that.

cf-lite's agent loads the policy once, with its -D classes.  Only when the run was
given -D classes, validates (:func:`cfpromise.agent.augments.validating`) and has
something the classes can change (a promise that may warn, a class-guarded
bundlesequence) is the policy loaded once more without them, as cf-lite-promises loads
it: its common bundles are evaluated then, as cf-promises evaluates them.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_FAILED = object()

# cf-promises' loading: cfpromise.agent.loading.evaluated_agent, handed over by the
# loading of a run given -D classes (so that this module need not import it: no cycle)
load_view: Any = None


def needed(agent: Any) -> bool:
    """The run has -D classes and validates its policy."""
    if not agent.options.define:
        return False
    from cfpromise.agent.augments import validating
    return validating(agent)


def view(agent: Any) -> Any:
    """cf-promises' loading (an Agent, nothing actuated), made once per run; None when it
    does not load (the agent's own loading reports what is wrong)."""
    found = agent.__dict__.get("promises_view")
    if found is None:
        from cfpromise.agent.policyfile import LoadError
        from cfpromise.syntax.errors import PolicyError
        options = agent.options
        try:
            found = load_view(options.file, options.workdir, full_check=True,
                              bundle_path=options.bundle_path, warn_locking=True,
                              ignore_preferred_augments=options.ignore_preferred_augments)
            found.options.bundlesequence = options.bundlesequence
        except (LoadError, PolicyError):
            found = _FAILED
        agent.promises_view = found
    return None if found is _FAILED else found


def _guarded_sequence(agent: Any) -> bool:
    body = agent.bodies.get(("default", "control", "common"))
    return body is not None and any(c.lval == "bundlesequence" and c.classes != "any"
                                    for c in body.constraints)


def sequence_view(agent: Any) -> Any:
    """The agent whose bundlesequence cf-promises checks (:mod:`cfpromise.agent.sequence`):
    cf-promises' view when -D classes could change which sequence it is, else ``agent``."""
    if needed(agent) and not agent.options.bundlesequence and _guarded_sequence(agent):
        sub = view(agent)
        if sub is not None:
            return sub
    return agent
