"""List built-ins and the shared collecting-argument helper."""
from __future__ import annotations

from typing import Any

import pytest

from cfpromise.eval.functions.api import FunctionError, Unresolved
from cfpromise.eval.functions.common import collect
from cfpromise.eval.functions.messages import text
from cfpromise.syntax import ast
from tests.functions.fakectx import FakeContext


@pytest.fixture
def ctx() -> FakeContext:
    c = FakeContext()
    c.set("l", ["b", "a", "10", "9", "a"], "slist")
    c.set("o", ["a", "c"], "slist")
    c.set("d", {"k": "v", "n": 2, "r": 2.5, "z": None, "arr": [1, "x"], "obj": {"p": "q"}})
    c.set("arr[x]", "1")
    c.set("arr[y][z]", "2")
    c.set("other.l2", ["p"], "slist")
    return c


COLLECT = [
    (["a", "b"], ["a", "b"]),
    ({"a": 1}, {"a": 1}),
    ('["x", 1]', ["x", 1]),
    ("l", ["b", "a", "10", "9", "a"]),
    ("@(l)", ["b", "a", "10", "9", "a"]),
    ("${l}", ["b", "a", "10", "9", "a"]),
    ("default:t.l", ["b", "a", "10", "9", "a"]),
    ("other.l2", ["p"]),
    ("arr", {"x": "1", "y": {"z": "2"}}),
    ("d[obj]", {"p": "q"}),
    ("[l, o]", [["b", "a", "10", "9", "a"], ["a", "c"]]),
    ('{"all": l}', {"all": ["b", "a", "10", "9", "a"]}),
    ("nosuch", None),
    ('"a string"', None),
]


@pytest.mark.parametrize("value,expected", COLLECT)
def test_collect(ctx: FakeContext, value: Any, expected: Any) -> None:
    assert collect(ctx, value) == expected


def test_collect_scalars_only_when_allowed(ctx: FakeContext) -> None:
    ctx.set("s", "text")
    assert collect(ctx, "s") is None
    assert collect(ctx, "s", allow_scalars=True) == "text"


CASES: list[tuple[str, tuple[Any, ...], Any]] = [
    ("difference", ("l", "o"), ["b", "10", "9"]),
    ("intersection", ("l", "o"), ["a"]),
    ("unique", ("l",), ["b", "a", "10", "9"]),
    ("grep", ("[0-9]+", "l"), ["10", "9"]),
    ("grep", (".*", "[1, 2.5, true, null, [3]]"), ["1", "2.50", "true"]),
    ("filter", ("a", "l", "false", "false", "99"), ["a", "a"]),
    ("filter", ("[ab]", "l", "true", "true", "1"), ["10"]),
    ("filter", ("a", "l", "false", "false", "1"), ["a"]),
    ("every", (".*", "l"), True),
    ("every", ("[a-z]", "l"), False),
    ("every", (".*", "[]"), False),
    ("some", ("10", "l"), True),
    ("some", ("zz", "l"), False),
    ("none", ("zz", "l"), True),
    ("none", ("a", "l"), False),
    ("reglist", ("l", "9"), True),
    ("reglist", ("l", "[0-9]{3}"), False),
    ("regarray", ("arr", "1"), True),
    ("join", ("+", "l"), "b+a+10+9+a"),
    ("join", (",", '[1, 2.50, true, null, "x", [1]]'), "1,2.50,true,x"),
    ("join", (",", "d"), "v,2,2.5000"),
    ("join", (",", "[]"), ""),
    ("length", ("l",), "5"),
    ("length", ("d",), "6"),
    ("nth", ("l", "1"), "a"),
    ("nth", ("l", "-1"), "a"),
    ("nth", ("d", "n"), "2"),
    ("nth", ("d", "z"), "null"),
    ("reverse", ("l",), ["a", "9", "10", "a", "b"]),
    ("sublist", ("l", "head", "2"), ["b", "a"]),
    ("sublist", ("l", "tail", "2"), ["9", "a"]),
    ("sublist", ("l", "tail", "0"), []),
    ("sort", ("l",), ["10", "9", "a", "a", "b"]),
    ("sort", ("l", "int"), ["a", "a", "b", "9", "10"]),
    ("sort", ('["1.5", "1.2", "x", "0", "1"]', "int"), ["x", "0", "1", "1.2", "1.5"]),
    ("sort", ('["2.5", "-3", "x", "1"]', "real"), ["x", "-3", "1", "2.5"]),
    ("sort", ('["10.1.2.3", "9.0.0.1", "nope", "::1"]', "IP"),
     ["nope", "9.0.0.1", "10.1.2.3", "::1"]),
    ("sort", ('["00:11:22:33:44:55", "00:11:22:33:44:0a"]', "mac"),
     ["00:11:22:33:44:0a", "00:11:22:33:44:55"]),
    ("shuffle", ('["a","b","c","d","e","f"]', "seed"), ["e", "f", "c", "a", "d", "b"]),
    ("getindices", ("d",), ["k", "n", "r", "z", "arr", "obj"]),
    ("getindices", ("l",), []),
    ("getindices", ("arr",), ["x", "y"]),
    ("getindices", ("arr[y]",), ["z"]),
    ("getindices", ('{"q": 1}',), ["q"]),
    ("getindices", ("nosuch",), []),
    ("getindices", (["a", "b"],), ["0", "1"]),
    ("getvalues", ("d",), ["v", "2", "2.50", "1", "x", "q"]),
    ("getvalues", ("arr",), ["1", "2"]),
    ("getvalues", ("nosuch",), []),
    ("getvalues", ("d[k]",), ["v"]),
    ("expandrange", ("node[1-5]x", "2"), ["node1x", "node3x", "node5x"]),
    ("expandrange", ("[3-1]", "1"), ["3", "2", "1"]),
]


