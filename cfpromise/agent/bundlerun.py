"""Bundle runs and their passes: the engine's outer loop.

A bundle call pushes a frame, binds the parameters and makes up to three passes
over the bundle's normal order (:mod:`cfpromise.agent.order`); each section is
evaluated promise by promise (:mod:`cfpromise.agent.evaluation`, through
:mod:`cfpromise.agent.settle`, which leaves out what cannot change anything) and
then the work handlers deferred to the section's end runs.  A methods promise,
and a promise type that calls a bundle (``service_bundle``, ``home_bundle``),
calls it through :meth:`BundleRuns.call_bundle`.

:class:`BundleRuns` is one of the parts :class:`cfpromise.agent.engine.Agent` is
made of; it reads the agent's state (``ctx``, ``observers``, ``trace``...) that
the Agent sets up.
"""
from __future__ import annotations

import time

from cfpromise.agent import settle
from cfpromise.agent.abort import AbortBundle, FatalError
from cfpromise.agent.order import PASSES, PRE_EVALUATION, bundle_order
from cfpromise.agent.outcome import Outcome, merge
from cfpromise.eval.context import Frame
from cfpromise.eval.rvals import parameter_value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cfpromise.syntax import ast


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


class BundleRuns:
    """Running bundles (a part of the Agent; see the module docstring)."""

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

    # -- calling a bundle from a promise ---------------------------------------------
    def find_or_fail(self, name: str, namespace: str, where: str) -> Any:
        """The agent/common bundle ``name`` seen from ``namespace``; None (skip the promise)
        when it is missing and ``ignore_missing_bundles`` is set, else the run stops with
        cf-agent's fatal error."""
        bundle = self.find_bundle(name, namespace)
        if bundle is None:
            if self.control.get("ignore_missing_bundles") in ("true", "yes", "on"):
                return None
            fatal = FatalError(f"A method attempted to use a bundle '{name}' that was apparently "
                               f"not defined")
            fatal.final = f"Aborting due to missing bundle '{name}'"    # cf-agent's last words
            raise fatal
        return bundle

    def call_bundle(self, bundle: Any, args: list[Any], *, inherit: Any, warn_only: bool,
                    where: str, name_caller: bool = False) -> tuple[Outcome, Any]:
        """Call ``bundle`` with ``args`` as a methods promise does, and return the merged
        outcome of its promises (kept when it had none) and its BundleRun (None when not
        called).

        Wrong arity fails the promise; warn-only says the bundle should be invoked and
        does not call it.  ``inherit`` is the caller's frame when classes are inherited;
        ``name_caller`` puts the calling promise in the failure message.
        Shared by methods promises and AgentServices.run_bundle (services, users)."""
        log = self.out.log
        if len(bundle.args) != len(args):
            log("error", f"Bundle '{bundle.name}' expects {len(bundle.args)} argument(s), "
                         f"{len(args)} given ({where})")
            return Outcome.FAILED, None
        if warn_only:
            log("warning", f"Bundle '{bundle.namespace}:{bundle.name}' should be invoked, "
                           f"but only a warning was promised ({where})")
            return Outcome.WARN, None
        sub = self.run_bundle(bundle, list(args), inherit=inherit)
        outcome = merge(sub.outcomes)
        if outcome is Outcome.SKIPPED:
            outcome = Outcome.KEPT
        if outcome is Outcome.WARN:
            log("warning", f"Method '{bundle.name}' invoked repairs, but only warnings promised")
        elif outcome.not_kept:
            # a methods promise: 3.21's words exactly (tests match the output), the caller at
            # verbose level; a bundle another promise type calls (service_bundle...) names it
            if name_caller:
                log("error", f"Method '{bundle.name}' failed in some repairs ({where})")
            else:
                log("error", f"Method '{bundle.name}' failed in some repairs")
                log("verbose", f"Method '{bundle.name}' was called by {where}")
        return outcome, sub
