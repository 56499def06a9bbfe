"""The answer's framing: what a hostile or broken host can send the hub, and what a hostile
peer can send as a QUERY."""
from __future__ import annotations

import hashlib
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cfpromise.hub import wire
from cfpromise.net import protocol as P


class Wire:
    def __init__(self) -> None:
        self.data = bytearray()

    def send(self, b: bytes) -> None:
        self.data += b

    def recv(self) -> tuple[bytes, bool]:
        return P.read_transaction(self._exact)

    def _exact(self, n: int) -> bytes:
        if len(self.data) < n:
            raise P.ConnectionClosed("closed")
        out = bytes(self.data[:n])
        del self.data[:n]
        return out


def test_round_trip_of_a_large_answer() -> None:
    answer = {"kind": "rebase", "epoch": "ab", "runs": [{"seq": n, "x": "y" * 50}
                                                       for n in range(3000)]}
    w = Wire()
    wire.send_answer(w.send, wire.encode_answer(answer))
    assert wire.read_answer(w.recv) == answer


def _header(data: bytes, size: int | None = None) -> bytes:
    return P.encode(f"CFR: {len(data) if size is None else size} "
                    f"{hashlib.sha256(data).hexdigest()}")


@pytest.mark.parametrize("frames, error", [
    ([P.encode("BAD: Unspecified server refusal")], PermissionError),
    ([P.encode("hello")], wire.AnswerError),
    ([_header(b"x", size=10 ** 12)], wire.AnswerError),                 # over the limit
    ([_header(b"abc"), P.encode(b"abd")], wire.AnswerError),            # digest differs
    ([_header(b"not zlib"), P.encode(b"not zlib")], wire.AnswerError),
    ([_header(zlib.compress(b"[1]")), P.encode(zlib.compress(b"[1]"))], wire.AnswerError),
    ([_header(b"ab"), P.encode(b"a" * 4000, more=True), P.encode(b"a" * 4000)],
     wire.AnswerError),                                                  # longer than told
])
def test_bad_answers_are_refused(frames, error) -> None:
    w = Wire()
    for f in frames:
        w.send(f)
    with pytest.raises(error):
        wire.read_answer(w.recv)


def test_a_zip_bomb_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wire, "MAX_JSON", 10000)
    data = zlib.compress(b'{"kind":"delta","runs":[],"pad":"' + b"a" * 100000 + b'"}')
    w = Wire()
    wire.send_answer(w.send, data)
    with pytest.raises(wire.AnswerError, match="inflates"):
        wire.read_answer(w.recv)


@pytest.mark.parametrize("text, parsed", [
    ("QUERY delta", ("delta", "", 0)),
    ("QUERY rebase", ("rebase", "", 0)),
    ("QUERY full", ("full", "", 0)),
    ("QUERY delta ab12 7", ("delta", "ab12", 7)),
    ("QUERY delta ab12 -7", None),
    ("QUERY delta ab;12 7", None),
    ("QUERY delta " + "a" * 65 + " 7", None),
    ("QUERY delta ab 7 8", None),
    ("QUERY drop", None),
    ("QUERY", None),
])
def test_parse_request(text, parsed) -> None:
    assert wire.parse_request(text) == parsed


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_parse_request_never_raises(text: str) -> None:
    result = wire.parse_request(text)
    assert result is None or result[0] in wire.KINDS
