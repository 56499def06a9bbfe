"""Notify and onfail edges (Puppet's notify/subscribe, Salt's onchanges/onfail) read
from CFEngine policy as it is written: a promise whose ``classes`` body defines a
class on an outcome, and a later promise guarded by that class.

1. Each promise with a ``classes`` attribute has its body resolved from the AST:
   the body is found as the agent finds it (``ns:name``, else the promise's
   namespace, then ``default``), ``inherit_from`` parents first, literal
   arguments bound to the parameters, ``$(this.promiser)``/``$(this.handle)``
   replaced when the promise writes them literally.  ``promise_repaired`` gives
   an ``on-repaired`` edge, ``repair_failed``/``repair_denied``/``repair_timeout``
   ``on-failed``, ``promise_kept`` ``on-kept``.  A class name still holding
   variables matches as a pattern (each reference matches anything).
2. A promise is guarded by a class when the class appears, not negated, in its
   context (``x_repaired::``) or in a literal ``if``/``ifvarclass``.
3. :func:`edges` pairs them; :func:`order_warnings` (``cf-lite-promises -c``)
   warns when the guard can never hold in the order the agent runs: every
   promise defining the class runs after every call of the guarded promise's
   bundle has ended, so no later pass of that bundle can see it (the order is
   the plan's: :mod:`cfpromise.agent.plan`).  A class that a ``classes``
   promise also defines, or that persists (``persist_time``), is not judged.

:func:`guard_classes` also serves the run report, which says for each promise
which promise's outcome defined a class of its guard (``enabled_by``).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterator

import attrs

from cfpromise.syntax import ast
from cfpromise.syntax.errors import Diagnostic

KINDS: dict[str, str] = {"promise_repaired": "on-repaired", "repair_failed": "on-failed",
                         "repair_denied": "on-failed", "repair_timeout": "on-failed",
                         "promise_kept": "on-kept"}
EDGE_KINDS = ("on-repaired", "on-failed", "on-kept")
_VARREF = re.compile(r"\$\(([^()]*)\)|\$\{([^{}]*)\}")


@attrs.define(slots=True, frozen=True)
class Definer:
    """A promise that defines ``cls`` (canonical, maybe a pattern) on an outcome."""

    bundle: ast.Bundle
    ptype: str
    promise: ast.Promise
    kind: str
    cls: str
    pattern: re.Pattern[str] | None = None       # when ``cls`` holds variables

    def matches(self, name: str) -> bool:
        if self.pattern is not None:
            return bool(self.pattern.fullmatch(name))
        return name == self.cls


@attrs.define(slots=True, frozen=True)
class NotifyEdge:
    source: Definer
    bundle: ast.Bundle                            # of the guarded promise
    ptype: str
    promise: ast.Promise
    cls: str

    @property
    def kind(self) -> str:
        return self.source.kind


# -- guards -------------------------------------------------------------------------------

@lru_cache(maxsize=4096)
def positive_names(expression: str) -> tuple[str, ...]:
    """The class names of a class expression that make it hold when defined (not
    under a negation); () when it does not parse or holds variables."""
    if "$" in expression or "@" in expression:
        return ()
    from cfpromise.syntax import classexpr
    try:
        tree = classexpr.parse(expression)
    except ValueError:
        return ()
    out: list[str] = []

    def walk(node: Any, negated: bool) -> None:
        if isinstance(node, str):
            if not negated and node not in ("any", "true", "false") and node not in out:
                out.append(node)
        elif node[0] == "not":
            walk(node[1], not negated)
        else:
            for child in node[1:]:
                walk(child, negated)
    walk(tree, False)
    return tuple(out)


def guard_classes(promise: ast.Promise) -> tuple[str, ...]:
    """The classes guarding ``promise``: its context and literal ``if``/``ifvarclass``."""
    names = list(positive_names(promise.classes)) if promise.classes != "any" else []
    for lval in ("if", "ifvarclass"):
        c = promise.get(lval)
        if c is not None and isinstance(c.rval, ast.Scalar):
            names += [n for n in positive_names(c.rval.value) if n not in names]
    return tuple(names)


# -- classes bodies, statically --------------------------------------------------------------

def _scalar_list(rval: ast.Rval) -> list[str] | None:
    if isinstance(rval, ast.Scalar):
        return [rval.value]
    if isinstance(rval, ast.List) and all(isinstance(i, ast.Scalar) for i in rval.items):
        return [i.value for i in rval.items]       # type: ignore[union-attr]
    return None


def _substitute(text: str, values: dict[str, str]) -> str:
    def one(m: re.Match[str]) -> str:
        name = m.group(1) if m.group(1) is not None else m.group(2)
        return values.get(name, m.group(0))
    return _VARREF.sub(one, text)


class _Bodies:
    def __init__(self, policy: ast.Policy) -> None:
        self.index: dict[tuple[str, str, str], ast.Body] = {}
        for body in policy.bodies:
            self.index.setdefault((body.namespace, body.name, body.type), body)

    def find(self, name: str, namespace: str) -> ast.Body | None:
        if ":" in name:
            ns, _, short = name.partition(":")
            return self.index.get((ns, short, "classes"))
        return self.index.get((namespace, name, "classes")) or \
            self.index.get(("default", name, "classes"))

    def resolve(self, rval: ast.Rval, namespace: str, outer: dict[str, str],
                depth: int = 0) -> dict[str, list[str]]:
        """lval -> class names (parameters bound) of the classes body ``rval`` names."""
        if isinstance(rval, ast.Scalar):
            name, args = _substitute(rval.value, outer), []
        elif isinstance(rval, ast.FnCall):
            name, args = _substitute(rval.name, outer), list(rval.args)
        else:
            return {}
        body = self.find(name, namespace)
        if body is None or len(body.args) != len(args) or depth > 20:
            return {}
        params: dict[str, str] = {}
        for param, arg in zip(body.args, args):
            if isinstance(arg, ast.Scalar):
                params[param] = _substitute(arg.value, outer)
        out: dict[str, list[str]] = {}
        for c in body.constraints:
            if c.lval == "inherit_from":
                for lval, names in self.resolve(c.rval, body.namespace, params,
                                                depth + 1).items():
                    out[lval] = names
        for c in body.constraints:
            if c.lval in KINDS or c.lval == "persist_time":
                values = _scalar_list(c.rval)
                if values is not None:
                    out[c.lval] = [_substitute(v, params) for v in values]
        return out


def _pattern(text: str) -> tuple[str, re.Pattern[str] | None]:
    """A class name as defined (canonified); a regex when it still holds variables."""
    from cfpromise.eval.canon import canonify
    if "$" not in text:
        return canonify(text), None
    parts = []
    last = 0
    for m in _VARREF.finditer(text):
        parts.append(re.escape(canonify(text[last:m.start()])))
        parts.append(".*")
        last = m.end()
    parts.append(re.escape(canonify(text[last:])))
    return text, re.compile("".join(parts), re.DOTALL)


def _this_values(promise: ast.Promise) -> dict[str, str]:
    out: dict[str, str] = {}
    if "$" not in promise.promiser:
        out["this.promiser"] = promise.promiser
    handle = promise.get("handle")
    if handle is not None and isinstance(handle.rval, ast.Scalar) and "$" not in handle.rval.value:
        out["this.handle"] = handle.rval.value
    return out


def _promises(policy: ast.Policy) -> Iterator[tuple[ast.Bundle, str, ast.Promise]]:
    for bundle in policy.bundles:
        for section in bundle.sections:
            for promise in section.promises:
                yield bundle, section.name, promise


def definers(policy: ast.Policy) -> tuple[list[Definer], set[str]]:
    """Every promise defining classes on outcomes, and the class names whose
    definition persists (left out of the order check)."""
    bodies = _Bodies(policy)
    out: list[Definer] = []
    persistent: set[str] = set()
    for bundle, ptype, promise in _promises(policy):
        c = promise.get("classes")
        if c is None:
            continue
        resolved = bodies.resolve(c.rval, bundle.namespace, _this_values(promise))
        persists = resolved.pop("persist_time", ["0"])[0] not in ("0", "")
        for lval, names in resolved.items():
            for name in names:
                cls, pattern = _pattern(name)
                out.append(Definer(bundle, ptype, promise, KINDS[lval], cls, pattern))
                if persists:
                    persistent.add(cls)
    return out, persistent


def edges(policy: ast.Policy, found: list[Definer] | None = None) -> list[NotifyEdge]:
    """Definer -> guarded promise, for every class a guard names (module docstring);
    ``found``: the policy's :func:`definers` when already known."""
    if found is None:
        found = definers(policy)[0]
    if not found:
        return []
    literal: dict[str, list[Definer]] = {}
    patterns: list[tuple[str, str, Definer]] = []      # literal prefix, suffix, definer
    for d in found:
        if d.pattern is None:
            literal.setdefault(d.cls, []).append(d)
        else:
            chunks = _VARREF.split(d.cls)
            from cfpromise.eval.canon import canonify
            patterns.append((canonify(chunks[0]), canonify(chunks[-1]), d))
    memo: dict[str, list[Definer]] = {}

    def sources(name: str) -> list[Definer]:
        got = memo.get(name)
        if got is None:
            got = list(literal.get(name, ()))
            got += [d for prefix, suffix, d in patterns
                    if name.startswith(prefix) and name.endswith(suffix) and d.matches(name)]
            memo[name] = got
        return got
    out: list[NotifyEdge] = []
    for bundle, ptype, promise in _promises(policy):
        for name in guard_classes(promise):
            short = name.partition(":")[2] if ":" in name else name
            for d in sources(short):
                if d.promise is not promise:
                    out.append(NotifyEdge(d, bundle, ptype, promise, name))
    return out


