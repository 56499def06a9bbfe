"""Resolve a body reference (``perms => mog("644", "root", "root")``) to its attributes.

The body is found by name and type (qualified name first, else the referring
bundle's namespace, then ``default``); ``inherit_from`` chains are applied
parent first, so the child's attributes win; only attributes whose class guard
holds now are kept; parameters are bound by position (a list argument stays a
list for ``@(param)``) and every value is expanded.  The result is a plain dict
of attribute -> value.
"""
from __future__ import annotations

from cfpromise.eval.expand import naked_reference
from cfpromise.eval.functions.api import Variable
from cfpromise.eval.rvals import UNRESOLVED, DataArray, RvalEvaluator, parameter_value
from cfpromise.schema.values import ValueError_, runtime_check
from cfpromise.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


# Body types cf-agent never checks a value of against its type (ConstraintCheckType leaves
# the common bodies out, at load and after): an action_policy out of range is read as the
# default there, not a fatal error
# (nor select_region's, common to the edit_line promise types)
_UNCHECKED = frozenset({"action", "classes", "select_region"})


def has_call(rval: ast.Rval) -> bool:
    """The value calls a function (in a list or a call's arguments too)."""
    if isinstance(rval, ast.FnCall):
        return True
    if isinstance(rval, ast.List):
        return any(has_call(item) for item in rval.items)
    return False


# the integers of the bodies cf-agent never checks (_UNCHECKED), which it parses each
# time it reads the body (IntFromString): a value that is not a number is said each time
UNCHECKED_INTS = {"classes": ("persist_time",), "action": ("ifelapsed", "expireafter")}


def unparsed_ints(out: Any, body_type: str, values: dict[str, Any]) -> None:
    """Log IntFromString's error for each integer of the body that does not parse."""
    from cfpromise.schema.values import is_unexpanded, parse_int
    for lval in UNCHECKED_INTS[body_type]:
        value = values.get(lval)
        if isinstance(value, str) and "$" not in value and not is_unexpanded(value):
            try:
                parse_int(value)
            except ValueError_ as exc:
                out.log("error", str(exc))


class BodyError(Exception):
    """A body that cannot be used: undefined, wrong number of arguments, inheritance loop."""


class InheritanceError(BodyError):
    """A broken inherit_from chain or a bad attribute value: fatal for the run, as in cf-agent."""

    def fatal(self) -> Any:
        """The run's end: an inheritance loop's message alone (cf-agent exits at once,
        exit 1, no "Fatal CFEngine error" line), else cf-agent's FatalError."""
        from cfpromise.agent.abort import FatalError
        fatal = FatalError(str(self))
        if str(self).startswith(APPEND_PARENTS):
            fatal.final = ""
        elif str(self).startswith(ARGUMENT_COUNT):      # FatalError's own words, one line
            fatal.messages, fatal.final = (), str(self)
        return fatal


# cf-agent 3.21's EvalContextAppendBodyParentsAndArgs: an inherit_from chain deeper than
# this (a loop) aborts the run, as does a body inheriting from itself
MAX_INHERITANCE_DEPTH = 30
APPEND_PARENTS = "EvalContextAppendBodyParentsAndArgs: "
ARGUMENT_COUNT = "Argument count mismatch for body"


def inheritance_loop(find: Callable[[str, str, str], Any], body_type: str, name: str,
                     namespace: str) -> str | None:
    """cf-agent's message when the body ``name`` (of type ``body_type``) inherits, through
    its inherit_from chain as written, from itself or from a loop; else None.  The
    referenced body is at depth 1; the body named is the one past the deepest allowed."""
    body = find(name, body_type, namespace)
    depth = 1
    while body is not None:
        parent = BodyResolver._parent_name(body)
        if parent is None or "$" in parent or "@" in parent:
            return None
        if parent == body.name:
            return f"{APPEND_PARENTS}self body inheritance in {body.name}->{parent}, aborting"
        body = find(parent, body_type, body.namespace)
        depth += 1
        if body is not None and depth > MAX_INHERITANCE_DEPTH:
            return (f"{APPEND_PARENTS}body inheritance chain depth {depth} in body {body.name} "
                    "is too much, aborting")
    return None


