"""Names that are not UTF-8, and paths that go on after a file (``file.txt/``): answered
as cf-serverd 3.21 answers them, with the connection kept open (issue #27).

The unit tests run the handlers on a fake wire; the differential test sends the same
requests to cf-serverd 3.21 and to cf-lite-serverd on loopback and compares the replies."""
from __future__ import annotations

import os
import re
import socket
import ssl
import time
from pathlib import Path

import pytest

from cfpromise.net import keys
from cfpromise.net import protocol as P
from cfpromise.server.policy import load_server_policy
from cfpromise.server.requests import Peer, Request, dispatch
from tests.server.helpers import Client, Server, free_port, make_workdir, write_policy

POLICY = """
body common control {{ bundlesequence => {{ "x" }}; }}
body server control {{ allowconnects => {{ "127.0.0.1" }}; allowallconnects => {{ "127.0.0.1" }};
  trustkeysfrom => {{ "127.0.0.1" }}; }}
bundle server x {{ access: "{pub}/" admit_ips => {{ "127.0.0.1" }}; }}
"""


def make_tree(root: Path) -> Path:
    os.chmod(root, 0o755)
    pub = root / "pub"
    pub.mkdir()
    raw = os.fsencode(str(pub))
    (pub / "file.txt").write_text("hello")
    with open(raw + b"/n\xffx", "w") as f:
        f.write("nonutf")
    os.mkdir(raw + b"/dir\xfe")
    with open(raw + b"/dir\xfe/in\xfa", "w") as f:
        f.write("x")
    os.symlink(b"/tmp/\xfftarget", raw + b"/lnk\xff")
    return pub


def requests(pub: Path) -> list[bytes]:
    d = os.fsencode(str(pub))
    now = str(int(time.time())).encode()
    stat = b"SYNCH " + now + b" STAT " + d
    md5 = b"\0" * P.CF_SMALL_OFFSET + b"0123456789abcdef"
    return [
        b"OPENDIR " + d + b"/n\xffx", b"OPENDIR " + d + b"/dir\xfe", b"OPENDIR " + d + b"/dir\xfe/",
        b"OPENDIR " + d + b"/missing\xff", b"OPENDIR " + d + b"/file.txt",
        b"OPENDIR " + d + b"/file.txt/", b"OPENDIR " + d + b"/dir\xfe/in\xfa",
        b"OPENDIR " + d + b"/dir\xfe/in\xfa/", b"OPENDIR " + d + b"/n\xffx/",
        stat + b"/n\xffx", stat + b"/missing\xff", stat + b"/dir\xfe", stat + b"/dir\xfe/",
        stat + b"/lnk\xff", stat + b"/file.txt/", stat + b"/file.txt/.", stat + b"/file.txt/..",
        stat + b"/n\xffx/", stat + b"/lnk\xff/",
        b"GET 4096 " + d + b"/n\xffx", b"GET 4096 " + d + b"/missing\xff",
        b"GET 4096 " + d + b"/file.txt/", b"GET 4096 " + d + b"/n\xffx/",
        b"MD5 " + d + b"/n\xffx" + md5, b"MD5 " + d + b"/file.txt/" + md5,
        b"MD5 " + d + b"/missing\xff" + md5, b"MD5 " + d + b"/n\xffx/" + md5,
    ]


# ------------------------------------------------------------------------------ unit

class Wire:
    def __init__(self) -> None:
        self.data = bytearray()

    def send(self, data: bytes) -> None:
        self.data += data

    def receive(self) -> bytes:
        raise P.ConnectionClosed("no more")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("names")
    pub = make_tree(root)
    access = load_server_policy(write_policy(str(root / "s.cf"), POLICY.format(pub=pub)),
                                str(root / "wd"))
    return pub, access


def run(access, payload: bytes) -> tuple[bool, bytes]:
    wire = Wire()
    req = Request(access, Peer(ip="127.0.0.1", key="MD5=00", username="root"), wire.send,
                  wire.receive, lambda level, msg: None)
    return dispatch(req, payload), bytes(wire.data)


def test_opendir_of_a_non_utf8_file_is_answered(tree) -> None:
    pub, access = tree
    keep, out = run(access, b"OPENDIR " + os.fsencode(str(pub)) + b"/n\xffx")
    assert keep
    assert out == P.encode(b"BAD: cfengine, couldn't open dir " + os.fsencode(str(pub))
                           + b"/n\xffx/")


