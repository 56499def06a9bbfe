"""Variable expansion and implicit list iteration."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from cfpromise.eval.expand import Expander, NeedIteration, combinations
from cfpromise.eval.functions.api import Variable

VARS = {
    "s": Variable("string", "hello"),
    "i": Variable("int", "42"),
    "l": Variable("slist", ["a", "b"]),
    "n": Variable("slist", ["1", "2", "3"]),
    "k": Variable("slist", ["x", "y"]),
    "arr[x]": Variable("string", "AX"),
    "arr[y]": Variable("string", "AY"),
    "a_hello": Variable("string", "nested"),
    "d": Variable("data", {"k": [1, "two", True]}),
    "empty": Variable("slist", []),
}


def resolve(ref: str) -> tuple[str, Variable] | None:
    if ref.startswith("d[") and ref.endswith("]"):
        value: object = VARS["d"].value
        for idx in ref[2:-1].split("]["):
            try:
                value = value[int(idx)] if isinstance(value, list) else value[idx]  # type: ignore[index]
            except (KeyError, IndexError, ValueError):
                return None
        return ref, Variable("data", value)
    var = VARS.get(ref)
    return (ref, var) if var is not None else None


def expand(text: str, bindings: dict[str, str] | None = None) -> tuple[str, bool]:
    exp = Expander(resolve, bindings)
    return exp.expand(text), exp.unresolved


def test_scalars_both_bracket_styles_and_nesting() -> None:
    assert expand("$(s) ${i} $(a_$(s))") == ("hello 42 nested", False)


def test_unresolved_stays_as_written() -> None:
    assert expand("x=$(nosuch) y=${s}") == ("x=$(nosuch) y=hello", True)


def test_data_indexing_and_primitives() -> None:
    assert expand("$(d[k][1]) $(d[k][0]) $(d[k][2])") == ("two 1 true", False)
    assert expand("$(d)")[1] is True          # a container does not expand


def test_unbound_list_is_unresolved_without_iteration() -> None:
    assert expand("$(l)") == ("$(l)", True)
    assert expand("$(l)", {"l": "b"}) == ("b", False)


def test_no_dollar_fast_path_and_lone_dollars() -> None:
    assert expand("price: 5$ and $x $") == ("price: 5$ and $x $", False)


def combos(*texts: str) -> list[dict[str, str]]:
    def probe(bindings: dict[str, str]) -> None:
        exp = Expander(resolve, bindings, iterate=True)
        for t in texts:
            exp.expand(t)
    return list(combinations(probe))


def test_every_combination_first_list_outermost() -> None:
    got = [(b["l"], b["n"]) for b in combos("$(l)-$(n)")]
    assert got == [("a", "1"), ("a", "2"), ("a", "3"), ("b", "1"), ("b", "2"), ("b", "3")]


def test_dependent_list_inside_index() -> None:
    got = [b for b in combos("$(arr[$(k)])")]
    assert got == [{"k": "x"}, {"k": "y"}]
    assert [expand("$(arr[$(k)])", b)[0] for b in got] == ["AX", "AY"]


def test_same_list_twice_is_one_wheel_and_empty_list_gives_nothing() -> None:
    assert len(combos("$(l) $(l)", "$(l)")) == 2
    assert combos("$(empty) $(l)") == []


def test_data_array_iterates_over_primitives() -> None:
    VARS["da"] = Variable("data", ["p", 2, {"no": 1}])
    try:
        assert [b["da"] for b in combos("$(da)")] == ["p", "2"]
    finally:
        del VARS["da"]


@settings(max_examples=200, deadline=None, database=None)
@given(st.text(alphabet=st.sampled_from(list("ab $(){}[]_sil.")), max_size=30))
def test_expansion_never_raises_and_is_idempotent_on_text_without_refs(text: str) -> None:
    out, unresolved = expand(text)
    if "$(" not in text and "${" not in text:
        assert out == text and not unresolved


@settings(max_examples=100, deadline=None, database=None)
@given(st.lists(st.sampled_from(["$(l)", "$(n)", "$(k)", "x", "$(s)"]), min_size=1, max_size=4))
def test_combination_count_is_product_of_distinct_lists(parts: list[str]) -> None:
    sizes = {"$(l)": 2, "$(n)": 3, "$(k)": 2}
    expected = 1
    for p in set(parts):
        expected *= sizes.get(p, 1)
    assert len(combos(" ".join(parts))) == expected


def test_cf_null_is_an_ordinary_list_element() -> None:
    VARS["withnull"] = Variable("slist", ["1", "cf_null", "2"])
    try:
        assert [b["withnull"] for b in combos("$(withnull)")] == ["1", "cf_null", "2"]
    finally:
        del VARS["withnull"]


def test_json_null_is_no_value() -> None:
    VARS["dn"] = Variable("data", ["p", None, "q"])
    VARS["nul"] = Variable("data", None)
    try:
        # an array passes its nulls by; a null itself skips the promise when iterating
        assert [b["dn"] for b in combos("$(dn)")] == ["p", "q"]
        assert combos("x $(nul) $(l)") == []
        assert expand("x $(nul)") == ("x $(nul)", True)
    finally:
        del VARS["dn"], VARS["nul"]


def test_naked_reference_allows_inner_references() -> None:
    from cfpromise.eval.expand import naked_reference
    assert naked_reference("@(one[$(sys.uqhost)])") == "one[$(sys.uqhost)]"
    assert naked_reference("@{a.b}") == "a.b"
    assert naked_reference("@(a) @(b)") is None
    assert naked_reference("$(a)") is None
    assert naked_reference("@(a)x") is None


def test_data_object_iterates_over_its_primitive_values() -> None:
    VARS["o"] = Variable("data", {"p": 1, "q": None, "r": False, "s": "x", "t": {"a": 1}})
    try:
        assert [b["o"] for b in combos("$(o)")] == ["1", "false", "x"]
        assert expand("$(o)")[1] is True      # outside iteration it stays unresolved
    finally:
        del VARS["o"]


def _close_by_scanning(text: str, start: int, opening: str) -> int:
    closing = ")" if opening == "(" else "}"
    depth = 0
    for i in range(start, len(text)):
        if text[i] == opening:
            depth += 1
        elif text[i] == closing:
            depth -= 1
            if depth == 0:
                return i
    return -1


@given(st.text(alphabet="(){}$ab", max_size=24), st.sampled_from("({"))
@settings(max_examples=400, deadline=None)
def test_close_finds_the_matching_bracket_as_a_scan_does(text: str, opening: str) -> None:
    from cfpromise.eval.expand import _close
    text = opening + text
    assert _close(text, 0, opening) == _close_by_scanning(text, 0, opening)


# Expander.scan (the iteration probe) must leave an expander exactly as expand() does:
# the same NeedIteration (list key and values) or none, and the same ``unresolved`` --
# over every text, including values that themselves hold references, nulls, containers
# and references that stay unresolved, with the flag carried from one text to the next.
class _Sourced(list):
    """A body's @(list) argument: a list that knows how it was written."""

    source = "@(p)"


