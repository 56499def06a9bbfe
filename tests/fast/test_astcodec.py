"""The policy cache's encoding of the AST (cfpromise.fast.astcodec): through marshal and
back, every node comes back of its class with every field, coordinates included."""
from __future__ import annotations

import marshal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from cfpromise.fast import astcodec
from cfpromise.syntax import ast
from cfpromise.syntax.errors import Coord, PolicyError
from cfpromise.syntax.parser import parse_file
from tests.syntax import strategies as gen
from tests.syntax.test_lr_driver import CORPORA, corpus_files


def typed(node: Any) -> Any:
    """``node`` with its type and every field (AST equality ignores coordinates)."""
    if isinstance(node, ast._Node):
        return (type(node).__name__,) + tuple(typed(getattr(node, f)) for f in node._fields)
    if type(node) is Coord:
        return ("Coord",) + tuple(node)
    if isinstance(node, (list, tuple)):
        return (type(node).__name__,) + tuple(typed(item) for item in node)
    if isinstance(node, dict):
        return ("dict",) + tuple((typed(k), typed(v)) for k, v in node.items())
    return (type(node).__name__, node)


def through_marshal(policy: ast.Policy) -> ast.Policy:
    return astcodec.decode(marshal.loads(marshal.dumps(astcodec.encode(policy))))


@pytest.mark.parametrize("root", CORPORA, ids=lambda p: p.name)
def test_every_policy_file_comes_back_whole(root: Path) -> None:
    if not root.is_dir():
        pytest.skip(f"{root} is missing")
    parsed = 0
    for path in corpus_files(root):
        try:
            policy = parse_file(str(path))
        except (PolicyError, UnicodeDecodeError, OSError):
            continue
        again = through_marshal(policy)
        assert typed(again) == typed(policy), path
        assert again == policy
        parsed += 1
    assert parsed


@settings(max_examples=150, deadline=None)
@given(gen.policies)
def test_generated_policies_come_back_whole(policy: ast.Policy) -> None:
    assert typed(through_marshal(policy)) == typed(policy)


def test_data_containers_keep_their_json_values() -> None:
    value = {"b": [1, 2.5, None, True, {"x": "é"}], "a": {}}
    data = ast.Data(value, '{"b": ...}', Coord("f.cf", 3, 4, 2), '{"a":{},"b":[1,2.5,null,true]}')
    constraint = ast.Constraint("data", data, Coord("f.cf", 3, 1), 3, "linux")
    policy = ast.Policy(bodies=(ast.Body("common", "x", ("a",), (constraint,)),), path="f.cf")
    again = through_marshal(policy)
    assert typed(again) == typed(policy)
    assert list(again.bodies[0].constraints[0].rval.value) == ["b", "a"]     # key order kept


@pytest.mark.parametrize("bad", [
    (), ("not", "a", "tree", "at all"), ((("agent", "main", (), (), "default"),), (), (), "f.cf"),
    ((), ((None,),), (), "f.cf"),
    ((), (("common", "x", (), (("l", (9, "v"), ("f", 1, 1, 0), 1, "any"),), "default",
            ("f", 1, 1, 0)),), (), "f.cf"),
])
def test_anything_else_is_refused(bad: tuple) -> None:
    with pytest.raises((TypeError, ValueError)):
        astcodec.decode(bad)