# -- the order check (cf-lite-promises -c) ------------------------------------------------------

def _positions(plan: Any) -> tuple[dict[str, int], dict[str, tuple[int, int]],
                                    dict[str, list[int]]]:
    """Promise id -> its place in the run; bundle id -> (start, end) of its first call;
    bundle id -> the places of the promises calling it."""
    by_id = {b.id: b for b in plan.bundles}
    pos: dict[str, int] = {}
    spans: dict[str, tuple[int, int]] = {}
    callers: dict[str, list[int]] = {}
    counter = 0

    def walk(bid: str, stack: list[str]) -> None:
        nonlocal counter
        start = counter
        spans[bid] = (start, start)
        for step in by_id[bid].steps:
            for p in step.promises:
                pos[p.id] = counter
                counter += 1
                call = p.calls
                if call is not None and call.bundle is not None and call.bundle in by_id:
                    callers.setdefault(call.bundle, []).append(pos[p.id])
                    if call.bundle not in spans and call.bundle not in stack:
                        walk(call.bundle, stack + [bid])
        spans[bid] = (start, counter)

    commons = [b.id for b in plan.bundles if b.role.value == "common"]
    for bid in commons + [e.bundle for e in plan.bundlesequence if e.bundle]:
        if bid in by_id:
            if bid in spans:
                callers.setdefault(bid, []).append(counter)   # listed again: a second call
                counter += 1
            else:
                walk(bid, [])
    return pos, spans, callers


