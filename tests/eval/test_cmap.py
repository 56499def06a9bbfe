"""cfpromise.eval.cmap: libntech's map order, checked against the rules of map.c,
array_map.c and hash_map.c (the differential test in tests/differential checks it
against cf-agent 3.21 itself)."""
from __future__ import annotations

import random

from cfpromise.eval.cmap import CMap, _oat_final, _oat_step, string_hash, string_set_order, varref_hash
from cfpromise.eval.variables import VariableStore
from cfpromise.eval.functions.api import Variable


def test_hashes() -> None:
    # VarRefHash's shortcut for the default namespace is the OAT state after "default"
    assert _oat_step(0, b"default", True) == 1195645448
    assert string_hash("") == 0
    from cfpromise.eval.functions.lists import string_hash as select_class_hash
    assert all(string_hash(t) == select_class_hash(t) for t in ("a", "vm+192.0.2.2+0", "é"))
    # a byte above 0x7f counts as a negative char in VarRefHash, not in StringHash
    signed = varref_hash("default", "main", "é")
    unsigned = _oat_final(_oat_step(_oat_step(1195645448, b"main", False), "é".encode(), False))
    assert signed != unsigned
    assert varref_hash("default", "main", "e") == _oat_final(
        _oat_step(_oat_step(1195645448, b"main", False), b"e", False))
    assert varref_hash("default", "main", "a", ("b",)) == varref_hash("default", "main", "a]b")
    assert varref_hash("default", "main", "v", ("te", "st")) != \
        varref_hash("default", "main", "v", ("t", "e", "s", "t"))


def test_array_map_keeps_insertion_order_up_to_14() -> None:
    m = CMap()
    keys = [f"k{i}" for i in range(14)]
    for k in keys:
        m.insert(k, string_hash(k))
    assert list(m) == keys
    m.remove("k3")
    assert list(m) == keys[:3] + keys[4:]


def test_fifteenth_key_makes_a_hash_map_of_128_buckets() -> None:
    m = CMap()
    keys = [f"k{i}" for i in range(15)]
    for k in keys:
        m.insert(k, string_hash(k))
    assert m.size == 128
    order = list(m)
    buckets = [string_hash(k) & 127 for k in order]
    assert buckets == sorted(buckets)


def test_string_set_order_shortcut_is_the_map_order() -> None:
    """Up to TINY_LIMIT items the order is worked out without a map: the same order
    as the map's, repeated items included, on both sides of the limit."""
    rng = random.Random(5)
    for _ in range(300):
        items = [f"t{rng.randrange(20)}" for _ in range(rng.randrange(1, 20))]
        shadow = CMap()
        for item in items:
            shadow.insert(item, string_hash(item))
        assert string_set_order(items) == list(shadow), items


def test_replacing_in_a_full_array_map_converts_it() -> None:
    m = CMap()
    for i in range(14):
        m.insert(f"k{i}", string_hash(f"k{i}"))
    m.insert("k0", string_hash("k0"))
    assert m.array is None and len(m) == 14


def test_chains_put_new_keys_first_and_resizes_swap_them() -> None:
    # two keys of one bucket: the later one heads the chain; each resize that keeps
    # them together reverses the chain
    m = CMap()
    for i in range(15):
        m.insert(f"f{i}", 1 + i * 4096)     # bucket 1 at any size up to 4096
    m.insert("a", 5)
    m.insert("b", 5 + 1024)            # bucket 5 at 128, 256 and 512 buckets
    assert [k for k in m if k in ("a", "b")] == ["b", "a"]
    i = 0
    while m.size < 256:
        m.insert(f"g{i}", 7 + i * 4096)
        i += 1
    assert [k for k in m if k in ("a", "b")] == ["a", "b"]
    while m.size < 512:
        m.insert(f"g{i}", 7 + i * 4096)
        i += 1
    assert [k for k in m if k in ("a", "b")] == ["b", "a"]


def test_load_thresholds() -> None:
    m = CMap()
    for i in range(96):
        m.insert(i, i * 7919)
    assert m.size == 128
    m.insert(96, 96 * 7919)
    assert m.size == 256
    for i in range(8):             # 89 keys: int(256 * 0.35) = 89 is not below it
        m.remove(i)
    assert m.size == 256
    m.remove(8)
    assert m.size == 128


def test_string_set_order() -> None:
    small = ["z", "a", "m"]
    assert string_set_order(small) == small
    big = [f"c{i}" for i in range(40)]
    order = string_set_order(big)
    assert sorted(order) == sorted(big)
    buckets = [string_hash(k) & 127 for k in order]
    assert buckets == sorted(buckets)


def test_variable_store_orders_arrays_as_the_table() -> None:
    store = VariableStore()
    rng = random.Random(3)
    keys = [str(rng.randint(0, 10 ** 6)) for _ in range(60)]
    for i in range(100):
        store.set("default", "sys", f"v{i}", Variable("string", "x"))
    for k in keys:
        store.set("default", "main", f"a[{k}]", Variable("string", k))
    entries = store.array_entries("default:main.a")
    assert entries is not None
    got = [name for name, _ in entries]
    assert got == [k for k in store.table_keys() if k.startswith("default:main.a[")]
    assert got != [f"default:main.a[{k}]" for k in keys]      # not definition order
    store.clear_arrays("default", "main")
    assert not any(k.startswith("default:main.a[") for k in store.table_keys())
    assert len(store.table) == 100
