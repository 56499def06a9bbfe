"""Class, variable, bundle and state built-ins."""
from __future__ import annotations

from typing import Any

import pytest

from cfpromise.eval.functions.api import FunctionError, Unresolved
from tests.functions.fakectx import FakeContext


@pytest.fixture
def ctx() -> FakeContext:
    c = FakeContext()
    c.define("linux", "debian_12", tags=("inventory", "os=debian"))
    c.define("x86_64")
    c.define("ns1:special", tags=("k=v",))
    c.set("s", "v", tags=("k=1", "plain"))
    c.set("l", ["1", "2"], "slist")
    c.set("d", {"q": 2.5})
    c.set("a[x]", "ax")
    c.set("other.z", "zz")
    c.bundle_list = [("default", "main", "agent", ("mytag", "x=1")),
                     ("default", "t", "agent", ()), ("ns1", "b", "common", ("mytag",))]
    return c


CASES: list[tuple[str, tuple[Any, ...], Any]] = [
    ("and", ("any", "linux"), True),
    ("and", ("any", "!linux"), False),
    ("and", (), True),
    ("and", (["linux", "x86_64"],), False),   # @(list) stays one argument in cf-agent 3.21
    ("or", ("nosuch", "linux.x86_64"), True),
    ("or", ("nosuch", False), False),
    ("not", ("nosuch",), True),
    ("not", (True,), False),
    ("classify", ("debian 12",), True),
    ("classify", ("red hat",), False),
    ("ifelse", ("linux", "L", "other"), "L"),
    ("ifelse", ("nosuch", "a", "!nosuch", "b", "c"), "b"),
    ("ifelse", ("nosuch", "a", "c"), "c"),
    ("ifelse", ("x",), "x"),
    ("ifelse", (False, "$(undefined)", "default"), "default"),
    ("isvariable", ("s",), True),
    ("isvariable", ("other.z",), True),
    ("isvariable", ("d[q]",), True),
    ("isvariable", ("nosuch",), False),
    ("classesmatching", ("deb.*",), ["debian_12"]),
    ("classesmatching", (".*", "os=.*"), ["linux", "debian_12"]),
    ("classesmatching", ("ns1:.*",), ["ns1:special"]),
    ("classmatch", ("x86_.*",), True),
    ("classmatch", ("x86",), False),
    ("countclassesmatching", (".*",), "5"),
    # cf-agent prepends each match found walking its table: the last one comes first
    ("variablesmatching", ("default:t\\.[sl]",), ["default:t.l", "default:t.s"]),
    ("variablesmatching", (".*", "k=.*"), ["default:t.s"]),
    ("variablesmatching", (".*\\[.*",), ["default:t.a[x]"]),
    ("variablesmatching_as_data", ("default:t\\.[sdl]",),
     {"default:t.s": "v", "default:t.l": ["1", "2"], "default:t.d": {"q": 2.5}}),
    # cf-agent lists the matching bundles last defined first
    ("bundlesmatching", ("default:.*",), ["default:t", "default:main"]),
    ("bundlesmatching", (".*", "mytag"), ["ns1:b", "default:main"]),
    ("bundlesmatching", (".*", "x=.*"), ["default:main"]),
    ("bundlesmatching", (".*", "mytag", "nosuch"), ["ns1:b", "default:main"]),
    ("getclassmetatags", ("linux",), ["inventory", "os=debian"]),
    ("getclassmetatags", ("linux", "os"), ["debian"]),
    ("getvariablemetatags", ("s",), ["k=1", "plain"]),
    ("getvariablemetatags", ("s", "k"), ["1"]),
    ("bundlestate", ("other",), {"z": "zz"}),
]


@pytest.mark.parametrize("name,args,expected", CASES)
def test_class_functions(ctx: FakeContext, name: str, args: tuple[Any, ...],
                         expected: Any) -> None:
    assert ctx.call(name, *args) == expected


ERRORS = [
    ("classesmatching", (), "at least one"),
    ("bundlesmatching", (), "at least one"),
    ("getclassmetatags", ("nosuch",), "without a tagset"),
    ("getvariablemetatags", ("nosuch",), "without a tagset"),
    ("bundlestate", ("nosuch",), "no variables"),
]


@pytest.mark.parametrize("name,args,message", ERRORS)
def test_class_errors(ctx: FakeContext, name: str, args: tuple[Any, ...],
                      message: str) -> None:
    with pytest.raises(FunctionError, match=message):
        ctx.call(name, *args)