def reference(rval: ast.Rval, evaluator: RvalEvaluator) -> tuple[str, list[Any]] | None:
    """(name, argument values) of a body or bundle reference."""
    if isinstance(rval, ast.Scalar):
        return evaluator.text(rval.value), []
    if isinstance(rval, ast.FnCall):
        name = evaluator.text(rval.name)
        args = [evaluator.value(a, want_list=True) for a in rval.args]
        return name, [a if a is not UNRESOLVED else "" for a in args]
    return None


def _body_arguments(rval: ast.Rval, evaluator: RvalEvaluator) -> tuple[str, list[Any]] | None:
    """:func:`reference` of a body: an argument whose call failed does not hold the promise
    back (cf-agent keeps the call as the argument and goes on), one that waits for a
    value does."""
    if not isinstance(rval, ast.FnCall):
        return reference(rval, evaluator)
    name = evaluator.text(rval.name)
    args = []
    for a in rval.args:
        before, errors = evaluator.unresolved, len(evaluator.errors)
        value = evaluator.value(a, want_list=True)
        if value is UNRESOLVED and len(evaluator.errors) > errors:
            evaluator.unresolved = before
        args.append(FailedArgument() if value is UNRESOLVED else value)
    return name, args


class FailedArgument(str):
    """A body's argument whose call failed: cf-agent keeps the call, so ``$(param)`` in
    the body stays as written."""


class ListArgument(list):  # type: ignore[type-arg]
    """A body's list argument given as ``@(name)``: a list for ``@(param)``, but
    ``$(param)`` in the body is the reference as written (cf-agent 3.21 does not iterate
    a body over its parameters)."""

    source = ""


def without_caller(evaluator: RvalEvaluator, evaluate: Callable[[], Any]) -> Any:
    """``evaluate()`` with calls that have no calling promise (cf-agent's ``fp->caller``
    is NULL): :func:`cfpromise.eval.functions.common.calling`."""
    ctx = evaluator.ctx
    saved = getattr(ctx, "no_caller", False)
    ctx.no_caller = True
    try:
        return evaluate()
    finally:
        ctx.no_caller = saved


def say_failed_calls(agent: Any, body_type: str, values: dict[str, Any]) -> None:
    """A control body's attribute whose call failed stays a call in cf-agent, which
    ResolveControlBody then skips with an error (``values``: what the attributes gave)."""
    ctx, log = agent.ctx, agent.out.log
    for c in agent.bodies[("default", "control", body_type)].constraints:
        if type(c.rval) is ast.FnCall and c.lval not in values and c.lval != "inherit_from" \
                and "$" not in c.classes and (c.classes == "any"
                                              or ctx.eval_class_expr(c.classes)):
            log("error", f"Attribute '{c.lval}' in {c.coord.file}:{c.line} is of wrong type, "
                "skipping")


def body_reference(rval: ast.Rval, evaluator: RvalEvaluator) -> tuple[str, list[Any]] | None:
    """:func:`reference` for a body: ``@(name)`` arguments remember how they were written.
    Their calls have no calling promise (cf-agent's DeRefCopyPromise evaluates them before
    the promise is made): :func:`without_caller`."""
    ref = without_caller(evaluator, lambda: _body_arguments(rval, evaluator))
    if ref is None or not isinstance(rval, ast.FnCall):
        return ref
    args = list(ref[1])
    for i, arg in enumerate(rval.args):
        if not (isinstance(arg, ast.Scalar) and arg.value.startswith("@")
                and naked_reference(arg.value) is not None):
            continue
        if isinstance(args[i], list) and not isinstance(args[i], DataArray):
            wrapped = ListArgument(args[i])
            wrapped.source = arg.value
            args[i] = wrapped
        else:   # a container or a list that does not exist: the reference as written
            args[i] = arg.value
    return ref[0], args


