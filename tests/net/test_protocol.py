"""Framing, version/identity lines and reply parsing of the 3.21 protocol."""
from __future__ import annotations

import os
import random

import pytest

from cfpromise.net import protocol as P


def _reader(data: bytes):
    pos = 0

    def recv_exact(n: int) -> bytes:
        nonlocal pos
        if pos + n > len(data):
            raise P.ConnectionClosed("short")
        chunk = data[pos:pos + n]
        pos += n
        return chunk
    return recv_exact


def test_encode_header_is_c_format_nul_padded():
    assert P.encode(b"OK") == b"t 2\0\0\0\0\0OK"
    assert P.encode("x" * 4088, more=True)[:8] == b"m 4088\0\0"


@pytest.mark.parametrize("size", [0, 4089, 10000])
def test_encode_refuses_empty_and_oversized(size):
    with pytest.raises(ValueError):
        P.encode(b"a" * size)


def test_roundtrip_more_and_done():
    data = P.encode(b"first", more=True) + P.encode(b"second")
    recv = _reader(data)
    assert P.read_transaction(recv) == (b"first", True)
    assert P.read_transaction(recv) == (b"second", False)


@pytest.mark.parametrize("header", [b"t 0\0\0\0\0\0", b"t -5\0\0\0\0", b"x 5\0\0\0\0\0",
                                    b"t 4089\0\0", b"t abc\0\0\0", b"\0\0\0\0\0\0\0\0",
                                    b"t 99999\0", b"t"])
def test_bogus_headers_are_protocol_errors(header):
    with pytest.raises(P.ProtocolError):
        P.parse_header(header)


def test_sscanf_like_header_parsing():
    assert P.parse_header(b"t  12\0\0\0") == (False, 12)
    assert P.parse_header(b"m 7xyz\0\0") == (True, 7)


def test_truncated_payload_is_connection_closed():
    with pytest.raises(P.ConnectionClosed):
        P.read_transaction(_reader(b"t 10\0\0\0\0short"))


def test_random_frames_never_raise_anything_else():
    rng = random.Random(13)
    for _ in range(3000):
        blob = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 40)))
        if rng.random() < 0.3:
            blob = rng.choice([b"t ", b"m ", b"t 4088"]) + blob
        recv = _reader(blob)
        try:
            payload, _ = P.read_transaction(recv)
        except P.ProtocolError:
            continue
        assert 0 < len(payload) <= P.CF_MSGSIZE


def test_version_lines():
    assert P.parse_version_line(b"CFE_v3 cf-serverd 3.21.5\n") == 3
    assert P.parse_version_line(b"CFE_v17 future\n") == 17
    assert P.parse_version_line(b"CFE_v0\n") == 0
    assert P.parse_version_line(b"garbage\n") == 0
    assert P.version_line(2, "cf-agent", "3.21.0") == b"CFE_v2 cf-agent 3.21.0\n"
    assert P.parse_version_policy("cookie") is P.Version.COOKIE
    assert P.parse_version_policy("latest") is P.Version.COOKIE
    assert P.parse_version_policy("classic") is P.Version.CLASSIC
    assert P.parse_version_policy("bogus") is P.Version.UNDEFINED


def test_identity_lines():
    assert P.identity_line("root") == b"IDENTITY USERNAME=root\n"
    assert P.parse_identity(b"IDENTITY USERNAME=bob OTHER=1\n") == {"USERNAME": "bob",
                                                                   "OTHER": "1"}
    with pytest.raises(P.ProtocolError):
        P.parse_identity(b"HELLO\n")
    assert P.welcome_line("bob") == b"OK WELCOME USERNAME=bob\n"


def test_stat_reply_roundtrip(tmp_path):
    f = tmp_path / "f"
    f.write_text("hello")
    os.symlink(str(f), tmp_path / "l")
    first, second = P.stat_reply(os.stat(f))
    st = P.parse_stat_reply(first.decode(), second)
    assert st.type is P.FileType.REGULAR and st.size == 5 and st.readlink is None
    assert st.st_mode == os.stat(f).st_mode
    first, second = P.stat_reply(os.stat(tmp_path / "l"), readlink=str(f))
    assert P.parse_stat_reply(first.decode(), second).readlink == str(f)


@pytest.mark.parametrize("reply", ["OK: 1 2 3", "OK: a b c d e f g h i j k l m",
                                   "OK: 9 0 0 0 0 0 0 0 0 0 0 0 0", "NOPE"])
def test_malformed_stat_replies(reply):
    with pytest.raises(P.ProtocolError):
        P.parse_stat_reply(reply, b"OK:")


def test_opendir_packing_roundtrip():
    names = [f"file-{i:04d}" for i in range(600)] + [".", ".."]
    frames = P.opendir_replies(names)
    assert len(frames) > 1
    got: list[str] = []
    recv = _reader(b"".join(frames))
    while True:
        payload, more = P.read_transaction(recv)
        chunk, done = P.parse_opendir_chunk(payload)
        got += chunk
        if done:
            assert not more
            break
        assert more
    assert got == names


def test_md5_request_roundtrip():
    req = P.md5("/a b/c", b"\x01" * 16)
    assert req.startswith(b"MD5 /a b/c\0\0")
    assert P.parse_md5_request(req) == ("/a b/c", b"\x01" * 16)
    with pytest.raises(P.ProtocolError):
        P.parse_md5_request(b"MD5 /x\0\0short")
