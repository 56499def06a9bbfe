"""CFEngine's canonification of class and variable names.

cf-agent turns arbitrary text (host names, IP addresses, kernel releases...)
into class names by replacing every *byte* that is not an ASCII letter, digit
or underscore with ``_``.  It works on the UTF-8 bytes, so a non-ASCII
character becomes one underscore per byte: ``canonify("aé-b")`` is
``"a___b"``, exactly what ``canonify()`` in policy gives on cf-agent 3.21.
"""
from __future__ import annotations

_KEEP = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_TABLE = bytes(b if b in _KEEP else ord("_") for b in range(256))


def canonify(text: str) -> str:
    """Return ``text`` with every byte outside ``[A-Za-z0-9_]`` replaced by ``_``."""
    if text.isascii():
        if text.isidentifier():
            return text
        return text.encode("ascii").translate(_TABLE).decode("ascii")
    raw = text.encode("utf-8", "surrogateescape")
    return raw.translate(_TABLE).decode("ascii")
