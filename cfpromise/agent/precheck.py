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
* the attributes of the bodies the promise names (``perms => m("$(v)")``), as cf-agent
  copies them into the promise (parameters bound, ``inherit_from`` applied, guards held)
  and checks them by name: against the promise type's own bodies (perms, copy_from,
  contain, select_region's is not: an edit_line-wide body) and, for ``scope``, ``and``,
  ``expression``... against the classes promise type; so the common bodies (action,
  classes) go unchecked but for those names.  Every type with a check: a string range
  ("Scalar value is out of range", ``mode``'s "Error parsing Unix permission string"
  after the parser's own "Invalid mode string (...)"), int, real, option, context and
  ranges (:mod:`cfpromise.schema.typematch`); only bodies with such a value written with
  a reference are expanded, and a body whose arguments do not resolve yet is left alone;
* values still holding references, and promises that iterate over lists, are left alone
  (cf-agent lets an unexpanded value through); functions are called again only when they
  return a list (what the check is about): the preliminary convergence has just called
  them all (:mod:`cfpromise.agent.prelim`), and this check follows it.
"""
from __future__ import annotations

from cfpromise.agent.abort import FatalError
from cfpromise.agent.promiseinfo import guard_info, info
from cfpromise.eval.expand import NeedIteration, naked_reference, prepare_iteration
from cfpromise.eval.rvals import UNRESOLVED, RvalEvaluator
from cfpromise.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SKIPPED = frozenset({"if", "ifvarclass", "unless", "depends_on"})
# promise types the engine evaluates itself: only their common attributes are checked here
# (their own values have checks of their own, at the time cf-agent makes them)
_OWN_CHECKS = frozenset({"vars", "meta", "defaults", "classes"})
_COMMON = frozenset({"with", "comment", "handle"})
# ... but for the attributes of those types no check of their own covers (a classes
# promise's class expressions are checked as it is evaluated: cfpromise.promises.classes)
_CHECKED_HERE = frozenset({("classes", "dist"), ("classes", "persistence"),
                           ("classes", "scope")})
_LIST_TYPES = frozenset({"slist", "ilist", "rlist", "clist", "olist"})


# (agent, body, promise type) -> whether the body is worth expanding; one agent's at a time
_MEMO: dict[int, dict[tuple[int, str], bool]] = {}


class RefusedArgument(FatalError):
    """A built-in's literal argument refused while cf-agent expands every promise at load
    (``if => fileexists("rel/x")`` in any bundle): "Fatal CFEngine error: In function
    ...", exit 1, before any bundle runs (cf-promises evaluates only vars: no failsafe)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.messages = ()
        self.final = text


def check_policy(agent: Any) -> None:
    """Raise FatalError, as cf-agent stops, on the first promise that fails the check."""
    from cfpromise.eval.functions.api import FatalFunctionError
    _MEMO.clear()
    try:
        _check_policy(agent)
    except FatalFunctionError as exc:
        raise RefusedArgument(str(exc)) from None
    finally:
        _MEMO.clear()
        agent.scalar_lists.clear()


def _check_policy(agent: Any) -> None:
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
                    if section.name == "vars" and id(promise) in agent.scalar_lists:
                        lval, shown = agent.scalar_lists[id(promise)]
                        raise FatalError(f"{promise.coord.file}:0:0: In attribute '{lval}', "
                                         "Attempted to give a scalar to a non-scalar type. "
                                         f"Given attribute value '{shown}'")
                    try:
                        _check(agent, section.name, table, promise)
                    except NeedIteration:
                        continue            # iterated: its values are scalars one by one
        finally:
            ctx.pop()


# the classes promise type's attributes cf-agent checks any constraint of that name
# against, a body's included (CF_CLASSBODY in ConstraintCheckType)
_CLASS_ATTRS = ("scope", "and", "dist", "expression", "or", "persistence", "not",
                "select_class", "xor")


def _body_attribute(agent: Any, ptype: str, table: dict[str, Any], lval: str) -> Any:
    """The type a constraint copied from a body is checked against (ConstraintCheckType):
    the classes promise type's attribute of that name, else the first of the promise
    type's own bodies that has it, else the promise type's own attribute; None: none."""
    memo = _ATTRS.get(id(table))
    if memo is None or memo[0] is not table:
        memo = _ATTRS[id(table)] = (table, {})
    found = memo[1].get(lval, _ATTRS)
    if found is _ATTRS:
        found = memo[1][lval] = _find_body_attribute(agent, table, lval)
    return found


# id(promise type's table) -> (table, {lval: _body_attribute's answer}); the schema is fixed
_ATTRS: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}


