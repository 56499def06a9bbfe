"""cf-lite-serverd's protocol version 1 ("classic"): served only to addresses in
allowlegacyconnects, authenticated, same access rules as TLS, encrypted S*
requests; hostile handshakes never take the server down; cf-agent 3.21 copies
from it with protocol_version => "classic"."""
from __future__ import annotations

import io
import os
import random
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from cfpromise.net import classic as C
from cfpromise.net import client, keys, lastseen
from cfpromise.net import protocol as P
from tests.server.helpers import Server, free_port, make_workdir, write_policy

POLICY = """
body server control
{{
  allowconnects => {{ "127.0.0.1", "::1" }};
  allowallconnects => {{ "127.0.0.1", "::1" }};
  trustkeysfrom => {{ "127.0.0.1", "::1" }};
  {legacy}
}}
bundle server access
{{
  access:
    "{data}/pub" admit_ips => {{ "127.0.0.1", "::1" }};
    "{data}/enc" admit_ips => {{ "127.0.0.1", "::1" }}, ifencrypted => "true";
}}
"""

_servers: list[Server] = []


@pytest.fixture(autouse=True)
def _stop_servers():
    yield
    while _servers:
        _servers.pop().stop()


def start(tmp: Path, legacy: bool = True) -> tuple[Server, Path]:
    data = tmp / "data"
    (data / "pub" / "tree").mkdir(parents=True)
    (data / "enc").mkdir()
    (data / "pub" / "file.bin").write_bytes(os.urandom(20000) + b"\0" * 9000)
    (data / "pub" / "tree" / "one").write_text("1\n")
    (data / "pub" / "empty").write_bytes(b"")
    (data / "enc" / "s").write_text("secret\n" * 20)
    (data / "other").write_text("not admitted\n")
    wd = tmp / "srv"
    make_workdir(str(wd))
    legacy_line = 'allowlegacyconnects => { "127.0.0.1", "::1" };' if legacy else ""
    policy = write_policy(str(tmp / "server.cf"), POLICY.format(data=data, legacy=legacy_line))
    server = Server(str(wd), policy, free_port())
    _servers.append(server)
    return server, data


