"""Augments: ``def.json`` beside the policy entry file (CFEngine's def.json semantics).

Keys: ``vars`` and ``variables`` (``name`` -> value, or ``{"value": ..., "tags": [...]}``;
plain names go to the ``def`` scope, ``ns:bundle.name`` where it says), ``classes``
(``name`` -> a list of class regexes / expressions, or
``{"class_expressions": [...], "regular_expressions": [...], "tags": [...]}``),
``inputs`` (more policy files, returned to the loader) and ``augments`` (more
augments files, read in turn).  A file that is not valid JSON is reported and
ignored.
"""
from __future__ import annotations

import json
import os
import re
from typing import Any

from cfpromise.eval.variables import parse_ref


def _var_type(value: Any) -> str:
    if isinstance(value, str):
        return "string"
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "slist"
    return "data"


def _set_vars(agent: Any, table: dict[str, Any]) -> None:
    for name, spec in table.items():
        tags: tuple[str, ...] = ("source=augments_file",)
        value = spec
        if isinstance(spec, dict) and "value" in spec:
            value = spec["value"]
            tags += tuple(spec.get("tags", []))
        ns, scope, short = parse_ref(name, "default", "def")
        agent.ctx.set_var(ns, scope, short, _var_type(value), value, tags)


def _class_matches(agent: Any, pattern: str) -> bool:
    ctx = agent.ctx
    if ctx.eval_class_expr(pattern) if re.fullmatch(r"[\w:.|&!()]+", pattern) else False:
        return True
    try:
        rx = re.compile(pattern)
    except re.error:
        return False
    return any(rx.fullmatch(name) for name, _ in ctx.classes_items())


def _set_classes(agent: Any, table: dict[str, Any]) -> None:
    for name, spec in table.items():
        tags: tuple[str, ...] = ("source=augments_file",)
        if isinstance(spec, dict):
            tags += tuple(spec.get("tags", []))
            exprs = spec.get("class_expressions", [])
            regexes = spec.get("regular_expressions", [])
            hit = any(agent.ctx.eval_class_expr(e) for e in exprs) or \
                any(_class_matches(agent, r) for r in regexes)
            if not exprs and not regexes:
                hit = True
        else:
            patterns = spec if isinstance(spec, list) else [spec]
            hit = any(_class_matches(agent, p) for p in patterns if isinstance(p, str))
        if hit:
            agent.ctx.define_class(name, tags=tags)


def load(agent: Any, entry: str) -> list[str]:
    """Apply the augments found beside ``entry``; returns extra inputs."""
    inputs: list[str] = []
    directory = os.path.dirname(entry)
    queue = [os.path.join(directory, "def.json")]
    seen: set[str] = set()
    while queue:
        path = queue.pop(0)
        if path in seen or not os.path.isfile(path):
            continue
        seen.add(path)
        try:
            with open(path, encoding="utf-8") as fh:
                doc = json.load(fh)
        except (OSError, ValueError) as exc:
            agent.out.log("error", f"Could not parse augments file '{path}': {exc}")
            continue
        if not isinstance(doc, dict):
            continue
        for key in ("vars", "variables"):
            if isinstance(doc.get(key), dict):
                _set_vars(agent, doc[key])
        if isinstance(doc.get("classes"), dict):
            _set_classes(agent, doc["classes"])
        base = os.path.dirname(path)
        for item in doc.get("inputs", []) if isinstance(doc.get("inputs"), list) else []:
            if isinstance(item, str):
                inputs.append(item if os.path.isabs(item) else os.path.join(base, item))
        for item in doc.get("augments", []) if isinstance(doc.get("augments"), list) else []:
            if isinstance(item, str):
                queue.append(item if os.path.isabs(item) else os.path.join(base, item))
    return inputs