def test_non_utf8_names_in_stat_and_listing_go_back_as_sent(tree) -> None:
    pub, access = tree
    d = os.fsencode(str(pub))
    keep, out = run(access, b"SYNCH %d STAT " % time.time() + d + b"/lnk\xff")
    assert keep and out.endswith(P.encode(b"OK:/tmp/\xfftarget"))
    keep, out = run(access, b"OPENDIR " + d + b"/dir\xfe")
    assert keep and b"\0in\xfa\0" in out
    keep, out = run(access, b"GET 4096 " + d + b"/n\xffx")
    assert keep and out == b"nonutf"


@pytest.mark.parametrize("tail", [b"/file.txt/", b"/file.txt/.", b"/file.txt/..",
                                  b"/n\xffx/", b"/lnk\xff/"])
@pytest.mark.parametrize("verb", ["OPENDIR", "STAT", "GET", "MD5"])
def test_a_path_going_on_after_a_file_is_refused(tree, verb: str, tail: bytes) -> None:
    pub, access = tree
    path = os.fsencode(str(pub)) + tail
    payload = {"OPENDIR": b"OPENDIR " + path, "STAT": b"SYNCH %d STAT " % time.time() + path,
               "GET": b"GET 4096 " + path,
               "MD5": b"MD5 " + path + b"\0" * P.CF_SMALL_OFFSET + b"0" * 16}[verb]
    keep, out = run(access, payload)
    assert keep and out == P.encode(P.CF_FAILEDSTR), out[:200]


def test_a_reply_naming_a_long_path_is_cut_not_fatal(tree) -> None:
    pub, access = tree
    path = pub
    while len(str(path)) < 4060 - 201:      # ~4,060 bytes of path, a file at its end
        path = path / ("e" * 200)
    path = path / ("d" * (4060 - len(str(path)) - 1))
    os.makedirs(path, exist_ok=True)
    (path / "f").write_text("x")
    keep, out = run(access, f"OPENDIR {path}/f".encode())
    assert keep and out.startswith(b"t 4088\0") and len(out) == P.CF_INBAND_OFFSET + 4088


# ------------------------------------------------------------------------------ differential

def _exchange(port: int, key: keys.HostKey, payload: bytes) -> tuple[bytes, str]:
    """The reply bytes (up to a second of silence) and whether the connection stayed open."""
    c = Client(port, key)
    c.sock.sendall(P.encode(payload))
    c.sock.settimeout(1.0)
    data, state = b"", "open"
    try:
        while True:
            chunk = c.sock.recv(65536)
            if not chunk:
                state = "closed"
                break
            data += chunk
    except (socket.timeout, TimeoutError):
        pass
    except (OSError, ssl.SSLError):
        state = "closed"
    if state == "open":
        try:
            c.sock.sendall(P.encode("VERSION"))
            c.sock.settimeout(5)
            state = "open" if c.sock.recv(100) else "closed"
        except (OSError, ssl.SSLError):
            state = "closed"
    c.close()
    return data, state


_TIMES = re.compile(rb"^(t \d+\0+OK: \d+ \d+ \d+ \d+ \d+ \d+) \d+ \d+ \d+")


@pytest.mark.reference
def test_same_answers_as_cf_serverd_3_21(tmp_path: Path) -> None:
    from tests.net.serverfix import CF_SERVERD, CfServerd
    if not CF_SERVERD:
        pytest.skip("needs cf-serverd 3.21")
    pub = make_tree(tmp_path)
    reference = CfServerd(tmp_path, [str(pub) + "/"])
    wd = tmp_path / "litewd"
    make_workdir(str(wd))
    lite = Server(str(wd), write_policy(str(tmp_path / "s.cf"), POLICY.format(pub=pub)),
                  free_port())
    key = keys.HostKey(keys.generate())
    try:
        diffs = []
        for payload in requests(pub):
            want = _exchange(reference.port, key, payload)
            got = _exchange(lite.port, key, payload)
            # the times in a stat reply may differ (atime moves as the files are read)
            want, got = ((_TIMES.sub(rb"\1 T T T", r[0]), r[1]) for r in (want, got))
            if want != got:
                diffs.append((payload, want, got))
        assert not diffs, diffs
    finally:
        reference.stop()
        lite.stop()
    assert "Traceback" not in lite.text()
