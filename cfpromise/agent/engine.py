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
"""
from __future__ import annotations

import os
import time

from cfpromise.agent import loading, settle
from cfpromise.agent.abort import AbortBundle, AbortRun, AbortWatch
from cfpromise.agent.actionlog import write_action_log
from cfpromise.agent.bodies import (BodyError, BodyResolver, InheritanceError, body_reference,
                                     reference)
from cfpromise.schema.values import ValueError_, runtime_check
from cfpromise.agent.order import PASSES, PRE_EVALUATION, bundle_order
from cfpromise.agent.outcome import Outcome, merge
from cfpromise.agent.promiseinfo import PromiseInfo, guard_info, info as promise_info
from cfpromise.agent.output import Output
from cfpromise.eval.context import EvalContext, Frame
from cfpromise.eval.expand import NeedIteration, combinations
from cfpromise.eval.functions.api import Variable
from cfpromise.eval.rvals import (NO_WITH, UNRESOLVED, RvalEvaluator, as_text, parameter_value,
                                  refers_to, with_value)
from cfpromise.promises.api import THIS_ATTRIBUTES, BundleCall, PromiseRun, handler_for
from cfpromise.promises.evaluators import Step, load as _load_evaluators
from cfpromise.schema import schema
from cfpromise.syntax import ast
from cfpromise.syntax.names import find_block

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterator

# promise type -> the engine's own evaluator (vars, classes, meta, defaults, methods, reports)
EVALUATORS = _load_evaluators()


class FatalError(Exception):
    """An error that stops the run with exit code 1, as cf-agent's fatal errors do."""


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
}


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
        if options:
            raise TypeError(f"AgentOptions: unknown option(s) {', '.join(sorted(options))}")

    def evolve(self, **changes: Any) -> "AgentOptions":
        """A copy with ``changes`` applied."""
        values = {name: getattr(self, name) for name in self.__slots__}
        values.update(changes)
        return AgentOptions(**values)


class BundleRun:
    """The state of one bundle call."""

    __slots__ = ("bundle", "frame", "done", "outcomes", "return_values", "pass_no", "types",
                 "section_end", "settled")

    def __init__(self, bundle: ast.Bundle, frame: Frame, pass_no: int = 1,
                 types: tuple[str, ...] | None = None) -> None:
        self.bundle = bundle
        self.frame = frame
        # promise iterations done in this call -> the promiser they were done with (None:
        # done whatever it expands to)
        self.done: dict[tuple[Any, ...], str | None] = {}
        self.outcomes: list[Outcome] = []
        self.return_values: dict[str, str] = {}
        self.pass_no = pass_no
        self.types = types          # restricts the promise types (pre-evaluation)
        # callbacks handlers registered for the end of the section being evaluated (see
        # Services.at_section_end), by key; run and cleared when the section ends in each pass
        self.section_end: dict[str, Any] = {}
        # id of a vars/classes promise -> the state in which evaluating it again changes
        # nothing (cfpromise.agent.settle)
        self.settled: dict[int, tuple[int, ...]] = {}


