"""CFEngine 3.21's map (libntech ``map.c``), kept as a shadow to give its iteration order.

cf-agent's variable table, class table and string sets are libntech Maps, and every
function that walks one (getindices(), getvalues(), maparray(), mapdata(),
classesmatching(), variablesmatching() over classic arrays and classes) returns its
elements in the map's order, which policy sees ("last iteration wins", the order of a
rendered list).  The order is reproduced here exactly:

- a Map starts as an *array map*: up to ``TINY_LIMIT`` (14) pairs in insertion order
  (a replaced value keeps its slot, a removed one closes the gap);
- the 15th new key converts it to a *hash map* of 128 buckets (the array's pairs
  inserted in array order); a bucket is a chain, a new key goes to its head;
- a hash map doubles when more than 3/4 of its buckets' worth of keys are stored, and
  halves (not below its first size) when fewer than 0.35; a resize walks the old
  buckets in order, each chain head to tail, pushing each key on the head of its new
  chain (so keys sharing a chain swap their order);
- iteration walks buckets 0.. in order, each chain head to tail.

Bucket = hash & (buckets - 1).  The hashes are Bob Jenkins' one-at-a-time:
``StringHash`` over the bytes as unsigned char (class table, string sets) and
``VarRefHash`` (variable table) over namespace, scope, lval and each index after a
``]`` separator, with the bytes as (signed, on x86) char.
"""
from __future__ import annotations

from itertools import chain as _chain

from cfpromise.fast.memo import lru_cache  # (functools is not on the start path)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Hashable, Iterable, Iterator, Sequence

_chained = _chain.from_iterable
TINY_LIMIT = 14
HASH_INIT_SIZE = 128
MAX_LOAD = 0.75
MIN_LOAD = 0.35
MASK32 = 0xFFFFFFFF
_HASH_OF_DEFAULT = 1195645448       # VarRefHash's shortcut for a NULL namespace


def _to_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _oat_step(h: int, data: bytes, signed: bool) -> int:
    # h += byte; h += h << 10 (that is, times 1025); h ^= h >> 6, all modulo 2**32:
    # one mask a byte is enough, the sum and the product being the same modulo 2**32
    # either way (the hash of every variable and class runs this loop; a negative sum
    # only comes from a signed byte, and is reduced alike).
    if signed and not data.isascii():
        for byte in data:
            if byte >= 0x80:
                byte -= 256
            h = ((h + byte) * 1025) & MASK32
            h ^= h >> 6
        return h
    for byte in data:
        h = ((h + byte) * 1025) & MASK32
        h ^= h >> 6
    return h


def _oat_final(h: int) -> int:
    h = (h + (h << 3)) & MASK32
    h ^= h >> 11
    return (h + (h << 15)) & MASK32


@lru_cache(maxsize=65536)
def string_hash(text: str) -> int:
    """libntech's StringHash(text, 0)."""
    return _oat_final(_oat_step(0, _to_bytes(text), False))


@lru_cache(maxsize=4096)
def _scope_state(ns: str, scope: str) -> int:
    h = _HASH_OF_DEFAULT if ns == "default" else _oat_step(0, _to_bytes(ns), True)
    return _oat_step(h, _to_bytes(scope), True)


@lru_cache(maxsize=65536)
def varref_hash(ns: str, scope: str, lval: str, indices: tuple[str, ...] = ()) -> int:
    """cf-agent 3.21's VarRefHash of a qualified reference ``ns:scope.lval[i]...``."""
    h = _oat_step(_scope_state(ns, scope), _to_bytes(lval), True)
    for index in indices:
        h = _oat_step(h, b"]", True)
        h = _oat_step(h, _to_bytes(index), True)
    return _oat_final(h)


