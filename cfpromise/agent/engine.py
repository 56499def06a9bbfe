"""The agent: run the bundlesequence, each bundle in normal order with up to three passes.

A run:

1. host discovery (hard classes, ``sys``), ``-D``/``-N`` classes, augments;
2. the policy is loaded (:mod:`cfpromise.agent.loading`): common bundles are
   evaluated in cf-agent's rounds (:meth:`Agent.load_round`: each file's, one more
   before an input written with a variable) so that ``inputs`` holding variables
   resolve;
3. every common bundle is evaluated in one more round (the whole policy's), then
   the bundlesequence (or ``-b``) runs;
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

* here: what the command line asks (:class:`AgentOptions`), the run's state and
  the policy it runs, bundle runs and their passes (a bundle call pushes a frame,
  binds the parameters, makes up to three passes over the normal order, section
  by section, then runs what handlers deferred to the section's end), and bundle
  calls from a promise (:meth:`Agent.call_bundle`);
* :mod:`cfpromise.agent.evaluation`: one promise in one pass (guards, iteration,
  conditions, ``depends_on``), up to its evaluator, or its attributes and bodies
  and its handler;
* :mod:`cfpromise.agent.recording`: outcomes, outcome classes, locks, observers;

The run from start
to end (set-up, loading, the bundlesequence, the failsafe) is
:func:`cfpromise.agent.loading.run_agent`.
"""
from __future__ import annotations

import os
import time

from cfpromise.agent import settle, yyerrors
from cfpromise.agent.abort import AbortBundle, AbortRun, AbortWatch, FatalError
from cfpromise.agent.bodies import BodyResolver
from cfpromise.agent.bundleargs import actual_text, bind
from cfpromise.agent.evaluation import EVALUATORS, PromiseEvaluation
from cfpromise.agent.order import (CALL, CALL_COMMON, LOAD_EVALUATION, LOAD_ROUND, PASSES,
                                   PRE_EVALUATION, RESOLVE, RESOLVE_COMMON, bundle_order)
from cfpromise.agent.outcome import Outcome, merge
from cfpromise.agent.promiseinfo import PromiseInfo
from cfpromise.agent.output import Output
from cfpromise.agent.recording import Recording
from cfpromise.eval.context import EvalContext, Frame
from cfpromise.eval.expand import NeedIteration
from cfpromise.eval.functions.api import Variable
from cfpromise.eval.rvals import Unbound, parameter_value, self_reference
from cfpromise.promises.evaluators import Step
from cfpromise.schema import schema
from cfpromise.syntax import ast
from cfpromise.syntax.names import find_block

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# What the command line asks of a run: option -> default (``list``: a fresh empty list).
# A new option is one row here.
OPTION_DEFAULTS: dict[str, Any] = {
    "bundlesequence": None,
    "define": list,
    "negate": list,
    "ignore_locks": False,
    "dry_run": False,               # -n, and --simulate (cf-agent's DONTDO)
    "simulate": None,               # --simulate=diff|manifest|manifest-full
    "level": "notice",
    "timestamps": False,
    "workdir": "",
    "show_classes": None,
    "show_vars": None,
    "full_check": True,             # cf-agent validates as cf-promises -c does
    "bundle_path": list,            # --bundle-path (cfpromise.agent.autoload)
    "ignore_preferred_augments": False,     # def.json even where def_preferred.json is
    "start_dir": "",                # the working directory the run started in (files
                                    # promises change it, as cf-agent's do); "" = now
}


# the tags of a bundle's parameter, as cf-agent binds it (getvariablemetatags(), the
# --show-evaluated-vars table)
_PARAMETER_TAGS = ("source=promise",)