def _find_body_attribute(agent: Any, table: dict[str, Any], lval: str) -> Any:
    sch = agent.schema
    if lval in _CLASS_ATTRS:
        return sch.promise_types.get("classes", {}).get(lval)
    found = table.get(lval)
    for name, attr in table.items():
        if attr.type == "body" and attr.visibility == "promiseType":
            battr = sch.body_types.get(name, {}).get(lval)
            if battr is not None:
                return battr
    return found if found is not None and found.visibility == "promiseType" else None


def _checked_type(attr: Any) -> bool:
    """A value of this attribute can fail a check (a string's range is not just anything)."""
    if attr is None or attr.type in ("body", "bundle"):
        return False
    if attr.type in ("string", "slist"):
        return bool(attr.range) and attr.range not in (".*", "")
    return True


def _may_fail(agent: Any, ptype: str, table: dict[str, Any], body: ast.Body | None,
              depth: int = 0) -> bool:
    """``body`` (or a parent) has a value written with a reference for an attribute with
    a check: only such bodies are worth expanding at load."""
    if body is None or depth > 20:
        return False
    memo = _MEMO.setdefault(id(agent), {})
    key = (id(body), ptype)
    if key in memo:
        return bool(memo[key])
    memo[key] = False                       # (an inheritance loop ends here)
    found = False
    for c in body.constraints:
        if c.lval == "inherit_from":
            parent = c.rval.name if isinstance(c.rval, ast.FnCall) else \
                c.rval.value if isinstance(c.rval, ast.Scalar) else None
            if parent and _may_fail(agent, ptype, table,
                                    agent.resolver.find(parent, body.type, body.namespace),
                                    depth + 1):
                found = True
        elif _checked_type(_body_attribute(agent, ptype, table, c.lval)) \
                and _has_reference(c.rval):
            found = True
    memo[key] = found
    return found


def _has_reference(rval: ast.Rval) -> bool:
    if isinstance(rval, ast.Scalar):
        return "$" in rval.value or "@" in rval.value
    if isinstance(rval, ast.List):
        return any(_has_reference(item) for item in rval.items)
    return False


def _body_candidates(agent: Any, ptype: str, table: dict[str, Any],
                     promise: ast.Promise) -> list[ast.Constraint]:
    """The constraints naming a body whose values may fail the check once expanded."""
    out = []
    for c in promise.constraints:
        if c.lval in _SKIPPED or c.lval not in agent.schema.body_types:
            continue
        attr = table.get(c.lval)
        if attr is None or attr.type != "body":
            continue
        name = c.rval.name if isinstance(c.rval, ast.FnCall) else \
            c.rval.value if isinstance(c.rval, ast.Scalar) else None
        if not name or "$" in name:
            continue
        body = agent.resolver.find(name, c.lval, promise_namespace(agent))
        if _may_fail(agent, ptype, table, body):
            out.append(c)
    return out


def promise_namespace(agent: Any) -> str:
    return agent.ctx.frame.namespace or "default"


