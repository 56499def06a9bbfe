"""The variable store's classic-array index answers as a scan of every variable does."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from cfpromise.eval.functions.api import Variable
from cfpromise.eval.variables import VariableStore

_INDEX = st.sampled_from(["x", "y", "1", "a b", "k[1]", ""])
_NAME = st.one_of(
    st.builds(lambda b, ix: b + "".join(f"[{i}]" for i in ix),
              st.sampled_from(["a", "b", "ab"]), st.lists(_INDEX, max_size=3)),
    st.sampled_from(["a[x]y", "a[", "a]"]))
_OPS = st.lists(st.tuples(st.sampled_from(["set", "set", "set", "remove", "clear"]),
                          st.sampled_from(["s", "t"]), _NAME), max_size=30)


@given(_OPS, st.sampled_from(["s", "t"]), _NAME)
@settings(max_examples=300, deadline=None)
def test_array_entries_match_a_prefix_scan(ops: list[tuple[str, str, str]], scope: str,
                                           asked: str) -> None:
    store = VariableStore()
    for n, (op, sc, name) in enumerate(ops):
        if op == "set":
            store.set("default", sc, name, Variable("string", str(n)))
        elif op == "remove":
            store.remove("default", sc, name)
        else:
            store.clear_arrays("default", sc)
    qualified = f"default:{scope}.{asked}"
    found = store.array_entries(qualified)
    if found is None:            # the store defers to a scan: it must have a reason
        assert store.irregular or ("[" in asked)
        return
    scanned = [(k, v) for k, v in store.vars.items() if k.startswith(qualified + "[")]
    # a scan also meets names under the prefix that are not index chains (a[x]y): those
    # make the store defer, so here both must agree exactly, order included
    assert found == scanned


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab[]x$()", max_size=14))
def test_the_remembered_split_is_the_split(name: str) -> None:
    # VariableStore.set/get use split_index_tuple (an LRU memo): asked twice, it must
    # give split_indices' answer both times, as a tuple nobody can change
    from cfpromise.eval.variables import split_index_tuple, split_indices
    base, indices = split_indices(name)
    assert split_index_tuple(name) == (base, tuple(indices))
    assert split_index_tuple(name) == (base, tuple(indices))
