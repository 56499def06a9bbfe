"""cf-lite-key and cf-lite-secret against cf-key/cf-secret 3.21 (files both ways)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from cfpromise.net import keys

CF_SECRET = shutil.which("cf-secret")
CF_KEY = shutil.which("cf-key")


def _tool(name: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", f"cfpromise.cli.{name}", *args], env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def env(tmp_path):
    return dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(tmp_path / "wd"))


def test_key_generate_print_trust_remove(tmp_path, env):
    wd = env["CFENGINE_TEST_OVERRIDE_WORKDIR"]
    r = _tool("key", env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    again = _tool("key", env=env)
    assert again.returncode == 1 and "A key file already exists" in again.stdout
    digest = _tool("key", "-p", keys.public_key_path(wd), env=env).stdout.strip()
    assert digest == keys.load_host_key(wd).digest()
    other = keys.generate().public_key()
    pub = tmp_path / "other.pub"
    pub.write_bytes(keys.public_pem(other))
    r = _tool("key", "-t", f"10.0.0.9:{pub}", env=env)
    assert r.returncode == 0, r.stdout
    assert keys.is_trusted(wd, other)
    shown = _tool("key", "-s", "-n", env=env).stdout
    assert "10.0.0.9" in shown and keys.digest(other) in shown and "Total Entries: 1" in shown
    r = _tool("key", "-r", keys.digest(other), env=env)
    assert r.returncode == 0, r.stdout
    assert not keys.is_trusted(wd, other)
    assert "Total Entries: 0" in _tool("key", "-s", "-n", env=env).stdout
    assert _tool("key", "-p", "/nonexistent", env=env).returncode == 1


def test_secret_roundtrip_and_errors(tmp_path, env):
    assert _tool("key", env=env).returncode == 0
    plain = tmp_path / "plain"
    plain.write_bytes(os.urandom(5000))
    enc, dec = tmp_path / "enc", tmp_path / "dec"
    r = _tool("secret", "encrypt", "-o", str(enc), str(plain), env=env)
    assert r.returncode == 0, r.stdout
    assert enc.read_bytes().startswith(b"Version: 1.0\nEncrypted-for: MD5=")
    r = _tool("secret", "decrypt", "-o", str(dec), str(enc), env=env)
    assert r.returncode == 0, r.stdout
    assert dec.read_bytes() == plain.read_bytes()
    # another host's key cannot decrypt it, and no partial output is left
    other = tmp_path / "other"
    subprocess.run([sys.executable, "-m", "cfpromise.cli.key", "-f", str(other)], env=env,
                   check=True)
    bad = tmp_path / "bad"
    r = _tool("secret", "decrypt", "-k", f"{other}.priv", "-o", str(bad), str(enc), env=env)
    assert r.returncode == 1 and "File not encrypted for host" in r.stdout
    assert not bad.exists()
    # a tampered file fails cleanly
    data = bytearray(enc.read_bytes())
    data[-1] ^= 0xFF
    enc.write_bytes(bytes(data))
    r = _tool("secret", "decrypt", "-o", str(bad), str(enc), env=env)
    assert r.returncode == 1 and "Traceback" not in r.stdout + r.stderr


@pytest.mark.skipif(CF_SECRET is None or CF_KEY is None, reason="needs cf-secret/cf-key 3.21")
def test_secret_files_interoperate_with_cf_secret(tmp_path, env):
    assert _tool("key", env=env).returncode == 0
    wd = env["CFENGINE_TEST_OVERRIDE_WORKDIR"]
    plain = tmp_path / "plain"
    plain.write_text("the secret sauce\n")
    ours, theirs = tmp_path / "ours.enc", tmp_path / "theirs.enc"
    assert _tool("secret", "encrypt", "-k", keys.public_key_path(wd), "-o", str(ours),
                 str(plain), env=env).returncode == 0
    out = tmp_path / "out1"
    subprocess.run([CF_SECRET, "decrypt", "-k", keys.private_key_path(wd), "-o", str(out),
                    str(ours)], env=env, check=True, capture_output=True)
    assert out.read_text() == "the secret sauce\n"
    subprocess.run([CF_SECRET, "encrypt", "-k", keys.public_key_path(wd), "-o", str(theirs),
                    str(plain)], env=env, check=True, capture_output=True)
    out2 = tmp_path / "out2"
    assert _tool("secret", "decrypt", "-o", str(out2), str(theirs), env=env).returncode == 0
    assert out2.read_text() == "the secret sauce\n"