class Agent:
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

    # -- running bundles ----------------------------------------------------------
    def run_bundle(self, bundle: ast.Bundle, args: list[Any], *, inherit: Frame | None = None,
                   types: tuple[str, ...] | None = None, edit: Any = None,
                   keep_arrays: bool = False) -> BundleRun:
        frame = Frame(bundle.namespace, bundle.name, bundle, inherits=inherit, edit=edit)
        run = BundleRun(bundle, frame, types=types)
        ctx = self.ctx
        # A bundle's variables outlive its call, as in cf-agent: a later call (or another
        # bundle) still sees what an earlier call defined -- except its classic arrays,
        # which each call starts afresh (a methods call; not the bundlesequence's,
        # ``keep_arrays``: cf-agent clears them in verify_methods only).  Its parameters
        # are bound for the call and gone after it (restored for a recursive call).
        saved = {param: ctx.vars.get(bundle.namespace, bundle.name, param)
                 for param in bundle.args}
        for param, value in zip(bundle.args, args):
            type_, value = parameter_value(value)
            ctx.set_var(bundle.namespace, bundle.name, param, type_, value)
        if bundle.type != "common" and not keep_arrays:
            # after the parameters are bound, as cf-agent (its table's size decides
            # which elements its clearing walk misses: VariableStore.clear_arrays)
            ctx.vars.clear_arrays(bundle.namespace, bundle.name)
        ctx.push(frame)
        started = time.perf_counter()
        for observer in self.observers:
            observer.bundle_started(self, bundle, args)
        trace = self.trace if types is None else None
        if trace is not None:
            trace.bundle_begin(run, args)
        settling = settle.enabled(self)
        try:
            order = bundle_order(bundle)
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
                        # cf-agent evaluates the vars again once the classes are known
                        # (not in an edit bundle: ScheduleEditLineOperations does not)
                        if trace is not None:
                            trace.muted += 1
                        try:
                            vars_section = bundle.section("vars")
                            if vars_section is not None:
                                settle.run_section(self, run, vars_section, settling)
                        finally:
                            if trace is not None:
                                trace.muted -= 1
        except AbortBundle as exc:
            self.out.log("verbose", f"Bundle {bundle.name} aborted on defined class '{exc}'")
        finally:
            ctx.pop()
            for param, previous in saved.items():
                if previous is None:
                    ctx.vars.remove(bundle.namespace, bundle.name, param)
                else:
                    ctx.vars.set(bundle.namespace, bundle.name, param, previous)
            if trace is not None:
                trace.bundle_end(run)
            for observer in self.observers:
                observer.bundle_finished(self, bundle, run, time.perf_counter() - started)
        return run

    def end_section(self, run: BundleRun) -> None:
        """The section of ``run`` being evaluated ended (in this pass): run what handlers
        deferred to this point, in registration order (cf-agent runs its schedule of legacy
        package operations when the packages section ends)."""
        while run.section_end:
            hooks, run.section_end = run.section_end, {}
            for callback in hooks.values():
                callback()

    def record_later(self, step: Step, outcome: Outcome,
                     changes: list[dict[str, Any]] | None = None) -> None:
        """Record a result a handler reached for ``step``'s promise after it returned (from
        a section-end callback): outcome classes, counts, handles, run reports -- as if the
        handler had returned it."""
        previous, self.current_step = self.current_step, step
        try:
            self.record(step.run, step, outcome, list(changes or ()))
        finally:
            self.current_step = previous

    def eval_section(self, run: BundleRun, section: ast.PromiseSection | None) -> None:
        if section is not None:
            for promise in section.promises:
                self.eval_promise(run, section.name, promise)

    def pre_evaluate_vars(self, bundles: Any = None) -> None:
        """cf-agent resolves the meta tags and vars of every bundle before the run
        ("pass 0"), so a bundle's variables can be read, and bundlesmatching() sees its
        tags, before it runs; unresolved values wait.  A bundle with parameters too
        (PolicyResolve), with its parameters unbound: what needs them waits for the
        call, the rest is defined at once."""
        for bundle in self.policy.bundles if bundles is None else bundles:
            if bundle.type == "common":
                continue
            types = ("meta", "vars")
            sections = [sec for sec in map(bundle.section, types) if sec is not None]
            if not sections:
                continue
            frame = Frame(bundle.namespace, bundle.name, bundle)
            run = BundleRun(bundle, frame, pass_no=0)
            self.ctx.push(frame)
            try:
                for section in sections:
                    self.eval_section(run, section)
            finally:
                self.ctx.pop()

    def eval_promise(self, run: BundleRun, ptype: str, promise: ast.Promise) -> None:
        if self.promise_filter is not None and not self.promise_filter(run, ptype, promise):
            return
        facts = self.infos.get(id(promise))
        if facts is None or facts.promise is not promise:
            facts = guard_info(self.infos, promise)
        ctx = self.ctx
        if facts.guarded and not ctx.class_tree_holds(facts.guard):
            return
        if not facts.complete:
            facts.finish()      # the rest of the facts, once the guard holds
        if facts.static and self.trace is None and (id(promise), ()) in run.done:
            return      # its one iteration is done: the checks below would change nothing
        iterated_guard = False
        if promise.varclass is not None:
            exp = ctx.expander(iterate=True)
            try:
                guard = exp.expand(promise.varclass)
            except NeedIteration:
                iterated_guard = True       # "$(list).x":: is a guard per iteration
            else:
                if exp.unresolved or not ctx.eval_class_expr(guard):
                    if self.trace is not None and run.types is None and run.pass_no:
                        self.trace.skipped_guard(promise)   # cf-agent: an ifvarclass
                    return
        frame = run.frame
        if frame.edit is None:
            self.agent_pass = run.pass_no
            last = run.pass_no == PASSES
        else:
            # cf-agent's EvalContextGetPass() in an edit bundle is the pass of the agent
            # bundle whose files promise runs it (the edit bundle's own three passes do not
            # set it): a report holding unresolved variables is never printed there unless
            # that files promise runs in the last pass
            last = self.agent_pass == PASSES
        filename, dirname = facts.paths()
        base_this = {"promise_filename": filename,
                     "promise_dirname": dirname,
                     "promise_linenumber": facts.line,
                     "bundle": run.bundle.name, "namespace": run.bundle.namespace,
                     **self.promiser_identity}
        trace = self.trace if run.types is None and run.pass_no else None
        with_c, handle_c = facts.with_c, facts.handle_c
        # no "$" anywhere: one iteration without bindings, no probing
        iterations = self.iterations(promise, iterated_guard) if facts.dynamic or iterated_guard \
            else ({},)
        for index, bindings in enumerate(iterations, 1):
            key = (id(promise), tuple(sorted(bindings.items())) if bindings else ())
            again = key in run.done
            if again and (run.done[key] is None or not facts.dynamic or
                          ("$" not in promise.promiser and "@" not in promise.promiser)):
                if trace is not None:
                    trace.again(run, key)
                continue
            if iterated_guard and not self.guard_holds(promise.varclass, bindings):
                if trace is not None:
                    trace.skipped_guard(promise)
                continue
            frame.this = dict(base_this)
            ev = RvalEvaluator(ctx, bindings)
            frame.extra = {}
            if with_c is not None:
                value = with_value(ev, with_c.rval)
                if value is not UNRESOLVED and value is not NO_WITH:
                    text = as_text(value)
                    if refers_to(text, "with"):     # cf-agent refuses it (EvalContextVariablePut)
                        said = self.__dict__.setdefault("with_self_refs", set())
                        if (id(promise), text) not in said:
                            said.add((id(promise), text))
                            self.out.log("error", "The value of variable 'default:this.with' "
                                                  f"contains a reference to itself, '{text}'")
                    else:
                        frame.extra = {"with": Variable("string", text)}
            # $(this.handle) may be used in the promiser (cf-agent defines it first)
            handle = ev.text(handle_c.rval.value) if handle_c is not None else None
            if handle:
                frame.this["handle"] = handle
            unresolved, ev.unresolved = ev.unresolved, False
            promiser = ev.text(promise.promiser)
            if again:
                # done in an earlier pass: again only if its promiser now expands to another
                # text (a variable it holds changed: randomint(), a list grown...) --
                # cf-agent's lock is named by the expanded promise, a new one there
                if ev.unresolved or promiser == run.done[key]:
                    if trace is not None:
                        trace.again(run, key)
                    continue
                del run.done[key]
            ev.unresolved = ev.unresolved or unresolved
            frame.this["promiser"] = promiser
            frame.promiser = promiser
            frame.ptype = ptype
            frame.promise = promise
            if facts.conditions:
                decision = self.conditions(promise, ev, last, facts.conditions)
            else:
                self.failed_condition = ""
                decision = True
            if decision is None:
                self.deferrals += 1
                if trace is not None:
                    trace.skipped(run, promise, self.failed_condition, key, False)
                continue
            if not decision:
                # not done: cf-agent evaluates the condition again in the next pass, where a
                # class a later promise of the bundle defined may make it hold
                if trace is not None:
                    trace.skipped(run, promise, self.failed_condition, key, False)
                continue
            if trace is not None and self.failed_condition == "-unless":
                trace.not_skipped(ptype, promise, "unless")
                self.failed_condition = ""
            if facts.depends_c is not None and self.depends_on(promise, ev, run, key):
                self.deferrals += 1
                continue
            step = Step(self, run, ptype, promise, bindings, ev, promiser, last, handle)
            evaluator = EVALUATORS.get(ptype)
            if trace is not None:
                trace.begin(step, index, key)
            outer, self.changes = self.changes, []     # nested steps (edit bundles) keep their own
            started = time.perf_counter()
            outcome = None
            try:
                outcome = evaluator(step) if evaluator is not None else self.actuate(step)
            finally:
                step_changes, self.changes = self.changes, outer
                if trace is not None:
                    trace.end(step, outcome, key)
            step.seconds = time.perf_counter() - started
            if outcome is None:
                self.deferrals += 1
                continue
            if ptype not in ("vars", "classes") or outcome is not Outcome.SKIPPED:
                if ptype != "vars" or (outcome is Outcome.KEPT and self.static_var(run, promise)):
                    run.done[key] = promiser
            if outcome is Outcome.SKIPPED:
                continue
            self.record(run, step, outcome, step_changes)
            if trace is not None:
                trace.close(step)

    def static_var(self, run: BundleRun, promise: ast.Promise) -> bool:
        """A vars promise whose value cannot change (no reference, no function call) and
        whose variable no other promise of the bundle defines: evaluating it again in
        later passes would give the same result, so it is done once defined."""
        cache = self.static_cache
        found = cache.get(id(promise))
        if found is None:
            names = self.var_names.get(id(run.bundle))
            if names is None:
                counts: dict[str, int] = {}
                section = run.bundle.section("vars")
                for p in section.promises if section is not None else ():
                    counts[p.promiser] = counts.get(p.promiser, 0) + 1
                names = self.var_names[id(run.bundle)] = {n for n, c in counts.items() if c > 1}
            found = promise.promiser not in names and not any(
                "$" in t or "@" in t for t in promise_info(self.infos, promise).texts) and not any(
                isinstance(r, ast.FnCall) for c in promise.constraints for r in ast.walk_rval(c.rval))
            cache[id(promise)] = found
        return found

    def guard_holds(self, varclass: str, bindings: dict[str, str]) -> bool:
        """A quoted class guard holding a list, expanded with one iteration's bindings."""
        exp = self.ctx.expander(bindings)
        guard = exp.expand(varclass)
        return not exp.unresolved and self.ctx.eval_class_expr(guard)

    def iterations(self, promise: ast.Promise,
                   with_guard: bool = False) -> Iterator[dict[str, str]]:
        facts = promise_info(self.infos, promise)
        texts = facts.guard_texts if with_guard else facts.texts
        if not any("$" in t for t in texts):
            yield {}
            return
        ctx = self.ctx

        def probe(bindings: dict[str, str]) -> None:
            exp = ctx.expander(bindings, iterate=True)
            for text in texts:
                exp.scan(text)
        yield from combinations(probe)

    def conditions(self, promise: ast.Promise, ev: RvalEvaluator, last: bool,
                   constraints: tuple[tuple[str, ast.Constraint], ...] | None = None
                   ) -> bool | None:
        """True to go on, False to skip, None to wait for a later pass.  ``constraints``:
        the promise's if/ifvarclass/unless, in that order (PromiseInfo.conditions)."""
        self.failed_condition = ""
        if constraints is None:
            constraints = promise_info(self.infos, promise).conditions
        for lval, c in constraints:
            before = ev.unresolved
            ev.unresolved = False
            value = ev.value(c.rval)
            unresolved, ev.unresolved = ev.unresolved, before
            if value is UNRESOLVED or unresolved:
                if lval == "unless" and last:
                    self.failed_condition = "-unless"       # not skipped: -v says so
                    continue
                self.failed_condition = lval
                return None if not last else False
            truth = value if isinstance(value, bool) else self.ctx.eval_class_expr(as_text(value))
            if (lval == "unless") == truth:
                self.failed_condition = lval
                return False
        return True

    def depends_on(self, promise: ast.Promise, ev: RvalEvaluator, run: BundleRun,
                   key: tuple[Any, ...]) -> bool:
        """True while the promise must wait for its dependencies."""
        c = promise.get("depends_on")
        if c is None:
            return False
        handles = ev.value(c.rval, want_list=True)
        if not isinstance(handles, list):
            handles = [handles]
        for handle in handles:
            outcome = self.handles.get(handle)
            if outcome is None:
                if self.trace is not None and run.types is None:
                    self.trace.waiting(run, ev.text(promise.promiser), handle, key, False)
                if run.pass_no == PASSES and run.types is None:
                    step = _SkippedStep(run, promise, ev.text(promise.promiser))
                    self.counts[Outcome.SKIPPED] = self.counts.get(Outcome.SKIPPED, 0) + 1
                    for observer in self.observers:
                        observer.promise_waiting(self, step, handle)
                return True
            if outcome.not_kept:
                promiser = ev.text(promise.promiser)
                if self.trace is not None and run.types is None:
                    self.trace.waiting(run, promiser, handle, key, True)
                reason = f"it depends on '{handle}', which was not kept ({outcome.value})"
                self.out.log("notice", f"Skipping promise '{promiser}' "
                                       f"({promise.coord.file}:{promise.coord.line}): {reason}")
                run.done[key] = None
                self.counts[Outcome.SKIPPED] = self.counts.get(Outcome.SKIPPED, 0) + 1
                for observer in self.observers:
                    observer.promise_skipped(self, _SkippedStep(run, promise, promiser), reason)
                return True
        return False

    # -- actuation ----------------------------------------------------------------
    def attributes(self, step: Step) -> dict[str, Any] | None:
        """Every constraint evaluated; bodies resolved.  None: unresolved, wait."""
        table = self.schema.promise_types.get(step.ptype)
        custom = table is None
        if table is None:
            from cfpromise.promises.custom.handler import common_attributes
            table = common_attributes(self.schema)
        out: dict[str, Any] = {}
        ev = step.ev
        for c in step.promise.constraints:
            if c.lval in ("if", "ifvarclass", "unless", "depends_on"):
                continue
            attr = table.get(c.lval)
            kind = attr.type if attr is not None else ""
            if custom and attr is None and (value := self.custom_body(c, step)) is not None:
                pass                       # a body of a custom promise: sent as an object
            elif kind == "body":
                value = self.body(c.lval, c.rval, step)
                if value is None:
                    return None
            elif kind == "bundle":
                ref = reference(c.rval, ev)
                if ref is None:
                    continue
                value = BundleCall(ref[0], tuple(ref[1]))
            else:
                value = ev.value(c.rval, want_list=attr.is_list if attr is not None else custom)
                if value is UNRESOLVED:
                    value = None
                elif attr is not None and not ev.unresolved:
                    try:
                        runtime_check(c.lval, value, kind, attr.range)
                    except ValueError_ as exc:
                        raise FatalError(f"{c.coord.file}:{c.coord.line}: {exc}") from None
            out[c.lval] = value
        for lval, attr in table.items():
            if attr.type == "body" and lval not in out and step.promise.get(lval) is None:
                default = self.default_body(step, lval)
                if default is not None:
                    out[lval] = default
        if ev.unresolved and step.run.frame.edit is None and not step.last:
            return None     # (an edit promise acts at once, as written, as in cf-agent)
        return out

    def custom_body(self, c: ast.Constraint, step: Step) -> dict[str, Any] | None:
        """A custom promise's attribute that names a body of its type, as the object
        cf-agent sends the module; None when it names none."""
        from cfpromise.promises.custom.bodies import body_container
        try:
            return body_container(self.resolver, c.lval, c.rval, step.ev,
                                  step.run.bundle.namespace, step.bindings)
        except InheritanceError as exc:
            raise FatalError(str(exc)) from None
        except BodyError as exc:
            self.out.log("error", f"{exc} (in {step.where()})")
            return None

    def default_body(self, step: Step, lval: str) -> dict[str, Any] | None:
        """The body ``bodydefault:<promise type>_<attribute>`` stands in for a body
        attribute the promise does not set (cf-agent's default bodies)."""
        name = f"{step.ptype}_{lval}"
        if ("bodydefault", name, lval) not in self.bodies:
            return None
        self.out.log("verbose", f"Using the default body: {name}")
        try:
            return self.resolver.resolve(lval, f"bodydefault:{name}", [], "bodydefault",
                                         step.bindings)
        except BodyError as exc:
            self.out.log("error", f"{exc} (in {step.where()})")
            return None

    def body(self, body_type: str, rval: ast.Rval, step: Step) -> dict[str, Any] | None:
        ref = body_reference(rval, step.ev)
        if ref is None:
            return {}
        try:
            return self.resolver.resolve(body_type, ref[0], ref[1], step.run.bundle.namespace,
                                         step.bindings)
        except InheritanceError as exc:
            raise FatalError(str(exc)) from None
        except BodyError as exc:
            self.out.log("error", f"{exc} (in {step.where()})")
            return {}

    def actuate(self, step: Step) -> Outcome | None:
        ptype = step.ptype
        handler = handler_for(ptype, self.custom_handler)
        if handler is None:
            return self.unsupported(step)
        for name, default in THIS_ATTRIBUTES.get(ptype, {}).items():
            c = step.promise.get(name)
            value = step.ev.value(c.rval) if c is not None else default
            if value is not UNRESOLVED:
                step.run.frame.this[name] = as_text(value)
        attributes = self.attributes(step)
        if attributes is None:
            return None
        step.attributes = attributes
        if self.seen_before(step, attributes):
            return Outcome.SKIPPED
        promisee = step.promise.promisee
        if promisee is not None:
            promisee = step.ev.value(promisee, want_list=True)
        run = PromiseRun(step.promise, ptype, step.promiser, attributes,
                         step.run.bundle.namespace, step.run.bundle.name, self.services,
                         None if promisee is UNRESOLVED else promisee)
        key = self.lock(step, attributes)
        if key is False:
            return Outcome.SKIPPED
        previous, self.current_step = self.current_step, step
        outcome: Outcome | None = None
        try:
            outcome = handler(run)
            return outcome
        finally:
            self.current_step = previous
            if outcome is None:
                self.actuated.discard(self.last_identity)   # "try again next pass"
            self.unlock(key)

    def custom_handler(self, ptype: str) -> Any:
        """Promise types that are not built in are custom ones, carried out by the
        promise module their ``promise`` block names (or undefined: an error)."""
        if ptype in self.schema.promise_types:
            return None                      # built in, not supported yet
        if self.custom is None:
            from functools import partial
            from cfpromise.promises.custom.handler import evaluate
            from cfpromise.promises.custom.registry import CustomTypes
            self.custom = partial(evaluate, CustomTypes(self))
        return self.custom

    def seen_before(self, step: Step, attributes: dict[str, Any]) -> bool:
        """True when an identical promise (type, bundle, expanded promiser and attributes)
        was already actuated in this run: cf-agent actuates it once, even with -K."""
        bundle = step.run.bundle
        edit = step.run.frame.edit
        where = getattr(edit, "filename", None) or getattr(edit, "path", "") if edit is not None else ""
        identity = "\0".join((step.ptype, bundle.namespace, bundle.name, step.promiser,
                               _canonical(attributes), str(where)))
        if identity in self.actuated:
            if self.trace is not None:
                self.trace.drop()
            self.out.log("verbose", f"Skipping {step.where()}: an identical promise was "
                                    "already actuated in this run")
            return True
        self.actuated.add(identity)
        self.last_identity = identity
        return False

    def lock(self, step: Step, attributes: dict[str, Any]) -> str | bool:
        """Take the promise's lock (ifelapsed/expireafter); False when it must be skipped,
        else a value for :meth:`unlock`.  -K and -n bypass locks, as in cf-agent.
        Handlers get it from :meth:`actuate`; the methods and reports evaluators take it
        themselves (cf-agent locks those too, not vars, classes, meta or defaults)."""
        if self.options.ignore_locks:
            return True
        from cfpromise.agent.locks import LockDB, LockDecision, lock_key
        if self.locks is None:
            self.locks = LockDB.open(self.options.workdir, log=self.out.log)
        action = attributes.get("action")
        if not isinstance(action, dict):
            action = {}
        ifelapsed = _minutes(action.get("ifelapsed"), self.agent_control.get("ifelapsed"), 1)
        expireafter = _minutes(action.get("expireafter"), self.agent_control.get("expireafter"),
                               120)
        digest = _digest(attributes)
        key = lock_key(step.ptype, step.promiser, step.run.bundle.name, step.handle, digest)
        grant = self.locks.try_acquire(key, ifelapsed, expireafter, time.time())
        message = grant.message()
        if self.trace is not None and grant.decision is not LockDecision.ACQUIRED:
            self.trace.drop()
        if message is not None:
            self.out.log(*message)
        return key if grant.decision is LockDecision.ACQUIRED else False

    def unlock(self, key: str | bool) -> None:
        """Release a lock :meth:`lock` granted: the promise completed now."""
        if isinstance(key, str):
            self.locks.release(key, time.time())

    def unsupported(self, step: Step) -> Outcome:
        self.attributes(step)          # values are still checked, as cf-agent checks them
        if step.ptype not in self.unsupported_seen:
            self.unsupported_seen.add(step.ptype)
            self.out.log("warning", f"cf-lite does not support '{step.ptype}' promises yet: "
                                    f"they are not actuated (first: {step.where()})")
        else:
            self.out.log("verbose", f"Not actuated (not supported yet): {step.where()}")
        return Outcome.SKIPPED

    @property
    def services(self) -> Any:
        if self._services is None:
            from cfpromise.agent.services import Services
            self._services = Services(self)
        return self._services

    def record(self, run: BundleRun, step: Step, outcome: Outcome,
               changes: list[dict[str, Any]] | None = None) -> None:
        run.outcomes.append(outcome)
        if step.ptype not in ("vars", "classes", "meta", "defaults"):
            self.counts[outcome] = self.counts.get(outcome, 0) + 1
        if step.handle:
            previous = self.handles.get(step.handle)
            merged = outcome if previous is None else merge([previous, outcome])
            if merged is not previous:
                self.world_changes += 1     # depends_on reads it (settle)
            self.handles[step.handle] = merged
        body = step.attributes.get("classes") if step.attributes is not None else None
        if body is None and step.promise.get("classes") is not None \
                and step.ptype != "classes":    # cf-agent sets none for classes promises
            body = self.body("classes", step.promise.get("classes").rval, step)
        if body and step.ptype != "classes":
            self.outcome_classes(body, outcome, step)
        action = step.attributes.get("action") if step.attributes is not None else None
        if isinstance(action, dict) and action:
            write_action_log(action, outcome, self.out.log)
        for observer in self.observers:
            observer.promise_done(self, step, outcome, step.seconds,
                                  self.changes if changes is None else changes)
        self.check_abort()

    def outcome_classes(self, body: dict[str, Any], outcome: Outcome, step: Step) -> None:
        scope = body.get("scope", "namespace")
        names: list[str] = []
        cancel: list[str] = []
        if outcome is Outcome.KEPT:
            names, cancel = _list(body.get("promise_kept")), _list(body.get("cancel_kept"))
        elif outcome is Outcome.REPAIRED:
            names, cancel = _list(body.get("promise_repaired")), _list(body.get("cancel_repaired"))
        else:
            key = {Outcome.DENIED: "repair_denied", Outcome.TIMEOUT: "repair_timeout"}.get(
                outcome, "repair_failed")
            names = _list(body.get(key))
            if outcome in (Outcome.DENIED, Outcome.TIMEOUT):
                names += _list(body.get("repair_failed"))
            cancel = _list(body.get("cancel_notkept"))
        ns = step.run.bundle.namespace
        persist = _minutes(body.get("persist_time"))
        for name in names:
            name = _canon(name)
            if persist > 0:
                if body.get("scope") != "namespace":
                    self.out.log("info", f"Automatically promoting context scope for '{name}' "
                                         "to namespace visibility, due to persistence")
                self.out.log("verbose", f"C:    + persistent outcome class '{name}'")
                if not self.ctx.has_class_key(self.ctx.class_key(name, ns)):     # (kept as loaded)
                    self.ctx.define_class(name, (), "namespace", ns)
                self.out.log("verbose", f"Updating persistent class '{name}'")
                self.persistent.remember(name, persist, (), ns)
                continue
            if self.trace is not None:
                self.trace.outcome_class(name)
            self.ctx.define_class(name, scope="bundle" if scope == "bundle" else "namespace",
                                  namespace=ns)
        for name in cancel:
            self.ctx.undefine_class(_canon(name), ns)
            self.persistent.forget(_canon(name))
        for observer in self.observers:
            observer.outcome_classes(self, step, outcome, [_canon(n) for n in names])

    def check_abort(self) -> None:
        """abortclasses / abortbundleclasses (cfpromise.agent.abort): after every promise."""
        self.abort_watch.check(self)

    # -- the run --------------------------------------------------------------------
    def run(self) -> int:
        return loading.run_agent(self)


class _SkippedStep:
    """Enough of a Step to describe a promise skipped before evaluation."""

    def __init__(self, run: BundleRun, promise: ast.Promise, promiser: str) -> None:
        self.run, self.promise, self.promiser = run, promise, promiser
        self.ptype = next((s.name for s in run.bundle.sections if promise in s.promises), "")
        handle = promise.get("handle")
        self.handle = handle.rval.value if handle is not None and \
            isinstance(handle.rval, ast.Scalar) else None


def _minutes(*candidates: Any) -> int:
    for value in candidates:
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            return int(value)
        if isinstance(value, int):
            return value
    return 0


def _canonical(attributes: dict[str, Any]) -> str:
    from cfpromise.fast.jsondumps import dumps
    return dumps(attributes, sort_keys=True, default=str)


def _digest(attributes: dict[str, Any]) -> str:
    """A short stable digest (lock names persist across runs)."""
    import hashlib
    return hashlib.md5(_canonical(attributes).encode()).hexdigest()[:16]


def _list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return [value] if isinstance(value, str) else []


def _canon(name: str) -> str:
    from cfpromise.eval.canon import canonify
    return canonify(name)


__all__ = ["Agent", "AgentOptions", "AbortRun", "NeedIteration", "Variable"]