class AgentOptions:
    """The options of a run (:data:`OPTION_DEFAULTS`).  AgentOptions, BundleRun (and
    the other records on the start path: ast nodes, Frame, Step, PromiseRun) are plain
    slotted classes, not attrs classes: creating attrs classes and importing attrs cost
    about 15 ms of a 60 ms one-report run (see cfpromise/syntax/ast.py)."""

    __slots__ = ("file",) + tuple(OPTION_DEFAULTS)

    def __init__(self, file: str, **options: Any) -> None:
        self.file = file
        for name, default in OPTION_DEFAULTS.items():
            value = options.pop(name, default)
            setattr(self, name, [] if value is list else value)
        if not self.start_dir:
            self.start_dir = os.getcwd()
        if options:
            raise TypeError(f"AgentOptions: unknown option(s) {', '.join(sorted(options))}")

    def evolve(self, **changes: Any) -> "AgentOptions":
        """A copy with ``changes`` applied."""
        values = {name: getattr(self, name) for name in self.__slots__}
        values.update(changes)
        return AgentOptions(**values)



class BundleRun:
    """The state of one bundle call."""

    __slots__ = ("bundle", "frame", "done", "outcomes", "pass_no", "types",
                 "section_end", "settled", "failed")

    def __init__(self, bundle: ast.Bundle, frame: Frame, pass_no: int = 1,
                 types: tuple[str, ...] | None = None) -> None:
        self.bundle = bundle
        self.frame = frame
        # promise iterations done in this call -> the promiser they were done with (None:
        # done whatever it expands to)
        self.done: dict[tuple[Any, ...], str | None] = {}
        self.outcomes: list[Outcome] = []
        self.pass_no = pass_no
        self.types = types          # restricts the promise types (pre-evaluation)
        # callbacks handlers registered for the end of the section being evaluated (see
        # Services.at_section_end), by key; run and cleared when the section ends in each pass
        self.section_end: dict[str, Any] = {}
        # id of a vars/classes promise -> the state in which evaluating it again changes
        # nothing (cfpromise.agent.settle)
        self.settled: dict[int, tuple[int, ...]] = {}
        # classes promises failed in the last pass (recorded once, though evaluated again:
        # cfpromise.promises.classes)
        self.failed: set[tuple[int, str]] | None = None


