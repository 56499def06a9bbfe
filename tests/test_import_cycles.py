"""No import cycle in cfpromise/: every import counts, at module level or inside a
function (an import inside a function is still a dependency a reader has to follow),
except those under ``if TYPE_CHECKING:`` (never executed).

A cycle found is reported as its modules; the fix is to put what both sides need in a
module of its own (see docs/internals.md).  PENDING names the packages whose cycles are
being removed by the other parts of issue #29 (the agent's engine split, the one
parser, the speed machinery in one place): a cycle there is tolerated until they
land; a cycle anywhere else fails now.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import cfpromise

ROOT = Path(cfpromise.__file__).resolve().parent
PENDING = ("cfpromise.agent.", "cfpromise.syntax.", "cfpromise.fast", "cfpromise.promises.files.",
           "cfpromise.eval.functions.")


def _graph() -> dict[str, set[str]]:
    mods: dict[str, Path] = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = path
    graph: dict[str, set[str]] = {m: set() for m in mods}

    def target(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]

        def visit(node: ast.AST) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    continue
                names: list[str] = []
                if isinstance(child, ast.Import):
                    names = [a.name for a in child.names]
                elif isinstance(child, ast.ImportFrom):
                    base = child.module or ""
                    if child.level:
                        up = package.split(".")[:len(package.split(".")) - (child.level - 1)]
                        base = ".".join(up + ([base] if base else []))
                    names = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                             for a in child.names]
                for name in names:
                    found = target(name)
                    if found and found != mod and found.startswith("cfpromise"):
                        graph[mod].add(found)
                visit(child)
        visit(ast.parse(path.read_text(encoding="utf-8")))
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def test_the_checker_sees_a_cycle() -> None:
    graph = {"cfpromise.a": {"cfpromise.b"}, "cfpromise.b": {"cfpromise.a"}, "cfpromise.c": set()}
    assert _cycles(graph) == [["cfpromise.a", "cfpromise.b"]]


def test_no_import_cycle() -> None:
    graph = _graph()
    assert "cfpromise.net.client" in graph["cfpromise.net.classic_client"] or \
        "cfpromise.net.connection" in graph["cfpromise.net.classic_client"]
    found = [c for c in _cycles(graph)
             if not any(m.startswith(PENDING) or m + "." in PENDING for m in c)]
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)
