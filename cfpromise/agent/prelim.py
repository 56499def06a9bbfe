"""cf-agent's preliminary convergence: every promise of the policy expanded once, before
the bundlesequence runs.

Once the whole policy is loaded, cf-agent 3.21 (libpromises/loading.c, "Preliminary
variable/class-context convergence") walks every bundle -- in the bundlesequence or not,
agent, common, edit_line, with parameters or not (unbound) -- in policy order, each
section as written (not a custom promise type's), and expands each promise
(ExpandPromise with CommonEvalPromise): nothing is actuated, no class is defined by a
classes promise, no report printed, but every function the promise's attributes call is
called, with what that does -- its error printed, ``execresult()``'s command run (and
its result cached for the run), ``usemodule()``'s module run and its classes and
variables defined, ``readstringarray()``'s array defined.  Then vars and meta promises
are evaluated (VerifyVarPromise).  cf-agent 3.21's policy holds no ``server``,
``monitor``, ``runagent``... bundle (:mod:`cfpromise.agent.leftout`): none of those is
walked or evaluated.  A common bundle's vars and classes
promises are left out (:data:`LOADED`).  What a promise's expansion calls, as
found by running cf-agent over many shapes (tests/differential/prelim.py):

* nothing when its class guard does not hold now (hard classes, ``-D``, augments, the
  common bundles' classes, what a module run earlier in the walk defined);
* the arguments of the bodies it names, once (DeRefCopyPromise, before iterating);
* then for each iteration of the lists its text names (none for an empty list): its
  ``with``, its promisee; then it stops if it is a classes promise whose class is
  defined already, or when ``if``/``ifvarclass`` (called) does not hold or does not
  resolve, when ``unless`` (called) holds or does not resolve, when it has a
  ``depends_on`` naming anything (no handle is done yet);
* else every other attribute, in the order written, a body's attributes where the body
  is named -- but not the arguments of a bundle it names (``usebundle``,
  ``edit_line``...); a ``comment`` whose call failed or could not be made says
  "Comments can only be scalar objects, not 'call' in 'PROMISER'".

Everything cf-lite needs for this depends on the promise as written, so it is worked out
once per promise (:class:`Plan`, kept in its PromiseInfo): a promise that calls nothing
(most of masterfiles') costs a look at its guard.
"""
from __future__ import annotations

from cfpromise.agent import apparent
from cfpromise.agent.bodies import (BodyError, InheritanceError, body_reference, inheritance_loop,
                                    without_caller)
from cfpromise.agent.commoneval import arity_error
from cfpromise.agent.promiseinfo import guard_info, quoted_guard, this_handle
from cfpromise.eval.context import Frame
from cfpromise.eval.rvals import UNRESOLVED, RvalEvaluator, with_value
from cfpromise.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# a common bundle's sections the policy's loading has just evaluated (its PolicyResolve
# rounds, cfpromise.agent.loading): expanding them again calls the same functions with
# the same arguments (said once, cached), and cost 2.8% of a masterfiles run
LOADED = ("vars", "classes")
# evaluated before the other attributes (``with`` is, and again in its place)
_EXCLUSIONS = frozenset({"if", "ifvarclass", "unless", "depends_on"})


def converge(agent: Any, make_run: Any) -> None:
    """The walk (see the module), over the whole policy as loaded.  A built-in refusing
    a literal argument stops the run here as the load-time check's would
    (:class:`cfpromise.agent.precheck.RefusedArgument`: cf-agent's FatalError, exit 1)."""
    from cfpromise.eval.functions.api import FatalFunctionError
    try:
        _converge(agent, make_run)
    except FatalFunctionError as exc:
        from cfpromise.agent.precheck import RefusedArgument
        raise RefusedArgument(str(exc)) from None


def _converge(agent: Any, make_run: Any) -> None:
    """(``make_run``: the engine's BundleRun, given so that this module need not import
    the engine, which imports it.)"""
    ctx = agent.ctx
    custom = agent.custom_types
    for bundle in agent.policy.bundles:
        if ctx.injected:            # BundleResolve's first step, for every bundle
            ctx.remove_injected(bundle.namespace, bundle.name)
        frame = Frame(bundle.namespace, bundle.name, bundle)
        run = make_run(bundle, frame, pass_no=0)
        ctx.push(frame)
        ctx.expand_scope(bundle.namespace, bundle.name)
        try:
            for section in bundle.sections:
                ptype = section.name
                if ptype in custom:
                    continue
                if bundle.type == "common" and ptype in LOADED:
                    continue
                # the engine evaluates meta and vars promises (VerifyVarPromise)
                evaluated = ptype in ("meta", "vars")
                for promise in section.promises:
                    if evaluated:       # (its attributes too: Agent.eval_promise)
                        agent.eval_promise(run, ptype, promise)
                    else:
                        expand(agent, run, ptype, promise)
        finally:
            ctx.pop()


