"""readers.split_escaped_lines (readstringarray & co.) splits as CFEngine's
RlistFromSplitString(text, '\\n') does; checked against the character loop it replaced."""
from __future__ import annotations

from hypothesis import given, strategies as st

from cfpromise.eval.functions.readers import split_escaped_lines


def _by_character(text: str) -> list[str]:
    out: list[str] = []
    cur: list[str] = []
    i = 0
    if not text:
        return out
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] == "\n":
            cur.append("\n")
            i += 2
            continue
        if ch == "\n":
            out.append("".join(cur))
            cur = []
            i += 1
            if i >= len(text):
                return out
            continue
        cur.append(ch)
        i += 1
    out.append("".join(cur))
    return out


@given(st.text(alphabet="ab\\\n\r ", max_size=40))
def test_same_lines_as_the_character_loop(text: str) -> None:
    assert split_escaped_lines(text) == _by_character(text)


def test_cases() -> None:
    assert split_escaped_lines("") == []
    assert split_escaped_lines("\n") == [""]
    assert split_escaped_lines("a\nb\n") == ["a", "b"]
    assert split_escaped_lines("a\\\nb\nc") == ["a\nb", "c"]
    assert split_escaped_lines("a\\\n") == ["a\n"]
    assert split_escaped_lines("a\\\\\nb") == ["a\\\nb"]
    assert split_escaped_lines("a\n\nb") == ["a", "", "b"]
