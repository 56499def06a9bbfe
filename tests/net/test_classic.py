"""Protocol version 1 ("classic"): the MPI/cipher helpers, and cf-lite's client
against the real cf-serverd 3.21 (allowlegacyconnects), plain and encrypted."""
from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

import tests.net.serverfix as sf
from cfpromise.net import classic as C
from cfpromise.net import client, keys, lastseen
from cfpromise.net import protocol as P


def test_mpi_round_trip_and_openssl_layout() -> None:
    assert C.mpi(0x80) == b"\0\0\0\x02\0\x80"          # top bit set: a leading zero byte
    assert C.mpi(0x7f) == b"\0\0\0\x01\x7f"
    n = C.nonce()
    assert len(n) == 37 and C.parse_mpi(n).bit_length() == 256
    for bad in (b"\0\0", b"\0\0\0\x05ab", b"\0\0\0\x01\xff"):
        with pytest.raises(C.ClassicError):
            C.parse_mpi(bad)


def test_session_cipher_is_blowfish_cbc_with_pkcs7() -> None:
    key = bytes(range(16))
    for plain in (b"", b"SYNCH 1 STAT /x\0", b"x" * 4000):
        cipher = C.encrypt(key, plain)
        assert len(cipher) % 8 == 0 and len(cipher) > len(plain)
        assert C.decrypt(key, cipher) == plain
    with pytest.raises(C.ClassicError):
        C.decrypt(key, b"1234567")
    with pytest.raises(C.ClassicError):
        C.decrypt(bytes(16), C.encrypt(key, b"hello"))


def test_secure_request_layout() -> None:
    key = os.urandom(16)
    req = C.secure_request(key, "SGET", b"GET dummykey /x\0", " 2048")
    assert C.open_secure_request(key, C.secure_request(key, "SMD5", b"MD5 /x"))[0] == "SMD5"
    head = req[:16].rstrip(b"\0").decode()
    word, length, bufsize = head.split()
    assert word == "SGET" and int(length) == len(req) - 16 and bufsize == "2048"
    assert C.open_secure_request(key, req) == ("SGET", b"GET dummykey /x\0", 2048)
    with pytest.raises(C.ClassicError):
        C.open_secure_request(key, req[:-1])


def test_sauth_parsing_refuses_bad_lengths() -> None:
    ok = C.parse_sauth(C.sauth_request(False, b"n" * 37, 37))
    assert not ok.encrypted and ok.body == b"n" * 37
    for bad in (b"SAUTH n 0 0 c", b"SAUTH n 9999 9999 c", b"SAUTH n 37 36 c".ljust(24, b"\0")
                + b"x" * 37, b"SAUTH n 37 37 c".ljust(24, b"\0") + b"short", b"HELLO"):
        with pytest.raises(C.ClassicError):
            C.parse_sauth(bad)


class LegacyServerd(sf.CfServerd):
    """cf-serverd 3.21 that admits (or not) classic clients from loopback."""

    def __init__(self, tmp: Path, admit: list[str], legacy: bool) -> None:
        saved = sf.SERVER_POLICY
        if legacy:
            sf.SERVER_POLICY = saved.replace(
                "trustkeysfrom", 'allowlegacyconnects => {{ "127.0.0.1", "::1" }};\n  trustkeysfrom')
        try:
            super().__init__(tmp, admit)
        finally:
            sf.SERVER_POLICY = saved


@pytest.fixture
def data(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    (d / "tree").mkdir(parents=True)
    (d / "a.bin").write_bytes(os.urandom(9000) + b"\0" * 5000)
    (d / "tree" / "one").write_text("1\n")
    (d / "secret").write_text("no\n")
    return d


def _serverd(tmp_path: Path, data: Path, legacy: bool = True) -> LegacyServerd:
    if sf.CF_SERVERD is None or sf.CF_KEY is None:
        pytest.skip("needs cf-serverd and cf-key 3.21")
    return LegacyServerd(tmp_path, [str(data / "a.bin"), str(data / "tree")], legacy)


def _opts(wd: Path, port: int, **kw: object) -> client.ConnectOptions:
    return client.ConnectOptions(workdir=str(wd), port=port, version=P.Version.CLASSIC,
                                 timeout=10, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("encrypt", [False, True])
def test_classic_requests_against_cf_serverd(tmp_path: Path, data: Path, encrypt: bool) -> None:
    srv = _serverd(tmp_path, data)
    try:
        wd = tmp_path / "work"
        keys.ensure_host_key(str(wd))
        for round_ in range(2):      # 2nd: server key known by address -> encrypted nonce
            with client.connect("127.0.0.1", _opts(wd, srv.port, trust=round_ == 0,
                                                   encrypt=encrypt)) as conn:
                assert conn.key_digest == keys.digest(keys.parse_public(
                    srv.public_key.read_bytes()))
                st = conn.stat(str(data / "a.bin"))
                assert st.size == 14000
                buf = io.BytesIO()
                conn.get(str(data / "a.bin"), st.size, buf.write)
                assert buf.getvalue() == (data / "a.bin").read_bytes()
                assert sorted(conn.opendir(str(data / "tree"))) == [".", "..", "one"]
                assert not conn.md5_differs(str(data / "a.bin"), str(data / "a.bin"))
                assert conn.md5_differs(str(data / "a.bin"), str(data / "secret"))
                with pytest.raises(client.AccessDenied):
                    conn.stat(str(data / "secret"))
                lastseen.record(str(wd), conn.address, conn.key_digest, incoming=False)
    finally:
        srv.stop()


def test_classic_untrusted_server_key_refused(tmp_path: Path, data: Path) -> None:
    srv = _serverd(tmp_path, data)
    try:
        wd = tmp_path / "work"
        keys.ensure_host_key(str(wd))
        with pytest.raises(client.TrustError, match="trustkey"):
            client.connect("127.0.0.1", _opts(wd, srv.port, trust=False))
        assert not list((wd / "ppkeys").glob("root-*.pub"))
    finally:
        srv.stop()


def test_classic_refused_without_allowlegacyconnects(tmp_path: Path, data: Path) -> None:
    srv = _serverd(tmp_path, data, legacy=False)
    try:
        wd = tmp_path / "work"
        keys.ensure_host_key(str(wd))
        with pytest.raises(client.NetError):
            client.connect("127.0.0.1", _opts(wd, srv.port, trust=True))
    finally:
        srv.stop()


AGENT_POLICY = """
body common control {{ bundlesequence => {{ "main" }}; }}
body copy_from classic(path)
{{
  source => "$(path)";
  servers => {{ "127.0.0.1" }};
  portnumber => "{port}";
  protocol_version => "classic";
  compare => "digest";
  encrypt => "true";
  trustkey => "true";
}}
bundle agent main
{{
  files:
    "{dst}/a.bin" copy_from => classic("{data}/a.bin");
}}
"""


def test_agent_classic_encrypted_copy_and_second_run_kept(tmp_path: Path, data: Path) -> None:
    from tests.files.agentrun import run_agent
    srv = _serverd(tmp_path, data)
    try:
        keys.ensure_host_key(str(tmp_path / "work"))
        dst = tmp_path / "dst"
        policy = AGENT_POLICY.format(port=srv.port, dst=dst, data=data)
        code, out = run_agent(tmp_path, policy)
        assert (dst / "a.bin").read_bytes() == (data / "a.bin").read_bytes(), out
        code, out = run_agent(tmp_path, policy)
        assert code == 0 and "Updated" not in out and "Copied" not in out, out
    finally:
        srv.stop()