def _candidates(agent: Any, ptype: str, table: dict[str, Any],
                promise: ast.Promise) -> list[tuple[ast.Constraint, Any]]:
    """The constraints whose value may fail the check: scalar attributes whose value holds
    a reference or calls a function returning a list (a literal is checked with the
    policy, as cf-promises checks it)."""
    out = []
    for c in promise.constraints:
        if c.lval in _SKIPPED or (ptype in _OWN_CHECKS and c.lval not in _COMMON_CHECKED
                                  and (ptype, c.lval) not in _CHECKED_HERE):
            continue
        attr = table.get(c.lval)
        if attr is None or attr.type in ("body", "bundle"):
            continue
        rval = c.rval
        if c.lval in _COMMON_CHECKED and (_unknown_call(agent, rval) is not None or (
                attr.type in _LIST_TYPES and isinstance(rval, ast.Scalar))):
            # a common attribute the parser let by: an unknown function stays a call
            # ("Unknown function"), a string for meta is a scalar for a list
            out.append((c, attr))
            continue
        if attr.type in _LIST_TYPES:
            # a list's items against the item type (a literal list is checked with the
            # policy): worth it for items written with references
            if isinstance(rval, ast.List) and _checked_type(attr) and _has_reference(rval):
                out.append((c, attr))
            continue
        if isinstance(rval, ast.Scalar):
            # a value can become a list only as a whole @(list); a reference inside text
            # iterates.  Only the values with references of types with a check (a string
            # whose range is not just anything) are worth expanding.
            text = rval.value
            if text[:2] in ("@(", "@{") or ("$" in text and _checked_type(attr)):
                out.append((c, attr))
        elif isinstance(rval, ast.FnCall):
            sig = agent.schema.functions.get(rval.name)
            if sig is not None and sig.return_type in _LIST_TYPES:
                out.append((c, attr))
    return out


# the common attributes cf-agent's check looks at (CF_COMMON_BODIES, the conditions and
# depends_on aside: they are not in the promise it checks)
_COMMON_CHECKED = _COMMON | {"meta"}


def _unknown_call(agent: Any, rval: ast.Rval) -> ast.FnCall | None:
    """A call of an unknown function as ``rval`` or one of its list's items."""
    items = rval.items if isinstance(rval, ast.List) else (rval,)
    for item in items:
        if isinstance(item, ast.FnCall) and agent.schema.functions.get(item.name) is None:
            return item
    return None


def _literal_calls(rval: Any, out: list[ast.FnCall]) -> list[ast.FnCall]:
    """The calls in ``rval`` (nested ones too) with a literal argument to check."""
    if isinstance(rval, ast.FnCall):
        if any(isinstance(a, ast.Scalar) and "$" not in a.value for a in rval.args):
            out.append(rval)
        for a in rval.args:
            _literal_calls(a, out)
    elif isinstance(rval, ast.List):
        for item in rval.items:
            _literal_calls(item, out)
    return out


