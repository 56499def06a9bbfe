"""The arguments of a bundle reference (``usebundle => b(...)``, ``edit_line``,
``edit_xml``, ``home_bundle``, a service_method body's ``service_bundle``), made as
cf-agent 3.21 makes them.

The algorithm.  When the promise is expanded, cf-agent expands the reference without
calling anything (ExpandBundleReference): a scalar argument is expanded; ``@(name)``
stays as written; a function call stays a call whose own scalars are expanded.  Only
as the bundle is entered (ScopeAugment, each time it is entered) are the parameters
bound, one by one in order: ``@(name)`` to the list or container it names (else the
text as written, with an error), a call to its result when that is a scalar (else the
error :data:`NOT_SCALAR`, and the parameter is not bound: a methods call's bundle sees
it undefined, an edit bundle what an earlier call bound).  A bundle never entered (a
file not edited, a user not created) calls none of the functions.

Here the reference gives the expanded scalars as they are and the other two as
:class:`PendingArgument` strings (their text is what cf-agent's "Actual = ..." shows);
the engine resolves them (:func:`bind`) as it binds the parameters.  A call's
variables that do not resolve yet make the promise wait, as its scalars would -- a
scalar while IsCf3VarString finds a reference in its text (not ``x$(a``, ``$(a ${})``:
what a broken reference leaves)."""
from __future__ import annotations

from cfpromise.eval.expand import naked_reference
from cfpromise.eval.rvals import UNRESOLVED, RvalEvaluator, Unbound, as_text
from cfpromise.syntax import ast
from cfpromise.syntax.varstring import references

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

NOT_SCALAR = "Only functions returning scalars can be used as arguments"


class PendingArgument(str):
    """An argument made only as its bundle is entered; the string is its text as
    cf-agent writes it (RlistWrite), ``resolve`` makes its value."""

    written = ""        # how RlistWrite shows it in "Actual = ..." (quoted or not)
    digest = ""         # what the promise hash takes of it (RvalDigestUpdate)
    make: Callable[[], Any]

    def resolve(self, log: Callable[[str, str], None], bundle: str) -> Any:
        raise NotImplementedError


class CallArgument(PendingArgument):
    """A function call among the arguments: its result if a scalar, else Unbound."""

    def resolve(self, log: Callable[[str, str], None], bundle: str) -> Any:
        value = self.make()
        if value is UNRESOLVED or isinstance(value, (list, dict)):
            log("error", NOT_SCALAR)
            return Unbound()
        return as_text(value)


class ListReference(PendingArgument):
    """``@(name)``: the list or container it names, else the text as written."""

    def resolve(self, log: Callable[[str, str], None], bundle: str) -> Any:
        value = self.make()
        if isinstance(value, (list, dict)):
            return value
        log("error", f"List or container parameter '{naked_reference(str(self))}' not found "
                     f"while constructing scope '{bundle}' - use @(scope.variable) in "
                     "calling reference")
        return str(self)


def bind(log: Callable[[str, str], None], bundle: str, value: Any) -> Any:
    """The value a parameter of ``bundle`` gets from the argument ``value``."""
    if isinstance(value, PendingArgument):
        return value.resolve(log, bundle)
    return value


def _quoted(text: str) -> str:
    """ScalarWrite quoting: only the double quote is escaped."""
    return '"' + text.replace('"', '\\"') + '"'


def _written_call(call: ast.FnCall, evaluator: RvalEvaluator) -> str:
    """FnCallWrite of the call as ExpandFnCall leaves it (its scalars expanded)."""
    name = evaluator.text(call.name) if "$" in call.name else call.name
    parts = []
    for arg in call.args:
        if isinstance(arg, ast.FnCall):
            parts.append(_written_call(arg, evaluator))
        elif isinstance(arg, ast.Scalar):
            parts.append(_quoted(evaluator.text(arg.value)))
        else:
            parts.append("(** Unknown argument **)\n")
    return f"{name}({','.join(parts)})"


def _pending(kind: type[PendingArgument], text: str, written: str, digest: str,
             make: Callable[[], Any]) -> PendingArgument:
    out = kind(text)
    out.written, out.digest, out.make = written, digest, make
    return out


def _made(evaluator: RvalEvaluator, rval: ast.Rval) -> Callable[[], Any]:
    """The value of ``rval`` when asked, the evaluator's state left as it was."""
    def make() -> Any:
        before = (evaluator.unresolved, evaluator.failed_call)
        try:
            return evaluator.value(rval, want_list=True)
        finally:
            evaluator.unresolved, evaluator.failed_call = before
    return make


