"""What cf-promises says of promise locking on vars promises, at validation (issue #26).

A vars promise whose action body sets ``ifelapsed`` (other than 0) or ``expireafter``
asks for promise locking, which vars promises do not have.  cf-agent 3.21 never says so
itself: the cf-promises it runs to validate a changed policy does (verify_vars.c, in its
"pass 0" only), and its output reaches the agent's.  So does a classes promise of a
common bundle (the agent's own warning for a classes promise is the classes evaluator's,
:mod:`cfpromise.promises.classes`).  cf-promises resolves the policy as it reads it
(PolicyResolve, expand.c): each file once it is read, over that file's own bundles and
with that file's own action bodies only; then the whole policy once every input is read.
In each round:

* every common bundle in policy order: its vars, its classes, its vars again;
* then every other bundle (agent, edit_line, server...): its vars once;
* each promise once per iteration (its lists and containers expanded), when its class
  guard, ``if`` and ``unless`` hold then; a classes promise only while its class is not
  defined; a promiser naming a list not defined yet is printed as written.

A file's round is worked out as cf-lite's own loading of that file meets each promise
(:meth:`Rounds.load_bundle`), so it sees the same state: a common bundle's first vars
pass without the classes the bundle defines, a list defined further down not yet
defined.  The last round sees the state once every file is loaded.  Everything is
printed once the policy is loaded, cf-promises' lines first.  The agent prints them
only when it validates (:func:`cfpromise.agent.augments.validating`: a policy given by
``-f`` always, else one changed since its last validation), cf-lite-promises always.  The classes it reads are
cf-promises' own: ``common`` rather than ``agent``, none of the agent's ``-D`` classes or
mode classes (cf-agent runs cf-promises with none of those switches).

Nothing is called: a condition or an action body argument that calls a function makes
the promise say nothing here (cf-promises calls it; docs/language.md, "Validation runs
nothing"), and lists hold what cf-lite's own loading gave them.  The cost for a policy
with no such promise is one walk over its vars sections (:func:`candidates`).
"""
from __future__ import annotations

from cfpromise.agent.bodies import BodyError, body_reference, has_call, unparsed_ints
from cfpromise.agent.order import PASSES
from cfpromise.agent.promiseinfo import guard_info, quoted_guard
from cfpromise.eval.context import Frame
from cfpromise.eval.rvals import UNRESOLVED, RvalEvaluator
from cfpromise.syntax import ast, classexpr

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

_LOCKING = ("ifelapsed", "expireafter")
# classes cf-promises does not have: the agent's own mode classes (cf-agent passes none of
# -I, -v, -d, -n to it) and its component class
_AGENT_ONLY = frozenset({"agent", "inform_mode", "verbose_mode", "debug_mode", "opt_debug",
                         "opt_dry_run"})


def _body_may_warn(agent: Any, name: str, namespace: str, ptype: str, depth: int = 0) -> bool:
    """The action body ``name`` (or a parent) sets a locking attribute that can warn: for
    a vars promise an ``ifelapsed`` not written as ``"0"``, any ``expireafter``."""
    if "$" in name or depth > 20:
        return True                         # known only once expanded
    body = agent.resolver.find(name, "action", namespace)
    if body is None:
        return False                        # the run says it is undefined
    for c in body.constraints:
        if c.lval == "expireafter":
            return True
        if c.lval == "ifelapsed":
            if not (ptype == "vars" and isinstance(c.rval, ast.Scalar) and c.rval.value == "0"):
                return True
        elif c.lval == "inherit_from":
            parent = c.rval.name if isinstance(c.rval, ast.FnCall) else \
                c.rval.value if isinstance(c.rval, ast.Scalar) else None
            if parent and _body_may_warn(agent, parent, body.namespace, ptype, depth + 1):
                return True
    return False