def _check(agent: Any, ptype: str, table: dict[str, Any], promise: ast.Promise) -> None:
    ctx = agent.ctx
    # (the guard first: the preliminary convergence has just looked at it)
    facts = guard_info(agent.infos, promise)
    if facts.guarded and not ctx.class_tree_holds(facts.guard):
        return
    candidates = _candidates(agent, ptype, table, promise)
    bodies = _body_candidates(agent, ptype, table, promise)
    calls: list[ast.FnCall] = []
    if ptype not in ("vars", "meta"):       # (those: evaluated, so checked, already)
        for c in promise.constraints:
            _literal_calls(c.rval, calls)
    if not candidates and not bodies and not calls:
        return
    if not prepare_iteration(info(agent.infos, promise).texts, ctx.log):
        return          # (the iteration engine skips it: nothing of it is checked)
    if promise.varclass is not None:
        exp = ctx.expander()
        guard = exp.expand(promise.varclass)
        if exp.unresolved or not ctx.eval_class_expr(guard):
            return
    if promise.get("depends_on") is not None:
        return                              # no handle is done yet: excluded
    if calls:
        from cfpromise.eval.argcheck import check_args
        for call in calls:
            check_args(call.name, call.args, agent.out.log)
        if not candidates and not bodies:
            return
    ev = RvalEvaluator(ctx, {})
    promiser = ev.text(promise.promiser)
    if ptype == "classes":
        from cfpromise.eval.canon import canonify
        if ctx.class_defined(canonify(promiser)):
            return
    ev.unresolved = False
    if agent.conditions(promise, ev, False) is not True:
        return
    by_constraint = dict((id(c), attr) for c, attr in candidates)
    body_ids = {id(c) for c in bodies}
    for c in promise.constraints:
        if id(c) in body_ids:
            _check_body(agent, ptype, table, promise, c, ev)
            continue
        attr = by_constraint.get(id(c))
        if attr is None:
            continue
        if c.lval in _COMMON_CHECKED and _unknown_call(agent, c.rval) is not None:
            from cfpromise.agent.trace import rval_text
            _fatal(agent, c.coord.file, c.lval, "Unknown function", rval_text(c.rval))
        value = _value(ev, c.rval)
        if value is UNRESOLVED and c.lval in _COMMON_CHECKED and attr.type in _LIST_TYPES \
                and type(c.rval) is ast.Scalar and naked_reference(c.rval.value) is None:
            value = ev.text(c.rval.value)   # (a string, references and all: no list)
        if c.lval in _COMMON_CHECKED and attr.type in _LIST_TYPES and isinstance(value, str):
            _fatal(agent, c.coord.file, c.lval, "Attempted to give a scalar to a non-scalar "
                                                "type", value)
        if value is UNRESOLVED:
            continue
        if isinstance(value, list) and attr.type not in _LIST_TYPES and c.lval == "comment":
            agent.out.log("error", "Comments can only be scalar objects, not 'list' in "
                                   f"'{promiser}'")
        _type_match(agent, c.coord.file, c.lval, value, attr)


def _type_match(agent: Any, file: str, lval: str, value: Any, attr: Any) -> None:
    """FatalError, after what cf-agent logs on the way, when ``value`` fails its type."""
    from cfpromise.schema.typematch import type_match
    if not isinstance(value, (str, list)):
        return
    logged, error = type_match(lval, value, attr.type, attr.range)
    for message in logged:
        agent.out.log("error", message)
    if error is not None:
        from cfpromise.agent.showeval import list_text
        _fatal(agent, file, lval, error, list_text(value) if isinstance(value, list) else value)


def _fatal(agent: Any, file: str, lval: str, error: str, shown: str) -> None:
    from cfpromise.promises.api import shown_path
    file = shown_path(file, getattr(agent, "start_dir", "") or
                      getattr(getattr(agent, "options", None), "start_dir", ""))
    raise FatalError(f"{file}:0:0: In attribute '{lval}', {error}. "
                     f"Given attribute value '{shown}'")


def _check_body(agent: Any, ptype: str, table: dict[str, Any], promise: ast.Promise,
                c: ast.Constraint, ev: RvalEvaluator) -> None:
    """The attributes of the body ``c`` names, expanded as cf-agent copies them into the
    promise, each against the type :func:`_body_attribute` gives."""
    from cfpromise.agent.bodies import BodyError, body_reference, has_call
    if isinstance(c.rval, ast.FnCall) and any(has_call(a) for a in c.rval.args):
        return                              # (no function is called at load)
    if isinstance(c.rval, ast.FnCall):
        ev.unresolved = False
        for arg in c.rval.args:
            if ev.value(arg, want_list=True) is UNRESOLVED or ev.unresolved:
                return                      # an argument not known yet: left alone
    ref = body_reference(c.rval, ev)
    if ref is None:
        return
    try:
        values = agent.resolver.resolve(c.lval, ref[0], ref[1], promise_namespace(agent),
                                        {}, load=True)
    except BodyError:
        return                              # the run says what is wrong with it
    for lval, value in values.items():
        attr = _body_attribute(agent, ptype, table, lval)
        if not _checked_type(attr):
            continue
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            continue
        _type_match(agent, promise.coord.file, lval, value, attr)


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
