"""Properties of :mod:`cfpromise.syntax.varstring` (IsCf3VarString's walk) that hold for
any text; what cf-agent 3.21 says of each place's texts is tests/differential/varstrings.py.

The walk is checked against the step-by-step machine IsCf3VarString describes (a flag
set by a mark, a bracket count of both kinds, the last opening and closing bracket, a
count of whole references), run to the end of the text: the module stops at the first
whole reference, which must change nothing."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cfpromise.syntax.varstring import naked, walk

TEXTS = st.text(alphabet="$@(){}a/ x", max_size=14)


def _machine(text: str) -> tuple[bool, bool]:
    counting = False
    depth = found = 0
    left = right = ""
    for at, char in enumerate(text):
        if char in "$@":
            if text[at + 1:at + 2] in ("(", "{"):
                counting = True
        elif char in "({":
            if counting:
                left = char
                depth += 1
        elif char in ")}":
            if counting:
                depth -= 1
                right = char
        if depth > 0 and char == "/":
            return False, False
        if counting and depth == 0 and left + right in ("()", "{}"):
            found += 1
            counting = False
    if counting and depth != 0:
        return False, True
    return found > 0, False


@settings(max_examples=3000)
@given(TEXTS)
def test_walk_is_the_whole_machine(text: str) -> None:
    assert walk(text) == _machine(text)


@given(TEXTS, TEXTS)
def test_nothing_after_a_whole_reference_counts(text: str, after: str) -> None:
    if walk(text)[0]:
        assert walk(text + after) == (True, False)


@given(TEXTS)
def test_never_both(text: str) -> None:
    references, broken = walk(text)
    assert not (references and broken)


@given(st.sampled_from("$@"), st.sampled_from(["()", "{}"]), TEXTS)
def test_naked_is_one_reference_alone(mark: str, brackets: str, inner: str) -> None:
    inner = inner.translate(str.maketrans("", "", "(){}"))
    one = f"{mark}{brackets[0]}{inner}{brackets[1]}"
    assert naked(one)
    assert not naked(one + "x") and not naked("x" + one) and not naked(one + one)
    assert not naked(f"{mark}{brackets[0]}{inner}{')' if brackets == '{}' else '}'}")