def promise_ids(plan: Any) -> dict[int, str]:
    """id(ast promise) -> its plan id."""
    out: dict[int, str] = {}
    for b in plan.bundles:
        for step in b.steps:
            section = b.node.section(step.ptype)
            if section is None:
                continue
            for promise, pp in zip(section.promises, step.promises):
                out[id(promise)] = pp.id
    return out


def order_warnings(policy: ast.Policy, plan: Any) -> list[Diagnostic]:
    """Guards that can never hold in the order the agent runs (module docstring)."""
    defs, persistent = definers(policy)
    found = edges(policy, defs)
    if not found:
        return []
    by_classes_promise = {p.promiser for _, t, p in _promises(policy) if t == "classes"}
    ids = promise_ids(plan)
    pos, spans, callers = _positions(plan)
    from cfpromise.agent.plannodes import bundle_id
    grouped: dict[tuple[int, str], list[NotifyEdge]] = {}
    for e in found:
        grouped.setdefault((id(e.promise), e.cls), []).append(e)
    out: list[Diagnostic] = []
    for (_, cls), group in grouped.items():
        target = group[0]
        short = cls.partition(":")[2] if ":" in cls else cls
        if short in persistent or short in by_classes_promise:
            continue
        tid = ids.get(id(target.promise))
        bid = bundle_id(target.bundle)
        if tid is None or bid not in spans:
            continue
        end = spans[bid][1]
        last_call = max(callers.get(bid, [spans[bid][0]]))
        sources = [pos.get(ids.get(id(e.source.promise), ""), -1) for e in group]
        if any(s < 0 for s in sources):
            continue                        # a definer outside the plan: cannot tell
        if all(s >= end and s > last_call for s in sources):
            d = group[0].source
            out.append(Diagnostic(
                target.promise.coord,
                f"{target.ptype} promise '{target.promise.promiser}' is guarded by class "
                f"'{cls}', which only {d.ptype} promise '{d.promise.promiser}' "
                f"({d.promise.coord.file}:{d.promise.coord.line}) defines ({d.kind}); it runs "
                f"after bundle {target.bundle.namespace}:{target.bundle.name} has ended, so "
                "the guard can never hold in this run", "warning"))
    return out
