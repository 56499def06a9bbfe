"""The client never raises anything but NetError, whatever the server sends."""
from __future__ import annotations

import random
import socket

import pytest

from cfpromise.net import protocol as P
from cfpromise.net.client import Connection, NetError


def _conn(reply: bytes) -> Connection:
    ours, theirs = socket.socketpair()
    theirs.sendall(reply)
    theirs.shutdown(socket.SHUT_WR)       # then EOF: a truncated reply ends, never hangs
    ours.settimeout(2)
    conn = Connection(ours, "fuzz", "127.0.0.1", P.LATEST, "MD5=" + "0" * 32)  # type: ignore[arg-type]
    conn._peer = theirs                   # keep the other end open while we read
    return conn


def _random_reply(rng: random.Random) -> bytes:
    choice = rng.random()
    if choice < 0.3:
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 64)))
    if choice < 0.6:
        text = rng.choice(["OK: ", "BAD: ", "OK:", P.CFD_TERMINATOR, "CFD_TRUE", ""])
        text += " ".join(str(rng.randint(-5, 1 << 40)) for _ in range(rng.randint(0, 15)))
        payload = text.encode() or b"x"
        return P.encode(payload[:P.CF_MSGSIZE], more=rng.random() < 0.3) * rng.randint(1, 3)
    header = f"{rng.choice('tmx')} {rng.randint(-10, 5000)}".encode().ljust(8, b"\0")
    return header + bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 100)))


@pytest.mark.parametrize("request_name", ["stat", "opendir", "get", "md5", "var", "context"])
def test_random_server_replies(request_name, tmp_path):
    rng = random.Random(request_name)
    local = tmp_path / "local"
    local.write_bytes(b"abc")
    for _ in range(150):
        conn = _conn(_random_reply(rng))
        try:
            if request_name == "stat":
                conn.stat("/x")
            elif request_name == "opendir":
                conn.opendir("/x")
            elif request_name == "get":
                conn.get("/x", rng.randint(1, 5000), lambda data: None)
            elif request_name == "md5":
                conn.md5_differs("/x", str(local))
            elif request_name == "var":
                conn.var("x")
            else:
                conn.context("x")
        except NetError:
            pass
        finally:
            conn.close()
