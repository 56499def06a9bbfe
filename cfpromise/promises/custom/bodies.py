"""A body attribute of a custom promise, as cf-agent 3.21 sends it to the promise module.

cf-agent (libpromises/promises.c, ``GetExpandedBodyAsContainer``) turns an attribute of
a custom promise that names a body of the attribute's type -- ``example_body => child``
(an unquoted name) or ``example_body => parent(1, 2)`` -- into a JSON object: the
attributes of the body's whole ``inherit_from`` chain, furthest parent first, so a
child's attribute replaces its parent's (in place); ``inherit_from`` itself is not sent;
class-guarded attributes only when their class holds.  The body's parameters are
substituted in every body of the chain.  Beyond that, the two cases differ:

* a body called **with arguments** is expanded in full (every ``$(var)``), lists as they
  are written -- but the call's arguments themselves are not expanded: an argument
  that refers to a variable (``withargs("$(v)")``) stays as written, and the promise is
  refused for its unresolved variables;
* a body called **without arguments** is not expanded: only ``@(list)`` items of its
  lists are flattened, and a ``$(var)`` other than a parameter stays as written -- so
  the promise is refused for its unresolved variables, as cf-agent refuses it.

A name that is not a body of that type (quoted, or no such body) is sent as the string.
"""
from __future__ import annotations

import re
from typing import Any

from cfpromise.agent.bodies import BodyResolver, ParamContext, body_reference
from cfpromise.eval.expand import naked_reference
from cfpromise.eval.rvals import UNRESOLVED, RvalEvaluator
from cfpromise.syntax import ast

_MAX_DEPTH = 20


def body_container(resolver: BodyResolver, lval: str, rval: ast.Rval, ev: RvalEvaluator,
                   namespace: str, bindings: dict[str, str]) -> dict[str, Any] | None:
    """The object cf-agent sends for ``lval => rval``; None when ``rval`` names no body
    of type ``lval`` (the value is then sent as an ordinary one)."""
    if isinstance(rval, ast.Scalar):
        if rval.kind != ast.BARE:
            return None
        name, args = ev.text(rval.value), []
    elif isinstance(rval, ast.FnCall):
        ref = body_reference(rval, ev)
        if ref is None:
            return None
        name, args = ref
    else:
        return None
    body = resolver.find(name, lval, namespace)
    if body is None:
        return None
    if isinstance(rval, ast.FnCall) and any(_has_reference(a) for a in rval.args):
        # cf-agent does not expand the arguments of the call: the values keep the
        # references as written, and the promise is refused for them
        written = [a.value if isinstance(a, ast.Scalar) else "" for a in rval.args]
        return _unexpanded(resolver, body, lval, dict(zip(body.args, written)), bindings, 0)
    if body.args:
        return resolver.resolve(lval, name, list(args), namespace, bindings)
    return _unexpanded(resolver, body, lval, {}, bindings, 0)


def _has_reference(rval: ast.Rval) -> bool:
    if isinstance(rval, ast.Scalar):
        return "$(" in rval.value or "${" in rval.value or rval.value.startswith("@")
    return isinstance(rval, (ast.List, ast.FnCall))


def _unexpanded(resolver: BodyResolver, body: ast.Body, body_type: str,
                params: dict[str, Any], bindings: dict[str, str], depth: int
                ) -> dict[str, Any]:
    evaluator = RvalEvaluator(ParamContext(resolver.ctx, params, body.namespace), bindings)
    result: dict[str, Any] = {}
    if depth > _MAX_DEPTH:
        return result
    for c in body.constraints:
        if c.lval != "inherit_from" or not _holds(resolver, c.classes, evaluator):
            continue
        # the parent's arguments as written, parameters substituted, not expanded
        if isinstance(c.rval, ast.FnCall):
            name = c.rval.name
            args = [_literal(a, params, evaluator) for a in c.rval.args]
        elif isinstance(c.rval, ast.Scalar):
            name, args = _substitute(c.rval.value, params), []
        else:
            continue
        parent = resolver.find(name, body_type, body.namespace)
        if parent is not None and len(parent.args) == len(args):
            result.update(_unexpanded(resolver, parent, body_type,
                                      dict(zip(parent.args, args)), bindings, depth + 1))
    for c in body.constraints:
        if c.lval == "inherit_from" or not _holds(resolver, c.classes, evaluator):
            continue
        value = _literal(c.rval, params, evaluator)
        if value is not UNRESOLVED:
            result[c.lval] = value
    return result


def _holds(resolver: BodyResolver, classes: str, evaluator: RvalEvaluator) -> bool:
    if classes == "any":
        return True
    return bool(resolver.ctx.eval_class_expr(evaluator.text(classes) if "$" in classes
                                             else classes))


_PARAM = re.compile(r"\$\(([\w.:]+)\)|\$\{([\w.:]+)\}")


def _substitute(text: str, params: dict[str, Any]) -> str:
    def one(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        value = params.get(name)
        return value if isinstance(value, str) else match.group(0)
    return _PARAM.sub(one, text) if "$" in text else text


def _literal(rval: ast.Rval, params: dict[str, Any], evaluator: RvalEvaluator) -> Any:
    """A value of a body called without arguments: parameters substituted, ``@(list)``
    list items flattened, nothing else expanded."""
    if isinstance(rval, ast.Scalar):
        return _substitute(rval.value, params)
    if isinstance(rval, ast.List):
        out: list[Any] = []
        for item in rval.items:
            if isinstance(item, ast.Scalar) and item.value.startswith("@") \
                    and naked_reference(item.value) is not None:
                value = evaluator.value(item, want_list=True)
                if isinstance(value, list):
                    out.extend(value)
                    continue
            value = _literal(item, params, evaluator)
            if value is not UNRESOLVED:
                out.append(value)
        return out
    return evaluator.value(rval, want_list=True)
