"""The parsed policy as JSON, in exactly cf-promises' ``-p json`` format.

Keys are sorted; promises and body attributes are grouped into runs of the
same class guard ("contexts"); a body whose first attribute is guarded starts
with an empty ``any`` context, as CFEngine prints it.  String values are shown
with their quotes escaped (``it\\'s`` for ``it's``), and a ``"$(x)"::`` guard
appears as a line-0 ``ifvarclass`` attribute of type ``symbol``.  Promisers are
shown as they are; sections of custom promise types are left out.  Lines are
CFEngine's count (see :mod:`cfpromise.syntax.lexer`).
"""
from __future__ import annotations

import json
from typing import Any

from cfpromise.schema import schema
from cfpromise.syntax import ast


def escape_quotes(text: str) -> str:
    return text.replace('"', '\\"').replace("'", "\\'") if ("'" in text or '"' in text) else text


def rval_json(rval: ast.Rval, top: bool = False) -> Any:
    if isinstance(rval, ast.Scalar):
        kind = "symbol" if top and rval.kind == ast.BARE else "string"
        return {"type": kind, "value": escape_quotes(rval.value)}
    if isinstance(rval, ast.List):
        return {"type": "list", "value": [rval_json(i) for i in rval.items]}
    if isinstance(rval, ast.FnCall):
        return {"arguments": [rval_json(a) for a in rval.args], "name": rval.name,
                "type": "functionCall"}
    if isinstance(rval, ast.Data):
        return rval.value
    raise TypeError(f"not an rval: {rval!r}")


def _promisee_json(rval: ast.Rval) -> Any:
    if isinstance(rval, ast.List):
        return [_promisee_json(i) for i in rval.items]
    if isinstance(rval, ast.Scalar):
        return escape_quotes(rval.value)
    return rval_json(rval)


def _attribute(c: ast.Constraint, in_promise: bool = True) -> dict[str, Any]:
    return {"line": c.line, "lval": c.lval, "rval": rval_json(c.rval, top=in_promise)}


def promise_json(p: ast.Promise) -> dict[str, Any]:
    attributes = [_attribute(c) for c in p.constraints]
    if p.varclass is not None:
        guard = {"line": 0, "lval": "ifvarclass",
                 "rval": {"type": "symbol", "value": escape_quotes(p.varclass)}}
        own = next((a for a in attributes if a["lval"] == "ifvarclass"), None)
        if own is not None:
            # CFEngine grafts the promise's own ifvarclass onto the guard's.
            attributes.remove(own)
            if own["rval"].get("type") in ("string", "symbol"):
                merged = {"type": "string",
                          "value": f"({guard['rval']['value']}).({own['rval']['value']})"}
            else:
                merged = {"arguments": [{"type": "string", "value": guard["rval"]["value"]},
                                        own["rval"]], "name": "and", "type": "functionCall"}
            guard = {"line": own["line"], "lval": "ifvarclass", "rval": merged}
        attributes.insert(0, guard)
    out: dict[str, Any] = {"attributes": attributes, "line": p.coord.cfline}
    if p.promisee is not None:
        out["promisee"] = _promisee_json(p.promisee)
    out["promiser"] = p.promiser
    return out


def _runs(items: list[Any], key: Any) -> list[tuple[str, list[Any]]]:
    runs: list[tuple[str, list[Any]]] = []
    for item in items:
        k = key(item)
        if runs and runs[-1][0] == k:
            runs[-1][1].append(item)
        else:
            runs.append((k, [item]))
    return runs


def bundle_json(b: ast.Bundle, source_path: str) -> dict[str, Any]:
    types = []
    known = schema().promise_types
    for section in b.sections:
        if section.name not in known:
            continue            # custom promise types are not shown, as in cf-promises
        contexts = [{"name": name, "promises": [promise_json(p) for p in ps]}
                    for name, ps in _runs(list(section.promises), lambda p: p.classes)]
        types.append({"contexts": contexts, "line": section.coord.cfline, "name": section.name})
    return {"arguments": list(b.args), "bundleType": b.type, "line": b.coord.cfline,
            "name": b.name, "namespace": b.namespace, "promiseTypes": types,
            "sourcePath": source_path}


def body_json(b: ast.Body, source_path: str) -> dict[str, Any]:
    removed = schema().removed_attributes.get(b.type, frozenset())
    runs = _runs([c for c in b.constraints if c.lval not in removed], lambda c: c.classes)
    if not runs or runs[0][0] != "any":
        runs.insert(0, ("any", []))
    contexts = [{"attributes": [_attribute(c, False) for c in cs], "name": name}
                for name, cs in runs]
    return {"arguments": list(b.args), "bodyType": b.type, "contexts": contexts,
            "line": b.coord.cfline, "name": b.name, "namespace": b.namespace,
            "sourcePath": source_path}


def policy_json(policy: ast.Policy) -> dict[str, Any]:
    def path_of(node: Any) -> str:
        return node.coord.file or policy.path
    return {"bodies": [body_json(b, path_of(b)) for b in policy.bodies],
            "bundles": [bundle_json(b, path_of(b)) for b in policy.bundles]}


def dumps(policy: ast.Policy) -> str:
    """Text as cf-promises prints it: 2-space indent nested 4 deep, no final newline."""
    text = json.dumps(policy_json(policy), indent=2, ensure_ascii=False)
    first, _, rest = text.partition("\n")
    return first + "\n" + "\n".join("    " + line for line in rest.split("\n"))
