"""classes promises: define a class from an expression or a combinator.

Combinators: ``expression``, ``and``, ``or``, ``xor`` (an odd number true),
``not``, ``dist`` (one of ``promiser_W`` for a weight W, at random, weighted), ``select_class``
(one of a list, chosen stably per host); no combinator defines the class.  ``dist`` and
``select_class`` define the promiser too.
Scope: ``bundle`` by default in agent bundles, ``namespace`` in common bundles;
``scope`` overrides.  A class is never undefined by a later evaluation; a
false or unresolved expression is evaluated again in the next pass.  In a
written ``and``/``or``/``xor`` list an item that does not resolve counts as
false (it does not hold the others back).
"""
from __future__ import annotations

from cfpromise.fast import precompiled
from cfpromise.agent.outcome import Outcome
from cfpromise.eval.canon import canonify
from cfpromise.eval.rvals import UNRESOLVED, as_text
from cfpromise.promises.evaluators import Step, evaluator, promise_comment, promise_tags
from cfpromise.syntax import ast
from cfpromise.syntax.varstring import expandable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

COMBINATORS = ("expression", "and", "or", "xor", "not", "dist", "select_class")


def _truth(step: Step, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return step.ctx.eval_class_expr(as_text(value))


def _items(step: Step, value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _itemwise(step: Step, kind: str, rval: ast.List) -> bool:
    """and/or/xor over a written list, item by item.  An item that does not resolve
    (a function whose arguments or call fail) counts as a class that is not defined,
    as in cf-agent, so ``or => { "any", classify("$(undefined)") }`` holds at once; a
    false result is evaluated again in the next pass like any other."""
    ev = step.ev
    before = ev.unresolved
    truths: list[bool] = []
    seen: list[Any] = []
    for item in rval.items:
        ev.unresolved = False
        if isinstance(item, ast.Scalar) and item.value.startswith("@"):
            var = ev.whole_list(item.value)
            if var is not None and var.type == "data":
                # cf-agent drops it: a clist takes lists, not containers
                if step.last:
                    step.log("warning", f"'{item.value}' failed - variable is not list but data")
                continue
            ev.unresolved = False
        ev.broken = False
        values = ev.items((item,))
        seen.extend(values)
        if ev.unresolved and not ev.broken:
            truths.append(False)
        else:
            # each member expanded once more (EvalClassExpression) and read as it is: a
            # broken reference says "Unable to parse class expression" (see evaluate())
            truths.extend(_truth(step, ev.text(v) if type(v) is str and "$" in v else v)
                          for v in values)
    _check_range(step, kind, seen, listed=True)
    for message in ev.errors:
        if step.last:
            step.log("verbose", f"{message} (in {step.where()})")
    ev.errors.clear()
    ev.unresolved = before
    if kind == "and":
        return all(truths)
    if kind == "or":
        return any(truths)
    return sum(truths) % 2 == 1


_ITEMWISE = ("and", "or", "xor")

# the range cf-agent checks expanded class attributes against (fatal when one is out of it)
_CONTEXT_RANGE = precompiled.compile(r"[a-zA-Z0-9_!&@$|.()\[\]{}:]+")


def _check_range(step: Step, kind: str, values: list[Any], listed: bool) -> None:
    """cf-agent 3.21 stops the run when an expanded class attribute (an ``expression``
    or ``not`` string, a member of an and/or/xor/select_class list) is empty or holds a
    character outside the class range: cf-promises could not see it before expansion."""
    texts = [v for v in values if isinstance(v, str)]
    if all(_CONTEXT_RANGE.fullmatch(t) for t in texts):
        return
    from cfpromise.promises.api import FatalError, shown_path
    shown = (" {" + ",".join(f'"{t}"' for t in texts) + "}") if listed else texts[0]
    where = shown_path(step.promise.coord.file, getattr(step.agent.options, "start_dir", ""))
    raise FatalError(f"{where}:0:0: In attribute '{kind}', Context string "
                     f"is invalid/out of range. Given attribute value '{shown}'")


def _distribute(step: Step, name: str, weights: list[Any]) -> str | None:
    """dist: ``promiser_W`` for one weight W (as written), chosen at random in proportion
    to the weights.  Each weight is read as IntFromString reads it (``1k`` is 1000; no
    number, or more after it, is the error value, negative: IntFromString says so), none
    negative, not all zero: else an error and the promise's place (DistributeClass), and
    nothing defined (evaluated again in the next pass)."""
    import random
    from cfpromise.eval.functions.common import int_from_string
    texts = [as_text(w) for w in weights]
    values: list[int] = []
    for text in texts:
        _say_number(step, text)
        number = int_from_string(text)
        if number < 0:
            _refused(step, "Negative integer in class distribution")
            return None
        values.append(number)
    total = sum(values)
    if total == 0:
        _refused(step, "An empty distribution was specified on RHS")
        return None
    fluct = random.random() * total
    for text, weight in zip(texts, values):
        fluct -= weight
        if fluct < 0:
            return canonify(f"{name}_{text}")
    return canonify(f"{name}_{texts[-1]}")


def _say_number(step: Step, text: str) -> None:
    """What IntFromString says of a weight that is no integer, at each evaluation (not
    once per run, as a function's)."""
    from cfpromise.eval.functions.messages import number_problem, text as message
    found = number_problem("int", text)
    if found is not None:
        _say(step, message(found[0], **found[1]))


def _refused(step: Step, message: str) -> None:
    """An error of the promise's value, then cf-agent's PromiseRef of it."""
    from cfpromise.promises.evaluators import promise_ref
    _say(step, message)
    for line in promise_ref(step):
        _say(step, line)


def _failed(step: Step, message: str) -> Outcome:
    """A promise cf-agent fails (its error said): evaluated again in each pass, as the
    class stays undefined; not kept once the last pass is over."""
    _say(step, message)
    if not step.last:
        return Outcome.SKIPPED
    # a common bundle's BundleResolve verifies it again in the same pass (its error said
    # again); its outcome is recorded once
    run = step.run
    if run.failed is None:
        run.failed = set()
    key = (id(step.promise), step.promiser)
    if key in run.failed:
        return Outcome.SKIPPED
    run.failed.add(key)
    return Outcome.FAILED


def _say(step: Step, message: str) -> None:
    """An error of the promise's evaluation, said each time it is evaluated; in a round of
    the policy's loading that the validating cf-promises makes too, said once more for it
    (:meth:`cfpromise.agent.engine.Agent.load_round`)."""
    step.log("error", message)
    if step.run.types is not None and step.agent.validation_echo:
        step.log("error", message)


def _select(step: Step, options: list[Any]) -> str | None:
    """select_class: the member CFEngine's StringHash of "FQHOST+IPV4+UID" picks, so
    every agent on the host picks the same one; an unexpanded member picks nothing."""
    import os
    from cfpromise.eval.functions.lists import string_hash
    from cfpromise.eval.rvals import as_text
    if not options:
        _refused(step, "No classes to select on RHS")
        return None
    if len(options) == 1 and as_text(options[0]).startswith("@") \
            and len(as_text(options[0])) >= 4:                      # IsVarList
        step.log("verbose", f"select_class: Can not expand list '{as_text(options[0])}' "
                            "for setting class.")
        return None
    ctx = step.ctx
    host = ctx.lookup("sys.fqhost")
    ip = ctx.lookup("sys.ipv4")
    seed = f"{host.value if host else ''}+{ip.value if ip else ''}+{os.getuid()}"
    chosen = as_text(options[string_hash(seed) % len(options)])
    if expandable(chosen):
        step.log("verbose", f"select_class: Can not use not expanded element '{chosen}' "
                            "for setting class.")
        return None
    return canonify(chosen)


def _locking_warnings(step: Step, action: ast.Constraint) -> None:
    """cf-agent's GetTransactionConstraints, read each time it verifies a classes promise:
    an action body's ifelapsed or expireafter means nothing here, and it says so."""
    if step.run.types is not None:
        return      # the policy's loading: said per PolicyResolve round (cfpromise.agent.lockwarn)
    from cfpromise.eval.functions.common import CF_NOINT, int_from_string
    body = step.agent.body("action", action.rval, step) or {}
    for lval in ("ifelapsed", "expireafter"):
        value = body.get(lval)
        if isinstance(value, str) and int_from_string(value) != CF_NOINT:
            step.log("warning", f"{lval} attribute specified in action body for classes promise "
                                f"'{step.promiser}', but classes promises do not support "
                                "promise locking")


@evaluator("classes")
def evaluate(step: Step) -> Outcome | None:
    ctx = step.ctx
    run = step.run
    name = canonify(step.promiser)
    # (an empty name is no class: asking cf-agent's way says "Unable to parse ...")
    defined_already = ctx.class_defined(name) if name else ctx.eval_class_expr(name)
    if defined_already:
        return Outcome.KEPT        # already defined: not evaluated again (no function runs)
    action = step.promise.get("action")
    if action is not None:
        _locking_warnings(step, action)
    combinator = None
    for c in step.promise.constraints:         # (a loop, not next() on a generator: see vars)
        if c.lval in COMBINATORS:
            if combinator is not None:
                return _failed(step, f"Irreconcilable constraints in classes for '{name}'")
            combinator = c
    ev = step.ev
    defined: list[str] = []
    if combinator is None:
        defined = [name]
    elif combinator.lval in _ITEMWISE and isinstance(combinator.rval, ast.List):
        if not _itemwise(step, combinator.lval, combinator.rval):
            return Outcome.SKIPPED
        defined = [name]
    else:
        # (a promiser left unexpanded does not hold the value back: cf-agent defines
        # the canonified name, "c_$(x)" as c___x_)
        ev.unresolved = ev.broken = False
        value = ev.value(combinator.rval, want_list=combinator.lval != "expression"
                         and combinator.lval != "not")
        for message in ev.errors:
            if step.last:
                step.log("verbose", f"{message} (in {step.where()})")
        ev.errors.clear()
        if isinstance(value, str) and "$" in value and combinator.lval in ("expression",
                                                                         "not"):
            # cf-agent checks the expanded text against the class range, references and
            # all (``$(a/b)``, ``$(a ${})`` are out of it), then expands it once more
            # before it reads it as a class expression (EvalClassExpression): a broken
            # reference (written ``$()`` the first time, or made of a ``$`` and a ``(``
            # brought together) is said then, and what it leaves is read as it is
            # ("Unable to parse class expression")
            _check_range(step, combinator.lval, [value], False)
            ev.unresolved = ev.broken = False
            value = ev.text(value)
            ev.unresolved = not ev.broken and ev.unresolved
        if value is not UNRESOLVED and ev.unresolved and combinator.lval == "not" \
                and isinstance(value, str):
            # cf-agent reads an expression still holding a reference as a class that is
            # not defined: ``not => "$(x)"`` holds at once (``expression`` does not)
            value, ev.unresolved = False, False
        if value is not UNRESOLVED and ev.unresolved and combinator.lval == "select_class" \
                and isinstance(value, list):
            # cf-agent picks among the members as they stand: one still holding a
            # reference is picked (and defines nothing, until a later pass resolves it)
            ev.unresolved = False
        if ev.unresolved and combinator.lval == "dist" and isinstance(value, list):
            ev.unresolved = False       # (weights are read as they stand: no number)
        if value is UNRESOLVED or ev.unresolved:
            return None if not step.last else Outcome.SKIPPED
        if not name:
            ctx.eval_class_expr(name)   # (EvalClassExpression asks whether it is defined)
        kind = combinator.lval
        if kind in ("and", "or", "xor", "dist", "select_class") and not isinstance(value, list):
            from cfpromise.promises.api import FatalError
            shown = "any" if value is True else "!any" if value is False else as_text(value)
            raise FatalError(f"In attribute '{kind}', Attempted to give a scalar to a non-scalar "
                             f"type. Given attribute value '{shown}'")
        if kind in ("expression", "not", "select_class", "and", "or", "xor"):
            listed = isinstance(value, list)
            _check_range(step, kind, value if listed else [value], listed)
        if kind == "expression":
            truth = _truth(step, value)
        elif kind == "not":
            truth = not _truth(step, value)
        elif kind == "and":
            truth = all(_truth(step, v) for v in _items(step, value))
        elif kind == "or":
            truth = any(_truth(step, v) for v in _items(step, value))
        elif kind == "xor":
            truth = sum(1 for v in _items(step, value) if _truth(step, v)) % 2 == 1
        elif kind == "dist":
            chosen = _distribute(step, name, _items(step, value))
            if chosen is None:
                return Outcome.SKIPPED
            # the weight's class is bundle-scoped (namespace in common bundles) whatever
            # the promise's scope says, as in cf-agent
            dist_scope = "namespace" if run.bundle.type == "common" else "bundle"
            ctx.define_class(chosen, scope=dist_scope, namespace=run.bundle.namespace,
                             tags=("source=promise",))
            truth = True
        else:  # select_class
            chosen = _select(step, _items(step, value))
            if chosen is None:
                return Outcome.SKIPPED
            ctx.define_class(chosen, scope="namespace", namespace=run.bundle.namespace,
                             tags=("source=promise",))
            truth = True
        if not truth:
            return Outcome.SKIPPED
        if not defined:
            defined = [name]
    if not name:
        return _failed(step, "Attempted to name a class '', which is an illegal class "
                             "identifier")
    scope_c = step.promise.get("scope")
    scope = ev.text(scope_c.rval.value) if scope_c is not None else \
        ("namespace" if run.bundle.type == "common" else "bundle")
    tags = promise_tags(step)
    persist_c = step.promise.get("persistence")
    minutes = 0
    if persist_c is not None:
        text = ev.text(getattr(persist_c.rval, "value", "0"))
        minutes = int(text) if text.strip().isdigit() else 0
    for cls in defined:
        if minutes > 0:
            step.log("verbose", f"C:     +  Persistent class: '{cls}' ({minutes} minutes)")
            if not ctx.has_class_key(ctx.class_key(cls, run.bundle.namespace)):   # (kept as loaded)
                ctx.define_class(cls, tags, "namespace", run.bundle.namespace)
            step.log("verbose", f"Updating persistent class '{cls}'")
            step.agent.persistent.remember(cls, minutes, tags, run.bundle.namespace)
            continue
        if step.agent.trace is not None:
            step.agent.trace.defined_class(cls, scope)
        ctx.define_class(cls, scope=scope, namespace=run.bundle.namespace, tags=tags)
    comment = promise_comment(step)
    if comment is not None:
        for cls in defined:
            ctx.comments[ctx.class_key(cls, run.bundle.namespace)] = comment
            step.log("verbose", f"Added class '{cls}' with comment '{comment}'")
    return Outcome.KEPT