SCAN_VARS = dict(VARS, **{
    "ref": Variable("string", "$(l) and $(nosuch)"),       # a value holding references
    "self": Variable("string", "again $(self)"),
    "null": Variable("data", None),
    "obj": Variable("data", {"a": 1, "b": None, "c": [2]}),
    "name": Variable("string", "s"),
    "src": Variable("slist", _Sourced(["z"])),
})


def _scan_resolve(ref: str) -> tuple[str, Variable] | None:
    var = SCAN_VARS.get(ref)
    return (ref, var) if var is not None else resolve(ref)


def _outcome(method: str, texts: list[str], bindings: dict[str, str], iterate: bool,
             unresolved: bool) -> tuple[object, bool]:
    exp = Expander(_scan_resolve, dict(bindings), iterate)
    exp.unresolved = unresolved
    try:
        for text in texts:
            getattr(exp, method)(text)
    except NeedIteration as need:
        return (need.key, need.values), exp.unresolved
    return None, exp.unresolved


PIECES = ["$(s)", "${i}", "$(l)", "$(k)", "$(arr[$(k)])", "$(a_$(s))", "$(a_$(nosuch))",
          "$(nosuch)", "$(ref)", "$(self)", "$(null)", "$(obj)", "$(d)", "$(d[k])",
          "$(d[k][1])", "$($(name))", "$(empty)", "$(src)", "plain", "$", "$(", "$(s",
          "$x", "${l}", "$(obj[c])"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=4).map("".join), max_size=3),
       st.dictionaries(st.sampled_from(["l", "k", "obj", "d", "src"]), st.sampled_from(["x", "a"]),
                       max_size=2),
       st.booleans(), st.booleans())