def _body_calls(agent: Any, name: str, namespace: str, depth: int = 0) -> bool:
    """The action body ``name`` or a parent would call a function when read."""
    body = agent.resolver.find(name, "action", namespace) if "$" not in name else None
    if body is None or depth > 20:
        return False
    for c in body.constraints:
        if c.lval != "inherit_from":
            if has_call(c.rval):
                return True
        elif isinstance(c.rval, ast.FnCall):
            if any(has_call(a) for a in c.rval.args) or \
                    _body_calls(agent, c.rval.name, body.namespace, depth + 1):
                return True
        elif isinstance(c.rval, ast.Scalar) and \
                _body_calls(agent, c.rval.value, body.namespace, depth + 1):
            return True
    return False


def candidates(agent: Any, bundles: Any) -> list[tuple[ast.Bundle, str, ast.Promise]]:
    """The promises of ``bundles`` that may warn: vars promises (and a common bundle's
    classes promises) naming an action body that sets a locking attribute."""
    found = []
    for bundle in bundles:
        for section in bundle.sections:
            ptype = section.name
            if ptype != "vars" and (ptype != "classes" or bundle.type != "common"):
                continue
            for promise in section.promises:
                c = promise.get("action")
                if c is None:
                    continue
                name = c.rval.name if isinstance(c.rval, ast.FnCall) else \
                    c.rval.value if isinstance(c.rval, ast.Scalar) else None
                if name and _body_may_warn(agent, name, bundle.namespace, ptype):
                    found.append((bundle, ptype, promise))
    return found


