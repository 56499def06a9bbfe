"""The effective plan of a policy, read from the AST: what runs, in which order, and why.

CFEngine orders promises implicitly; this module makes the order visible
without running anything (``cf-lite-promises --graph``, ``cf-lite-agent
--graph``).  The plan is built in four steps:

1. The bundlesequence is read as written from ``body common control`` (the
   unguarded ``bundlesequence``, else the first one) or taken from ``-b``.
   Each entry is resolved to a bundle the way the agent does (``ns:name``,
   else the name in ``default``); an entry written with variables
   (``@(def.bundles)``, ``$(b)``) is shown as written, labelled ``dynamic``,
   and never guessed.
2. Bundles are visited depth first in sequence order.  A bundle's steps are
   its normal order (:func:`cfpromise.agent.order.order_for`) restricted to
   the promise types it has promises of; promises keep their source order.
   A promise that calls a bundle (``methods``' ``usebundle`` or promiser,
   ``edit_line``, ``edit_xml``, ``home_bundle``, ``service_bundle``) gives a
   call edge and the called bundle is visited next.  A bundle is listed once,
   however often it is called; a call back into a bundle that is still being
   visited is marked ``cycle`` and not followed.
3. Common bundles that are neither in the sequence nor called are listed
   after the others: the agent evaluates their vars and classes before the
   bundlesequence, so they belong to the plan too (role ``common``).
4. ``depends_on`` edges join the promise defining a handle to the promise
   waiting for it; ``on-repaired``/``on-failed``/``on-kept`` edges join a
   promise whose ``classes`` body defines a class on that outcome to the
   promises the class guards (:mod:`cfpromise.agent.notify`).  A handle
   written with variables matches as a pattern; a dependency on a handle no
   promise of the plan defines comes from a node of kind ``missing_handle``;
   one written with variables from a ``dynamic`` node.

The plan renders as Graphviz dot (:func:`to_dot`: a cluster per bundle, a
sub-cluster per step, every label escaped) or as JSON (:func:`to_json`, the
shape documented in :data:`PLAN_SCHEMA`, a JSON Schema).  Identifiers are
stable: ``bundle:TYPE:NS:NAME`` for a bundle, ``BUNDLE_ID/TYPE/N`` for the
N-th promise (from 0) of a step; ``handle:NAME`` (missing handle),
``undefined:NAME`` (undefined bundle), ``dynamic-bundle:TEXT`` and
``dynamic-handle:TEXT`` for the other endpoints.  The records live in
:mod:`cfpromise.agent.plannodes`; ``cf-lite-agent --graph`` is
:mod:`cfpromise.agent.graph`.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterable

from cfpromise.agent.order import PRE_EVALUATION, bundle_order
from cfpromise.agent.plannodes import (Call, Edge, Node, NodeKind, Plan, PlanBundle,  # noqa: F401
                                       PlanPromise, PlanStep, Role, SequenceEntry,
                                       bundle_id, written)
from cfpromise.schema.values import is_unexpanded
from cfpromise.syntax import ast
from cfpromise.syntax.names import find_block

# lval -> the bundle types it calls (as cfpromise.schema.check.BUNDLE_LVALS)
CALL_LVALS: dict[str, tuple[str, ...]] = {
    "usebundle": ("agent", "common"), "edit_line": ("edit_line",), "edit_xml": ("edit_xml",),
    "home_bundle": ("agent", "common"), "service_bundle": ("agent", "common")}

SEQUENCE_NODE = "bundlesequence"
COMMON_NODE = "pre-evaluation"
LABEL_WIDTH = 60


class _Builder:
    """Walks the policy from the bundlesequence; see the module docstring."""

    def __init__(self, policy: ast.Policy, path: str) -> None:
        self.policy = policy
        self.plan = Plan(path)
        self.index: dict[tuple[str, str], list[ast.Bundle]] = {}
        for b in policy.bundles:
            self.index.setdefault((b.namespace, b.name), []).append(b)
        self.custom_types = tuple(pb.name for pb in policy.promise_blocks)
        self.visited: dict[str, PlanBundle] = {}
        self.stack: list[str] = []
        self.node_ids: set[str] = set()
        self.by_id: dict[str, ast.Bundle] = {}
        self.incomplete = False            # some inputs were not loaded
        self.in_sequence: set[str] = set()

    def find(self, name: str, namespace: str, types: tuple[str, ...]) -> ast.Bundle | None:
        return find_block(self.index, name, namespace, types)

    def node(self, id_: str, kind: NodeKind, label: str) -> str:
        if id_ not in self.node_ids:
            self.node_ids.add(id_)
            self.plan.nodes.append(Node(id_, kind, label))
        return id_

    def undefined_node(self, name: str) -> str:
        label = f"undefined bundle {name}"
        if self.incomplete:
            label = f"bundle {name}: not found (some inputs could not be read statically)"
        return self.node(f"undefined:{name}", NodeKind.UNDEFINED, label)

    def dynamic_node(self, text: str, what: str = "bundle") -> str:
        """An endpoint written with variables: a bundle name or a handle."""
        return self.node(f"dynamic-{what}:{text}", NodeKind.DYNAMIC, f"dynamic: {text}")

    # bundles and calls
    def sequence(self, entries: Iterable[tuple[str, list[str]]]) -> None:
        self.node(SEQUENCE_NODE, NodeKind.SEQUENCE, "bundlesequence")
        entries = list(entries)
        for name, _ in entries:
            if not is_unexpanded(name):
                found = self.find(name, "default", ("agent", "common"))
                if found is not None:
                    self.in_sequence.add(bundle_id(found))
        for position, (name, args) in enumerate(entries, 1):
            dynamic = is_unexpanded(name)
            bundle = None if dynamic else self.find(name, "default", ("agent", "common"))
            target_id = bundle_id(bundle) if bundle is not None else None
            self.plan.bundlesequence.append(SequenceEntry(name, args, target_id, dynamic))
            if dynamic:
                target = self.dynamic_node(name)
            elif bundle is None:
                target = self.undefined_node(name)
            else:
                target = target_id or ""
                self.visit(bundle, Role.SEQUENCE)
            self.plan.edges.append(Edge(SEQUENCE_NODE, target, "sequence", str(position)))

    def visit(self, bundle: ast.Bundle, role: Role) -> None:
        bid = bundle_id(bundle)
        if bid in self.visited:
            return
        entry = PlanBundle(bid, bundle, Role.SEQUENCE if bid in self.in_sequence else role)
        self.visited[bid] = entry
        self.plan.bundles.append(entry)
        self.stack.append(bid)
        types = PRE_EVALUATION if role is Role.COMMON else bundle_order(bundle)
        for ptype in types:
            section = bundle.section(ptype)
            if section is None or not section.promises:
                continue
            step = PlanStep(ptype, [])
            entry.steps.append(step)
            for n, promise in enumerate(section.promises):
                pp = self.promise(bundle, ptype, promise, f"{bid}/{ptype}/{n}")
                step.promises.append(pp)
                if pp.calls is not None:
                    self.call(pp)
        self.stack.pop()

    def promise(self, bundle: ast.Bundle, ptype: str, promise: ast.Promise,
                id_: str) -> PlanPromise:
        handle_c = promise.get("handle")
        deps_c = promise.get("depends_on")
        depends: list[str] = []
        if deps_c is not None:
            items = deps_c.rval.items if isinstance(deps_c.rval, ast.List) else (deps_c.rval,)
            depends = [written(i) for i in items]
        pp = PlanPromise(id_, ptype, promise.promiser, promise.coord.file, promise.coord.line,
                         written(handle_c.rval) if handle_c is not None else None,
                         promise.classes, depends)
        pp.calls = self.call_of(bundle, ptype, promise)
        return pp

    def call_of(self, bundle: ast.Bundle, ptype: str, promise: ast.Promise) -> Call | None:
        """The bundle ``promise`` calls, if any (the first calling attribute)."""
        for lval, types in CALL_LVALS.items():
            c = promise.get(lval)
            if c is not None:
                return self.resolve_call(lval, c.rval, bundle.namespace, types)
        if ptype == "methods":          # no usebundle: the promiser names the bundle
            return self.resolve_call("usebundle", ast.Scalar(promise.promiser),
                                     bundle.namespace, CALL_LVALS["usebundle"])
        return None

    def resolve_call(self, lval: str, rval: ast.Rval, namespace: str,
                     types: tuple[str, ...]) -> Call:
        if isinstance(rval, ast.FnCall):
            name, args = rval.name, [written(a) for a in rval.args]
        elif isinstance(rval, ast.Scalar):
            name, args = rval.value, []
        else:
            return Call(lval, f"dynamic: {written(rval)}", [], None, True)
        if is_unexpanded(name):
            return Call(lval, f"dynamic: {name}", args, None, True)
        target = self.find(name, namespace, types)
        if target is None:
            return Call(lval, name, args, None)
        self.by_id[bundle_id(target)] = target
        return Call(lval, name, args, bundle_id(target))

    def call(self, pp: PlanPromise) -> None:
        call = pp.calls
        assert call is not None
        label = call.lval if not call.args else f"{call.lval}({', '.join(call.args)})"
        if call.dynamic:
            self.plan.edges.append(Edge(pp.id, self.dynamic_node(call.name[len("dynamic: "):]),
                                        call.lval, label))
            return
        if call.bundle is None:
            target = self.undefined_node(call.name)
            self.plan.edges.append(Edge(pp.id, target, call.lval, label))
            return
        cycle = call.bundle in self.stack
        self.plan.edges.append(Edge(pp.id, call.bundle, call.lval, label, cycle))
        if not cycle:
            self.visit(self.by_id[call.bundle], Role.CALLED)

    def commons(self) -> None:
        pending = [b for b in self.policy.bundles
                   if b.type == "common" and bundle_id(b) not in self.visited]
        if not pending:
            return
        self.node(COMMON_NODE, NodeKind.PRE_EVALUATION, "common bundles: vars and classes first")
        for b in pending:
            if bundle_id(b) in self.visited:
                continue
            self.visit(b, Role.COMMON)
            self.plan.edges.append(Edge(COMMON_NODE, bundle_id(b), "pre_evaluation"))

    # depends_on
    def dependencies(self) -> None:
        providers: dict[str, list[PlanPromise]] = {}
        patterns: list[tuple[re.Pattern[str], PlanPromise]] = []
        promises = [p for b in self.plan.bundles for s in b.steps for p in s.promises]
        from cfpromise.schema.depends import handle_pattern
        for p in promises:
            if p.handle is None:
                continue
            if is_unexpanded(p.handle):
                patterns.append((handle_pattern(p.handle), p))
            else:
                providers.setdefault(p.handle, []).append(p)
        for p in promises:
            for handle in p.depends_on:
                if is_unexpanded(handle):
                    self.plan.edges.append(Edge(self.dynamic_node(handle, "handle"), p.id, "depends_on",
                                                handle))
                    continue
                sources = providers.get(handle) or [q for rx, q in patterns
                                                    if rx.fullmatch(handle)]
                if not sources:
                    source = self.node(f"handle:{handle}", NodeKind.MISSING_HANDLE,
                                       f"handle '{handle}': no promise of the plan defines it")
                    self.plan.edges.append(Edge(source, p.id, "depends_on", handle))
                for q in sources:
                    self.plan.edges.append(Edge(q.id, p.id, "depends_on", handle))


def notifications(plan: Plan, policy: ast.Policy) -> None:
    """Edges from a promise whose classes body defines a class on an outcome to the
    promises that class guards (kind on-repaired, on-failed, on-kept; see
    :mod:`cfpromise.agent.notify`)."""
    from cfpromise.agent.notify import edges, promise_ids
    found = edges(policy)
    if not found:
        return
    ids = promise_ids(plan)
    for e in found:
        source, target = ids.get(id(e.source.promise)), ids.get(id(e.promise))
        if source is not None and target is not None:
            plan.edges.append(Edge(source, target, e.kind, e.cls))


def control_sequence(policy: ast.Policy) -> list[tuple[str, list[str]]] | None:
    """The bundlesequence of ``body common control`` as written (None when there is none).

    With several class-guarded ``bundlesequence`` attributes, the unguarded one
    is taken, else the first: the plan is static and does not guess classes.
    """
    candidates = [c for body in policy.bodies
                  if body.type == "common" and body.name == "control"
                  for c in body.constraints if c.lval == "bundlesequence"]
    if not candidates:
        return None
    chosen = next((c for c in candidates if c.classes == "any"), candidates[0])
    items = chosen.rval.items if isinstance(chosen.rval, ast.List) else (chosen.rval,)
    out: list[tuple[str, list[str]]] = []
    for item in items:
        if isinstance(item, ast.FnCall):
            out.append((item.name, [written(a) for a in item.args]))
        elif isinstance(item, ast.Scalar):
            out.append((item.value, []))
        else:
            out.append((written(item), []))
    return out


def build_plan(policy: ast.Policy, *, path: str = "",
               bundlesequence: list[str] | None = None,
               unresolved: Iterable[tuple[str, ast.Rval]] = ()) -> Plan:
    """The plan of ``policy``.  ``bundlesequence``: names given with ``-b`` (each item
    may hold several, comma separated); else body common control's, else ``main``."""
    builder = _Builder(policy, path)
    unresolved = list(unresolved)
    builder.incomplete = bool(unresolved)
    if bundlesequence:
        entries = [(name, []) for item in bundlesequence for name in item.split(",") if name]
    else:
        entries = control_sequence(policy) or [("main", [])]
    builder.sequence(entries)
    builder.commons()
    builder.dependencies()
    notifications(builder.plan, policy)
    for filename, rval in unresolved:
        builder.plan.unresolved_inputs.append({"file": filename, "line": rval.coord.line,
                                               "inputs": written(rval)})
    return builder.plan


