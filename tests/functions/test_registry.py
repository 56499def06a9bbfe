"""The registry against the language tables, and argument checks for every
built-in: a wrong argument count, or a list/data container where a plain
string is expected, is a FunctionError naming the function."""
from __future__ import annotations

import pytest

from cfpromise.eval.functions import REGISTRY, build_index, load_all, lookup

load_all()
from cfpromise.eval.functions.api import FunctionError
from cfpromise.schema import schema
from tests.functions.fakectx import FakeContext

SIGS = schema().functions
LAZY = {"maplist", "maparray", "mapdata"}
UNRESOLVED_OK = {"ifelse", "and", "or"}   # and/or: an unexpanded argument is false
# (isvariable() of an unresolved name is not called: cf-agent 3.21 fails the call)


def test_every_schema_function_is_registered() -> None:
    assert sorted(set(SIGS) - set(REGISTRY.table)) == []


def test_every_registered_function_is_in_the_schema() -> None:
    assert sorted(set(REGISTRY.table) - set(SIGS)) == []


def test_there_are_186_functions() -> None:
    assert len(REGISTRY.table) == 186


def test_lookup() -> None:
    assert lookup("canonify") is REGISTRY.table["canonify"]
    assert lookup("no_such_function") is None


@pytest.mark.parametrize("name", sorted(SIGS))
def test_flags_follow_the_schema(name: str) -> None:
    builtin = REGISTRY.table[name]
    assert builtin.cached == SIGS[name].cached
    assert builtin.lazy == (name in LAZY)
    assert builtin.unresolved_ok == (name in UNRESOLVED_OK)


def _fixed_arity() -> list[str]:
    return sorted(n for n, s in SIGS.items() if not s.variadic)


@pytest.mark.parametrize("name", _fixed_arity())
def test_too_many_arguments(name: str) -> None:
    sig = SIGS[name]
    ctx = FakeContext()
    with pytest.raises(FunctionError):
        REGISTRY.table[name].impl(ctx, ["x"] * (len(sig.params) + 1))


@pytest.mark.parametrize("name", [n for n in _fixed_arity() if SIGS[n].params])
def test_too_few_arguments(name: str) -> None:
    sig = SIGS[name]
    ctx = FakeContext()
    with pytest.raises(FunctionError):
        REGISTRY.table[name].impl(ctx, ["x"] * (len(sig.params) - 1))


def _scalar_first_param() -> list[str]:
    out = []
    for name, sig in SIGS.items():
        if name in LAZY or sig.collecting or not sig.params or sig.variadic:
            continue
        if name == "string":        # string() turns a container into JSON text
            continue
        out.append(name)
    return sorted(out)


@pytest.mark.parametrize("name", _scalar_first_param())
def test_container_where_a_string_is_expected(name: str) -> None:
    sig = SIGS[name]
    args: list = ["x"] * len(sig.params)
    args[0] = {"not": "a string"}
    with pytest.raises(FunctionError):
        REGISTRY.table[name].impl(FakeContext(), args)


ENTERPRISE = {"hostswithclass": "Host class counting is only available in CFEngine Enterprise",
              **{name: "LDAP support only available in CFEngine Enterprise"
                 for name in ("ldaparray", "ldaplist", "ldapvalue", "regldap")}}


@pytest.mark.parametrize("name", sorted(ENTERPRISE))
def test_enterprise_functions_fail_as_in_the_community_agent(name: str) -> None:
    args = ["x"] * len(SIGS[name].params)
    with pytest.raises(FunctionError, match=ENTERPRISE[name]):
        REGISTRY.table[name].impl(FakeContext(), args)


def test_hubknowledge_is_empty_in_the_community_agent() -> None:
    assert REGISTRY.table["hubknowledge"].impl(FakeContext(), ["x"]) == ""


def test_module_docstrings_and_future_annotations() -> None:
    import importlib
    import pathlib

    import cfpromise.eval.functions as pkg
    root = pathlib.Path(pkg.__file__).parent
    for path in sorted(root.glob("*.py")):
        module = importlib.import_module(f"cfpromise.eval.functions.{path.stem}"
                                         if path.stem != "__init__" else pkg.__name__)
        assert module.__doc__, path.name
        text = path.read_text()
        assert "from __future__ import annotations" in text, path.name
        assert len(text.splitlines()) < 800, path.name


def test_lazy_index_is_complete_and_current() -> None:
    """_index.py names the right family for every function (regenerate with
    ``python -m cfpromise.eval.functions`` after adding one)."""
    from cfpromise.eval.functions._index import FAMILY_OF
    assert FAMILY_OF == build_index()


def test_importing_main_module_writes_nothing() -> None:
    """A test (or a tool) importing every module of the package must not rewrite _index.py:
    a new mtime makes its byte code stale and every later start slower."""
    import importlib
    import sys
    from pathlib import Path

    import cfpromise.eval.functions as pkg
    index = Path(pkg.__file__).with_name("_index.py")
    before = index.stat().st_mtime_ns
    sys.modules.pop("cfpromise.eval.functions.__main__", None)
    importlib.import_module("cfpromise.eval.functions.__main__")
    pkg.write_index()                   # unchanged: left alone
    assert index.stat().st_mtime_ns == before
