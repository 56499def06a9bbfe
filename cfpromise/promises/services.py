"""services promises: a service brought to a state by a bundle, as cf-agent 3.21 does it.

A services promise is an abstraction over a bundle call.  ``service_policy``
(default start) is any word (start, stop, restart, reload, enable, disable, or a custom one the
bundle understands); the promise calls the ``service_bundle`` of its
``service_method`` body, or, without one, ``default:standard_services(promiser,
policy)`` -- the bundle of the standard library (cf-lite's ``bundles/services.cf``
drives systemd or SysV init) or the policy's own -- unless the promise's namespace has
an agent bundle named ``service_`` + the canonified promiser, which is called with
the same two arguments (DefaultServiceBundleCall).  ``$(this.service_policy)`` is
the policy word while the body is resolved (the engine publishes it, see
``THIS_ATTRIBUTES``), so ``service_bundle => mine($(this.promiser),
$(this.service_policy))`` passes it on.  The promise's outcome is the called
bundle's (repaired if any of its promises repaired, ...), as for methods.

What 3.21 does with the other attributes on Linux, and so does cf-lite:

* ``service_type => "windows"`` is not supported on this platform (info, no
  outcome); any other type (``generic``, default ``bundle``) calls the bundle;
* ``service_dependencies`` naming the promiser itself is an error (no outcome, said
  again in each pass: the check comes before the lock); otherwise dependencies, ``service_dependence_chain``,
  ``service_autostart_policy`` and ``service_args`` are checked against the
  language (by the engine) and left to the bundle: 3.21 passes only the service
  and the policy to it;
* action_policy warn: the bundle is not called, the promise is not kept
  ("should be invoked, but only a warning was promised"); dry run calls the
  bundle, whose own promises then only warn.
"""
from __future__ import annotations

from cfpromise.agent.outcome import Outcome
from cfpromise.eval.canon import canonify
from cfpromise.promises.api import BundleCall, PromiseRun, before_lock, handler

DEFAULT_BUNDLE = "default:standard_services"


def _own_dependency(run: PromiseRun) -> bool:
    deps = run.attributes.get("service_dependencies")
    return isinstance(deps, list) and run.promiser in deps


@before_lock("services")
def sanity(run: PromiseRun) -> None:
    """ServicesSanityChecks, before the lock: said in each pass."""
    if _own_dependency(run):
        run.agent.log("error", f"Service promiser '{run.promiser}' has itself as dependency")
        for line in run.promise_ref():
            run.agent.log("error", line)


@handler("services")
def verify(run: PromiseRun) -> Outcome:
    agent = run.agent
    if _own_dependency(run):
        return Outcome.SKIPPED              # (said by sanity)
    policy = run.attributes.get("service_policy")
    if not isinstance(policy, str) or not policy:
        policy = "start"                 # 3.21's default
    method = run.body("service_method")
    if method.get("service_type") == "windows":
        agent.log("info", "Service type windows not supported on this platform.")
        return Outcome.SKIPPED
    call = method.get("service_bundle")
    if not isinstance(call, BundleCall):
        own = f"service_{canonify(run.promiser)}"
        found = agent.policy_bundle(own, run.namespace)
        call = BundleCall(own if found is not None else DEFAULT_BUNDLE, (run.promiser, policy))
    agent.log("verbose", f"Service '{run.promiser}': policy '{policy}' through bundle "
                         f"'{call.name}'")
    outcome = agent.run_bundle(run, call)
    if outcome is Outcome.REPAIRED:
        # what changed in detail (commands run, files edited) is in the records of the
        # bundle's own promises; this one says which service was brought to which state
        agent.note_change(run, kind="service", service=run.promiser, policy=policy,
                          bundle=call.name, args=[str(a) for a in call.args])
    return outcome