# -- rendering --------------------------------------------------------------------------

def to_json(plan: Plan) -> str:
    return json.dumps(plan.to_json(), indent=2) + "\n"


def dot_string(text: str) -> str:
    """``text`` as a quoted dot ID: backslashes and quotes escaped, newlines as ``\\n``,
    other control characters dropped."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 32 or ord(ch) == 127:
            continue
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _short(text: str, width: int = LABEL_WIDTH) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= width else text[:width - 3] + "..."


def _promise_label(p: PlanPromise) -> str:
    lines = [_short(p.promiser), f"{p.file.rsplit('/', 1)[-1]}:{p.line}"]
    if p.classes != "any":
        lines.insert(1, _short(f"if {p.classes}::"))
    if p.handle:
        lines.append(f"handle: {p.handle}")
    return "\n".join(lines)


NODE_STYLE: dict[str, str] = {
    NodeKind.SEQUENCE: "shape=doubleoctagon",
    NodeKind.PRE_EVALUATION: "shape=octagon",
    NodeKind.DYNAMIC: "shape=note, style=dashed",
    NodeKind.UNDEFINED: "shape=box, color=red, fontcolor=red",
    NodeKind.MISSING_HANDLE: "shape=box, style=dashed, color=red, fontcolor=red",
}

EDGE_STYLE: dict[str, str] = {
    "sequence": "style=bold",
    "pre_evaluation": "style=dotted",
    "depends_on": "style=dashed, color=blue, fontcolor=blue",
    "on-repaired": "style=dashed, color=darkorange, fontcolor=darkorange",
    "on-failed": "style=dashed, color=red, fontcolor=red",
    "on-kept": "style=dotted, color=gray40, fontcolor=gray40",
}
CALL_STYLE = "color=darkgreen, fontcolor=darkgreen"
CYCLE_STYLE = "color=red, fontcolor=red, constraint=false"


def to_dot(plan: Plan) -> str:
    """The plan as a Graphviz digraph (clusters per bundle and per step)."""
    q = dot_string
    out = ["digraph plan {",
           f"  graph [label={q('plan of ' + plan.policy)}, labelloc=t, compound=true, "
           "fontname=Helvetica];",
           "  node [shape=box, fontname=Helvetica, fontsize=10];",
           "  edge [fontname=Helvetica, fontsize=9];"]
    for node in plan.nodes:
        out.append(f"  {q(node.id)} [label={q(node.label)}, {NODE_STYLE[node.kind]}];")
    for i, b in enumerate(plan.bundles):
        n = b.node
        role = " (vars and classes, before the sequence)" if b.role is Role.COMMON else ""
        args = f"({', '.join(n.args)})" if n.args else ""
        label = f"{n.type} bundle {n.namespace}:{n.name}{args}{role}\n" \
                f"{n.coord.file}:{n.coord.line}"
        out.append(f"  subgraph {q(f'cluster_{i}')} {{")
        out.append(f"    label={q(label)};")
        out.append(f"    {q(b.id)} [label={q(n.name)}, shape=ellipse];")
        chain = [b.id]
        for j, step in enumerate(b.steps):
            out.append(f"    subgraph {q(f'cluster_{i}_{j}')} {{")
            out.append(f"      label={q(f'{j + 1}. {step.ptype}')};")
            for p in step.promises:
                out.append(f"      {q(p.id)} [label={q(_promise_label(p))}];")
                chain.append(p.id)
            out.append("    }")
        for a, c in zip(chain, chain[1:]):           # evaluation order, top to bottom
            out.append(f"    {q(a)} -> {q(c)} [style=invis];")
        out.append("  }")
    for e in plan.edges:
        style = CYCLE_STYLE if e.cycle else EDGE_STYLE.get(e.kind, CALL_STYLE)
        label = e.label + (" (cycle)" if e.cycle else "")
        if e.kind.startswith("on-"):                 # notify edges say their kind
            label = f"{e.kind}: {label}"
        attrs_ = f"label={q(label)}, {style}" if label else style
        out.append(f"  {q(e.source)} -> {q(e.target)} [{attrs_}];")
    out.append("}")
    return "\n".join(out) + "\n"


RENDERERS = {"dot": to_dot, "json": to_json}


def render(plan: Plan, fmt: str = "dot") -> str:
    return RENDERERS[fmt](plan)


# -- the JSON shape -----------------------------------------------------------------------

_STR = {"type": "string"}
_INT = {"type": "integer"}
_STR_OR_NULL = {"type": ["string", "null"]}
_CALL = {"type": "object", "required": ["lval", "name", "args", "bundle", "dynamic"],
         "properties": {"lval": _STR, "name": _STR, "args": {"type": "array", "items": _STR},
                        "bundle": _STR_OR_NULL, "dynamic": {"type": "boolean"}}}
_PROMISE = {"type": "object",
            "required": ["id", "type", "promiser", "file", "line", "handle", "classes",
                         "depends_on", "calls"],
            "properties": {"id": _STR, "type": _STR, "promiser": _STR, "file": _STR,
                           "line": _INT, "handle": _STR_OR_NULL, "classes": _STR,
                           "depends_on": {"type": "array", "items": _STR},
                           "calls": {"anyOf": [{"type": "null"}, _CALL]}}}
_BUNDLE = {"type": "object",
           "required": ["id", "name", "namespace", "type", "args", "file", "line", "role",
                        "steps"],
           "properties": {"id": _STR, "name": _STR, "namespace": _STR, "type": _STR,
                          "args": {"type": "array", "items": _STR}, "file": _STR,
                          "line": _INT, "role": {"enum": [r.value for r in Role]},
                          "steps": {"type": "array", "items": {
                              "type": "object", "required": ["type", "promises"],
                              "properties": {"type": _STR, "promises": {
                                  "type": "array", "items": _PROMISE}}}}}}

PLAN_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "cf-lite plan (cf-lite-promises --graph=json, cf-lite-agent --graph=json)",
    "type": "object",
    "required": ["format", "version", "policy", "passes", "bundlesequence", "bundles", "nodes",
                 "edges", "unresolved_inputs"],
    "properties": {
        "format": {"const": "cf-lite-plan"},
        "version": {"const": 1},
        "policy": _STR,
        "passes": _INT,
        "bundlesequence": {"type": "array", "items": {
            "type": "object", "required": ["name", "args", "bundle", "dynamic"],
            "properties": {"name": _STR, "args": {"type": "array", "items": _STR},
                           "bundle": _STR_OR_NULL, "dynamic": {"type": "boolean"}}}},
        "bundles": {"type": "array", "items": _BUNDLE},
        "nodes": {"type": "array", "items": {
            "type": "object", "required": ["id", "kind", "label"],
            "properties": {"id": _STR, "label": _STR,
                           "kind": {"enum": [k.value for k in NodeKind]}}}},
        "edges": {"type": "array", "items": {
            "type": "object", "required": ["from", "to", "kind"],
            "properties": {"from": _STR, "to": _STR, "label": _STR,
                           "cycle": {"type": "boolean"},
                           "kind": {"enum": ["sequence", "pre_evaluation", "depends_on",
                                             "on-repaired", "on-failed", "on-kept",
                                             *CALL_LVALS]}}}},
        "unresolved_inputs": {"type": "array", "items": {
            "type": "object", "required": ["file", "line", "inputs"],
            "properties": {"file": _STR, "line": _INT, "inputs": _STR}}},
    },
}