@pytest.mark.parametrize("name,args,expected", CASES)
def test_list_functions(ctx: FakeContext, name: str, args: tuple[Any, ...],
                        expected: Any) -> None:
    assert ctx.call(name, *args) == expected


ERRORS = [
    ("grep", ("(", "l"), "Regular expression"),
    ("grep", ("a", "nosuch"), "does not resolve"),
    ("join", (",", "nosuch"), "does not resolve"),
    ("nth", ("l", "9"), "no primitive element"),
    ("nth", ("d", "arr"), "no primitive element"),
    ("sort", ("nosuch",), "does not resolve"),
    ("expandrange", ("node[1-5]", "0"), "Step size"),
    ("expandrange", ("node", "1"), "malformed"),
    ("length", ("nosuch",), "does not resolve"),
]


@pytest.mark.parametrize("name,args,message", ERRORS)
def test_list_errors(ctx: FakeContext, name: str, args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(FunctionError, match=message):
        ctx.call(name, *args)


def test_maplist_is_lazy(ctx: FakeContext) -> None:
    assert ctx.call("maplist", "<$(this)>", "l") == ["<b>", "<a>", "<10>", "<9>", "<a>"]
    assert ctx.call("maplist", "$(this)!", "[1, 2.5, true, null, [3]]") == ["1!", "2.5!", "true!"]
    nested = ast.FnCall("canonify", (ast.Scalar("x $(this)"),))
    assert ctx.call("maplist", nested, ast.Scalar("@(o)", ast.NAKED)) == ["x_a", "x_c"]
    with pytest.raises(Unresolved):
        ctx.call("maplist", "$(this)$(undefined)", "l")
    with pytest.raises(Unresolved):
        ctx.call("maplist", "$(this)", "$(undefined)")


def test_maparray(ctx: FakeContext) -> None:
    data = '{"a": [1, 1, 2], "b": {"c": 3}, "d": "e"}'
    assert ctx.call("maparray", "$(this.k)/$(this.v)", data) == ["a/1", "a/2", "b/3", "d/e"]
    assert ctx.call("maparray", "$(this.k[1])", '{"b": {"c": 3}}') == ["c"]
    assert ctx.call("maparray", "$(this.k)=$(this.v)", "l") == \
        ["0=b", "1=a", "2=10", "3=9", "4=a"]


@pytest.mark.parametrize("value, said", [
    ("l", "l"), ("@(l)", "@(l)"), ("${l}", "${l}"), ("arr[x]", "arr[x]"),
    ("other.l2", None), ("default:t.l", None), ('["x"]', None)])
def test_collect_with_no_calling_promise(ctx: FakeContext, value: str, said: Any) -> None:
    """A call with no calling promise (a body's argument: cf-agent's fp->caller is NULL)
    cannot qualify an unqualified name: ResolveAndQualifyVarName's warning, the call
    fails; a qualified name or inline JSON is read as in a promise."""
    ctx.no_caller = "join"          # type: ignore[attr-defined]
    if said is None:
        assert collect(ctx, value) is not None
        return
    with pytest.raises(FunctionError) as err:
        collect(ctx, value)
    assert err.value.said == [("caller.unqualified",      # type: ignore[attr-defined]
                               {"fn": "join", "name": said})]
    assert text("caller.unqualified", fn="join", name=said) == (
        f"Function 'join' was not called from a promise; the unqualified variable reference "
        f"{said} cannot be qualified automatically.")