class BodyResolver:
    def __init__(self, bodies: dict[tuple[str, str, str], ast.Body], ctx: Any) -> None:
        self.bodies = bodies           # (namespace, name, type) -> Body
        self.ctx = ctx
        # hook: a body no file defines, (name, body type, namespace) -> Body | None
        # (cfpromise.agent.autoload)
        self.missing: Callable[[str, str, str], ast.Body | None] | None = None
        from cfpromise.schema import schema
        self.schema = schema()

    def find(self, name: str, body_type: str, namespace: str) -> ast.Body | None:
        if ":" in name:
            ns, _, short = name.partition(":")
            found = self.bodies.get((ns, short, body_type))
        else:
            found = self.bodies.get((namespace, name, body_type)) or \
                self.bodies.get(("default", name, body_type))
        if found is None and self.missing is not None:
            found = self.missing(name, body_type, namespace)
        return found

    def resolve(self, body_type: str, name: str, args: list[Any], namespace: str,
                bindings: dict[str, str], depth: int = 0, load: bool = False) -> dict[str, Any]:
        body = self.find(name, body_type, namespace)
        if body is None:
            raise BodyError(f"Undefined body {name} with type {body_type}")
        return self.resolve_body(body, body_type, args, bindings, depth, load)

    def resolve_body(self, body: ast.Body, body_type: str, args: list[Any],
                     bindings: dict[str, str], depth: int = 0,
                     load: bool = False) -> dict[str, Any]:
        """The attributes of ``body`` (of type ``body_type``) called with ``args``.
        ``load``: for the check at load (cfpromise.agent.precheck), values unchecked and
        no function called (a value or parent reference holding a call is left out)."""
        name = body.name
        if len(body.args) != len(args):
            raise BodyError(f"Body {name} of type {body_type} takes {len(body.args)} argument(s), "
                            f"{len(args)} given")
        if depth >= MAX_INHERITANCE_DEPTH:
            raise InheritanceError(f"{APPEND_PARENTS}body inheritance chain depth {depth + 1} "
                                   f"in body {name} is too much, aborting")
        parent_of = self._parent_name(body)
        if parent_of is not None and parent_of == name:
            raise InheritanceError(f"{APPEND_PARENTS}self body inheritance in {name}->{name}, "
                                   "aborting")
        params = dict(zip(body.args, args))
        evaluator = RvalEvaluator(_ParamContext(self.ctx, params, body.namespace), bindings)
        result: dict[str, Any] = {}
        for c in reversed(_parents(body)):      # (the first parent's attributes win)
            if load and has_call(c.rval):
                continue
            written = getattr(c.rval, "name" if type(c.rval) is ast.FnCall else "value", None)
            if not isinstance(written, str) or "$" in written or "@" in written:
                continue            # cf-agent names the parent as written: no such body
            ref = body_reference(c.rval, evaluator)
            if ref is not None:
                parent = self.find(ref[0], body_type, body.namespace)
                if parent is None:
                    continue        # a parent no body answers: silently none (cf-agent)
                if len(parent.args) != len(ref[1]):
                    raise InheritanceError(
                        f"{ARGUMENT_COUNT} (gave {len(ref[1])} arguments) vs. "
                        f"inherited body '{parent.namespace}:{parent.name}' (requires "
                        f"{len(parent.args)} arguments)")
                result.update(self.resolve(body_type, ref[0], ref[1], body.namespace, bindings,
                                           depth + 1, load))
        for c in body.constraints:
            if c.lval == "inherit_from" or not self._holds(c.classes, evaluator):
                continue
            if load and has_call(c.rval):
                continue
            attr = self.schema.body_types.get(body_type, {}).get(c.lval)
            if attr is not None and attr.type == "bundle":      # service_bundle => b(x)
                from cfpromise.agent.bundleargs import bundle_call
                call = bundle_call(c.rval, evaluator)
                if call is not None:
                    result[c.lval] = call
                continue
            # a custom body type (no schema): lists as written, as for custom promises
            want_list = attr.is_list if attr is not None else body_type not in self.schema.body_types
            rval = _list_params_spliced(c.rval, params) if want_list else c.rval
            if c.lval == "bundlesequence" and type(rval) is ast.List:
                # its calls name bundles (t2("a")): no function is called, none said
                rval = ast.List(tuple(i for i in rval.items if type(i) is not ast.FnCall))
            value = evaluator.value(rval, want_list=want_list)
            if value is not UNRESOLVED:
                if attr is not None and body_type not in _UNCHECKED and not load:
                    try:
                        runtime_check(c.lval, value, attr.type, attr.range)
                    except ValueError_ as exc:
                        raise InheritanceError(f"{c.coord.file}:{c.coord.line}: {exc}") from None
                result[c.lval] = value
        return result

    @staticmethod
    def _parent_name(body: ast.Body) -> str | None:
        for c in body.constraints:
            if c.lval == "inherit_from":
                if isinstance(c.rval, ast.Scalar):
                    return c.rval.value
                if isinstance(c.rval, ast.FnCall):
                    return c.rval.name
        return None

    def _holds(self, classes: str, evaluator: RvalEvaluator) -> bool:
        if classes == "any":
            return True
        return self.ctx.eval_class_expr(evaluator.text(classes) if "$" in classes else classes)


