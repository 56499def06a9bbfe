"""Promise evaluation: one promise in one pass, up to its evaluator or handler.

For each promise of a section: the class guard, the implicit iteration over the lists and
containers its text names, ``$(this.*)``, ``with``, the promiser, ``if``/``ifvarclass``/
``unless`` (:meth:`PromiseEvaluation.conditions`: go on, skip, or wait for a later pass)
and ``depends_on``; then the promise type's evaluator (vars, classes, meta, defaults,
methods, reports: :mod:`cfpromise.promises.evaluators`; the attributes it does not read
but cf-agent calls: :func:`cfpromise.agent.prelim.call_more`) or, for the others,
actuation: every constraint evaluated and checked (a comment never waits), body
attributes resolved (inheritance, arguments, default bodies), the ``PromiseRun`` built,
an identical promise already actuated in this run left out, the promise's lock taken
and the handler (:mod:`cfpromise.promises.api`) called; promise types that are not
built in go to their promise module (:mod:`cfpromise.promises.custom`).  The result is
recorded (:mod:`cfpromise.agent.recording`).  Which iterations are done in a bundle
call, and so not evaluated again, is kept in the BundleRun.  :class:`PromiseEvaluation`
is one of the parts :class:`cfpromise.agent.engine.Agent` is made of.
"""
from __future__ import annotations

import time

from cfpromise.agent import apparent
from cfpromise.agent.abort import FatalError
from cfpromise.agent.bodies import (UNCHECKED_INTS, BodyError, InheritanceError, body_reference,
                                     unparsed_ints)
from cfpromise.agent.bundleargs import bundle_call, done_text, reference_rvals
from cfpromise.agent.commoneval import unknown_items
from cfpromise.agent.order import BEFORE_LOCK_TYPES, PASSES
from cfpromise.agent.outcome import Outcome
from cfpromise.agent.prelim import call_more
from cfpromise.agent.yyerrors import check_value
from cfpromise.agent import promiseframe
from cfpromise.agent.promisehash import identity as promise_identity
from cfpromise.agent.promiseinfo import calls_a_function, guard_info, info as promise_info, \
    quoted_guard, this_handle
from cfpromise.eval.context import refused
from cfpromise.eval.functions.api import Variable
from cfpromise.eval.rvals import (NO_WITH, UNRESOLVED, RvalEvaluator, as_text, self_reference,
                                  with_value)
from cfpromise.promises.api import (AGAIN, BEFORE_LOCK, THIS_ATTRIBUTES, PromiseRun,
                                   handler_for)
from cfpromise.promises.evaluators import Step, load as _load_evaluators
from cfpromise.schema.values import ValueError_, runtime_check
from cfpromise.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterator
    from cfpromise.agent.engine import BundleRun

# promise type -> the engine's own evaluator (vars, classes, meta, defaults, methods, reports)
EVALUATORS = _load_evaluators()