def argument(rval: ast.Rval, evaluator: RvalEvaluator) -> Any:
    """One argument of a bundle reference, as the reference holds it (module docstring)."""
    if isinstance(rval, ast.FnCall):
        text = _written_call(rval, evaluator)      # (expanding marks it waiting)
        return _pending(CallArgument, text, text, rval.name, _made(evaluator, rval))
    if isinstance(rval, ast.Scalar) and rval.value.startswith("@") \
            and naked_reference(rval.value) is not None:
        text = evaluator.text(rval.value)
        if evaluator.value(rval, want_list=True) is UNRESOLVED:
            evaluator.unresolved = True     # (a list not there yet waits, as it did)
        return _pending(ListReference, text, _quoted(text), text, _made(evaluator, rval))
    before = evaluator.unresolved
    evaluator.unresolved = False
    value = evaluator.value(rval, want_list=True)
    if evaluator.unresolved and type(value) is str and not references(value):
        evaluator.unresolved = False    # (no reference to wait for: ``x$(a``, ``$(a ${})``)
    evaluator.unresolved = evaluator.unresolved or before
    return value if value is not UNRESOLVED else ""


def bundle_reference(rval: ast.Rval, evaluator: RvalEvaluator
                     ) -> tuple[str, list[Any]] | None:
    """(name, arguments) of a bundle reference (module docstring)."""
    if isinstance(rval, ast.Scalar):
        return evaluator.text(rval.value), []
    if isinstance(rval, ast.FnCall):
        name = evaluator.text(rval.name)
        return name, [argument(a, evaluator) for a in rval.args]
    return None


def bundle_call(rval: ast.Rval, evaluator: RvalEvaluator) -> Any:
    """The BundleCall a bundle attribute makes (None for a value that names none)."""
    ref = bundle_reference(rval, evaluator)
    if ref is None:
        return None
    from cfpromise.promises.api import BundleCall
    return BundleCall(ref[0], tuple(ref[1]))


def actual_text(args: list[Any]) -> str:
    """RlistWrite of the arguments, for cf-agent's "Actual = ..." (`` {}``: none)."""
    if not args:
        return ""
    return " {" + ",".join(a.written if isinstance(a, PendingArgument) else _quoted(str(a))
                           for a in args) + "}"


# the promise attributes that name a bundle, and the bodies (of an attribute) that do
BUNDLE_LVALS = ("usebundle", "edit_line", "edit_xml", "home_bundle")
BUNDLE_BODIES = {"service_method": "service_bundle"}


def reference_rvals(agent: Any, promise: ast.Promise) -> list[ast.Rval]:
    """The scalar arguments of the bundle references ``promise`` makes whose text holds a
    variable (kept for the run, by the agent)."""
    cache = agent.__dict__.setdefault("_reference_rvals", {})
    found = cache.get(id(promise))
    if found is None:
        namespace = agent.ctx.frame.namespace
        found = cache[id(promise)] = (promise, _reference_rvals(
            promise, lambda name, kind: agent.resolver.find(name, kind, namespace)))
    return found[1]


def _reference_rvals(promise: ast.Promise, find_body: Callable[[str, str], Any]
                     ) -> list[ast.Rval]:
    out: list[ast.Rval] = []
    for c in promise.constraints:
        rval: Any = c.rval
        if c.lval in BUNDLE_BODIES and isinstance(rval, (ast.Scalar, ast.FnCall)):
            body = find_body(rval.value if isinstance(rval, ast.Scalar) else rval.name,
                             c.lval)
            rval = next((b.rval for b in body.constraints if b.lval == BUNDLE_BODIES[c.lval]),
                        None) if body is not None else None
        elif c.lval not in BUNDLE_LVALS:
            continue
        if isinstance(rval, ast.FnCall):
            out.extend(a for a in rval.args if isinstance(a, ast.Scalar) and "$" in a.value)
    return out


def done_text(promiser: str, rvals: list[ast.Rval], evaluator: RvalEvaluator) -> str:
    """What says a promise done in an earlier pass is the same one again: its promiser and
    the scalar arguments of its bundle references as they expand now (cf-agent's lock is
    named by the expanded promise: a bundle called with ``$(x)`` is called again in a
    later pass where ``$(x)`` expands to something else; a call among its arguments
    counts by its name only, RvalDigestUpdate)."""
    if not rvals:
        return promiser
    before = evaluator.unresolved
    texts = [evaluator.text(r.value) for r in rvals if isinstance(r, ast.Scalar)]
    evaluator.unresolved = before
    return "\0".join([promiser, *texts])
