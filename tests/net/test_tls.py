"""TLS contexts: the cipher list split as cf-agent 3.21's TLSSetCipherList does it."""
from __future__ import annotations

import ssl

from cryptography.hazmat.primitives.asymmetric import rsa

from cfpromise.net import tls


def test_split_ciphers() -> None:
    assert tls.split_ciphers("AES256-GCM-SHA384:AES256-SHA:TLS_AES_256_GCM_SHA384") == \
        ("AES256-GCM-SHA384:AES256-SHA", ["TLS_AES_256_GCM_SHA384"])
    assert tls.split_ciphers(None) == ("", [])
    assert tls.split_ciphers("TLS_AES_128_GCM_SHA256") == ("", ["TLS_AES_128_GCM_SHA256"])


def test_client_list_without_tls13_suites_disables_tls13() -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    top = ssl.TLSVersion.TLSv1_2
    assert tls.client_context(key, "AES128-SHA").maximum_version == top
    assert tls.client_context(key).maximum_version != top
    assert tls.client_context(key, "AES128-SHA:TLS_AES_256_GCM_SHA384").maximum_version != top
    names = {c["name"] for c in tls.client_context(key, "AES128-SHA").get_ciphers()}
    assert "AES128-SHA" in names and "AES256-GCM-SHA384" not in names