def _opts(tmp: Path, port: int, **kw: object) -> client.ConnectOptions:
    wd = tmp / "cli"
    if not (wd / "ppkeys" / "localhost.priv").exists():
        keys.ensure_host_key(str(wd))
    return client.ConnectOptions(workdir=str(wd), port=port, version=P.Version.CLASSIC,
                                 timeout=10, trust=True, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("encrypt", [False, True])
def test_lite_client_against_lite_server(tmp_path: Path, encrypt: bool) -> None:
    server, data = start(tmp_path)
    for round_ in range(2):          # 2nd round: the server's key is known -> encrypted nonce
        with client.connect("127.0.0.1", _opts(tmp_path, server.port, encrypt=encrypt)) as c:
            f = str(data / "pub" / "file.bin")
            st = c.stat(f)
            assert st.size == 29000
            buf = io.BytesIO()
            c.get(f, st.size, buf.write)
            assert buf.getvalue() == (data / "pub" / "file.bin").read_bytes()
            assert sorted(c.opendir(str(data / "pub" / "tree"))) == [".", "..", "one"]
            assert not c.md5_differs(f, f)
            assert c.md5_differs(f, str(data / "other"))
            with pytest.raises(client.AccessDenied):
                c.stat(str(data / "other"))
            with pytest.raises(client.AccessDenied):
                c.get(str(data / "other"), 13, lambda b: None)
            lastseen.record(str(tmp_path / "cli"), c.address, c.key_digest, incoming=False)
    assert "Authentication of client 127.0.0.1 achieved" in server.text()


def test_ifencrypted_path_needs_encrypted_requests(tmp_path: Path) -> None:
    server, data = start(tmp_path)
    s = str(data / "enc" / "s")
    with client.connect("127.0.0.1", _opts(tmp_path, server.port)) as c:
        with pytest.raises(client.AccessDenied):
            c.get(s, 140, lambda b: None)
    with client.connect("127.0.0.1", _opts(tmp_path, server.port, encrypt=True)) as c:
        buf = io.BytesIO()
        c.get(s, c.stat(s).size, buf.write)
        assert buf.getvalue() == b"secret\n" * 20


def test_classic_refused_without_allowlegacyconnects(tmp_path: Path) -> None:
    server, _ = start(tmp_path, legacy=False)
    with pytest.raises(client.NetError):
        client.connect("127.0.0.1", _opts(tmp_path, server.port))
    assert "Connection is not using latest protocol, denying" in server.text()


def test_unknown_client_key_refused_without_trustkeysfrom(tmp_path: Path) -> None:
    server, data = start(tmp_path)
    policy = Path(server.proc.args[-3])
    policy.write_text(policy.read_text().replace('trustkeysfrom => { "127.0.0.1", "::1" };', ""))
    server.stop()
    _servers.remove(server)
    server = Server(str(tmp_path / "srv"), str(policy), free_port())
    _servers.append(server)
    with pytest.raises(client.TrustError, match="BAD: key could not be accepted"):
        client.connect("127.0.0.1", _opts(tmp_path, server.port))


def _frame(data: bytes) -> bytes:
    return P.encode(data) if 0 < len(data) <= P.CF_MSGSIZE else b"t 5\0\0\0\0\0hello"


def test_hostile_classic_handshakes_never_crash_the_server(tmp_path: Path) -> None:
    server, data = start(tmp_path)
    rng = random.Random(1)
    key = keys.generate()
    n_mpi, e_mpi = C.key_mpis(key.public_key())
    scripts = [
        [b"CAUTH"], [b"CAUTH 1 2 ../../etc 0", b"SAUTH n 37 37 c"], [b"SAUTH n 37 37 c"],
        [b"CAUTH 127.0.0.1 h root 0", b"SAUTH n 99999 37 c"],
        [b"CAUTH 127.0.0.1 h root 0", b"SAUTH y 256 37 c".ljust(24, b"\0") + os.urandom(256)],
        [b"CAUTH 127.0.0.1 h root 0", C.sauth_request(False, C.nonce(), 37), b"\0\0\0\x09xx",
         e_mpi],
        [b"CAUTH 127.0.0.1 h root 0", C.sauth_request(False, C.nonce(), 37), n_mpi, e_mpi,
         os.urandom(16), os.urandom(256)],
        [b"SSYNCH 40", b"SGET 9 9" + b"\0" * 8 + os.urandom(9), b"GET 2048 /etc/shadow"],
    ]
    for _ in range(40):
        scripts.append([b"CAUTH 127.0.0.1 h root 0"] + [rng.randbytes(rng.randint(1, 300))
                                                        for _ in range(rng.randint(1, 5))])
    for script in scripts:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
            try:
                for msg in script:
                    s.sendall(_frame(msg))
                s.shutdown(socket.SHUT_WR)
                while s.recv(4096):
                    pass
            except OSError:
                pass
    assert server.proc.poll() is None
    assert "Traceback" not in server.text()
    # and it still serves
    with client.connect("127.0.0.1", _opts(tmp_path, server.port)) as c:
        assert c.stat(str(data / "pub" / "file.bin")).size == 29000


AGENT_POLICY = """
body common control {{ bundlesequence => {{ "main" }}; }}
body copy_from classic(path, enc)
{{
  source => "$(path)";
  servers => {{ "127.0.0.1" }};
  portnumber => "{port}";
  protocol_version => "classic";
  compare => "digest";
  encrypt => "$(enc)";
  trustkey => "true";
}}
bundle agent main
{{
  files:
    "{dest}/plain" copy_from => classic("{data}/pub/file.bin", "false");
    "{dest}/enc" copy_from => classic("{data}/enc/s", "true");
    "{dest}/tree/." copy_from => classic("{data}/pub/tree", "true"),
      depth_search => recurse, create => "true";
}}
body depth_search recurse {{ depth => "inf"; }}
"""


def test_cf_agent_321_copies_from_lite_server_over_classic(tmp_path: Path) -> None:
    agent = shutil.which("cf-agent")
    if agent is None or shutil.which("cf-key") is None:
        pytest.skip("needs cf-agent and cf-key 3.21")
    server, data = start(tmp_path)
    wd = tmp_path / "agent-wd"
    (wd / "bin").mkdir(parents=True)
    os.symlink(shutil.which("cf-promises") or "/usr/bin/cf-promises", wd / "bin" / "cf-promises")
    env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(wd))
    subprocess.run(["cf-key"], env=env, check=True, capture_output=True)
    dest = tmp_path / "dest"
    dest.mkdir()
    policy = write_policy(str(tmp_path / "agent.cf"),
                          AGENT_POLICY.format(port=server.port, dest=dest, data=data))
    out = subprocess.run([agent, "-Kf", policy], env=env, capture_output=True, text=True,
                         timeout=120)
    assert (dest / "plain").read_bytes() == (data / "pub" / "file.bin").read_bytes(), \
        out.stdout + out.stderr + server.text()
    assert (dest / "enc").read_text() == "secret\n" * 20
    assert (dest / "tree" / "one").read_text() == "1\n"