class PromiseEvaluation:
    """Evaluating promises and actuating them (a part of the Agent; see the module)."""

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
        if facts.apparent != ():        # what DeRefCopyPromise says of its bare words
            apparent.say_once_known(self, facts, run.bundle)
        prelock = ptype in BEFORE_LOCK_TYPES and (
            (needs := BEFORE_LOCK_TYPES[ptype]) is None or promise.get(needs) is not None)
        if facts.static and self.trace is None and (id(promise), ()) in run.done \
                and not prelock and not reference_rvals(self, promise):
            self.reread_bodies(run, ptype, promise, {})
            return      # its one iteration is done: the checks below would change nothing
        iterated_guard = False
        if promise.varclass is not None:
            iterated_guard = quoted_guard(ctx, promise)    # "$(list).x":: per iteration
            if iterated_guard is None:
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
        if facts.dynamic:
            promiseframe.before_iterations(self, facts)
        # no "$" anywhere: one iteration without bindings, no probing
        iterations = self.iterations(promise, iterated_guard) if facts.dynamic or iterated_guard \
            else ({},)
        for index, bindings in enumerate(iterations, 1):
            key = (id(promise), tuple(sorted(bindings.items())) if bindings else ())
            again = key in run.done
            recheck = False         # done: only the checks cf-agent makes before the lock
            refs = reference_rvals(self, promise)
            if again and (run.done[key] is None or
                          (not facts.dynamic or ("$" not in promise.promiser
                                                 and "@" not in promise.promiser))
                          and not refs):
                if trace is not None:
                    trace.again(run, key)
                if not prelock or run.done[key] is None:
                    self.reread_bodies(run, ptype, promise, bindings)
                    continue
                recheck = True
            if iterated_guard and not self.guard_holds(promise.varclass, bindings):
                if trace is not None:
                    trace.skipped_guard(promise)
                continue
            frame.this = dict(base_this)
            frame.promise = promise             # (PromiseRef of its first calls: with, handle)
            ev = RvalEvaluator(ctx, bindings)
            ctx.fresh_calls = facts.fresh_c is not None and self.immediate(facts.fresh_c, ev,
                                                                            run, bindings)
            frame.extra = {}
            if with_c is not None:
                value = with_value(ev, with_c.rval)
                if value is not UNRESOLVED and value is not NO_WITH:
                    text = as_text(value)
                    promiseframe.check_with(self, text)
                    refused = self_reference("default:this.with", "with", text)
                    if refused is not None:         # cf-agent refuses it (EvalContextVariablePut)
                        said = self.__dict__.setdefault("with_self_refs", set())
                        if (id(promise), text) not in said:
                            said.add((id(promise), text))
                            self.out.log("error", refused)
                    else:
                        frame.extra = {"with": Variable("string", text)}
            # $(this.handle) may be used in the promiser (cf-agent defines it first)
            handle = ev.text(handle_c.rval.value) if handle_c is not None else None
            frame.this["handle"] = this_handle(handle, facts, ctx, bindings)
            ev.unresolved = False       # (an unresolved with or handle: nothing waits)
            promiser = ev.text(promise.promiser)
            promiseframe.promisee(promise, ev)
            if again and not recheck:
                # done in an earlier pass: again only if its promiser now expands to another
                # text (a variable it holds changed: randomint(), a list grown...) --
                # cf-agent's lock is named by the expanded promise, a new one there
                if ev.unresolved or done_text(promiser, refs, ev) == run.done[key]:
                    if trace is not None:
                        trace.again(run, key)
                    if not prelock:
                        self.reread_bodies(run, ptype, promise, bindings)
                        continue
                    recheck = True
                else:
                    del run.done[key]
            frame.this["promiser"] = promiser
            frame.promiser = promiser
            frame.ptype = ptype
            frame.promise = promise
            if facts.conditions:
                decision = self.conditions(promise, ev, last, facts.conditions)
            else:
                self.failed_condition = ""
                decision = True
            promiseframe.say_args(self, ev, ptype)
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
            if recheck:
                self.before_lock(step)
                continue
            evaluator = EVALUATORS.get(ptype)
            if trace is not None:
                trace.begin(step, index, key)
            outer, self.changes = self.changes, []     # nested steps (edit bundles) keep their own
            started = time.perf_counter()
            outcome = None
            try:
                outcome = self.actuate(step) if evaluator is None else evaluator(step) \
                    if not facts.more_calls else call_more(self, step, evaluator)
            finally:
                step_changes, self.changes = self.changes, outer
                if trace is not None:
                    trace.end(step, outcome, key)
            step.seconds = time.perf_counter() - started
            promiseframe.say_args(self, ev, ptype)
            if outcome is None:
                self.deferrals += 1
                continue
            # (a failed classes promise is verified again: no lock; BundleResolve follows)
            if ptype not in ("vars", "classes") or outcome is not Outcome.SKIPPED \
                    and (ptype != "classes" or outcome is not Outcome.FAILED):
                if ptype != "vars" or (outcome is Outcome.KEPT and self.static_var(run, promise)):
                    run.done[key] = done_text(promiser, refs, ev)
            if outcome is Outcome.SKIPPED:
                continue
            self.record(run, step, outcome, step_changes)
            if trace is not None:
                trace.close(step)
        if facts.fresh_c is not None:
            ctx.fresh_calls = False     # (only this promise's calls bypass the cache)

    def reread_bodies(self, run: BundleRun, ptype: str, promise: ast.Promise,
                      bindings: dict[str, str]) -> None:
        """A promise done in an earlier pass: cf-agent reads its attributes again before its
        lock says so, parsing its action and classes bodies' integers (UNCHECKED_INTS: one
        that does not parse is said again), and checks a report's text but in the last
        pass (cfpromise.agent.yyerrors).  (Not a classes promise: dropped before.)"""
        if ptype == "reports" and run.pass_no < PASSES and "$" in promise.promiser:
            check_value(self, RvalEvaluator(self.ctx, bindings).text(promise.promiser))
        if ptype == "classes":
            return
        memo = self.__dict__.setdefault("_int_bodies", {})
        found = memo.get(id(promise))
        if found is None:
            found = memo[id(promise)] = tuple(self._int_body_refs(run, promise))
        if not found:
            return
        ev = RvalEvaluator(self.ctx, bindings)
        for c in found:
            ref = body_reference(c.rval, ev)
            if ref is None:
                continue
            try:
                values = self.resolver.resolve(c.lval, ref[0], ref[1],
                                               run.bundle.namespace, bindings)
            except BodyError:
                continue
            unparsed_ints(self.out, c.lval, values)

    def _int_body_refs(self, run: BundleRun, promise: ast.Promise) -> list[ast.Constraint]:
        """The promise's action/classes constraints whose body gives one of those
        integers from a reference (a literal is checked with the policy)."""
        out = []
        for c in promise.constraints:
            if c.lval not in UNCHECKED_INTS:
                continue
            name = c.rval.name if isinstance(c.rval, ast.FnCall) else \
                c.rval.value if isinstance(c.rval, ast.Scalar) else ""
            body = self.resolver.find(name, c.lval, run.bundle.namespace) if name else None
            if body is not None and any(
                    b.lval in UNCHECKED_INTS[c.lval] and isinstance(b.rval, ast.Scalar)
                    and "$" in b.rval.value for b in body.constraints):
                out.append(c)
        return out

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
            joined = "".join(promise_info(self.infos, promise).texts)
            found = promise.promiser not in names and "$" not in joined and \
                "@" not in joined and not calls_a_function(promise)
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
        if "$" not in "".join(texts):
            yield {}
            return
        yield from promiseframe.iterations(self.ctx, promise, texts)

    def conditions(self, promise: ast.Promise, ev: RvalEvaluator, last: bool,
                   constraints: tuple[tuple[str, ast.Constraint], ...] | None = None
                   ) -> bool | None:
        """True to go on, False to skip, None to wait for a later pass.  ``constraints``:
        the promise's if/ifvarclass/unless, in that order (PromiseInfo.conditions)."""
        self.failed_condition = ""
        if constraints is None:
            constraints = promise_info(self.infos, promise).conditions
        values: list[tuple[str, Any]] = []      # for the promise's identity (promisehash)
        self.condition_values = (ev, values)
        for lval, c in constraints:
            before = ev.unresolved
            ev.unresolved = False
            value = ev.value(c.rval)
            unresolved, ev.unresolved = ev.unresolved, before
            unresolved = unresolved or lval == "unless" and type(value) not in (str, bool) \
                or type(value) is str and ("$" in value or "@" in value)   # (not evaluated)
            if value is UNRESOLVED or unresolved:       # (unless: a list, a container too)
                if lval == "unless" and last:
                    self.failed_condition = "-unless"       # not skipped: -v says so
                    continue
                self.failed_condition = lval
                return None if not last else False
            values.append((lval, value))
            text = None if isinstance(value, bool) else as_text(value)   # ("": no class)
            truth = self.ctx.eval_class_expr(text) if text is not None else value is True
            if lval == "unless" and not truth and text is not None and refused(text):
                # refused by cf-agent (it said so): waits for the last pass, as unresolved
                self.failed_condition = "-unless" if last else lval
                if not last:
                    return None
                continue
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
        handles = (handles if isinstance(handles, list) else [handles]) + unknown_items(self, c)
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
                # silently at the default level, as cf-agent 3.21 (the run report has why)
                reason = f"it depends on '{handle}', which was not kept ({outcome.value})"
                run.done[key] = None
                self.counts[Outcome.SKIPPED] = self.counts.get(Outcome.SKIPPED, 0) + 1
                for observer in self.observers:
                    observer.promise_skipped(self, _SkippedStep(run, promise, promiser), reason)
                return True
        return False

    # -- actuation: attributes, bodies, the handler ------------------------------------
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
                before = ev.unresolved
                value = self.body(c.lval, c.rval, step)
                if value is None:
                    return None
                if c.lval == "action" and ev.unresolved and not before:
                    from cfpromise.agent.actionlog import only_log_string_waits
                    ev.unresolved = not only_log_string_waits(value)
            elif kind == "bundle":
                value = bundle_call(c.rval, ev)
                if value is None:
                    continue
            else:
                before = ev.unresolved      # a comment, a handle, ``with``, tags never wait
                value = ev.value(c.rval, want_list=attr.is_list if attr is not None else custom)
                ev.unresolved = before if c.lval in promiseframe.NEVER_WAIT else ev.unresolved
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
            raise exc.fatal() from None
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

    def immediate(self, action: ast.Constraint, ev: RvalEvaluator, run: BundleRun,
                  bindings: dict[str, str]) -> bool:
        """Whether the promise's action body says ``ifelapsed => "0"``: cf-agent then calls
        its cached functions again (fncall.c, ENT-7478).  A body that cannot be resolved
        says no here; the promise's attributes report it."""
        ref = body_reference(action.rval, ev)
        if ref is None:
            return False
        try:
            body = self.resolver.resolve("action", ref[0], ref[1], run.bundle.namespace,
                                         bindings)
        except (BodyError, InheritanceError):
            return False
        from cfpromise.eval.functions.common import int_from_string   # (rare: off the start path)
        value = body.get("ifelapsed")
        return isinstance(value, str) and int_from_string(value) == 0     # (IntFromString)

    def body(self, body_type: str, rval: ast.Rval, step: Step) -> dict[str, Any] | None:
        ref = body_reference(rval, step.ev)
        if ref is None:
            return {}
        try:
            values = self.resolver.resolve(body_type, ref[0], ref[1], step.run.bundle.namespace,
                                           step.bindings)
            if body_type in UNCHECKED_INTS:
                unparsed_ints(self.out, body_type, values)
            return values
        except InheritanceError as exc:
            raise exc.fatal() from None
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
        run = self.promise_run(step, attributes)
        check = BEFORE_LOCK.get(ptype)
        if check is not None:
            check(run)
        if self.seen_before(step, attributes):
            return Outcome.SKIPPED
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

    def promise_run(self, step: Step, attributes: dict[str, Any]) -> PromiseRun:
        promisee = step.promise.promisee
        if promisee is not None:
            promisee = step.ev.value(promisee, want_list=True)
        return PromiseRun(step.promise, step.ptype, step.promiser, attributes,
                          step.run.bundle.namespace, step.run.bundle.name, self.services,
                          None if promisee is UNRESOLVED else promisee)

    def before_lock(self, step: Step) -> None:
        """A promise done in an earlier pass of this bundle call (or held back by its lock
        or by an identical promise): cf-agent evaluates it again in this pass up to its
        lock, so the checks its verifier makes before the lock are made (and print)
        again; nothing is actuated or recorded."""
        handler_for(step.ptype)              # (the module registers its checks)
        attributes = self.attributes(step)
        if attributes is None:
            return
        step.attributes = attributes
        check = BEFORE_LOCK.get(step.ptype)
        if check is not None:
            check(self.promise_run(step, attributes))
        check = AGAIN.get(step.ptype)
        if check is not None:
            previous, self.current_step = self.current_step, step     # (body names)
            try:
                outcome = check(self.promise_run(step, attributes))
            finally:
                self.current_step = previous
            if outcome is not None:
                self.record(step.run, step, outcome, [])

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
        """True when a promise cf-agent takes for the same one (cfpromise.agent.promisehash)
        was already actuated in this run: cf-agent actuates it once, even with -K."""
        edit = step.run.frame.edit
        where = getattr(edit, "filename", None) or getattr(edit, "path", "") if edit is not None else ""
        identity = promise_identity(step, attributes, str(where))
        if identity in self.actuated:
            if self.trace is not None:
                self.trace.drop()
            self.out.log("verbose", f"Skipping {step.where()}: an identical promise was "
                                    "already actuated in this run")
            return True
        self.actuated.add(identity)
        self.last_identity = identity
        return False

    def unsupported(self, step: Step) -> Outcome:
        self.attributes(step)          # values are still checked, as cf-agent checks them
        if step.ptype not in self.unsupported_seen:
            self.unsupported_seen.add(step.ptype)
            self.out.log("warning", f"cf-lite does not support '{step.ptype}' promises yet: "
                                    f"they are not actuated (first: {step.where()})")
        else:
            self.out.log("verbose", f"Not actuated (not supported yet): {step.where()}")
        return Outcome.SKIPPED


class _SkippedStep:
    """Enough of a Step to describe a promise skipped before evaluation."""

    def __init__(self, run: BundleRun, promise: ast.Promise, promiser: str) -> None:
        self.run, self.promise, self.promiser = run, promise, promiser
        self.ptype = next((s.name for s in run.bundle.sections if promise in s.promises), "")
        handle = promise.get("handle")
        self.handle = handle.rval.value if handle is not None and \
            isinstance(handle.rval, ast.Scalar) else None
