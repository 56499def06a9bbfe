"""EvalContext.resolve_ref keeps parsed references per namespace and bundle: the same
reference written in another bundle or namespace must resolve there, never through the
table of the scope that parsed it first."""
from __future__ import annotations

from cfpromise.eval.context import EvalContext, Frame


def test_the_same_reference_resolves_in_each_frames_own_scope() -> None:
    ctx = EvalContext("/nonexistent", "p.cf")
    ctx.set_var("default", "a", "x", "string", "in a")
    ctx.set_var("default", "b", "x", "string", "in b")
    ctx.set_var("ns", "a", "x", "string", "in ns:a")
    seen = []
    for namespace, bundle in (("default", "a"), ("default", "b"), ("ns", "a"), ("default", "a")):
        ctx.push(Frame(namespace, bundle))
        found = ctx.resolve_ref("x")
        assert found is not None
        seen.append((found[0], found[1].value))
        ctx.pop()
    assert seen == [("default:a.x", "in a"), ("default:b.x", "in b"), ("ns:a.x", "in ns:a"),
                    ("default:a.x", "in a")]


def test_a_qualified_reference_and_this_are_read_per_frame() -> None:
    ctx = EvalContext("/nonexistent", "p.cf")
    ctx.set_var("default", "b", "y", "string", "b's y")
    first, second = Frame("default", "a"), Frame("default", "b")
    second.this["y"] = "promise y"
    for frame, expected in ((first, "b's y"), (second, "b's y")):
        ctx.push(frame)
        found = ctx.resolve_ref("b.y")
        assert found is not None and found[1].value == expected
        ctx.pop()
    ctx.push(second)
    found = ctx.resolve_ref("this.y")
    assert found is not None and found[1].value == "promise y"
    ctx.pop()
    ctx.push(first)
    assert ctx.resolve_ref("this.y") is None       # a's own y: there is none
    ctx.pop()
