"""How a bundle or body name written in policy finds its block.

A qualified name (``ns:name``) means exactly that namespace; an unqualified one
is looked up in the referring block's namespace, then in ``default`` — nothing
else is guessed.  Indexes map ``(namespace, name)`` to the blocks of that name
(one per type).
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable, Mapping, Sequence, TypeVar

    T = TypeVar("T")


def candidates(name: str, namespace: str) -> list[tuple[str, str]]:
    """The (namespace, name) keys to try, in order."""
    if ":" in name:
        ns, _, short = name.partition(":")
        return [(ns, short)]
    return [(namespace, name), ("default", name)]


def find_block(index: Mapping[tuple[str, str], Sequence[T]], name: str, namespace: str,
               types: Iterable[str]) -> T | None:
    """The first block called ``name`` (as seen from ``namespace``) whose type is in ``types``."""
    wanted = tuple(types)
    for key in candidates(name, namespace):
        for block in index.get(key, ()):
            if getattr(block, "type", None) in wanted:
                return block
    return None
