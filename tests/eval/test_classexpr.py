"""Class expressions: precedence, syntax errors, evaluation against a truth table."""
from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings, strategies as st

from cfpromise.syntax import classexpr


@pytest.mark.parametrize("expr, defined, expected", [
    ("a.b|c", {"c"}, True), ("a.(b|c)", {"c"}, False), ("!a.b", {"b"}, True),
    ("!(a.b)", {"a"}, True), ("a&b", {"a", "b"}, True), ("a||b", {"b"}, True),
    ("ns:x", {"ns:x"}, True), ("!!a", {"a"}, True), ("any", set(), False),
])
def test_evaluation(expr: str, defined: set[str], expected: bool) -> None:
    assert classexpr.evaluate(classexpr.parse(expr), defined.__contains__) is expected


@pytest.mark.parametrize("expr", ["!.!", "a.", "(a", "a)", "a..b", "|a", ""])
def test_syntax_errors(expr: str) -> None:
    with pytest.raises(classexpr.ClassExprError):
        classexpr.parse(expr)


def test_prefix_rule_accepts_trailing_paren_like_cfengine() -> None:
    assert classexpr.literal_failure("a.!b)") is None
    assert classexpr.literal_failure("!.!") == 1
    assert classexpr.literal_failure("!!any") == 1       # (no double negation)


NAMES = ["a", "b", "c"]


def expressions() -> st.SearchStrategy[str]:
    leaf = st.sampled_from(NAMES)
    return st.recursive(leaf, lambda inner: st.one_of(
        st.builds(lambda x: f"!{x}" if x in NAMES else f"!({x})", inner),
        st.builds(lambda x, y: f"({x}).({y})", inner, inner),
        st.builds(lambda x, y: f"({x})|({y})", inner, inner)), max_leaves=8)


def to_python(expr: str) -> str:
    return expr.replace("!", " not ").replace(".", " and ").replace("|", " or ")


@settings(max_examples=200, deadline=None, database=None)
@given(expressions())
def test_matches_python_boolean_semantics(expr: str) -> None:
    tree = classexpr.parse(expr)
    for values in itertools.product([False, True], repeat=3):
        env = dict(zip(NAMES, values))
        assert classexpr.evaluate(tree, lambda n: env[n]) == eval(to_python(expr), {}, env)


@pytest.mark.parametrize("expr, expected", [
    ("true", True), ("false", False), ("!false", True), ("false|true", True),
    ("a.true", True), ("a.false", False),
])
def test_true_and_false_are_literals(expr: str, expected: bool) -> None:
    # cf-agent reads them as truth values, never as class names
    assert classexpr.evaluate(classexpr.parse(expr), {"a", "false"}.__contains__) is expected