def test_scan_changes_the_expander_as_expand_does(texts: list[str], bindings: dict[str, str],
                                                  iterate: bool, unresolved: bool) -> None:
    assert _outcome("scan", texts, bindings, iterate, unresolved) == \
        _outcome("expand", texts, bindings, iterate, unresolved)


class _Ctx:
    """Just what RvalEvaluator.text asks of a context."""

    def expander(self, bindings: dict[str, str] | None = None, iterate: bool = False) -> Expander:
        return Expander(_scan_resolve, bindings, iterate)


def test_an_evaluators_reused_expander_starts_each_text_afresh() -> None:
    # RvalEvaluator.text keeps one Expander: an unresolved text before must not make
    # a later one look unresolved, and no "being expanded" mark may be left behind
    from cfpromise.eval.rvals import RvalEvaluator
    ev = RvalEvaluator(_Ctx(), {"l": "a"})
    assert ev.text("$(nosuch)") == "$(nosuch)" and ev.unresolved
    ev.unresolved = False
    assert ev.text("$(s) $(l)") == "hello a" and not ev.unresolved
    # a value holding references is substituted as it is, and unresolved (cf-agent)
    assert ev.text("$(ref)") == "$(l) and $(nosuch)" and ev.unresolved
    ev.unresolved = False
    ev._expander.active.add("ref")            # as if an expansion had been cut short
    assert ev.text("$(ref)") == "$(l) and $(nosuch)"
    fresh = RvalEvaluator(_Ctx(), {"l": "a"})
    assert [ev.text(t) for t in ("$(self)", "x$(i)")] == \
        [fresh.text("$(self)"), RvalEvaluator(_Ctx(), {"l": "a"}).text("x$(i)")]


def _cut_as_written(text: str) -> tuple[list[str], list[tuple[str, str]]]:
    """cf-agent's ExpandScalar walk, a character at a time: a reference's end is found
    with a stack of both bracket kinds (ReferenceEnd); one with no end, a close of the
    other kind or nothing inside is written ``${}``/``$()`` and the character after its
    bracket is passed over."""
    literal: list[str] = []
    refs: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == "$" and i + 1 < n and text[i + 1] in "({":
            stack, end = [text[i + 1]], -1
            for k in range(i + 2, n):
                if text[k] in "({":
                    if len(stack) >= 9:
                        break
                    stack.append(text[k])
                elif text[k] in ")}":
                    if stack[-1] != {")": "(", "}": "{"}[text[k]]:
                        break
                    stack.pop()
                    if not stack:
                        end = k
                        break
            if end < 0 or end - i <= 2:
                literal.append("$" + text[i + 1] + {"(": ")", "{": "}"}[text[i + 1]])
                i += 3
                continue
            literal.append("\0")                  # where a reference's value goes
            refs.append((text[i + 2:end], text[i + 1]))
            i = end + 1
            continue
        literal.append(text[i])
        i += 1
    return literal, refs


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="$(){}ab_[]", max_size=24))
def test_segments_cut_a_text_where_the_walk_substitutes(text: str) -> None:
    from cfpromise.eval.expand import segments
    literal, refs = _cut_as_written(text)
    head, cut, _errors = segments(text)
    assert [(inner, opening) for inner, opening, _ in cut] == refs
    assert head + "".join("\0" + tail for _, _, tail in cut) == "".join(literal)
