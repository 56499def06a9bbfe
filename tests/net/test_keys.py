"""Host keys in cf-key 3.21's formats: both directions, digests, trust files."""
from __future__ import annotations

import os
import shutil
import stat
import subprocess

import pytest

from cfpromise.net import keys

CF_KEY = shutil.which("cf-key")


def test_generated_files_are_pkcs1_pem_0600(tmp_path):
    hk = keys.ensure_host_key(str(tmp_path))
    priv, pub = keys.private_key_path(str(tmp_path)), keys.public_key_path(str(tmp_path))
    assert open(priv).read().startswith("-----BEGIN RSA PRIVATE KEY-----\n")
    assert open(pub).read().startswith("-----BEGIN RSA PUBLIC KEY-----\n")
    for p in (priv, pub):
        assert stat.S_IMODE(os.stat(p).st_mode) == 0o600
    assert hk.public.key_size == 2048 and hk.public.public_numbers().e == 65537
    assert not [n for n in os.listdir(os.path.dirname(priv)) if n.startswith(".cf-lite-key")]
    # a second call loads the same pair instead of overwriting it
    assert keys.ensure_host_key(str(tmp_path)).digest() == hk.digest()


def test_refuses_to_overwrite(tmp_path):
    keys.ensure_host_key(str(tmp_path))
    with pytest.raises(keys.KeyError_, match="already exists"):
        keys.create_key_pair(keys.private_key_path(str(tmp_path)),
                             keys.public_key_path(str(tmp_path)))


def test_digest_strings(tmp_path):
    hk = keys.ensure_host_key(str(tmp_path))
    md5, sha = hk.digest("MD5"), hk.digest("SHA")
    assert md5.startswith("MD5=") and len(md5) == 36 and keys.is_digest(md5)
    assert sha.startswith("SHA=") and len(sha) == 68 and keys.is_digest(sha)
    assert not keys.is_digest("MD5=xyz")


def test_unsafe_key_is_refused(tmp_path):
    keys.ensure_host_key(str(tmp_path))
    priv = keys.private_key_path(str(tmp_path))
    os.chmod(priv, 0o666)
    with pytest.raises(keys.KeyError_, match="another user"):
        keys.load_host_key(str(tmp_path))
    os.chmod(priv, 0o600)
    os.chmod(os.path.dirname(priv), 0o777)
    with pytest.raises(keys.KeyError_, match="another user"):
        keys.load_host_key(str(tmp_path))


def test_trust_store(tmp_path):
    wd = str(tmp_path)
    peer = keys.generate().public_key()
    assert not keys.is_trusted(wd, peer)
    path = keys.trust_key(wd, peer)
    assert os.path.basename(path) == f"root-{keys.digest(peer)}.pub"
    assert keys.is_trusted(wd, peer)
    assert not keys.is_trusted(wd, peer, user="bob")
    assert keys.remove_trusted(wd, keys.digest(peer)) == [path]
    assert not keys.is_trusted(wd, peer)


@pytest.mark.skipif(CF_KEY is None, reason="needs cf-key 3.21")
def test_cf_key_reads_ours_and_we_read_cf_keys(tmp_path):
    ours = tmp_path / "ours"
    hk = keys.ensure_host_key(str(ours))
    out = subprocess.run([CF_KEY, "-p", keys.public_key_path(str(ours))], capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == hk.digest()
    theirs = tmp_path / "theirs"
    env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(theirs))
    subprocess.run([CF_KEY], env=env, check=True, capture_output=True)
    loaded = keys.load_host_key(str(theirs))
    pub = keys.parse_public(open(keys.public_key_path(str(theirs)), "rb").read())
    assert pub.public_numbers() == loaded.public.public_numbers()
    out = subprocess.run([CF_KEY, "-p", keys.public_key_path(str(theirs))], capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == loaded.digest()
    # cf-key -t stores a key where we look for it
    subprocess.run([CF_KEY, "-t", keys.public_key_path(str(ours))], env=env, check=True,
                   capture_output=True)
    assert keys.is_trusted(str(theirs), hk.public)
