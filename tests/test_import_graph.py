"""The shape of the source tree, read from the source: no import cycle in cfpromise/, and
no module over 600 lines but generated ones (issue #29).

The import graph counts every import -- at the top of a module or inside a function,
class or ``try`` -- because an import inside a function still ties the two modules
together; only imports under ``if TYPE_CHECKING:`` (annotations) are left out.  A
relative import is resolved against its package; ``from package import name`` is an
edge to the submodule ``package.name`` when there is one, else to the package.
test_imports.py checks the other half: each module imports on its own.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "cfpromise"
MAX_LINES = 600


def _modules(root: Path = PACKAGE) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking_block(node: ast.AST) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that ``module`` (at ``path``) imports."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()

    def owner(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking_block(child):
                for other in child.orelse:       # the else branch runs
                    visit_one(other)
                continue
            visit_one(child)

    def visit_one(child: ast.AST) -> None:
        targets: list[str] = []
        if isinstance(child, ast.Import):
            targets = [alias.name for alias in child.names]
        elif isinstance(child, ast.ImportFrom):
            if child.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[:len(base) - (child.level - 1)]
                prefix = ".".join(base + ([child.module] if child.module else []))
            else:
                prefix = child.module or ""
            targets = [f"{prefix}.{alias.name}" if f"{prefix}.{alias.name}" in known else prefix
                       for alias in child.names]
        for target in targets:
            resolved = owner(target)
            if resolved is not None and resolved != module:
                found.add(resolved)
        visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return found


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    known = _modules(root)
    return {name: _imported(name, path, known) for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative),
    each sorted, in a stable order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return sorted(out)


def _a_cycle(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """One cycle through the component's first module, for the message."""
    members = set(component)
    start = component[0]
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(graph[node] & members):
            if nxt == start:
                return paths[node] + [start]
            if nxt not in paths:
                paths[nxt] = paths[node] + [nxt]
                queue.append(nxt)
    return component


_SAYS_GENERATED = re.compile(r"^\s*(?:#|[rRuUbB]*(?:\"{3}|'{3}))?\s*(?:this (?:file|module) is )?"
                             r"(?:automatically )?generated\b|do not edit", re.I)


def generated(path: Path) -> bool:
    """A generated module: its name starts with ``_`` (_parsetab.py, _sretab.py,
    _syntaxtab.py...; not ``__init__``/``__main__``) or one of its first lines says it is
    generated (begins with "Generated"/"This file is automatically generated", or says
    "do not edit")."""
    name = path.name
    if name.startswith("_") and not (name.startswith("__") and name.endswith("__.py")):
        return True
    with path.open(encoding="utf-8") as fh:
        head = [fh.readline() for _ in range(3)]
    return any(_SAYS_GENERATED.search(line) for line in head)


def test_the_graph_sees_imports_inside_functions_and_skips_type_checking(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from . import c\n")
    (pkg / "a.py").write_text("def f():\n    from pkg.sub import c\n")
    (pkg / "b.py").write_text("TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from pkg import a\n")
    (pkg / "sub" / "c.py").write_text("try:\n    from .. import b\nexcept ImportError:\n    pass\n")
    graph = import_graph(pkg)
    assert graph["pkg.a"] == {"pkg.sub.c"}
    assert graph["pkg.b"] == set()
    assert graph["pkg.sub.c"] == {"pkg.b"}
    assert graph["pkg.sub"] == {"pkg.sub.c"}
    assert cycles(graph) == []
    (pkg / "b.py").write_text("import pkg.a\n")
    graph = import_graph(pkg)
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.sub.c"]]
    assert _a_cycle(cycles(graph)[0], graph) == ["pkg.a", "pkg.sub.c", "pkg.b", "pkg.a"]


def test_no_import_cycle() -> None:
    graph = import_graph()
    assert len(graph) > 150 and "cfpromise.agent.engine" in graph["cfpromise.agent.loading"]
    found = cycles(graph)
    assert not found, "import cycles in cfpromise/ (break each, e.g. by moving what both " \
        "need below both):\n" + "\n".join(" -> ".join(_a_cycle(c, graph)) +
                                          f"   (component: {', '.join(c)})" for c in found)


def test_generated_modules_are_recognised(tmp_path: Path) -> None:
    assert generated(PACKAGE / "fast" / "_sretab.py")
    assert not generated(PACKAGE / "agent" / "engine.py")
    assert not generated(PACKAGE / "eval" / "functions" / "__main__.py")
    assert not generated(PACKAGE / "eval" / "functions" / "__init__.py")   # names _index.py
    said = tmp_path / "table.py"
    said.write_text("# This file is automatically generated. Do not edit.\nX = 1\n")
    assert generated(said)
    said.write_text('"""Generated by ``python -m tool``: the table."""\n')
    assert generated(said)
    said.write_text('"""Reads the generated tables."""\n')
    assert not generated(said)


def test_no_module_over_600_lines_but_generated_ones() -> None:
    limit = MAX_LINES
    over = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if generated(path):
            continue
        with path.open(encoding="utf-8") as fh:
            lines = sum(1 for _ in fh)
        if lines > limit:
            over.append(f"{path.relative_to(PACKAGE.parent)}: {lines} lines")
    assert not over, f"modules over {limit} lines (split them by job):\n" + "\n".join(over)
