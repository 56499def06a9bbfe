"""cfpromise.fast.jsondumps.dumps is json.dumps, without the json package."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, strategies as st

from cfpromise.fast import jsondumps

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text())
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.tuples(inner, inner),
    st.dictionaries(st.text(max_size=5), inner, max_size=4)), max_leaves=20)


@given(values, st.booleans())
def test_the_same_text_as_json_dumps(value: object, sort_keys: bool) -> None:
    assert jsondumps.dumps(value, sort_keys=sort_keys) == json.dumps(value, sort_keys=sort_keys)


@given(values)
def test_compact_separators_as_json_dumps(value: object) -> None:
    # the canonical text of an inline data container (cfpromise.syntax.convert.canonical_json)
    assert jsondumps.dumps(value, sort_keys=True, separators=(",", ":")) == \
        json.dumps(value, sort_keys=True, separators=(",", ":"))


@given(st.dictionaries(st.one_of(st.text(max_size=3), st.integers(), st.none()), st.integers(),
                       max_size=4))
def test_keys_of_other_types_as_json_dumps_writes_them(value: dict) -> None:
    assert jsondumps.dumps(value) == json.dumps(value)


def test_default_and_refusal_as_json_dumps() -> None:
    odd = {"b": {1, 2} and frozenset(), "a": [object]}
    assert jsondumps.dumps(odd, sort_keys=True, default=str) == \
        json.dumps(odd, sort_keys=True, default=str)
    with pytest.raises(TypeError, match="Object of type frozenset is not JSON serializable"):
        jsondumps.dumps({"x": frozenset()})
    with pytest.raises(ValueError, match="Circular reference"):
        loop: list = []
        loop.append(loop)
        jsondumps.dumps(loop)


@pytest.mark.fast_path
def test_importing_and_using_it_imports_neither_json_nor_re() -> None:
    probe = ("import sys\nfrom cfpromise.fast.jsondumps import dumps\n"
             "assert dumps({'k': [1, 2.5, None, 'v\\u00e9']}, sort_keys=True, default=str)\n"
             "print(sorted({'json', 're', 'enum'} & set(sys.modules)))\n")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr
