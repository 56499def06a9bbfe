"""Partial runs: ``cf-lite-agent --only X[,Y]`` (Puppet's ``--tags``, Salt's
``state.sls_id``).

Selection, from the loaded policy and its plan (:mod:`cfpromise.agent.plan`):

1. A name selects the promises whose ``handle`` is it (a handle written with
   variables matches as a pattern) or whose ``meta`` attribute lists it, and
   every promise of a bundle whose ``meta: "tags"`` lists it.  A name that
   selects nothing is an error that lists the closest handles and tags.
2. The ``depends_on`` closure: the promises defining the handles a selected
   promise waits for are selected too, and so on.
3. The way there: a promise that calls (``usebundle``, ``edit_line``...) the
   bundle of a selected promise is *on the path*, and so is the promise that
   calls its bundle, up to the bundlesequence.  A call written with variables
   may lead anywhere and is on the path too.

At run time (:class:`OnlyFilter`, an observer that installs the engine's
``promise_filter`` hook): vars, classes, meta and defaults promises are
evaluated as usual everywhere; a selected promise runs, and so does everything
in the bundles it calls (a selected methods promise runs its whole bundle, a
selected files promise its edit_line bundle); a promise on the path runs, and
the bundle it calls is filtered in the same way; every other promise is not
evaluated and is reported once per bundle call as skipped, reason "not
selected by --only ...".  With ``--graph`` the plan shows only the selected
part (:func:`restrict_plan`).
"""
from __future__ import annotations

import difflib
import re
from typing import Any

import attrs

from cfpromise.agent.observer import Observer
from cfpromise.syntax import ast

QUIET = frozenset({"vars", "classes", "meta", "defaults"})
SELECTED, PATH = "selected", "path"


class NothingSelected(Exception):
    """A name of --only selects no promise."""


@attrs.define(slots=True)
class Selection:
    names: list[str]
    selected: set[int] = attrs.Factory(set)     # id(ast.Promise): runs with what it calls
    path: set[int] = attrs.Factory(set)         # id(ast.Promise): runs, what it calls filtered
    bundles: set[int] = attrs.Factory(set)      # id(ast.Bundle) selected whole (meta tags)


def _literals(rval: ast.Rval | None) -> list[str]:
    if isinstance(rval, ast.Scalar):
        return [rval.value]
    if isinstance(rval, ast.List):
        return [i.value for i in rval.items if isinstance(i, ast.Scalar)]
    return []


def _bundle_tags(bundle: ast.Bundle) -> list[str]:
    section = bundle.section("meta")
    out: list[str] = []
    for promise in section.promises if section is not None else ():
        if promise.promiser == "tags":
            for c in promise.constraints:
                if c.lval == "slist" or c.lval == "string":
                    out += _literals(c.rval)
    return out


def select(policy: ast.Policy, plan: Any, names: list[str]) -> Selection:
    """The promises ``names`` select, their dependencies and the way to them (module
    docstring).  Raises NothingSelected naming close matches."""
    from cfpromise.agent.plannodes import bundle_id
    from cfpromise.schema.depends import handle_of, handle_pattern, needed_handles
    sel = Selection(list(names))
    owner: dict[int, ast.Bundle] = {}
    handles: dict[str, list[ast.Promise]] = {}
    patterns: list[tuple[re.Pattern[str], ast.Promise]] = []
    tags: dict[str, list[ast.Promise]] = {}
    bundle_tags: dict[str, list[ast.Bundle]] = {}
    for bundle in policy.bundles:
        for tag in _bundle_tags(bundle):
            bundle_tags.setdefault(tag, []).append(bundle)
        for section in bundle.sections:
            for promise in section.promises:
                owner[id(promise)] = bundle
                handle = handle_of(promise)
                if handle is not None:
                    if "$" in handle:
                        patterns.append((handle_pattern(handle), promise))
                    else:
                        handles.setdefault(handle, []).append(promise)
                meta = promise.get("meta")
                for tag in _literals(meta.rval if meta is not None else None):
                    tags.setdefault(tag, []).append(promise)

    def providers(handle: str) -> list[ast.Promise]:
        return handles.get(handle) or [p for rx, p in patterns if rx.fullmatch(handle)]

    chosen: list[ast.Promise] = []
    unknown: list[str] = []
    for name in names:
        found = providers(name) + tags.get(name, [])
        whole = bundle_tags.get(name, [])
        if not found and not whole:
            unknown.append(name)
        chosen += found
        for bundle in whole:
            sel.bundles.add(id(bundle))
            chosen += [p for s in bundle.sections for p in s.promises]
    if unknown:
        known = sorted(set(handles) | set(tags) | set(bundle_tags))
        parts = []
        for name in unknown:
            close = difflib.get_close_matches(name, known, n=5, cutoff=0.5)
            hint = f"close matches: {', '.join(close)}" if close else "no close match"
            parts.append(f"'{name}' ({hint})")
        raise NothingSelected(f"--only: no promise has the handle or meta tag "
                              f"{'; '.join(parts)}")
    while chosen:                                   # the depends_on closure
        promise = chosen.pop()
        if id(promise) in sel.selected:
            continue
        sel.selected.add(id(promise))
        for handle, _ in needed_handles(promise):
            chosen += providers(handle)
    # the way there, through the plan's call edges
    from cfpromise.agent.notify import promise_ids
    ids = promise_ids(plan)
    by_plan_id = {pid: key for key, pid in ids.items()}
    callers: dict[str, list[int]] = {}
    dynamic: list[int] = []
    for b in plan.bundles:
        for step in b.steps:
            for p in step.promises:
                if p.calls is None or p.id not in by_plan_id:
                    continue
                if p.calls.dynamic:
                    dynamic.append(by_plan_id[p.id])
                elif p.calls.bundle is not None:
                    callers.setdefault(p.calls.bundle, []).append(by_plan_id[p.id])
    queue = [owner[i] for i in sel.selected if i in owner]
    done: set[str] = set()
    while queue:
        bid = bundle_id(queue.pop())
        if bid in done:
            continue
        done.add(bid)
        for caller in callers.get(bid, ()):
            if caller not in sel.selected:
                sel.path.add(caller)
            if caller in owner:
                queue.append(owner[caller])
    sel.path.update(i for i in dynamic if i not in sel.selected)
    return sel


