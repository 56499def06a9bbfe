"""Hash built-ins: hash, file_hash, hashmatch, hash_to_int.

Digests are lower-case hex as cf-agent prints them (its ``MD5=``/``SHA=``
prefix removed).  ``hash_to_int`` takes the first eight bytes of the SHA-256
digest as a little-endian integer, modulo the range, like cf-agent; its bounds
are C ``int``\\ s.
"""
from __future__ import annotations

from cfpromise.eval.functions.api import FunctionError, builtin
from cfpromise.eval.functions.common import CF_NOINT, argv, int_arg, to_bytes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence

    from cfpromise.eval.functions.api import FunctionContext, Value

_ALGORITHMS = ("md5", "sha1", "sha256", "sha384", "sha512")


def _digest(algorithm: str, data: bytes) -> str:
    import hashlib
    if algorithm not in _ALGORITHMS:
        raise FunctionError(f"unknown hash algorithm '{algorithm}'")
    return hashlib.new(algorithm, data).hexdigest()


def file_digest(algorithm: str, path: str) -> str:
    """Hex digest of a file's contents; FunctionError if it cannot be read."""
    import hashlib
    if algorithm not in _ALGORITHMS:
        raise FunctionError(f"unknown hash algorithm '{algorithm}'")
    h = hashlib.new(algorithm)
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(65536), b""):
                h.update(block)
    except OSError as exc:
        raise FunctionError(f"Cannot open file '{path}' for hashing ({exc.strerror})") \
            from None
    return h.hexdigest()


@builtin("hash")
def hash_(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    text, algorithm = argv("hash", args, 2)
    return _digest(algorithm, to_bytes(text))


def _file_digest_or_zeros(ctx: FunctionContext, algorithm: str, path: str) -> str:
    """cf-agent hashes an unreadable file as all zero bytes (and logs it)."""
    import hashlib
    try:
        return file_digest(algorithm, path)
    except FunctionError as exc:
        if algorithm not in _ALGORITHMS:
            raise
        from cfpromise.eval.functions import messages
        messages.say(ctx, "hash.unreadable", message=str(exc))
        return "00" * hashlib.new(algorithm).digest_size


@builtin("file_hash")
def file_hash(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    path, algorithm = argv("file_hash", args, 2)
    return _file_digest_or_zeros(ctx, algorithm, path)


@builtin("hashmatch")
def hashmatch(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    path, algorithm, expected = argv("hashmatch", args, 3)
    return _file_digest_or_zeros(ctx, algorithm, path) == expected


def _c_int(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - 2**32 if value >= 2**31 else value


@builtin("hash_to_int")
def hash_to_int(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    low_text, high_text, text = argv("hash_to_int", args, 3)
    low, high = int_arg(low_text), int_arg(high_text)
    if low == CF_NOINT or high == CF_NOINT:
        raise FunctionError("Function 'hash_to_int': bounds are not integers")
    low, high = _c_int(low), _c_int(high)
    if low == high:
        return str(low)
    if low > high:
        low, high = high, low
    import hashlib
    digest = hashlib.sha256(to_bytes(text)).digest()
    number = int.from_bytes(digest[:8], "little")
    return str(_c_int(low + number % (high - low)))