class Plan:
    """What expanding one promise may call (see the module); :func:`plan` gives None
    when it calls nothing."""

    __slots__ = ("body_args", "promisee", "steps", "loop")

    def __init__(self, body_args: tuple[ast.Constraint, ...], promisee: ast.Rval | None,
                 steps: tuple[tuple[ast.Constraint, bool], ...], loop: str | None = None
                 ) -> None:
        self.body_args = body_args      # body references with calls in their arguments
        self.promisee = promisee        # the promisee, when it calls
        self.steps = steps              # (constraint, whether it names a body), in order
        self.loop = loop                # a body it names inherits in a loop: the abort


def plan(agent: Any, ptype: str, promise: ast.Promise) -> Plan | None:
    """The :class:`Plan` of ``promise`` (of type ``ptype``), None when it calls nothing."""
    table = agent.schema.promise_types.get(ptype) or {}
    namespace = agent.ctx.frame.namespace
    body_args: list[ast.Constraint] = []
    steps: list[tuple[ast.Constraint, bool]] = []
    conditions = False
    loop = None
    for c in promise.constraints:
        lval = c.lval
        if lval in _EXCLUSIONS:
            conditions = conditions or _calls(c.rval)
            continue
        attr = table.get(lval)
        kind = attr.type if attr is not None else ""
        if kind == "bundle":
            continue                        # ExpandBundleReference: nothing is called
        if kind == "body":
            loop = loop or _loop(agent, c.rval, lval, namespace)
            if type(c.rval) is ast.FnCall and any(_calls(a) for a in c.rval.args):
                body_args.append(c)
                steps.append((c, True))
            elif _body_calls(agent, c.rval, lval, namespace):
                steps.append((c, True))
        elif _calls(c.rval):
            steps.append((c, False))        # (``with`` too: called again in its place)
    promisee = promise.promisee
    if promisee is not None and not _calls(promisee):
        promisee = None
    if not (steps or promisee is not None or conditions or loop):
        return None
    return Plan(tuple(body_args), promisee, tuple(steps), loop)


def _loop(agent: Any, rval: ast.Rval, body_type: str, namespace: str) -> str | None:
    """cf-agent's abort when the body ``rval`` names inherits in a loop (DeRefCopyPromise's
    EvalContextAppendBodyParentsAndArgs, at the expansion of any promise naming it)."""
    name = rval.name if type(rval) is ast.FnCall else \
        rval.value if type(rval) is ast.Scalar else ""      # type: ignore[union-attr]
    if not name or "$" in name or "@" in name:
        return None
    return inheritance_loop(agent.resolver.find, body_type, name, namespace)


def _calls(rval: ast.Rval) -> bool:
    """Whether ``rval`` calls a function."""
    kind = type(rval)
    if kind is ast.FnCall:
        return True
    if kind is ast.List:
        return any(_calls(item) for item in rval.items)     # type: ignore[union-attr]
    return False


def _body_calls(agent: Any, rval: ast.Rval, body_type: str, namespace: str,
                depth: int = 0) -> bool:
    """Whether the body of type ``body_type`` that ``rval`` names (or one it inherits
    from) calls a function, its arguments too; a name known only at run time may."""
    if type(rval) is ast.FnCall:
        if any(_calls(a) for a in rval.args):
            return True
        name = rval.name
    else:
        name = rval.value if type(rval) is ast.Scalar else ""      # type: ignore[union-attr]
    if "$" in name or "@" in name:
        return True
    body = agent.resolver.find(name, body_type, namespace) if name else None
    if body is None or depth > 20:
        return False
    memo = agent.__dict__.setdefault("prelim_bodies", {})
    found = memo.get(id(body))
    if found is None or found[0] is not body:
        memo[id(body)] = (body, False)      # (an inheritance loop ends here)
        attrs = agent.schema.body_types.get(body_type) or {}
        has = False
        for b in body.constraints:
            if b.lval == "inherit_from":
                has = _body_calls(agent, b.rval, body_type, body.namespace, depth + 1)
            else:
                attr = attrs.get(b.lval)
                has = (attr is None or attr.type != "bundle") and _calls(b.rval)
            if has:
                break
        found = memo[id(body)] = (body, has)
    return found[1]