class _Skipped:
    """Enough of a step for the observers' promise_skipped."""

    def __init__(self, run: Any, ptype: str, promise: ast.Promise) -> None:
        self.run, self.ptype, self.promise = run, ptype, promise
        self.promiser = promise.promiser
        handle = promise.get("handle")
        self.handle = handle.rval.value if handle is not None and \
            isinstance(handle.rval, ast.Scalar) else None
        self.bindings: dict[str, str] = {}


class OnlyFilter(Observer):
    """``--only``: selects when the run starts, then filters every promise evaluated."""

    def __init__(self, names: list[str]) -> None:
        self.names = list(names)
        self.selection: Selection | None = None
        self.stack: list[str | None] = []     # per bundle call: how its caller was selected
        self.current: str | None = None        # the promise being evaluated
        self.reported: dict[int, set[int]] = {}
        self.reason = f"not selected by --only {','.join(self.names)}"

    def run_started(self, agent: Any) -> None:
        from cfpromise.agent.abort import FatalError
        from cfpromise.agent.plan import build_plan
        plan = build_plan(agent.policy, path=agent.options.file,
                          bundlesequence=agent.options.bundlesequence)
        try:
            self.selection = select(agent.policy, plan, self.names)
        except NothingSelected as exc:
            raise FatalError(str(exc)) from None
        sel = self.selection
        agent.out.log("verbose", f"--only {','.join(self.names)}: {len(sel.selected)} promise(s) "
                                 f"selected, {len(sel.path)} on the way to them")

        def allows(run: Any, ptype: str, promise: ast.Promise) -> bool:
            return self.allows(agent, run, ptype, promise)
        agent.promise_filter = allows

    def allows(self, agent: Any, run: Any, ptype: str, promise: ast.Promise) -> bool:
        sel = self.selection
        if sel is None or ptype in QUIET:
            return True
        inherited = self.stack[-1] if self.stack else None
        if inherited == SELECTED or id(promise) in sel.selected or id(run.bundle) in sel.bundles:
            self.current = SELECTED
        elif id(promise) in sel.path:
            self.current = PATH
        else:
            self.current = None
            seen = self.reported.setdefault(id(run), set())
            if id(promise) not in seen:
                seen.add(id(promise))
                step = _Skipped(run, ptype, promise)
                agent.out.log("verbose", f"Skipping {ptype} promise '{promise.promiser}' "
                                         f"({promise.coord.file}:{promise.coord.line}): "
                                         f"{self.reason}")
                for observer in agent.observers:
                    observer.promise_skipped(agent, step, self.reason)
            return False
        return True

    def bundle_started(self, agent: Any, bundle: Any, args: list[Any]) -> None:
        self.stack.append(self.current if self.stack else None)

    def bundle_finished(self, agent: Any, bundle: Any, run: Any, seconds: float) -> None:
        if self.stack:
            self.stack.pop()
        self.reported.pop(id(run), None)


def restrict_plan(plan: Any, policy: ast.Policy, names: list[str]) -> Any:
    """The part of ``plan`` that ``--only names`` runs (``--graph --only``)."""
    from cfpromise.agent.notify import promise_ids
    sel = select(policy, plan, names)
    ids = promise_ids(plan)
    by_plan_id = {pid: key for key, pid in ids.items()}
    by_bundle = {b.id: b for b in plan.bundles}
    whole: set[str] = {b.id for b in plan.bundles if id(b.node) in sel.bundles}
    queue = [p.calls.bundle for b in plan.bundles for s in b.steps for p in s.promises
             if by_plan_id.get(p.id) in sel.selected and p.calls is not None
             and p.calls.bundle is not None]
    while queue:                        # bundles called from a selected promise run whole
        bid = queue.pop()
        if bid in whole or bid not in by_bundle:
            continue
        whole.add(bid)
        queue += [p.calls.bundle for s in by_bundle[bid].steps for p in s.promises
                  if p.calls is not None and p.calls.bundle is not None]
    keep: set[str] = set()
    for b in plan.bundles:
        for step in b.steps:
            step.promises = [p for p in step.promises
                             if b.id in whole or by_plan_id.get(p.id) in sel.selected
                             or by_plan_id.get(p.id) in sel.path]
            keep.update(p.id for p in step.promises)
        b.steps = [s for s in b.steps if s.promises]
    plan.bundles = [b for b in plan.bundles if b.steps]
    keep.update(b.id for b in plan.bundles)
    kept_bundles = {b.id for b in plan.bundles}
    plan.bundlesequence = [e for e in plan.bundlesequence
                           if e.bundle is None or e.bundle in kept_bundles]
    nodes = {n.id for n in plan.nodes}

    def present(end: str) -> bool:
        return end in keep or (end in nodes and not end.startswith("bundle:"))
    plan.edges = [e for e in plan.edges if present(e.source) and present(e.target)]
    used = {e.source for e in plan.edges} | {e.target for e in plan.edges}
    plan.nodes = [n for n in plan.nodes if n.id in used]
    return plan
