"""cf-lite-agent and cf-lite-net against the real cf-serverd 3.21 on loopback, and
the agent against a server that answers nonsense."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cfpromise.net import keys
from cfpromise.net import protocol as P
from tests.files.agentrun import run_agent
from tests.net.serverfix import CF_KEY, CF_SERVERD, CfServerd, FakeServer

needs_serverd = pytest.mark.skipif(CF_SERVERD is None or CF_KEY is None,
                                   reason="needs cf-serverd and cf-key 3.21")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    (d / "tree" / "sub").mkdir(parents=True)
    (d / "a.txt").write_text("hello from the server\n")
    (d / "big.bin").write_bytes(os.urandom(300_000) + b"\0" * 100_000)
    (d / "secret.txt").write_text("not for you\n")
    (d / "tree" / "one").write_text("1\n")
    (d / "tree" / "sub" / "two").write_text("2\n")
    return d


@pytest.fixture
def server(tmp_path: Path, data: Path):
    if CF_SERVERD is None or CF_KEY is None:
        pytest.skip("needs cf-serverd and cf-key 3.21")
    srv = CfServerd(tmp_path, [str(data / "a.txt"), str(data / "big.bin"), str(data / "tree")])
    yield srv
    srv.stop()


def _client_workdir(tmp_path: Path) -> Path:
    wd = tmp_path / "work"
    keys.ensure_host_key(str(wd))
    return wd


POLICY = """
body common control {{ bundlesequence => {{ "main" }}; }}
body copy_from net(path)
{{
  source => "$(path)";
  servers => {{ {servers} }};
  portnumber => "{port}";
  compare => "digest";
  encrypt => "true";
  verify => "true";
  trustkey => "{trust}";
  {extra}
}}
body depth_search all {{ depth => "inf"; }}
bundle agent main
{{
  files:
{promises}
}}
"""


def _policy(port: int, promises: str, servers: str = '"127.0.0.1"', trust: str = "true",
            extra: str = "") -> str:
    return POLICY.format(port=port, promises=promises, servers=servers, trust=trust,
                         extra=extra)


@needs_serverd
def test_copy_from_cf_serverd_encrypted_digest_and_second_run_kept(tmp_path, data, server):
    _client_workdir(tmp_path)
    dst = tmp_path / "dst"
    policy = _policy(server.port, f'''
    "{dst}/a.txt" copy_from => net("{data}/a.txt");
    "{dst}/big.bin" copy_from => net("{data}/big.bin");
''')
    code, out = run_agent(tmp_path, policy)
    assert code == 0, out
    assert (dst / "a.txt").read_bytes() == (data / "a.txt").read_bytes()
    assert (dst / "big.bin").read_bytes() == (data / "big.bin").read_bytes()
    assert "Updated file" in out and "from '127.0.0.1:" in out
    # the server's key was trusted (trustkey) and stored where cf-agent keeps it
    digest = keys.digest(keys.parse_public(server.public_key.read_bytes()))
    assert (tmp_path / "work" / "ppkeys" / f"root-{digest}.pub").exists()
    code, out = run_agent(tmp_path, policy)
    assert code == 0 and "Updated" not in out and "Copied" not in out, out
    # a local change is repaired by digest comparison
    (dst / "a.txt").write_text("tampered\n")
    os.utime(dst / "a.txt", (1, 1))
    code, out = run_agent(tmp_path, policy)
    assert (dst / "a.txt").read_bytes() == (data / "a.txt").read_bytes(), out


@needs_serverd
def test_denied_path_is_refused_not_kept(tmp_path, data, server):
    _client_workdir(tmp_path)
    dst = tmp_path / "dst"
    policy = _policy(server.port, f'''
    "{dst}/secret.txt" copy_from => net("{data}/secret.txt"),
        classes => outcome("copy");
''') + """
body classes outcome(p) { promise_kept => { "$(p)_kept" }; repair_failed => { "$(p)_failed" }; }
bundle agent report
{
  reports:
    copy_failed::
      "FAILED";
    copy_kept::
      "KEPT";
}
""".replace("bundle agent report", "bundle agent report2")
    policy = policy.replace('bundlesequence => { "main" }', 'bundlesequence => { "main", "report2" }')
    code, out = run_agent(tmp_path, policy)
    assert not (dst / "secret.txt").exists()
    assert "Can't stat file" in out and "on '127.0.0.1'" in out
    assert "R: FAILED" in out and "R: KEPT" not in out


@needs_serverd
def test_recursive_copy_purge_and_failover(tmp_path, data, server):
    _client_workdir(tmp_path)
    dst = tmp_path / "dst"
    (dst / "tree").mkdir(parents=True)
    (dst / "tree" / "stale").write_text("x")
    policy = _policy(server.port, f'''
    "{dst}/tree" copy_from => net("{data}/tree"), depth_search => all;
''', servers='"nonexistent.invalid", "127.0.0.1"', extra='purge => "true";')
    code, out = run_agent(tmp_path, policy)
    assert code == 0, out
    assert (dst / "tree" / "sub" / "two").read_text() == "2\n"
    assert (dst / "tree" / "one").read_text() == "1\n"
    assert not (dst / "tree" / "stale").exists()
    assert "Unable to establish connection to 'nonexistent.invalid'" in out


@needs_serverd
def test_untrusted_server_key_is_refused_without_trustkey(tmp_path, data, server):
    _client_workdir(tmp_path)
    dst = tmp_path / "dst"
    policy = _policy(server.port, f'    "{dst}/a.txt" copy_from => net("{data}/a.txt");',
                     trust="false")
    code, out = run_agent(tmp_path, policy)
    assert "TRUST FAILED, server presented untrusted key" in out
    assert "No suitable server found" in out
    assert not (dst / "a.txt").exists()


@needs_serverd
def test_cf_lite_net_against_cf_serverd(tmp_path, data, server):
    wd = _client_workdir(tmp_path)
    env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(wd))
    host = f"127.0.0.1:{server.port}"

    def net(*args: str) -> str:
        r = subprocess.run([sys.executable, "-m", "cfpromise.cli.net", "-H", host, *args],
                           env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert "Traceback" not in r.stdout + r.stderr
        return r.stdout
    first = net("connect")
    assert first.endswith(f"Connected & authenticated successfully to '{host}'\n")
    assert "Trusting new key" in first          # cf-net trusts on first contact, so do we
    assert net("connect") == f"Connected & authenticated successfully to '{host}'\n"
    assert net("stat", str(data / "a.txt")) == f"{host}:'{data}/a.txt' is a regular file\n"
    assert net("stat", str(data / "tree")) == f"{host}:'{data}/tree' is a directory\n"
    assert net("-g", "error", "stat", str(data / "secret.txt")) == \
        f"Could not stat: '{data}/secret.txt'\n"
    assert sorted(net("opendir", str(data / "tree")).split()) == [".", "..", "one", "sub"]
    net("get", str(data / "big.bin"), "-o", str(tmp_path / "got.bin"))
    assert (tmp_path / "got.bin").read_bytes() == (data / "big.bin").read_bytes()


def _framed(text: str) -> bytes:
    return P.encode(text.encode())


@pytest.mark.parametrize("reply", [
    lambda req: b"t 9999\0\0garbage",                                   # oversized header
    lambda req: b"zzzzzzzz",                                            # bogus header
    lambda req: _framed("OK: not numbers at all"),                      # malformed STAT
    lambda req: _framed("OK: 0 420 0 0 0 100 1 1 1 0 1 1 1") + _framed("OK:")
    if req.startswith(b"SYNCH") else b"short",                          # truncated GET
    lambda req: _framed("HELLO?"),                                      # nonsense
])
def test_malformed_server_replies_fail_the_promise_cleanly(tmp_path, reply):
    wd = _client_workdir(tmp_path)
    fake = FakeServer(reply)
    try:
        keys.trust_key(str(wd), fake.key.public_key(), user=_user())
        dst = tmp_path / "dst"
        policy = _policy(fake.port, f'    "{dst}/f" copy_from => net("/some/file");',
                         extra='timeout => "3";')
        code, out = run_agent(tmp_path, policy)
    finally:
        fake.close()
    assert "Traceback" not in out
    assert "error:" in out
    assert not (dst / "f").exists()
    assert not list(dst.glob("*.cfnew")) if dst.exists() else True


def _user() -> str:
    from cfpromise.net.client import current_user
    return current_user()


@needs_serverd
def test_cf_serverd_runs_on_a_cf_lite_key_and_trusts_a_cf_key_client(tmp_path, data):
    """Key files interoperate: cf-serverd loads a pair written by cf-lite-key, and our
    agent connects with a pair written by cf-key 3.21."""
    srv = CfServerd(tmp_path, [str(data / "a.txt")], lite_key=True)
    try:
        wd = tmp_path / "work"
        env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(wd))
        subprocess.run([CF_KEY], env=env, check=True, capture_output=True)
        dst = tmp_path / "dst"
        code, out = run_agent(tmp_path, _policy(srv.port, f'    "{dst}/a.txt" copy_from => net("{data}/a.txt");'))
    finally:
        srv.stop()
    assert code == 0, out
    assert (dst / "a.txt").read_bytes() == (data / "a.txt").read_bytes()


@needs_serverd
def test_classic_protocol_refused_by_server_without_allowlegacyconnects(tmp_path, data, server):
    _client_workdir(tmp_path)
    dst = tmp_path / "dst"
    policy = _policy(server.port, f'    "{dst}/a.txt" copy_from => net("{data}/a.txt");',
                     extra='protocol_version => "classic";')
    code, out = run_agent(tmp_path, policy)
    assert "No suitable server found" in out and not (dst / "a.txt").exists(), out


@needs_serverd
def test_copyfrom_restrict_keys(tmp_path, data, server):
    _client_workdir(tmp_path)
    dst = tmp_path / "dst"
    digest = keys.digest(keys.parse_public(server.public_key.read_bytes()))
    promise = f'    "{dst}/a.txt" copy_from => net("{data}/a.txt");'
    other = "MD5=" + "0" * 32
    policy = _policy(server.port, promise).replace(
        "body depth_search", f'body agent control {{ copyfrom_restrict_keys => {{ "{other}" }}; }}\nbody depth_search')
    code, out = run_agent(tmp_path, policy)
    assert f"Server key not in allowed keys, server presented: {digest}" in out
    assert not (dst / "a.txt").exists()
    code, out = run_agent(tmp_path, policy.replace(other, digest))
    assert (dst / "a.txt").exists(), out


@needs_serverd
def test_common_control_protocol_version_applies(tmp_path, data, server):
    _client_workdir(tmp_path)
    dst = tmp_path / "dst"
    policy = _policy(server.port, f'    "{dst}/a.txt" copy_from => net("{data}/a.txt");')
    classic = policy.replace('bundlesequence => { "main" };',
                             'bundlesequence => { "main" }; protocol_version => "classic";')
    code, out = run_agent(tmp_path, classic)     # the server admits no classic client
    assert "No suitable server found" in out and not (dst / "a.txt").exists(), out
    code, out = run_agent(tmp_path, policy)
    assert (dst / "a.txt").exists(), out