class CMap:
    """The key order of one libntech Map, given each key's hash (values live elsewhere)."""

    __slots__ = ("array", "buckets", "hashes", "size", "init_size", "load")

    def __init__(self) -> None:
        self.array: list[Hashable] | None = []      # the array map, until converted
        self.buckets: list[list[Hashable]] = []    # chains, head first
        self.hashes: dict[Hashable, int] = {}
        self.size = 0
        self.init_size = HASH_INIT_SIZE
        self.load = 0

    def __len__(self) -> int:
        return len(self.hashes)

    def __contains__(self, key: object) -> bool:
        return key in self.hashes

    def insert(self, key: Hashable, hash_: int) -> None:
        """MapInsert: a new key takes its place; a present one keeps it (but a full
        array map converts first, even to replace a value: ArrayMapInsert checks the
        size before looking for the key)."""
        present = key in self.hashes
        if self.array is not None:
            if len(self.array) < TINY_LIMIT:
                if not present:
                    self.hashes[key] = hash_
                    self.array.append(key)
                return
            pending, self.array = self.array, None
            self.size = HASH_INIT_SIZE
            self.buckets = [[] for _ in range(self.size)]
            self.load = 0
            for old in pending:
                self._hash_insert(old)
        if not present:
            self.hashes[key] = hash_
            self._hash_insert(key)

    def _hash_insert(self, key: Hashable) -> None:
        self.buckets[self.hashes[key] & (self.size - 1)].insert(0, key)
        self.load += 1
        if self.load > int(self.size * MAX_LOAD):
            self._resize(self.size << 1)

    def remove(self, key: Hashable) -> None:
        """MapRemove."""
        hash_ = self.hashes.pop(key, None)
        if hash_ is None:
            return
        if self.array is not None:
            self.array.remove(key)
            return
        self.buckets[hash_ & (self.size - 1)].remove(key)
        self.load -= 1
        if self.load < int(self.size * MIN_LOAD) and self.size > self.init_size:
            self._resize(self.size >> 1)

    def clear(self) -> None:
        """MapClear: an array map empties; a hash map keeps its bucket count."""
        self.hashes.clear()
        if self.array is not None:
            self.array = []
        else:
            self.buckets = [[] for _ in range(self.size)]
            self.load = 0

    def _resize(self, new_size: int) -> None:
        old = self.buckets
        self.size = new_size
        mask = new_size - 1
        self.buckets = buckets = [[] for _ in range(new_size)]
        hashes = self.hashes
        for chain in old:
            for key in chain:
                buckets[hashes[key] & mask].insert(0, key)

    def sweep(self, doomed: set[Hashable]) -> list[Hashable]:
        """Remove the keys of ``doomed`` as cf-agent does when it clears a called bundle's
        arrays: walking the map with an iterator and removing each key it returns.  A
        removal that shrinks the map moves the chains under the iterator, which then
        goes on from the next key it had saved and the same bucket number in the
        smaller map, so some keys are never met (and stay); in an array map, a removal
        moves the next pair into the slot the iterator has passed.  Returns the keys
        removed."""
        removed: list[Hashable] = []
        if self.array is not None:
            pos = 0
            while self.array is not None and pos < len(self.array):
                key = self.array[pos]
                pos += 1
                if key in doomed:
                    self.remove(key)
                    removed.append(key)
            return removed
        bucket = 0
        chain = self.buckets[0]
        cur: Hashable | None = chain[0] if chain else None
        while True:
            while cur is None:
                bucket += 1
                if bucket >= self.size:
                    return removed
                chain = self.buckets[bucket]
                cur = chain[0] if chain else None
            key = cur
            chain = self.buckets[self.hashes[key] & (self.size - 1)]
            at = chain.index(key)
            cur = chain[at + 1] if at + 1 < len(chain) else None
            if key in doomed:
                self.remove(key)
                removed.append(key)

    def __iter__(self) -> Iterator[Hashable]:
        if self.array is not None:
            return iter(list(self.array))
        return _chained(self.buckets)     # bucket by bucket, each chain head first, in C

    def order(self, keys: Iterable[Hashable]) -> list[Hashable]:
        """``keys`` (all in the map) in the map's iteration order: cheap for a few keys
        of a large map (getindices over one array of a big variable table)."""
        if self.array is not None:
            where = {k: i for i, k in enumerate(self.array)}
            return sorted(keys, key=where.__getitem__)
        mask = self.size - 1
        hashes, buckets = self.hashes, self.buckets

        def position(key: Hashable) -> tuple[int, int]:
            bucket = hashes[key] & mask
            return bucket, buckets[bucket].index(key)
        return sorted(keys, key=position)


def string_set_order(items: Sequence[str]) -> list[str]:
    """The iteration order of a StringSet that ``items`` were added to in this order."""
    if len(items) <= TINY_LIMIT:        # an array map: insertion order (the usual case)
        return list(dict.fromkeys(items))
    shadow = CMap()
    for item in items:
        shadow.insert(item, string_hash(item))
    return list(shadow)  # type: ignore[arg-type]