def _parents(body: ast.Body) -> list[ast.Constraint]:
    """The body's inherit_from constraints as cf-agent 3.21 follows them: each one, class
    guard or not, in the order written; one repeated under the same guard replaces the
    earlier in its place (the parser's BodyAppendConstraint)."""
    kept: dict[str, ast.Constraint] = {}
    for c in body.constraints:
        if c.lval == "inherit_from":
            kept[c.classes] = c
    return list(kept.values())


def _list_params_spliced(rval: ast.Rval, params: dict[str, Any]) -> ast.Rval:
    """A list attribute's item that is exactly ``$(param)`` of a list argument given as
    ``@(name)`` stands for the list's items, as in cf-agent 3.21 (``servers => {
    "$(server)" }`` with ``@(main.servers)`` connects to each server, not to a host
    named "@(main.servers)")."""
    if not isinstance(rval, ast.List):
        return rval
    items = list(rval.items)
    changed = False
    for i, item in enumerate(items):
        if isinstance(item, ast.Scalar) and item.value[:1] == "$":
            inner = naked_reference(item.value, "$")
            if inner is not None and isinstance(params.get(inner), ListArgument):
                items[i] = ast.Scalar(f"@({inner})", item.kind, item.coord, item.quote)
                changed = True
    return ast.List(tuple(items), rval.coord) if changed else rval


class _ParamContext:
    """The evaluation context seen inside a body: its parameters first."""

    in_body = True      # (an @(name) of a scalar is taken without cf-agent's warning)

    def __init__(self, ctx: Any, params: dict[str, Any], namespace: str) -> None:
        self._ctx = ctx
        self._params = params
        self._namespace = namespace

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx, name)

    @property
    def no_caller(self) -> Any:         # (the run's, not the body's own)
        return self._ctx.no_caller

    @no_caller.setter
    def no_caller(self, value: Any) -> None:
        self._ctx.no_caller = value

    def resolve_ref(self, ref: str) -> tuple[str, Variable] | None:
        if ref in self._params:
            if type(self._params[ref]) is FailedArgument:
                return None
            return f"param:{ref}", Variable(*parameter_value(self._params[ref]))
        return self._ctx.resolve_ref(ref)

    def expander(self, bindings: dict[str, str] | None = None, iterate: bool = False) -> Any:
        from cfpromise.eval.expand import Expander
        return Expander(self.resolve_ref, bindings, iterate)


ParamContext = _ParamContext   # for the custom promise types' bodies (promises/custom/bodies.py)

if TYPE_CHECKING:
    Lookup = Callable[[str, str, str], ast.Body | None]
