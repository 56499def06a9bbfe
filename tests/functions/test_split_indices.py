"""A variable name's indices, "[a][b]" -> ["a", "b"] (common._split_indices): the split
done in C for the usual indices gives what reading the name character by character gives,
for every text of up to eight characters over brackets and letters."""
from __future__ import annotations

import itertools

from cfpromise.eval.functions import common


def _by_character(text: str) -> list[str]:
    out: list[str] = []
    depth, cur = 0, []      # type: ignore[var-annotated]
    for ch in text:
        if ch == "[":
            if depth:
                cur.append(ch)
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth:
                cur.append(ch)
            else:
                out.append("".join(cur))
                cur = []
        elif depth:
            cur.append(ch)
    return out


def test_every_short_text() -> None:
    for size in range(9):
        for chars in itertools.product("[]ab", repeat=size):
            text = "".join(chars)
            assert common._split_indices(text) == _by_character(text), text


def test_names() -> None:
    assert common.split_ref("ns:b.a[x][y z]") == ("ns", "b", "a", ["x", "y z"])
    assert common.split_ref("a[$(k[1])][]") == (None, None, "a", ["$(k[1])", ""])
