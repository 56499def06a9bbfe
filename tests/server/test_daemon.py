"""cf-lite-serverd as a process: TLS, key trust, timeouts, fuzzing, reload, SIGTERM."""
from __future__ import annotations

import os
import random
import socket
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cfpromise.net import keys
from cfpromise.net import protocol as P
from tests.server.helpers import Client, Server, free_port, make_workdir, write_policy

POLICY = """
body common control {{ bundlesequence => {{ "x" }}; }}
body server control {{ allowconnects => {{ "127.0.0.1", "::1" }}; allowallconnects => {{ "127.0.0.1" }};
  trustkeysfrom => {{ {trust} }}; maxconnections => "{maxconn}"; }}
bundle server x {{
 access:
  "{pub}/" admit_ips => {{ "127.0.0.1" }};
}}
"""


_STARTED: list[Server] = []


@pytest.fixture(autouse=True)
def _stop_servers():
    yield
    while _STARTED:
        _STARTED.pop().stop()


def start(tmp: Path, trust: str = '"127.0.0.1"', maxconn: int = 50,
          env: dict[str, str] | None = None, extra: str = "") -> tuple[Server, keys.HostKey, Path]:
    wd = tmp / "wd"
    make_workdir(str(wd))
    pub = tmp / "pub"
    pub.mkdir()
    (pub / "f").write_bytes(b"hello")
    os.chmod(tmp, 0o755)
    text = POLICY.format(pub=pub, trust=trust, maxconn=maxconn)
    policy = write_policy(str(tmp / "s.cf"), text.replace("maxconnections", extra + " maxconnections"))
    client_key = keys.HostKey(keys.generate())
    server = Server(str(wd), policy, free_port(), env)
    _STARTED.append(server)
    return server, client_key, pub


def test_trusted_by_trustkeysfrom_then_served(tmp_path: Path) -> None:
    server, key, pub = start(tmp_path)
    try:
        c = Client(server.port, key)
        assert c.hello.startswith(b"CFE_v3 cf-serverd ")
        assert c.welcome.startswith(b"OK WELCOME")
        reply = c.request(P.synch_stat(f"{pub}/f", int(time.time())))
        assert reply.startswith("OK: 0 ")
        c.close()
        stored = tmp_path / "wd" / "ppkeys" / f"root-{key.digest()}.pub"
        assert stored.exists()
    finally:
        server.stop()


def test_unknown_key_refused_without_trustkeysfrom(tmp_path: Path) -> None:
    server, key, pub = start(tmp_path, trust="")
    try:
        with pytest.raises((OSError, ssl.SSLError, P.ProtocolError)):
            c = Client(server.port, key)
            if not c.welcome:
                raise P.ConnectionClosed("dropped")
            c.request("VERSION")
        assert "TRUST FAILED" in server.text()
        # once the key is trusted on disk, the same client is served
        keys.trust_key(str(tmp_path / "wd"), key.public)
        c = Client(server.port, key)
        assert c.request("VERSION").startswith("OK: ")
        c.close()
    finally:
        server.stop()


def test_silent_client_dropped_after_timeout(tmp_path: Path) -> None:
    server, key, pub = start(tmp_path, env={"CF_LITE_SERVERD_IDLE_TIMEOUT": "1"})
    try:
        s = socket.create_connection(("127.0.0.1", server.port))
        s.settimeout(10)
        started = time.time()
        assert s.recv(10) == b""                # the server hangs up on us
        assert time.time() - started < 8
        s.close()
        c = Client(server.port, key)            # and still serves others
        assert c.request("VERSION").startswith("OK:")
        c.close()
    finally:
        server.stop()


def _garbage(rng: random.Random) -> bytes:
    kind = rng.randrange(6)
    if kind == 0:
        return rng.randbytes(rng.randrange(1, 200))
    if kind == 1:                                              # oversized header
        return b"t 99999\0" + rng.randbytes(100)
    if kind == 2:                                              # truncated payload
        return b"t 500\0\0\0" + rng.randbytes(rng.randrange(0, 400))
    if kind == 3:                                              # bad status byte
        return b"x 10\0\0\0\0" + b"0123456789"
    if kind == 4:                                              # negative / zero length
        return rng.choice([b"t -5\0\0\0\0", b"t 0\0\0\0\0\0"])
    return P.encode(rng.choice([b"GET 2048 ", b"SYNCH 1 STAT ", b"OPENDIR ", b"MD5 ",
                                b"EXEC ", b"VAR ", b"CONTEXT "]) + rng.randbytes(rng.randrange(1, 300)))


