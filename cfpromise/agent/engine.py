"""The agent: run the bundlesequence, each bundle in normal order with up to three passes.

A run:

1. host discovery (hard classes, ``sys``), ``-D``/``-N`` classes, augments;
2. the policy is loaded (:mod:`cfpromise.agent.loading`): common bundles are
   pre-evaluated so that ``inputs`` holding variables resolve;
3. every common bundle's vars and classes are evaluated, then the
   bundlesequence (or ``-b``) runs;
4. a bundle call pushes a frame, binds the parameters and makes up to three
   passes over its normal order.  In each pass each promise is evaluated:
   class guard, implicit iteration, ``if``/``unless``/``ifvarclass``,
   ``depends_on``; then its evaluator (vars, classes, methods, reports...) or
   its handler (commands, files...) runs.  A promise whose condition does not
   hold is skipped in that pass only (a class a later promise defines may make
   it hold in pass 2 or 3).  A promise iteration is actuated at most once per
   bundle call, unless its promiser expands to another text in a later pass
   (cf-agent's lock is named by the expanded promise); one whose variables are
   still unresolved waits for a later pass and runs in the last pass as
   written -- except in an edit bundle, whose promises act at once, as written,
   and whose "last pass" is the calling agent bundle's (cf-agent's
   EvalContextGetPass), as cf-agent does.  vars and classes are
   evaluated again in every pass so that late definitions converge; once they
   have, an evaluation that cannot change anything is left out
   (:mod:`cfpromise.agent.settle`).
5. outcomes are merged per promise, the ``classes`` body sets outcome
   classes, ``handle`` outcomes feed ``depends_on``.  A handler may defer work
   to the end of the section it runs in (``Services.at_section_end``) and give
   a promise its outcome then (``Services.defer``): cf-agent batches legacy
   package operations that way.

The Agent is made of one part per job, each in its own module:

* :mod:`cfpromise.agent.options`: what the command line asks (AgentOptions);
* :mod:`cfpromise.agent.bundlerun`: bundle runs and their passes, bundle calls;
* :mod:`cfpromise.agent.evaluation`: one promise in one pass (guards, iteration,
  conditions, ``depends_on``), up to its evaluator or handler;
* :mod:`cfpromise.agent.actuation`: attributes and bodies, the handler call;
* :mod:`cfpromise.agent.recording`: outcomes, outcome classes, locks, observers;

and this module holds the run's state and the policy it runs.  The run from start
to end (set-up, loading, the bundlesequence, the failsafe) is
:func:`cfpromise.agent.loading.run_agent`.
"""
from __future__ import annotations

import os

from cfpromise.agent.abort import AbortBundle, AbortRun, AbortWatch, FatalError
from cfpromise.agent.actuation import Actuation
from cfpromise.agent.bodies import BodyResolver
from cfpromise.agent.bundlerun import BundleRun, BundleRuns
from cfpromise.agent.evaluation import EVALUATORS, PromiseEvaluation
from cfpromise.agent.options import OPTION_DEFAULTS, AgentOptions
from cfpromise.agent.outcome import Outcome
from cfpromise.agent.promiseinfo import PromiseInfo
from cfpromise.agent.output import Output
from cfpromise.agent.recording import Recording
from cfpromise.eval.context import EvalContext
from cfpromise.eval.expand import NeedIteration
from cfpromise.eval.functions.api import Variable
from cfpromise.promises.evaluators import Step
from cfpromise.schema import schema
from cfpromise.syntax import ast
from cfpromise.syntax.names import find_block

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Agent(BundleRuns, PromiseEvaluation, Actuation, Recording):
    """One agent run's state: the policy, the evaluation context, what was done.  Its
    jobs are the parts it is made of (module docstring); they call one another through
    ``self``, so a subclass or a test sees one object."""

    def __init__(self, options: AgentOptions, out: Output) -> None:
        self.options = options
        self.out = out
        self.ctx = EvalContext(options.workdir, options.file, dry_run=options.dry_run,
                               log=out.log, simulate=bool(options.simulate))
        self.simulation: Any = None           # the changes chroot (agent/simulate.py)
        self.ctx.inform = out.enabled("info")
        self.schema = schema()
        self.policy = ast.Policy()
        self.bundles: dict[tuple[str, str], list[ast.Bundle]] = {}
        self.bodies: dict[tuple[str, str, str], ast.Body] = {}
        self.resolver = BodyResolver(self.bodies, self.ctx)
        self.handles: dict[str, Outcome] = {}
        self.counts: dict[Outcome, int] = {}
        self.unsupported_seen: set[str] = set()
        self.abortclasses: list[str] = []
        self.abort_watch = AbortWatch()       # check_abort's state
        self.abortbundleclasses: list[str] = []
        self.control: dict[str, Any] = {}
        self.ctx.common_control = self.control   # read by packagesmatching() (package_inventory)
        self.handler_state: dict[str, Any] = {}  # promise types' per-run state (Services.run_state)
        self.agent_control: dict[str, Any] = {}
        self.custom_types: tuple[str, ...] = ()
        self.custom: Any = None               # the run's custom promise types (on first use)
        self.locks: Any = None
        self.actuated: set[str] = set()       # identities of promises actuated in this run
        self.last_identity = ""
        self.agent_pass = 1     # the pass of the agent bundle being evaluated (edit bundles)
        self._services: Any = None
        from cfpromise.agent.persistence import PersistentClasses
        self.persistent = PersistentClasses(options.workdir)
        self.static_cache: dict[int, bool] = {}
        self.infos: dict[int, PromiseInfo] = {}   # what each promise's text says (promiseinfo)
        self.var_names: dict[int, set[str]] = {}  # bundle -> variables defined more than once
        self.current_step: Step | None = None
        self.observers: list[Any] = []
        self.changes: list[dict[str, Any]] = []    # noted by handlers for the current step
        # cfpromise.agent.settle's counters: what may have changed the host or the policy
        # (other sections evaluated, files added), and results that are not final yet
        self.world_changes = 0
        self.deferrals = 0
        self.policy_cache: Any = None   # parsed policy files kept across runs (run_agent)
        # hooks: a bundle no file defines, (name, namespace, types) -> Bundle | None
        # (cfpromise.agent.autoload); which promises run, (run, ptype, promise) -> bool
        # (cfpromise.agent.only)
        self.autoload: Any = None
        self.autoloader: Any = None            # its Autoloader (what was loaded)
        self.promise_filter: Any = None
        # this.promiser_uid/gid/pid/ppid: who runs the promises (this agent process)
        self.trace: Any = None                # the -v trace (cfpromise.agent.trace)
        if out.enabled("verbose"):
            from cfpromise.agent.trace import Trace
            self.trace = Trace(self)
        self.failed_condition = ""            # the if/unless that did not hold (for -v)
        self.promiser_identity = {"promiser_uid": str(os.getuid()),
                                  "promiser_gid": str(os.getgid()),
                                  "promiser_pid": str(os.getpid()),
                                  "promiser_ppid": str(os.getppid())}

    def control_flag(self, name: str) -> bool:
        return self.control.get(name) in ("true", "yes", "on")

    # -- policy -------------------------------------------------------------------
    def add_policy(self, policy: ast.Policy) -> None:
        self.world_changes += 1
        self.policy = self.policy.merged(policy)
        for b in policy.bundles:
            self.bundles.setdefault((b.namespace, b.name), []).append(b)
            self.ctx.bundle_index.append(b)
        for body in policy.bodies:
            self.bodies.setdefault((body.namespace, body.name, body.type), body)
        self.custom_types += tuple(pb.name for pb in policy.promise_blocks)

    def find_bundle(self, name: str, namespace: str,
                    types: tuple[str, ...] = ("agent", "common")) -> ast.Bundle | None:
        found = find_block(self.bundles, name, namespace, types)
        if found is None and self.autoload is not None:
            found = self.autoload(name, namespace, types)
        return found

    @property
    def services(self) -> Any:
        if self._services is None:
            from cfpromise.agent.services import Services
            self._services = Services(self)
        return self._services


__all__ = ["Agent", "AgentOptions", "AbortBundle", "AbortRun", "BundleRun", "EVALUATORS",
           "FatalError", "NeedIteration", "OPTION_DEFAULTS", "Variable"]