def expand(agent: Any, run: Any, ptype: str, promise: ast.Promise) -> None:
    """Expand ``promise`` as the walk does (see the module)."""
    ctx = agent.ctx
    facts = guard_info(agent.infos, promise)
    if facts.guarded and not ctx.class_tree_holds(facts.guard):
        return
    if facts.apparent != ():                # what DeRefCopyPromise says of bare words
        apparent.say_once_known(agent, facts, run.bundle)
    found = facts.prelim
    if found is None:
        found = facts.prelim = plan(agent, ptype, promise) or False
    if found is False:
        return
    if found.loop is not None:
        raise InheritanceError(found.loop).fatal()
    if not facts.complete:
        facts.finish()
    iterated_guard = False
    if promise.varclass is not None:
        iterated_guard = quoted_guard(ctx, promise)
        if iterated_guard is None:
            return
    frame = run.frame
    if found.body_args:                     # DeRefCopyPromise: once, before iterating
        frame.this, frame.promise = {}, None    # (its calls have no caller: no PromiseRef)
        ev = RvalEvaluator(ctx, {})
        for c in found.body_args:
            for arg in c.rval.args:         # type: ignore[union-attr]
                if _calls(arg):
                    without_caller(ev, lambda: ev.value(arg, want_list=True))
    filename, dirname = facts.paths()
    base_this = {"promise_filename": filename, "promise_dirname": dirname,
                 "promise_linenumber": facts.line, "bundle": run.bundle.name,
                 "namespace": run.bundle.namespace, **agent.promiser_identity}
    iterations = agent.iterations(promise, iterated_guard) if facts.dynamic or iterated_guard \
        else ({},)
    try:
        for bindings in iterations:
            if iterated_guard and not agent.guard_holds(promise.varclass, bindings):
                continue
            _iteration(agent, run, ptype, promise, facts, found, bindings, base_this, frame)
    finally:
        ctx.fresh_calls = False
        frame.this, frame.extra = {}, {}


def _iteration(agent: Any, run: Any, ptype: str, promise: ast.Promise, facts: Any,
               todo: Plan, bindings: dict[str, str], base_this: dict[str, str],
               frame: Any) -> None:
    """One iteration of a promise's expansion: ExpandDeRefPromise, its exclusions first."""
    ctx = agent.ctx
    frame.this = dict(base_this)
    frame.extra = {}
    frame.promise = promise             # (PromiseRef of its first calls: with, handle)
    ev = RvalEvaluator(ctx, bindings)
    ctx.fresh_calls = facts.fresh_c is not None and agent.immediate(facts.fresh_c, ev, run,
                                                                     bindings)
    if facts.with_c is not None:
        value = with_value(ev, facts.with_c.rval)
        if isinstance(value, str):
            from cfpromise.eval.functions.api import Variable
            frame.extra = {"with": Variable("string", value)}
    frame.this["handle"] = this_handle(None if facts.handle_c is None
                                       else ev.text(facts.handle_c.rval.value), facts,
                                       ctx, bindings)
    promiser = ev.text(promise.promiser)
    frame.this["promiser"] = promiser
    frame.promiser, frame.ptype, frame.promise = promiser, ptype, promise
    if todo.promisee is not None:
        ev.value(todo.promisee, want_list=True)
    if ptype == "classes":
        from cfpromise.eval.canon import canonify
        if ctx.class_defined(canonify(promiser)):
            return
    if facts.conditions and agent.conditions(promise, ev, False, facts.conditions) is not True:
        return
    if facts.depends_c is not None:
        value = ev.value(facts.depends_c.rval, want_list=True)
        if value != []:
            return                          # no handle is done yet
    namespace = run.bundle.namespace
    for c, names_body in todo.steps:
        if names_body:
            ref = body_reference(c.rval, ev)
            if ref is not None:
                try:
                    agent.resolver.resolve(c.lval, ref[0], ref[1], namespace, bindings)
                except BodyError:
                    pass                    # the run says what is wrong with it
            continue
        call_attribute(agent, promise, ev, c)


def call_attribute(agent: Any, promise: ast.Promise, ev: RvalEvaluator,
                   c: ast.Constraint) -> None:
    """Evaluate the attribute ``c`` of ``promise`` for what its calls do, as cf-agent's
    ExpandDeRefPromise does (what ``ev`` knew of unresolved values stays as it was): a
    comment that stays a call (it failed, or its arguments do not resolve) is said to be
    one -- once, as function errors are (:mod:`cfpromise.eval.functions.messages`)."""
    unresolved, failed = ev.unresolved, ev.failed_call
    value = ev.value(c.rval, want_list=True)
    ev.unresolved, ev.failed_call = unresolved, failed
    if c.lval == "comment" and value is UNRESOLVED and type(c.rval) is ast.FnCall \
            and arity_error(agent.schema.functions, c.rval) is None:    # (that one exits)
        line = f"Comments can only be scalar objects, not 'call' in '{promise.promiser}'"
        sink = getattr(agent.ctx, "fn_messages", None)
        if sink is not None:
            sink.say("error", line, line)
        else:
            agent.out.log("error", line)


def call_more(agent: Any, step: Any, evaluator: Any) -> Any:
    """The outcome of ``evaluator`` (one of the engine's own, vars, classes, reports...) for
    ``step``, whose promise has attributes calling a function that the evaluator does not
    read (:data:`cfpromise.agent.promiseinfo.MORE`): called as cf-agent's expansion
    calls them at each evaluation, before the promise is verified -- after, for a vars or
    meta promise, whose value is called first (its expansion calls the attributes in the
    order written, the value first as a rule)."""
    late = step.ptype in ("vars", "meta")
    outcome = evaluator(step) if late else None
    for c in agent.infos[id(step.promise)].more_calls:
        call_attribute(agent, step.promise, step.ev, c)
    return outcome if late else evaluator(step)