class Rounds:
    """cf-promises' rounds for one load (see the module docstring)."""

    def __init__(self, agent: Any, as_agent: bool, validates: bool) -> None:
        self.agent = agent
        # a file's own round resolves its own policy: only the action bodies it defines
        self.file_bodies: set[tuple[str, str]] | None = None
        self.as_agent = as_agent
        self.validates = validates      # cf-promises runs (always for cf-lite-promises)
        self.lines: list[tuple[str, str]] = []      # (promise type, message), in order
        # what cf-promises said, worked out by a loading of its own (see without_defines)
        self.validation: list[tuple[str, str]] | None = None
        self.said: list[tuple[str, str]] = []       # what emit() printed for cf-promises
        self.by_file: list[tuple[tuple[int, ...], list[tuple[str, str]]]] = []

    # -- cf-promises' classes -------------------------------------------------------
    def _defined(self) -> Callable[[str], bool]:
        ctx = self.agent.ctx
        defined = ctx.class_defined
        if not self.as_agent:
            return lambda name: name == "common" or (name != "agent" and defined(name))

        def seen(name: str) -> bool:
            if name == "common":
                return True
            if name in _AGENT_ONLY or not defined(name):
                return False
            tags = ctx.class_table.get(ctx.class_key(name, ctx.frame.namespace), ())
            return "source=environment" not in tags      # -D: not given to cf-promises
        return seen

    # -- the rounds -----------------------------------------------------------------
    def load_bundle(self, bundle: ast.Bundle, evaluate: Callable[[], Any]) -> None:
        """A file's round for ``bundle``, which ``evaluate`` loads (a common bundle's
        evaluation, another's vars): each phase of cf-promises' BundleResolve is worked
        out when cf-lite's own loading meets the promise in the same state -- a common
        bundle's first vars pass (before its classes), its classes, its vars once the
        classes are known; another bundle's vars -- through the engine's promise hook
        (which also turns off its settling meanwhile); a phase the loading does not
        meet (a common bundle with no classes section evaluates its vars once) is
        worked out after it, in its order."""
        wanted = {id(p): ptype for _, ptype, p in candidates(self.agent, (bundle,))}
        if not wanted:
            evaluate()
            return
        agent = self.agent
        common = bundle.type == "common"
        first_pass = PASSES if common else 0     # (a load round: Agent.load_round)
        seen: dict[int, list[str]] = {}
        phases: dict[str, list[str]] = {"A": [], "C": [], "B": []}
        previous = agent.promise_filter

        def hook(run: Any, ptype: str, promise: ast.Promise) -> bool:
            if run.bundle is bundle and run.pass_no == first_pass and id(promise) in wanted:
                done = seen.setdefault(id(promise), [])
                phase = ("C" if not done else None) if ptype == "classes" else \
                    "A" if not done else "B" if common and done == ["A"] else None
                if phase is not None:
                    done.append(phase)
                    self.lines, before = [], self.lines
                    self._promise(ptype, promise, self._defined(), self._classes(ptype))
                    phases[phase] += self.lines
                    self.lines = before
            return previous is None or previous(run, ptype, promise)

        agent.promise_filter = hook
        try:
            evaluate()
        finally:
            agent.promise_filter = previous
        missing = {"A": [], "C": [], "B": []}
        for section in bundle.sections:
            for promise in section.promises:
                if id(promise) not in wanted:
                    continue
                done = seen.get(id(promise), [])
                due = ["C"] if section.name == "classes" else ["A", "B"] if common else ["A"]
                for phase in due:
                    if phase not in done:
                        missing[phase].append((section.name, promise))
        ctx = agent.ctx
        for phase in ("A", "C", "B"):
            if missing[phase]:
                ctx.push(Frame(bundle.namespace, bundle.name, bundle))
                try:
                    self.lines, before = [], self.lines
                    for ptype, promise in missing[phase]:
                        self._promise(ptype, promise, self._defined(), self._classes(ptype))
                    phases[phase] += self.lines
                    self.lines = before
                finally:
                    ctx.pop()
            self.lines += phases[phase]

    def _classes(self, ptype: str) -> Callable[[str], bool] | None:
        return self._defined() if ptype == "classes" else None

    def whole(self) -> None:
        """The last round, the whole policy once every file is read."""
        from cfpromise.agent.leftout import in_file_order
        bundles = in_file_order(self.agent, self.agent.policy.bundles)
        for bundle in bundles:
            if bundle.type == "common":
                self._bundle(bundle, ("vars", "classes", "vars"))
        for bundle in bundles:
            if bundle.type != "common":
                self._bundle(bundle, ("vars",))

    def emit(self) -> None:
        """What cf-promises said (when it ran), then -- the agent's own loading resolves
        the policy as cf-promises does -- what the agent's loading says itself: only the
        classes promises' warnings (its vars promises say nothing)."""
        log = self.agent.out.log
        if self.validates:
            self.said = self.lines if self.validation is None else self.validation
            for _, line in self.said:
                log("warning", line)
        if self.as_agent:
            for ptype, line in self.lines:
                if ptype == "classes":
                    log("warning", line)
        self.lines = []

    def _bundle(self, bundle: ast.Bundle, passes: tuple[str, ...]) -> None:
        wanted = {id(p) for b, _, p in candidates(self.agent, (bundle,))}
        if not wanted:
            return
        ctx = self.agent.ctx
        ctx.push(Frame(bundle.namespace, bundle.name, bundle))
        try:
            for ptype in passes:
                section = bundle.section(ptype)
                if section is None:
                    continue
                for promise in section.promises:
                    if id(promise) in wanted:
                        self._promise(ptype, promise, self._defined(), self._classes(ptype))
        finally:
            ctx.pop()

    def _promise(self, ptype: str, promise: ast.Promise, guards: Callable[[str], bool],
                 classes: Callable[[str], bool] | None) -> None:
        agent, ctx = self.agent, self.agent.ctx
        facts = guard_info(agent.infos, promise)
        if facts.guarded and (facts.guard is None or not classexpr.evaluate(facts.guard, guards)):
            return
        iterated_guard = False
        if promise.varclass is not None:
            iterated_guard = quoted_guard(ctx, promise)    # "$(list)":: per iteration
            if iterated_guard is None:
                return
        for c in promise.constraints:
            if c.lval in ("if", "ifvarclass", "unless") and has_call(c.rval):
                return                      # cf-promises calls it; nothing is called here
        action = promise.get("action")
        if isinstance(action.rval, ast.FnCall) and any(has_call(a) for a in action.rval.args):
            return
        name = action.rval.name if isinstance(action.rval, ast.FnCall) else \
            action.rval.value if isinstance(action.rval, ast.Scalar) else ""
        if _body_calls(agent, name, promise_ns(ctx)):
            return
        if self.file_bodies is not None and "$" not in name:
            body = agent.resolver.find(name, "action", promise_ns(ctx))
            if body is None or (body.namespace, body.name) not in self.file_bodies:
                return                      # not in this file: cf-promises has none yet
        for bindings in agent.iterations(promise, iterated_guard):
            if iterated_guard and not agent.guard_holds(promise.varclass, bindings):
                continue
            ev = RvalEvaluator(ctx, bindings)
            if agent.conditions(promise, ev, False) is not True:
                continue
            promiser = ev.text(promise.promiser)
            if classes is not None:
                from cfpromise.eval.canon import canonify
                if classes(canonify(promiser)):
                    continue
            ref = body_reference(action.rval, ev)
            if ref is None:
                continue
            try:
                values = agent.resolver.resolve("action", ref[0], ref[1], promise_ns(ctx),
                                                bindings)
            except BodyError:
                continue
            self._say(ptype, promiser, values)

    def _say(self, ptype: str, promiser: str, values: dict[str, Any]) -> None:
        from cfpromise.eval.functions.common import CF_NOINT, int_from_string
        unparsed_ints(self.agent.out, "action", values)
        for lval in _LOCKING:
            value = values.get(lval)
            if not isinstance(value, str) or value is UNRESOLVED:
                continue
            number = int_from_string(value)
            if number == CF_NOINT or (lval == "ifelapsed" and number == 0 and ptype == "vars"):
                continue
            self.lines.append((ptype, f"{lval} attribute specified in action body for {ptype} promise "
                              f"'{promiser}', but {ptype} promises do not support promise "
                              "locking"))


