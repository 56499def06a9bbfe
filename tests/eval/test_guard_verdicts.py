"""EvalContext.class_tree_holds keeps a guard's verdict while no class changes: every
change (a class defined, undefined, given other tags, the host's facts installed) must
be seen at the next ask, in every namespace, and a frame that sees bundle-scoped classes
is always asked afresh."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cfpromise.eval.context import EvalContext, Frame, class_tree
from cfpromise.syntax import classexpr

NAMES = ("a", "b", "c", "ns:a")
EXPRS = ("a", "!a", "a.b", "a|c", "ns:a", "!(b|c)", "a.!ns:a", "any")


def _fresh(ctx: EvalContext, expr: str) -> bool:
    tree = class_tree(expr)
    return tree is not None and classexpr.evaluate(tree, ctx.class_defined)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(("define", "undefine", "ask", "push", "pop",
                                           "local")),
                          st.sampled_from(NAMES), st.sampled_from(EXPRS)),
                max_size=40))
def test_kept_verdicts_are_the_fresh_ones(steps: list[tuple[str, str, str]]) -> None:
    ctx = EvalContext("/nonexistent", "p.cf")
    ctx.push(Frame("default", "main"))
    for action, name, expr in steps:
        if action == "define":
            ctx.define_class(name)
        elif action == "undefine":
            ctx.undefine_class(name)
        elif action == "local":
            ctx.define_class(name, scope="bundle")
        elif action == "push":
            ctx.push(Frame("ns" if name == "ns:a" else "default", "b"))
        elif action == "pop" and len(ctx.frames) > 2:
            ctx.pop()
        assert ctx.class_tree_holds(class_tree(expr)) is _fresh(ctx, expr), (action, name, expr)


def test_a_class_defined_after_the_first_ask_is_seen() -> None:
    ctx = EvalContext("/nonexistent", "p.cf")
    ctx.push(Frame("default", "main"))
    tree = class_tree("late")
    assert ctx.class_tree_holds(tree) is False
    assert ctx.class_tree_holds(tree) is False      # (kept)
    ctx.define_class("late")
    assert ctx.class_tree_holds(tree) is True
    ctx.undefine_class("late")
    assert ctx.class_tree_holds(tree) is False
