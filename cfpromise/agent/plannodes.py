"""The plan's records (:mod:`cfpromise.agent.plan`) and the identifiers of their nodes.

A plan is bundles made of steps made of promises, plus the extra nodes and the
edges between them; each record knows its JSON form (the shape
:data:`cfpromise.agent.plan.PLAN_SCHEMA` documents).  They are here, apart from
the builder and the renderers, so that the modules reading a plan (notify edges,
--only) need not import the module that builds it.
"""
from __future__ import annotations

import enum
from typing import Any

import attrs

from cfpromise.agent.order import PASSES
from cfpromise.syntax import ast


class NodeKind(enum.StrEnum):
    """Kinds of the extra endpoints (neither bundle nor promise)."""

    SEQUENCE = "bundlesequence"
    PRE_EVALUATION = "pre_evaluation"
    DYNAMIC = "dynamic"
    UNDEFINED = "undefined_bundle"
    MISSING_HANDLE = "missing_handle"


@attrs.define(slots=True)
class Call:
    """A bundle called by a promise, as written."""

    lval: str
    name: str                      # as written; "dynamic: $(x)" when it holds variables
    args: list[str]
    bundle: str | None             # the id of the called bundle when resolved
    dynamic: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"lval": self.lval, "name": self.name, "args": self.args, "bundle": self.bundle,
                "dynamic": self.dynamic}


@attrs.define(slots=True)
class PlanPromise:
    id: str
    ptype: str
    promiser: str
    file: str
    line: int
    handle: str | None
    classes: str
    depends_on: list[str]
    calls: Call | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.ptype, "promiser": self.promiser, "file": self.file,
                "line": self.line, "handle": self.handle, "classes": self.classes,
                "depends_on": self.depends_on,
                "calls": self.calls.to_json() if self.calls is not None else None}


@attrs.define(slots=True)
class PlanStep:
    ptype: str
    promises: list[PlanPromise]

    def to_json(self) -> dict[str, Any]:
        return {"type": self.ptype, "promises": [p.to_json() for p in self.promises]}


class Role(enum.StrEnum):
    """Why a bundle is in the plan."""

    SEQUENCE = "sequence"          # named in the bundlesequence
    CALLED = "called"              # called by a promise (methods, edit_line...)
    COMMON = "common"              # a common bundle: its vars and classes are evaluated first


@attrs.define(slots=True)
class PlanBundle:
    id: str
    node: ast.Bundle
    role: Role
    steps: list[PlanStep] = attrs.Factory(list)

    def to_json(self) -> dict[str, Any]:
        b = self.node
        return {"id": self.id, "name": b.name, "namespace": b.namespace, "type": b.type,
                "args": list(b.args), "file": b.coord.file, "line": b.coord.line,
                "role": self.role.value, "steps": [s.to_json() for s in self.steps]}


@attrs.define(slots=True)
class SequenceEntry:
    name: str                      # as written
    args: list[str]
    bundle: str | None
    dynamic: bool

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "args": self.args, "bundle": self.bundle,
                "dynamic": self.dynamic}


@attrs.define(slots=True)
class Node:
    id: str
    kind: NodeKind
    label: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind.value, "label": self.label}


@attrs.define(slots=True)
class Edge:
    source: str
    target: str
    kind: str                      # sequence, pre_evaluation, depends_on, or the calling lval
    label: str = ""
    cycle: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"from": self.source, "to": self.target, "kind": self.kind}
        if self.label:
            out["label"] = self.label
        if self.cycle:
            out["cycle"] = True
        return out


@attrs.define(slots=True)
class Plan:
    policy: str
    bundlesequence: list[SequenceEntry] = attrs.Factory(list)
    bundles: list[PlanBundle] = attrs.Factory(list)
    nodes: list[Node] = attrs.Factory(list)
    edges: list[Edge] = attrs.Factory(list)
    unresolved_inputs: list[dict[str, Any]] = attrs.Factory(list)

    def to_json(self) -> dict[str, Any]:
        return {"format": "cf-lite-plan", "version": 1, "policy": self.policy,
                "passes": PASSES,
                "bundlesequence": [e.to_json() for e in self.bundlesequence],
                "bundles": [b.to_json() for b in self.bundles],
                "nodes": [n.to_json() for n in self.nodes],
                "edges": [e.to_json() for e in self.edges],
                "unresolved_inputs": self.unresolved_inputs}


def written(rval: ast.Rval) -> str:
    """An rval as it was written (on one line)."""
    from cfpromise.syntax.format import inline
    if isinstance(rval, ast.Scalar) and rval.kind != ast.NAKED:
        return rval.value
    try:
        return inline(rval)
    except ValueError:
        return rval.value if isinstance(rval, ast.Scalar) else repr(rval)


def bundle_id(bundle: ast.Bundle) -> str:
    return f"bundle:{bundle.type}:{bundle.namespace}:{bundle.name}"
