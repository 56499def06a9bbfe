"""The type check cf-agent makes of every promise while it loads the policy.

Before any bundle runs, cf-agent 3.21 (loading.c, after the policy's variables are
pre-evaluated) expands every promise of every bundle -- in the bundlesequence or not,
agent, edit_line or any other type, in policy order, section by section -- and checks each
of its attributes against its type (PromiseRecheckAllConstraints); a mismatch stops the run:

    error: FILE:0:0: In attribute 'with', Attempted to give a list to a non-list type.
           Given attribute value ' {"p","q"}'
    error: Fatal CFEngine error: Cannot continue        (exit code 1)

cf-promises makes no such check (it cannot know what a variable will hold), so a policy it
accepts can stop cf-agent here.  What is checked, as there:

* only promises whose class guard holds now (hard classes, ``-D``, augments, the common
  bundles' classes; no class an agent bundle defines), whose ``if``/``ifvarclass`` holds and
  whose ``unless`` does not hold now (a condition that does not resolve excludes the
  promise), with no ``depends_on``, and -- for a classes promise -- whose class is not
  defined yet;
* the scalar attributes of the promise type and the common ones (``with``, ``comment``,
  ``handle``...), body and bundle references and lists aside: one that expands to a list
  (``@(list)`` of a defined list, a function that returns one) is the error above (a data
  container is not: cf-agent lets it through); one that expands to a scalar out of its
  type's range is that range's error (``Selection is out of bounds``...); a ``comment``
  given a list first says so ("Comments can only be scalar objects ...");
* values still holding references, and promises that iterate over lists, are left alone
  (cf-agent lets an unexpanded value through); functions are called only when they return
  a list (what the check is about), so nothing else runs at load.
"""
from __future__ import annotations

from cfpromise.agent.abort import FatalError
from cfpromise.agent.promiseinfo import guard_info
from cfpromise.eval.expand import NeedIteration
from cfpromise.eval.rvals import UNRESOLVED, RvalEvaluator
from cfpromise.schema.values import CHECKERS, ValueError_, runtime_check
from cfpromise.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SKIPPED = frozenset({"if", "ifvarclass", "unless", "depends_on"})
# promise types the engine evaluates itself: only their common attributes are checked here
# (their own values have checks of their own, at the time cf-agent makes them)
_OWN_CHECKS = frozenset({"vars", "meta", "defaults", "classes"})
_COMMON = frozenset({"with", "comment", "handle"})
_LIST_TYPES = frozenset({"slist", "ilist", "rlist", "clist", "olist"})


def check_policy(agent: Any) -> None:
    """Raise FatalError, as cf-agent stops, on the first promise that fails the check."""
    from cfpromise.eval.context import Frame
    ctx = agent.ctx
    for bundle in agent.policy.bundles:
        ctx.push(Frame(bundle.namespace, bundle.name, bundle))
        try:
            for section in bundle.sections:
                table = agent.schema.promise_types.get(section.name)
                if table is None:
                    continue                # a custom promise type: its module checks
                for promise in section.promises:
                    try:
                        _check(agent, section.name, table, promise)
                    except NeedIteration:
                        continue            # iterated: its values are scalars one by one
        finally:
            ctx.pop()


def _candidates(agent: Any, ptype: str, table: dict[str, Any],
                promise: ast.Promise) -> list[tuple[ast.Constraint, Any]]:
    """The constraints whose value may fail the check: scalar attributes whose value holds
    a reference or calls a function returning a list (a literal is checked with the
    policy, as cf-promises checks it)."""
    out = []
    for c in promise.constraints:
        if c.lval in _SKIPPED or (ptype in _OWN_CHECKS and c.lval not in _COMMON):
            continue
        attr = table.get(c.lval)
        if attr is None or attr.type in ("body", "bundle") or attr.type in _LIST_TYPES:
            continue
        rval = c.rval
        if isinstance(rval, ast.Scalar):
            # a value can become a list only as a whole @(list); a reference inside text
            # iterates.  A string has no range to fail (no CHECKERS entry), so only the
            # checked types' values with references are worth expanding.
            text = rval.value
            if text[:2] in ("@(", "@{") or ("$" in text and attr.type in CHECKERS):
                out.append((c, attr))
        elif isinstance(rval, ast.FnCall):
            sig = agent.schema.functions.get(rval.name)
            if sig is not None and sig.return_type in _LIST_TYPES:
                out.append((c, attr))
    return out


def _check(agent: Any, ptype: str, table: dict[str, Any], promise: ast.Promise) -> None:
    candidates = _candidates(agent, ptype, table, promise)
    if not candidates:
        return
    ctx = agent.ctx
    facts = guard_info(agent.infos, promise)
    if facts.guarded and not ctx.class_tree_holds(facts.guard):
        return
    if promise.varclass is not None:
        exp = ctx.expander()
        guard = exp.expand(promise.varclass)
        if exp.unresolved or not ctx.eval_class_expr(guard):
            return
    if promise.get("depends_on") is not None:
        return                              # no handle is done yet: excluded
    ev = RvalEvaluator(ctx, {})
    promiser = ev.text(promise.promiser)
    if ptype == "classes":
        from cfpromise.eval.canon import canonify
        if ctx.class_defined(canonify(promiser)):
            return
    ev.unresolved = False
    if agent.conditions(promise, ev, False) is not True:
        return
    for c, attr in candidates:
        value = _value(ev, c.rval)
        if value is UNRESOLVED:
            continue
        if isinstance(value, list):
            if c.lval == "comment":
                agent.out.log("error", "Comments can only be scalar objects, not 'list' in "
                                       f"'{promiser}'")
            from cfpromise.agent.showeval import list_text
            raise FatalError(f"{c.coord.file}:0:0: In attribute '{c.lval}', Attempted to give "
                             "a list to a non-list type. Given attribute value "
                             f"'{list_text(value)}'")
        if isinstance(value, str):
            try:
                runtime_check(c.lval, value, attr.type, attr.range)
            except ValueError_ as exc:
                raise FatalError(f"{c.coord.file}:0:0: {exc}") from None


def _value(ev: RvalEvaluator, rval: ast.Rval) -> Any:
    """The constraint's value as cf-agent has it now (a candidate's: a scalar or a call
    of a function returning a list); UNRESOLVED when it holds references still."""
    if isinstance(rval, ast.Scalar):
        ev.unresolved = False
        var = ev.whole_list(rval.value)
        if var is not None and var.type == "data":
            return UNRESOLVED               # a container: cf-agent lets it through
    ev.unresolved = False
    value = ev.value(rval, want_list=True)
    if ev.unresolved or value is UNRESOLVED:
        return UNRESOLVED
    if isinstance(value, list) and not all(isinstance(v, str) for v in value):
        return UNRESOLVED
    return value
