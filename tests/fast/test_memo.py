"""cfpromise.fast.memo: lru_cache without importing functools, behaving as functools'."""
from __future__ import annotations

import functools
import subprocess
import sys

import pytest
from hypothesis import given, strategies as st

from cfpromise.fast import memo


def _pair(maxsize: int | None, typed: bool = False) -> tuple[object, object, list, list]:
    mine_calls: list = []
    theirs_calls: list = []

    def mine(x: object) -> object:
        """Doc."""
        mine_calls.append(x)
        return (x, len(mine_calls))

    def theirs(x: object) -> object:
        """Doc."""
        theirs_calls.append(x)
        return (x, len(theirs_calls))

    theirs.__name__ = theirs.__qualname__ = "mine"
    return (memo.lru_cache(maxsize, typed)(mine), functools.lru_cache(maxsize, typed)(theirs),
            mine_calls, theirs_calls)


@given(st.lists(st.one_of(st.integers(-3, 3), st.floats(-3, 3).map(round).map(float)),
                max_size=40), st.sampled_from([0, 1, 2, 5, None]), st.booleans())
def test_the_same_calls_hits_and_evictions_as_functools(args: list, maxsize: int | None,
                                                        typed: bool) -> None:
    mine, theirs, mine_calls, theirs_calls = _pair(maxsize, typed)
    for a in args:
        assert mine(a) == theirs(a)
    assert mine_calls == theirs_calls
    assert tuple(mine.cache_info()) == tuple(theirs.cache_info())
    mine.cache_clear()
    theirs.cache_clear()
    assert tuple(mine.cache_info()) == tuple(theirs.cache_info())


def test_the_wrapper_looks_like_functools_wrapper() -> None:
    mine, theirs, _, _ = _pair(16)
    for attr in ("__name__", "__doc__", "__module__"):
        assert getattr(mine, attr) == getattr(theirs, attr), attr
    assert mine.__wrapped__.__name__ == "mine"
    assert mine.cache_parameters() == theirs.cache_parameters() == {"maxsize": 16,
                                                                    "typed": False}

    @memo.lru_cache
    def bare(x: int) -> int:
        return x + 1
    assert bare(1) == 2 and bare.cache_parameters()["maxsize"] == 128
    with pytest.raises(TypeError):
        memo.lru_cache("big")


def test_the_c_wrapper_is_used_and_functools_is_not_imported() -> None:
    assert memo.C_WRAPPER
    probe = ("import sys\nfrom cfpromise.fast import memo\n"
             "print(memo.C_WRAPPER, 'functools' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=60)
    assert out.stdout.split() == ["True", "False"], out.stderr


# the speed mechanisms themselves: skipped under CF_LITE_PLAIN=1 (tests/conftest.py)
pytestmark = pytest.mark.fast_path