class Agent(PromiseEvaluation, Recording):
    """One agent run: its state (the policy, the evaluation context, what was done) and
    its bundle runs; evaluating each promise and recording its result are the parts it
    is made of (module docstring), which call one another through ``self``, so a
    subclass or a test sees one object."""

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
        # a vars promise whose function gave a scalar for a list type, as the policy's
        # evaluation at load found it: id(promise) -> (type, value) (cfpromise.agent.precheck)
        self.scalar_lists: dict[int, tuple[str, str]] = {}
        self.policy_cache: Any = None   # parsed policy files kept across runs (run_agent)
        # while the policy loads: the validating cf-promises says what a load round says
        # (cfpromise.agent.loading.load)
        self.validation_echo = False
        self.policy_digests: set[bytes] = set()     # content of the files read (policyfile)
        self.unread: list[str] = []     # what is said of the inputs left out (policyfile.unread)
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
        self.condition_values: Any = None     # (ev, [(lval, value)]) of the last check
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

    def run_bundle(self, bundle: ast.Bundle, args: list[Any], *, inherit: Frame | None = None,
                   types: tuple[str, ...] | None = None, edit: Any = None,
                   keep_arrays: bool = False, called: bool = False,
                   resolve: tuple[str, ...] | None = None) -> BundleRun:
        """Call ``bundle`` with ``args``: up to three passes over its normal order
        (``types``: only those promise types); ``resolve``: no passes, one round of those
        sections instead, as the last pass (cf-agent's BundleResolve while the policy
        loads: :meth:`load_round`)."""
        frame = Frame(bundle.namespace, bundle.name, bundle, inherits=inherit, edit=edit)
        run = BundleRun(bundle, frame, types=types)
        ctx = self.ctx
        # A bundle's variables outlive its call, as in cf-agent: a later call (or another
        # bundle) still sees what an earlier call defined -- except its classic arrays,
        # which each call starts afresh (a methods call; not the bundlesequence's,
        # ``keep_arrays``, nor an edit bundle's: cf-agent clears them in verify_methods
        # only).  Its parameters are bound for the call and gone after it (restored for
        # a recursive call); an edit bundle's stay.
        saved = {param: ctx.vars.get(bundle.namespace, bundle.name, param)
                 for param in bundle.args}
        for param, value in zip(bundle.args, args):
            value = bind(self.out.log, bundle.name, value)      # (ScopeAugment)
            if type(value) is Unbound:  # not bound: as it was (an edit bundle's, from before)
                continue
            type_, value = parameter_value(value)
            refused = self_reference(f"{bundle.namespace}:{bundle.name}.{param}", param, value)
            if refused is not None:                 # cf-agent does not bind it
                self.out.log("error", refused)
                continue
            ctx.set_var(bundle.namespace, bundle.name, param, type_, value, _PARAMETER_TAGS)
            ctx.note_broken(bundle.namespace, bundle.name, param, value)
        if bundle.type != "common" and not keep_arrays and edit is None:
            # after the parameters are bound, as cf-agent (its table's size decides
            # which elements its clearing walk misses: VariableStore.clear_arrays)
            ctx.vars.clear_arrays(bundle.namespace, bundle.name)
        ctx.push(frame)
        ctx.expand_scope(bundle.namespace, bundle.name)
        if ctx.injected:
            ctx.remove_injected(bundle.namespace, bundle.name)     # (CFE-1915)
        started = time.perf_counter()
        for observer in self.observers:
            observer.bundle_started(self, bundle, args)
        trace = self.trace if types is None else None
        if trace is not None:
            trace.bundle_begin(run, args)
        settling = settle.enabled(self)
        try:
            if resolve is not None:
                run.pass_no = PASSES
                self._bundle_resolve(run, settling, trace, resolve)
                return run
            order = bundle_order(bundle)
            if called:      # a methods call resolves the bundle first (VerifyMethod)
                self._bundle_resolve(run, settling, trace, CALL_COMMON if bundle.type == "common"
                                     else CALL)
            for pass_no in range(1, PASSES + 1):
                run.pass_no = pass_no
                for ptype in order:
                    if types is not None and ptype not in types:
                        continue
                    section = bundle.section(ptype)
                    if section is None:
                        continue
                    if ptype not in PRE_EVALUATION:
                        self.world_changes += 1     # may change the host (settle)
                    if trace is not None:
                        trace.section(run, ptype, section)
                    try:
                        settle.run_section(self, run, section, settling)
                    finally:
                        self.end_section(run)
                    if ptype == "classes" and (types is None or "vars" in types) \
                            and edit is None:
                        self._bundle_resolve(run, settling, trace, RESOLVE_COMMON
                                             if bundle.type == "common" else RESOLVE)
        except AbortBundle as exc:
            self.out.log("verbose", f"Bundle {bundle.name} aborted on defined class '{exc}'")
        finally:
            ctx.pop()
            # an edit bundle's parameters stay defined after it, as in cf-agent, and so do
            # those of a bundle the bundlesequence calls (``keep_arrays``): only a methods
            # call takes its bundle's parameters away again
            for param, previous in (() if edit is not None or keep_arrays else saved.items()):
                if previous is None:
                    ctx.vars.remove(bundle.namespace, bundle.name, param)
                else:
                    ctx.vars.set(bundle.namespace, bundle.name, param, previous)
            if trace is not None:
                trace.bundle_end(run)
            for observer in self.observers:
                observer.bundle_finished(self, bundle, run, time.perf_counter() - started)
        return run

    def load_round(self, bundle: ast.Bundle) -> BundleRun:
        """One round of a common bundle while the policy loads: cf-agent's BundleResolve
        in each PolicyResolve (its vars, its classes, its vars again: ``LOAD_ROUND``), with
        what cf-agent has no name for decided at once, as in a last pass (a value still
        holding a reference defined as written, a condition not waiting): cf-agent's
        PolicyResolve has no later pass to wait for.  Values that need later definitions
        converge over the rounds cf-agent makes (each file's, one more before each input
        written with a variable, the whole policy's: :mod:`cfpromise.agent.loading`),
        then the run's passes."""
        return self.run_bundle(bundle, [], types=LOAD_EVALUATION, resolve=LOAD_ROUND)

    def _bundle_resolve(self, run: BundleRun, settling: Any, trace: Any,
                        names: tuple[str, ...]) -> None:
        """cf-agent's BundleResolve (``names``: cfpromise.agent.order): once each pass's
        classes section is done, so that what the new classes allow is known before the
        next section (not in an edit bundle: ScheduleEditLineOperations does not), and
        before a bundle a methods promise calls runs.  The vars say nothing more in the
        -v trace."""
        bundle = run.bundle
        if trace is not None:
            trace.muted += 1
        try:
            with yyerrors.phase(self, 1):
                for name in names:
                    section = bundle.section(name)
                    if section is not None:
                        settle.run_section(self, run, section, settling)
        finally:
            if trace is not None:
                trace.muted -= 1

    def end_section(self, run: BundleRun) -> None:
        """The section of ``run`` being evaluated ended (in this pass): run what handlers
        deferred to this point, in registration order (cf-agent runs its schedule of legacy
        package operations when the packages section ends)."""
        while run.section_end:
            hooks, run.section_end = run.section_end, {}
            for callback in hooks.values():
                callback()

    def eval_section(self, run: BundleRun, section: ast.PromiseSection | None) -> None:
        if section is not None:
            for promise in section.promises:
                self.eval_promise(run, section.name, promise)

    def pre_evaluate_vars(self, bundles: Any = None) -> None:
        """cf-agent resolves the vars of every bundle that is not common as it loads
        each file (PolicyResolve, "pass 0"), so a bundle's variables can be read before
        it runs; unresolved values wait.  A bundle with parameters too, with its
        parameters unbound: what needs them waits for the call, the rest is defined at
        once."""
        ctx = self.ctx
        with yyerrors.phase(self, 1):
            for bundle in self.policy.bundles if bundles is None else bundles:
                if bundle.type != "common":
                    if ctx.injected:                # BundleResolve's first step (CFE-1915)
                        ctx.remove_injected(bundle.namespace, bundle.name)
                    self._pre_evaluate(bundle, [s for s in (bundle.section("vars"),) if s])

    def preliminary_convergence(self, bundles: Any = None, expand: bool = True) -> None:
        """cf-agent's "Preliminary variable/class-context convergence" (3.21's
        libpromises/loading.c), once the whole policy is loaded: every promise of every
        bundle expanded, its functions called, and the meta and vars promises evaluated
        again, bundle by bundle in policy order, section by section as written
        (:mod:`cfpromise.agent.prelim`).  A bundle's meta tags are defined here (so
        bundlesmatching() by tag sees none while files load), and so is a variable the
        earlier passes could not resolve: this is when they enter cf-agent's variable
        table, whose order getindices() and variablesmatching() return.  ``bundles``:
        those the autoloader brought in while the bundles run, whose meta and vars
        promises only are evaluated (cf-agent has no autoloader: the run has begun).
        ``expand`` False: cf-promises' own convergence, the meta and vars promises of
        every bundle without the walk (it calls no other promise's functions)."""
        self.ctx.bundle_names = frozenset(b.name for b in self.policy.bundles)   # (CFE-1915)
        if bundles is None and expand:
            from cfpromise.agent.prelim import converge
            with yyerrors.phase(self, 2):     # (the walk's check, then PolicyResolve's)
                converge(self, BundleRun)
            return
        ctx = self.ctx
        for bundle in self.policy.bundles if bundles is None else bundles:
            if ctx.injected:        # BundleResolve's first step, for every bundle
                ctx.remove_injected(bundle.namespace, bundle.name)
            types = ("meta",) if bundle.type == "common" else ("meta", "vars")
            self._pre_evaluate(bundle, [s for s in bundle.sections if s.name in types])

    def _pre_evaluate(self, bundle: ast.Bundle, sections: list[Any]) -> None:
        if sections:
            frame = Frame(bundle.namespace, bundle.name, bundle)
            run = BundleRun(bundle, frame, pass_no=0)
            self.ctx.push(frame)
            self.ctx.expand_scope(bundle.namespace, bundle.name)
            try:
                for section in sections:
                    self.eval_section(run, section)
            finally:
                self.ctx.pop()

    # -- calling a bundle from a promise ---------------------------------------------
    def find_or_fail(self, name: str, namespace: str, where: str, step: Any = None) -> Any:
        """The agent/common bundle ``name`` seen from ``namespace``; None (skip the promise)
        when it is missing and ``ignore_missing_bundles`` is set, else the run stops with
        cf-agent's fatal error."""
        bundle = self.find_bundle(name, namespace)
        if bundle is None:
            if self.control.get("ignore_missing_bundles") in ("true", "yes", "on"):
                return None
            message = f"A method attempted to use a bundle '{name}' that was apparently " \
                      "not defined"
            step = step if step is not None else self.current_step
            if step is not None:
                # its cfPS (the message, the promise's action log) comes before the abort
                self.out.log("error", message)
                self.failed_before_abort(step)
                message = ""
            fatal = FatalError(message)
            fatal.final = f"Aborting due to missing bundle '{name}'"    # cf-agent's last words
            raise fatal
        return bundle

    def scope_mismatch(self, bundle: Any, args: list[Any]) -> None:
        """cf-agent's ScopeAugment: a bundle called with another number of arguments than
        it takes (none at all excepted) is fatal."""
        from cfpromise.agent.abort import FatalError
        from cfpromise.agent.showeval import list_text      # RlistWrite
        self.out.log("error", f"While constructing scope '{bundle.name}'")
        # (RlistWrite of no list: " {}")
        formal = list_text(list(bundle.args)) or " {}"
        actual = actual_text(args)
        from cfpromise.agent.output import diagnose     # (after the line above)
        diagnose(f"Formal = {formal}, Actual = {actual}")
        fatal = FatalError("")
        fatal.final = "Augment scope, formal and actual parameter mismatch is fatal"
        raise fatal

    def call_bundle(self, bundle: Any, args: list[Any], *, inherit: Any, warn_only: bool,
                    where: str, written: str | None = None) -> tuple[Outcome, Any]:
        """Call ``bundle`` with ``args`` as a methods promise does, and return the merged
        outcome of its promises (kept when it had none) and its BundleRun (None when not
        called).

        No arguments at all: the bundle runs with its parameters undefined; another
        number than it takes is fatal (:meth:`scope_mismatch`), both as in cf-agent.
        Warn-only says the bundle (``written``: its name as the promise gives it) should
        be invoked and does not call it.  ``inherit`` is the caller's frame when classes
        are inherited; the calling promise (``where``) is named at verbose level.
        Shared by methods promises and AgentServices.run_bundle (services, users)."""
        log = self.out.log
        if warn_only:       # (VerifyMethod says it before any parameter is bound)
            log("warning", f"Bundle '{written or f'{bundle.namespace}:{bundle.name}'}' should "
                           "be invoked, but only a warning was promised!")
            return Outcome.WARN, None
        if args and len(bundle.args) != len(args):
            self.scope_mismatch(bundle, args)
        sub = self.run_bundle(bundle, list(args), inherit=inherit, called=True)
        outcome = merge(sub.outcomes)
        if outcome is Outcome.SKIPPED:
            outcome = Outcome.KEPT
        if outcome is Outcome.WARN:
            log("warning", f"Method '{bundle.name}' invoked repairs, but only warnings promised")
        elif outcome.not_kept:
            # 3.21's words exactly (VerifyMethod, for service_bundle and home_bundle too),
            # the caller at verbose level
            log("error", f"Method '{bundle.name}' failed in some repairs")
            log("verbose", f"Method '{bundle.name}' was called by {where}")
        return outcome, sub

    @property
    def services(self) -> Any:
        if self._services is None:
            from cfpromise.agent.services import Services
            self._services = Services(self)
        return self._services


__all__ = ["Agent", "AgentOptions", "AbortBundle", "AbortRun", "BundleRun", "EVALUATORS",
           "FatalError", "NeedIteration", "OPTION_DEFAULTS", "Variable"]
