"""Helpers for the ordering tests: run the CLIs, check dot structure, check JSON shapes."""
from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from cfpromise.cli.agent import main as agent_main

TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|->|[{}\[\];=,]|[A-Za-z0-9_.]+|\s+')


def write_policy(tmp_path: Path, policy: str, name: str = "p.cf") -> Path:
    path = tmp_path / name
    path.write_text(policy)
    path.chmod(0o600)
    return path


def agent(tmp_path: Path, policy: str, *args: str) -> subprocess.CompletedProcess[str]:
    """cf-lite-agent -K on ``policy`` with its work directory under ``tmp_path``, run in
    this process (a fresh interpreter per run would cost more than the whole run)."""
    path = write_policy(tmp_path, policy)
    argv = ["-K", "-f", str(path), "-w", str(tmp_path / "wd"), *args]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = agent_main(argv)
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


def agent_process(tmp_path: Path, policy: str, *args: str,
                  **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """The same through ``python -m cfpromise.cli.agent``, end to end."""
    path = write_policy(tmp_path, policy)
    return subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", str(path),
                           "-w", str(tmp_path / "wd"), *args],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60, **kwargs)


def tokens(text: str) -> list[str]:
    """The dot text as tokens (whitespace dropped); anything else is an error."""
    out: list[str] = []
    pos = 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        assert m is not None, f"unexpected dot text at {pos}: {text[pos:pos + 40]!r}"
        if not m.group().isspace():
            out.append(m.group())
        pos = m.end()
    return out


def check_dot(text: str) -> tuple[set[str], list[tuple[str, str]]]:
    """Structural check of a digraph: balanced braces and brackets, statements ended,
    every edge endpoint declared as a node.  Returns (nodes, edges)."""
    toks = tokens(text)
    assert toks[:2] == ["digraph", "plan"] and toks[2] == "{" and toks[-1] == "}"
    depth = brackets = 0
    nodes: set[str] = set()
    edges: list[tuple[str, str]] = []
    for i, tok in enumerate(toks):
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
            assert depth >= 0
        elif tok == "[":
            brackets += 1
        elif tok == "]":
            brackets -= 1
            assert brackets == 0
        elif tok == "->":
            edges.append((toks[i - 1], toks[i + 1]))
        elif brackets == 0 and tok.startswith('"') and toks[i - 1] in ("{", ";", "}") \
                and toks[i + 1] in ("[", ";"):
            nodes.add(tok)
    assert depth == 0 and brackets == 0
    undeclared = {e for edge in edges for e in edge} - nodes
    assert not undeclared, f"edge endpoints not declared: {sorted(undeclared)[:5]}"
    return nodes, edges


_TYPES = {"string": str, "integer": int, "boolean": bool, "object": dict, "array": list,
          "null": type(None)}


def schema_errors(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """A small JSON Schema subset: type, required, properties, items, enum, const, anyOf."""
    errors: list[str] = []
    if "anyOf" in schema:
        if all(schema_errors(value, s, where) for s in schema["anyOf"]):
            errors.append(f"{where}: matches none of anyOf")
        return errors
    if "const" in schema and value != schema["const"]:
        errors.append(f"{where}: {value!r} != {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {value!r} not in {schema['enum']}")
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        ok = any(isinstance(value, _TYPES[k]) and not (k == "integer" and isinstance(value, bool))
                 for k in kinds)
        if not ok:
            return [f"{where}: {type(value).__name__} is not {kinds}"]
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{where}: missing {key}")
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                errors += schema_errors(value[key], sub, f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            errors += schema_errors(item, schema["items"], f"{where}[{i}]")
    return errors
