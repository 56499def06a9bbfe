"""The framing of a hub query's answer, shared by the host's server and the hub.

A ``QUERY`` (``QUERY delta EPOCH SEQ``, ``QUERY rebase``, ``QUERY full``) is answered,
once the access rules admit it, with a first transaction ``CFR: SIZE SHA256`` -- the
size and digest of the answer -- then the answer itself: JSON, zlib-compressed, in
transactions of at most CF_MSGSIZE bytes, the last without the "more" flag.  A refusal
is cf-serverd's ``BAD: ...`` reply.  The hub refuses an answer larger than its limit
before reading it, and one whose digest does not match after.
"""
from __future__ import annotations

import hashlib
import json
import zlib
from typing import Any, Callable

from cfpromise.net import protocol as P

HEADER = "CFR:"
MAX_ANSWER = 64 * 1024 * 1024        # compressed bytes the hub accepts from one host
MAX_JSON = 512 * 1024 * 1024         # and once inflated
KINDS = ("delta", "rebase", "full")


class AnswerError(Exception):
    """A host's answer the hub does not take (too large, damaged, not JSON)."""


def request_text(kind: str, epoch: str = "", seq: int = 0) -> str:
    if kind == "delta" and epoch:
        return f"QUERY delta {epoch} {int(seq)}"
    return f"QUERY {kind}"


def parse_request(text: str) -> tuple[str, str, int] | None:
    """(kind, epoch, seq) of a QUERY request text, None when malformed."""
    words = text.split()
    if len(words) < 2 or words[0] != "QUERY" or words[1] not in KINDS or len(words) > 4:
        return None
    if words[1] != "delta" or len(words) == 2:
        return words[1], "", 0
    if len(words) != 4 or not words[3].isdigit() or len(words[2]) > 64 \
            or not words[2].isalnum():
        return None
    return "delta", words[2], int(words[3][:18])


def encode_answer(answer: dict[str, Any]) -> bytes:
    return zlib.compress(json.dumps(answer, separators=(",", ":"), default=str).encode(), 6)


def send_answer(send: Callable[[bytes], None], data: bytes) -> None:
    """The header transaction, then ``data`` in transactions (``send`` takes raw bytes)."""
    send(P.encode(f"{HEADER} {len(data)} {hashlib.sha256(data).hexdigest()}"))
    step = P.CF_MSGSIZE
    chunks = [data[i:i + step] for i in range(0, len(data), step)] or [b"\n"]
    out = bytearray()
    for n, chunk in enumerate(chunks):
        out += P.encode(chunk, more=n < len(chunks) - 1)
        if len(out) >= 256 * 1024:
            send(bytes(out))
            out.clear()
    if out:
        send(bytes(out))


def read_answer(recv: Callable[[], tuple[bytes, bool]], limit: int = MAX_ANSWER
                ) -> dict[str, Any]:
    """Read one answer through ``recv()`` (a transaction's payload and its more flag)."""
    first, _ = recv()
    text = P.cstring(first)
    if text.startswith("BAD"):
        raise PermissionError(text)
    words = text.split()
    if len(words) != 3 or words[0] != HEADER or not words[1].isdigit() or len(words[2]) != 64:
        raise AnswerError(f"not a query answer: {text[:80]!r}")
    size = int(words[1])
    if size > limit:
        raise AnswerError(f"answer of {size} bytes is over the limit of {limit}")
    data = bytearray()
    more = True
    while more:
        chunk, more = recv()
        data += chunk
        if len(data) > size + P.CF_MSGSIZE:
            raise AnswerError("answer longer than announced")
    data = data[:size] if size else data
    if hashlib.sha256(bytes(data)).hexdigest() != words[2]:
        raise AnswerError("answer damaged (digest differs)")
    try:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(bytes(data), MAX_JSON)
        if inflater.unconsumed_tail:
            raise AnswerError(f"answer inflates beyond {MAX_JSON} bytes")
        value = json.loads(raw)
    except (zlib.error, ValueError) as exc:
        raise AnswerError(f"answer is not compressed JSON ({exc})") from None
    if not isinstance(value, dict) or value.get("kind") not in ("delta", "rebase"):
        raise AnswerError("answer has no kind")
    return value