def test_fuzzed_frames_never_crash_the_server(tmp_path: Path) -> None:
    server, key, pub = start(tmp_path, env={"CF_LITE_SERVERD_IDLE_TIMEOUT": "2"})
    rng = random.Random(1234)
    stop = threading.Event()
    served: list[bool] = []

    def steady() -> None:
        c = Client(server.port, key)
        while not stop.is_set():
            served.append(c.request(P.synch_stat(f"{pub}/f", int(time.time()))).startswith("OK:"))
            c.receive()                              # the link transaction
        c.close()
    worker = threading.Thread(target=steady)
    worker.start()
    try:
        # plain TCP garbage before TLS (classic peek, bad ClientHello)
        for _ in range(300):
            try:
                s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
                s.sendall(_garbage(rng))
                s.shutdown(socket.SHUT_WR)
                s.recv(100)
                s.close()
            except OSError:
                pass
        # garbage after a good handshake: 2000 frames over a few connections
        sent = 0
        while sent < 2000:
            c = Client(server.port, key)
            try:
                for _ in range(50):
                    c.sock.sendall(_garbage(rng))
                    sent += 1
                c.sock.settimeout(3)
                while c.sock.recv(4096):
                    pass
            except (OSError, ssl.SSLError):
                pass
            finally:
                c.close()
    finally:
        stop.set()
        worker.join(timeout=20)
    assert server.proc.poll() is None, server.text()
    assert served and all(served)
    log = server.text()
    assert "Traceback" not in log
    c = Client(server.port, key)
    assert c.request("VERSION").startswith("OK:")
    c.close()
    assert server.stop() == 0


def test_policy_reload_and_clean_stop(tmp_path: Path) -> None:
    server, key, pub = start(tmp_path)
    try:
        (tmp_path / "other").mkdir()
        (tmp_path / "other" / "g").write_text("g")
        c = Client(server.port, key)
        assert c.request(f"OPENDIR {tmp_path}/other") == P.CF_FAILEDSTR
        c.close()
        text = (tmp_path / "s.cf").read_text().replace(
            f'"{pub}/" admit_ips', f'"{tmp_path}/other/" admit_ips => {{ "127.0.0.1" }}; "{pub}/" admit_ips')
        time.sleep(1.1)
        write_policy(str(tmp_path / "s.cf"), text)
        deadline = time.time() + 10
        while time.time() < deadline:
            c = Client(server.port, key)
            reply = c.request(f"OPENDIR {tmp_path}/other")
            c.close()
            if reply != P.CF_FAILEDSTR:
                break
            time.sleep(0.2)
        assert "g" in reply or reply.startswith(".")
    finally:
        assert server.stop() == 0
    assert not (tmp_path / "wd" / "cf-serverd.pid").exists()


def test_maxconnections(tmp_path: Path) -> None:
    server, key, pub = start(tmp_path, maxconn=2)
    try:
        held = [Client(server.port, key), Client(server.port, key)]
        with pytest.raises((OSError, ssl.SSLError, P.ProtocolError)):
            c = Client(server.port, key)
            c.request("VERSION")
        for c in held:
            c.close()
        time.sleep(0.3)
        c = Client(server.port, key)
        assert c.request("VERSION").startswith("OK:")
        c.close()
    finally:
        server.stop()


def test_tls_1_3_only_server(tmp_path: Path) -> None:
    server, key, pub = start(tmp_path, extra='allowciphers => "TLS_AES_256_GCM_SHA384"; '
                                             'allowtlsversion => "1.3";')
    try:
        c = Client(server.port, key)
        assert c.sock.version() == "TLSv1.3" and c.request("VERSION").startswith("OK:")
        c.close()
    finally:
        server.stop()


def test_ciphers_without_tls13_suites_disable_tls13(tmp_path: Path) -> None:
    server, key, pub = start(tmp_path, extra='allowciphers => "AES256-GCM-SHA384";')
    try:
        c = Client(server.port, key)
        assert c.sock.version() == "TLSv1.2" and c.sock.cipher()[0] == "AES256-GCM-SHA384"
        c.close()
        with pytest.raises((OSError, ssl.SSLError)):
            Client(server.port, key, min_tls="1.3")
    finally:
        server.stop()


def _hold(port: int) -> socket.socket:
    """Bind (not listen) the port on every address, as a dying predecessor still holds it."""
    holder = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    holder.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    holder.bind(("::", port))
    return holder


def _prepared(tmp: Path) -> tuple[str, str]:
    wd = tmp / "wd"
    make_workdir(str(wd))
    pub = tmp / "pub"
    pub.mkdir()
    os.chmod(tmp, 0o755)
    policy = write_policy(str(tmp / "s.cf"), POLICY.format(pub=pub, trust='"127.0.0.1"',
                                                           maxconn=5))
    return str(wd), policy


def test_a_port_still_held_at_start_is_tried_again(tmp_path: Path) -> None:
    workdir, policy = _prepared(tmp_path)
    port = free_port()
    holder = _hold(port)
    threading.Timer(1.2, holder.close).start()
    server = Server(workdir, policy, port)
    _STARTED.append(server)
    assert server.proc.poll() is None
    socket.create_connection(("127.0.0.1", port), timeout=5).close()
    log = Path(server.log_path).read_text()
    assert f"Port {port} is in use" in log and "trying again" in log


def test_a_port_held_throughout_fails_the_start(tmp_path: Path) -> None:
    workdir, policy = _prepared(tmp_path)
    port = free_port()
    with _hold(port):
        done = subprocess.run([sys.executable, "-m", "cfpromise.cli.serverd", "-F", "-f", policy,
                               "--port", str(port)], capture_output=True, text=True, timeout=120,
                              env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=workdir))
    assert done.returncode == 1
    assert f"Could not bind to port {port}: Address already in use" in done.stdout + done.stderr
