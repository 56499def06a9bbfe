"""``depends_on`` checked without running: handles no promise defines, and cycles.

A promise with ``depends_on => { "h" }`` waits until the promise whose
``handle`` is ``h`` has been kept or repaired.  Two mistakes make it wait for
ever, silently in cf-agent: naming a handle that no promise defines, and a
cycle (``ha`` waits for ``hb``, which waits for ``ha``).  This module finds
both from the AST alone:

1. Collect every promise of every bundle (all bundle types) with its own
   handle and the handles it waits for.  A handle written with variables
   (``handle => "job_$(v)"``) becomes a pattern (each variable reference
   matches anything); a ``depends_on`` item written with variables, a function
   call (``canonify(...)``) or a list variable cannot be known statically and
   is skipped.
2. A literal dependency that no literal handle equals and no handle pattern
   matches is *missing*: one diagnostic names the handle and the promise that
   waits for it (its file:line).
3. The "waits for" relation between literal handles is a directed graph; every
   handle on a cycle is reported.  For each handle not yet reported the
   shortest cycle through it is found (breadth first search back to itself)
   and reported in order, ``ha (f:3) => hb (f:7) => ha (f:3)``, so every
   promise of every cycle is named and no cycle is reported twice.

The diagnostics are errors for ``cf-lite-promises -c``.  The agent reports
them as warnings at start and runs anyway, as cf-agent does (CFEngine's own
acceptance tests name undefined handles on purpose); pass ``severity``.  When
some inputs could not be loaded (``complete=False``) a handle may be defined
in a file not read, so missing handles are not reported; cycles still are.
"""
from __future__ import annotations

from cfpromise.fast import precompiled
from cfpromise.fast.cmodules import deque
from cfpromise.fast.records import record
from cfpromise.schema.values import is_unexpanded
from cfpromise.syntax import ast
from cfpromise.syntax.errors import Coord, Diagnostic

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Iterable, Iterator

_VARREF = precompiled.compile(r"\$\([^()]*\)|\$\{[^{}]*\}")


@record
class PromiseDeps:
    """One promise, its own handle and the handles it waits for (as written)."""

    bundle: ast.Bundle
    ptype: str
    promise: ast.Promise
    handle: str | None                   # None: no handle or not a plain string
    needs: tuple[tuple[str, Coord], ...]  # literal handles waited for, with where named

    @property
    def where(self) -> str:
        return f"{self.promise.coord.file}:{self.promise.coord.line}"

    def describe(self) -> str:
        return f"{self.ptype} promise '{self.promise.promiser}' ({self.where})"


def handle_of(promise: ast.Promise) -> str | None:
    """The promise's handle as written, when it is a plain string."""
    c = promise.get("handle")
    if c is not None and isinstance(c.rval, ast.Scalar):
        return c.rval.value
    return None


def needed_handles(promise: ast.Promise) -> tuple[tuple[str, Coord], ...]:
    """The literal handles in ``depends_on`` (variables and function calls left out)."""
    c = promise.get("depends_on")
    if c is None:
        return ()
    items = c.rval.items if isinstance(c.rval, ast.List) else (c.rval,)
    out = []
    for item in items:
        if isinstance(item, ast.Scalar) and item.value and not is_unexpanded(item.value):
            coord = item.coord if item.coord.line > 0 else c.coord
            out.append((item.value, coord))
    return tuple(out)


def handle_pattern(text: str) -> re.Pattern[str]:
    """A handle written with variables as a regex: each reference matches anything."""
    import re
    parts: list[str] = []
    while True:
        replaced = _VARREF.sub("\0", text)
        if replaced == text:
            break
        text = replaced
    for i, chunk in enumerate(text.split("\0")):
        if i:
            parts.append(".*")
        parts.append(re.escape(chunk))
    return re.compile("".join(parts), re.DOTALL)


def _promises_with_deps(policy: ast.Policy) -> list[PromiseDeps]:
    """Every promise of the policy with a handle or a ``depends_on``, in policy order;
    the others (most of them: 1,745 of masterfiles' 1,847) can be neither missing, nor
    waited for, nor on a cycle.  Each promise's constraints are scanned once, without
    building its index of constraints (``Promise.get``): the agent checks every
    promise of the policy at start, most of which never run."""
    out = []
    for bundle in policy.bundles:
        for section in bundle.sections:
            for promise in section.promises:
                handle_c = depends_c = None
                for c in promise.constraints:
                    lval = c.lval
                    if lval == "handle":
                        if handle_c is None:
                            handle_c = c
                    elif lval == "depends_on" and depends_c is None:
                        depends_c = c
                if handle_c is None and depends_c is None:
                    continue
                out.append(PromiseDeps(bundle, section.name, promise, handle_of(promise),
                                       needed_handles(promise)))
    return out


def check_dependencies(policy: ast.Policy, *, severity: str = "error",
                       complete: bool = True) -> list[Diagnostic]:
    """Missing handles and dependency cycles of ``policy`` (see the module docstring)."""
    promises = _promises_with_deps(policy)
    defined: dict[str, list[PromiseDeps]] = {}
    written: list[str] = []              # handles written with variables
    for p in promises:
        if p.handle is None:
            continue
        if is_unexpanded(p.handle):
            written.append(p.handle)
        else:
            defined.setdefault(p.handle, []).append(p)
    out: list[Diagnostic] = []
    if complete:
        out += _missing(promises, defined, written, severity)
    out += _cycles(defined, severity)
    return out


def _missing(promises: Iterable[PromiseDeps], defined: dict[str, list[PromiseDeps]],
             written: list[str], severity: str) -> Iterator[Diagnostic]:
    patterns: list[re.Pattern[str]] | None = None     # compiled for the first name not defined
    for p in promises:
        for name, coord in p.needs:
            if name in defined:
                continue
            if patterns is None:
                patterns = [handle_pattern(text) for text in written]
            if any(rx.fullmatch(name) for rx in patterns):
                continue
            yield Diagnostic(coord, f"depends_on names handle '{name}', which no promise "
                                    f"defines: {p.describe()} would wait for it forever",
                             severity)


def _cycles(defined: dict[str, list[PromiseDeps]], severity: str) -> Iterator[Diagnostic]:
    graph: dict[str, list[str]] = {}
    for handle, defs in defined.items():
        succ: list[str] = []
        for p in defs:
            succ += [name for name, _ in p.needs if name in defined and name not in succ]
        graph[handle] = succ
    covered: set[str] = set()
    for start in graph:                       # policy order: the report starts where it's written
        if start in covered:
            continue
        cycle = shortest_cycle(graph, start)
        if cycle is None:
            continue
        covered.update(cycle)
        first = defined[cycle[0]][0]
        chain = " => ".join(f"{h} ({defined[h][0].where})" for h in cycle + [cycle[0]])
        coord = next((c for n, c in first.needs if n == cycle[1 % len(cycle)]),
                     first.promise.coord)
        yield Diagnostic(coord, f"depends_on cycle: {chain}; these promises wait for each "
                                "other and never run", severity)


def shortest_cycle(graph: dict[str, list[str]], start: str) -> list[str] | None:
    """The shortest path start -> ... -> start (without the closing start), or None."""
    parent: dict[str, str] = {}
    queue: deque[str] = deque()
    for nxt in graph.get(start, ()):
        if nxt == start:
            return [start]
        if nxt not in parent:
            parent[nxt] = start
            queue.append(nxt)
    while queue:
        node = queue.popleft()
        for nxt in graph.get(node, ()):
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                return path[::-1]
            if nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    return None