def test_bad_class_pattern_matches_nothing_as_cf_agent(ctx: FakeContext) -> None:
    # cf-agent 3.21: CompileRegex's error, and no class (tests/differential/funcerrors.py)
    assert ctx.call("classesmatching", "(") == []
    assert ctx.call("variablesmatching", "(") == []
    assert ctx.logs == [("error", "Regular expression error: pcre_compile() 'missing )' in "
                                  "expression '(' (offset: 1)")] * 2


def test_ifelse_returns_unresolved_values_as_cf_agent(ctx: FakeContext) -> None:
    # cf-agent 3.21: the chosen value as written; an unresolved condition is read as a
    # class expression all the same, naming no class that is defined
    assert ctx.call("ifelse", "linux", "$(undefined)", "x") == "$(undefined)"
    assert ctx.call("ifelse", "!any", "a", "$(undefined)") == "$(undefined)"
    assert ctx.call("ifelse", "$(undefined)", "a", "b") == "b"
    assert ctx.call("ifelse", "linux", "a", "$(undefined)") == "a"


def test_ifelse_with_an_even_number_of_arguments_is_fatal(ctx: FakeContext) -> None:
    from cfpromise.eval.functions.api import FatalFunctionError
    with pytest.raises(FatalFunctionError, match="even number"):
        ctx.call("ifelse", "a", "b")


def test_datastate(ctx: FakeContext) -> None:
    state = ctx.call("datastate")
    assert state["classes"]["linux"] is True
    assert state["classes"]["ns1:special"] is True
    assert state["vars"]["t"]["s"] == "v"
    assert state["vars"]["t"]["a[x]"] == "ax"
    assert state["vars"]["other"] == {"z": "zz"}


def test_splayclass(ctx: FakeContext) -> None:
    from cfpromise.eval.functions.lists import string_hash
    slot = (string_hash("x", 0) & 8191) * 12 // 8192
    ctx.define(f"Min{slot * 5:02d}_{(slot + 1) * 5 % 60:02d}")
    assert ctx.call("splayclass", "x", "hourly") is True
    assert ctx.call("splayclass", "x", "daily") is False


def test_callstack(ctx: FakeContext) -> None:
    ctx.stack = [{"type": "bundle", "depth": 0},
                 {"type": "promise_type", "promise_type": "methods"},
                 {"type": "promise", "promise_type": "methods", "promiser": "first"},
                 {"type": "iteration", "iteration_index": 0},
                 {"type": "bundle", "depth": 4},
                 {"type": "promise", "promise_type": "vars", "promiser": "v"}]
    assert ctx.call("callstack_promisers") == ["first"]
    assert ctx.call("callstack_callers") == ctx.stack
    ctx.stack = [{"type": "bundle", "bundle": "main", "promiser": "first"},
                 {"type": "bundle", "bundle": "b1", "promiser": "second"},
                 {"type": "bundle", "bundle": "b2", "promiser": "current"}]
    assert ctx.call("callstack_promisers") == ["first", "second"]
    ctx.stack = [{"type": "bundle", "bundle": "main", "promiser": "current"}]
    assert ctx.call("callstack_promisers") == []


def test_tag_matches_are_remembered_per_tags_tuple_never_across_different_tags() -> None:
    # _TagsMatcher remembers the answer per tags tuple within one scan: variables with
    # the same tags share it, others are matched afresh (and a list of tags still works)
    from cfpromise.eval.functions.classes import _TagsMatcher, _tags_match
    c = FakeContext()
    shared = ("source=promise", "inventory")
    c.set("a", "1", tags=shared)
    c.set("b", "2", tags=("source=promise",))
    c.set("c", "3", tags=shared)
    c.set("d", "4", tags=("source=promise", "inventory=x"))
    c.set("e", "5")
    assert _call(c, "variablesmatching", (".*", "inventory")) == ["default:t.c", "default:t.a"]
    assert _call(c, "variablesmatching", (".*", "inventory.*")) == [
        "default:t.d", "default:t.c", "default:t.a"]
    match = _TagsMatcher(["inv.*"])
    for tags in (shared, ("x",), shared, ["inventory"], (), ["x"]):
        assert match(tags) == _tags_match(tags, ["inv.*"])
    assert set(match.seen) == {shared, ("x",)}
    with pytest.raises(Exception):
        _TagsMatcher(["["])(("tagged",))


def _call(c: FakeContext, name: str, args: tuple[Any, ...]) -> Any:
    from cfpromise.eval.functions import REGISTRY
    fn = REGISTRY.get(name)
    assert fn is not None
    return fn.impl(c, list(args))