def promise_ns(ctx: Any) -> str:
    return ctx.frame.namespace or "default"


def named(agent: Any, included: ast.Policy, naming: str) -> None:
    """Note where ``included`` stands in cf-promises' reading order: depth first, each
    file's inputs in the order it names them (cf-lite reads them breadth first)."""
    order = agent.__dict__.setdefault("input_order", {})
    count = order.get(("#", naming), 0)
    order[("#", naming)] = count + 1
    order[included.path] = order.get(naming, ()) + (count,)


def for_file(agent: Any, policy: ast.Policy) -> Rounds | None:
    """The agent's Rounds when the file just read may warn (made on first need), else
    None: the file loads as usual."""
    from cfpromise.agent.leftout import every_bundle
    if not candidates(agent, every_bundle(agent, policy)):
        return None
    rounds = getattr(agent, "lock_rounds", None)
    if rounds is None:
        as_agent = not getattr(agent, "warn_locking", False)
        validates = True
        if as_agent:
            from cfpromise.agent.augments import validating
            validates = validating(agent)
        rounds = agent.lock_rounds = Rounds(agent, as_agent, validates)
    rounds.file_bodies = {(b.namespace, b.name) for b in policy.bodies if b.type == "action"}
    # this file's lines, placed at its turn in cf-promises' order (a file found on the
    # bundle path, cf-lite's own, last)
    key = () if policy.path == agent.options.file else \
        agent.__dict__.get("input_order", {}).get(policy.path, (1 << 30,))
    rounds.lines = []
    rounds.by_file.append((key, rounds.lines))
    return rounds


def finish(agent: Any) -> None:
    """Round 2, once every file is read, and what the rounds said."""
    rounds = getattr(agent, "lock_rounds", None)
    if rounds is not None:
        rounds.file_bodies = None
        rounds.by_file.sort(key=lambda item: item[0])
        rounds.lines = [line for _, lines in rounds.by_file for line in lines]
        rounds.whole()
        if rounds.as_agent and rounds.validates and agent.options.define:
            rounds.validation = without_defines(agent)
        rounds.emit()


def without_defines(agent: Any) -> list[tuple[str, str]]:
    """What cf-promises says when cf-agent runs it to validate: it is given none of the
    agent's -D classes (:mod:`cfpromise.agent.promisesview`)."""
    from cfpromise.agent.promisesview import view
    sub = view(agent)
    rounds = getattr(sub, "lock_rounds", None) if sub is not None else None
    return list(rounds.said) if rounds is not None else []
