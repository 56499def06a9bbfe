"""Access rules as cf-serverd 3.21 matches them."""
from __future__ import annotations

import pytest

from cfpromise.server.acl import Table, admit_type, add_rules, hostname_matches, ip_matches


@pytest.mark.parametrize("rule,ip,expected", [
    ("127.0.0.1", "127.0.0.1", True),
    ("127.0.0.1", "127.0.0.2", False),
    ("10.0.0.0/8", "10.3.4.5", True),
    ("10.0.0.0/8", "11.0.0.1", False),
    ("192.168.1.10-20", "192.168.1.15", True),
    ("192.168.1.10-20", "192.168.1.21", False),
    ("192.168", "192.168.7.7", True),            # FuzzySetMatch: whole octets
    ("192.168.", "192.168.7.7", False),          # 3.21: a trailing dot matches nothing
    ("::1", "::1", True),
    ("fe80::/16", "fe80::1", True),
    ("fe80::/10", "fe80::1", False),             # 3.21: IPv6 masks in multiples of 8
    ("127\\.0\\.0\\.[0-9]+", "127.0.0.9", True),   # a full regex
    ("", "127.0.0.1", False),
])
def test_ip_rules(rule: str, ip: str, expected: bool) -> None:
    assert ip_matches(rule, ip) is expected


def test_hostname_rules() -> None:
    assert hostname_matches(".example.com", "a.example.com")
    assert not hostname_matches(".example.com", "a.example.org")
    assert hostname_matches("a.example.com", "a.example.com")
    assert not hostname_matches("example.com", "badexample.com")


def test_admit_type_of_legacy_entries() -> None:
    assert admit_type("SHA=ab") == "keys" and admit_type("MD5=ab") == "keys"
    assert admit_type("10.0.0.0/8") == "ips"
    assert admit_type("host.example.com") == "hostnames"


def test_longest_path_entry_wins_and_deny_overrides() -> None:
    t = Table()
    add_rules(t.entry("/srv/"), {"admit_ips": ["127.0.0.1"]})
    add_rules(t.entry("/srv/secret/"), {"admit_ips": ["127.0.0.1"], "deny_ips": ["127.0.0.1"]})
    add_rules(t.entry("/srv/only-deny"), {"deny_ips": ["10.0.0.1"]})
    assert t.check_path("/srv/a/b", "127.0.0.1", "", "")
    assert not t.check_path("/srv/secret/x", "127.0.0.1", "", "")
    # an entry without admit rules refuses (default deny), even inside an admitted tree
    assert not t.check_path("/srv/only-deny", "127.0.0.1", "", "")
    assert not t.check_path("/srv", "127.0.0.1", "", "")          # the dir entry ends in '/'
    assert not t.check_path("/srvx/a", "127.0.0.1", "", "")
    assert not t.check_path("/other", "127.0.0.1", "", "")
    assert not t.check_path("/srv/a", "10.0.0.9", "", "")


def test_connection_variables_in_paths_and_keys() -> None:
    t = Table()
    add_rules(t.entry("/data/$(connection.ip)/"), {"admit_ips": ["$(connection.ip)"]})
    add_rules(t.entry("/keys/"), {"admit_keys": ["MD5=aa"]})
    assert t.check_path("/data/127.0.0.1/f", "127.0.0.1", "", "")
    assert not t.check_path("/data/127.0.0.2/f", "127.0.0.1", "", "")
    assert t.check_path("/keys/f", "10.1.1.1", "", "MD5=aa")
    assert not t.check_path("/keys/f", "10.1.1.1", "", "MD5=bb")


def test_regex_table_refusal_wins() -> None:
    t = Table()
    add_rules(t.entry("my.*"), {"admit_ips": ["127.0.0.1"]})
    add_rules(t.entry("my_secret"), {"deny_ips": ["127.0.0.1"]})
    assert t.check_regex("my_class", "127.0.0.1", "", "")
    assert not t.check_regex("my_secret", "127.0.0.1", "", "")
    assert not t.check_regex("other", "127.0.0.1", "", "")
