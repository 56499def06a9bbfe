"""Address rules as cf-serverd 3.21 decides them (issue #27): one function,
``address_matches``, for every rule kind; its table taken from 3.21 (cf-agent 3.21's
isipinsubnet() runs the same FuzzySetMatch and re-checks the table), properties over
generated addresses and rules, and a differential run against cf-agent 3.21."""
from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cfpromise.server.acl import (Entry, add_rules, address_matches, legacy_hostname_rules,
                                  listed)
from cfpromise.regexlike import is_regex
from cfpromise.server.fuzzyset import verdict
from tests.server import acl_cases

# (rule, address, FuzzySetMatch == 0) as cf-agent 3.21 answers them.
FUZZY_TABLE = [
    ("127.0.0.1", "127.0.0.1", True),
    ("127.0.0.1", "127.0.0.12", False),          # the hole of issue #27
    ("127.0.0.1", "127.0.0.100", False),
    ("10.0.0.1", "10.0.0.10", False),
    ("10.0.0.1", "10.0.0.199", False),
    ("127.0.0", "127.0.0.1", True),               # whole octets
    ("127.0.0", "127.0.0.12", True),
    ("192.168.1", "192.168.10.1", False),
    ("192.168.1", "192.168.1.77", True),
    ("127", "127.0.0.1", True),
    ("12", "127.0.0.1", False),
    ("127.0.0.", "127.0.0.1", False),             # a trailing dot matches nothing in 3.21
    ("192.168.1.", "192.168.1.5", False),
    ("10.0.0.0/8", "10.1.2.3", True),
    ("10.0.0.0/8", "11.0.0.1", False),
    ("1.2.3.4/24", "1.2.3.99", True),
    ("1.2.3.4/24", "1.2.4.1", False),
    ("127.0.0.1/32", "127.0.0.12", False),
    ("127.0.0.0/28", "127.0.0.12", True),
    ("127.0.0.0/28", "127.0.0.16", False),
    ("10.0.0.0/0", "10.1.2.3", True),
    ("10.0.0.0/33", "10.1.2.3", False),           # "Invalid IPv4 CIDR"
    ("10.0.0.1-100", "10.0.0.100", True),
    ("10.0.0.1-100", "10.0.0.101", False),
    ("10.0.0.1-100", "10.0.0.0", False),
    ("10.0.1-5.7", "10.0.3.7", True),
    ("10.0.1-5.7", "10.0.3.8", False),
    ("127.0.0.1-5.7", "127.0.0.3", True),         # a fifth octet is never read
    ("1.2.3.4-", "1.2.3.4", False),
    ("1.2.x.4", "1.2.7.4", False),
    ("01.2.3.4", "1.2.3.4", False),
    ("::1", "::1", True),
    ("fe80::", "fe80::1", False),                 # partial IPv6: nothing
    ("fe80::/16", "fe80::1", True),
    ("fe80::/16", "fe81::1", False),
    ("fe80::/12", "fe80::1", False),              # masks are multiples of 8
    ("2001:db8::/32", "2001:db8:1::7", True),
    ("2001:db8::/32", "2001:db9::7", False),
    ("0:0:0:0:0:0:0:1-5", "0:0:0:0:0:0:0:3", True),
    ("0:0:0:0:0:0:0:1-5", "0:0:0:0:0:0:0:1", False),   # the IPv6 range excludes its start
    ("127.0.0.1", "::1", False),
    ("::1", "127.0.0.1", False),
]

# Rules the FuzzySetMatch table leaves to the regex, for the two ways 3.21 reads them:
# access rules try every entry as a regex; control-body lists only when IsRegex().
REGEX_TABLE = [
    # rule, address, access rule (admit_ips), control list (allowconnects...)
    ("127\\.0\\.0\\.[0-9]+", "127.0.0.9", True, True),
    ("127\\.0\\.0\\.1", "127.0.0.12", False, False),
    ("127.0.0.1[0-9]", "127.0.0.12", True, True),
    ("127\\.0\\.0\\.1\\d*", "127.0.0.12", True, True),
    ("127.0.0.*", "127.0.0.12", True, True),
    ("127.0.0.1.", "127.0.0.12", True, False),    # not IsRegex(): only access rules try it
    ("127.0.0...", "127.0.0.12", True, False),
    ("(127.0.0.12|10.0.0.1)", "127.0.0.12", True, True),
    ("127.0.0.1|127.0.0.12", "127.0.0.12", False, False),   # the first match is not full
    ("127.0.0.12|127.0.0.1", "127.0.0.12", True, False),
    ("[", "127.0.0.12", False, False),
]

HOSTNAME_TABLE = [
    # legacy admit/deny hostname entry -> the entries 3.21 keeps
    (".*\\.example\\.com", [".example.com"]),
    (".*example.com", ["example.com", ".example.com"]),
    ("host.example.com", ["host.example.com"]),
    ("(a|b)\\.example\\.com", []),
    ("a+\\.example\\.com", []),
    (".*\\.ex*\\.com", []),
]


@pytest.mark.parametrize("rule,ip,expected", FUZZY_TABLE)
def test_fuzzy_table(rule: str, ip: str, expected: bool) -> None:
    assert verdict(rule, ip) is expected
    assert address_matches(rule, ip, "if_regex") is expected
    assert listed(["10.9.9.9", rule], ip) is expected


@pytest.mark.parametrize("rule,ip,access,control", REGEX_TABLE)
def test_regex_table(rule: str, ip: str, access: bool, control: bool) -> None:
    assert address_matches(rule, ip, "always") is access
    assert address_matches(rule, ip, "if_regex") is control
    assert listed([rule], ip) is control
    entry = Entry()
    add_rules(entry, {"admit_ips": [rule]})
    assert entry.check(ip, "", "") is access


@pytest.mark.parametrize("entry,kept", HOSTNAME_TABLE)
def test_legacy_hostnames(entry: str, kept: list[str]) -> None:
    assert legacy_hostname_rules(entry) == kept


def test_is_regex_as_321() -> None:
    assert not is_regex("127.0.0.1") and not is_regex("host.example.com")
    assert is_regex("127.0.0.*") and is_regex("10.0.0.[0-9]") and is_regex("(a|b)")
    assert not is_regex("a|b") and not is_regex("*a") and not is_regex("(a") and not is_regex("a\\")


def test_deny_names_one_address_only() -> None:
    entry = Entry()
    add_rules(entry, {"admit_ips": ["127.0.0.0/24"], "deny_ips": ["127.0.0.1"]})
    assert not entry.check("127.0.0.1", "", "")
    for other in ("127.0.0.12", "127.0.0.10", "127.0.0.100", "127.0.0.2"):
        assert entry.check(other, "", "")


def test_maproot_names_one_address_only() -> None:
    entry = Entry()
    add_rules(entry, {"admit_ips": ["127.0.0.0/24"], "maproot": ["127.0.0.1"]})
    assert entry.maps_root("127.0.0.1", "")
    assert not entry.maps_root("127.0.0.12", "")
    assert not entry.maps_root("127.0.0.100", "")


# --------------------------------------------------------------------------- properties

v4s = st.builds(ipaddress.IPv4Address, st.integers(0, 2**32 - 1))
v6s = st.builds(ipaddress.IPv6Address, st.integers(0, 2**128 - 1))
modes = st.sampled_from(["always", "if_regex"])


@settings(max_examples=400, deadline=None)
@given(v4s, v4s, modes)
def test_a_full_address_names_itself_only(rule, ip, mode) -> None:
    assert address_matches(str(rule), str(ip), mode) is (rule == ip)


@settings(max_examples=400, deadline=None)
@given(v4s, v4s, st.integers(1, 3), modes)
def test_partial_addresses_match_whole_octets(base, ip, n, mode) -> None:
    rule = ".".join(str(base).split(".")[:n])
    expected = str(ip).split(".")[:n] == rule.split(".")
    assert address_matches(rule, str(ip), mode) is expected
    assert not address_matches(rule + ".", str(ip), mode)        # 3.21: trailing dot


@settings(max_examples=400, deadline=None)
@given(v4s, v4s, st.integers(0, 32))
def test_ipv4_cidr_is_the_network(base, ip, mask) -> None:
    rule = f"{base}/{mask}"
    inside = ip in ipaddress.IPv4Network(rule, strict=False)
    assert address_matches(rule, str(ip)) is inside
    assert listed([rule], str(ip)) is inside


@settings(max_examples=400, deadline=None)
@given(v4s, v4s, st.integers(0, 3), st.integers(0, 255), st.integers(0, 255))
def test_ipv4_octet_ranges(base, ip, where, lo, hi) -> None:
    parts = str(base).split(".")
    parts[where] = f"{lo}-{hi}"
    rule = ".".join(parts)
    got = str(ip).split(".")
    expected = all(int(g) == int(p) if i != where else lo <= int(g) <= hi
                   for i, (g, p) in enumerate(zip(got, parts)))
    assert address_matches(rule, str(ip)) is expected


@settings(max_examples=300, deadline=None)
@given(v6s, v6s, st.integers(0, 128))
def test_ipv6_cidr(base, ip, mask) -> None:
    rule = f"{base}/{mask}"
    if mask % 8:
        expected = False
    else:
        expected = ip in ipaddress.IPv6Network(rule, strict=False)
    assert address_matches(rule, str(ip)) is expected


@settings(max_examples=300, deadline=None)
@given(v6s, v6s, st.integers(1, 7))
def test_ipv6_partial_addresses_match_nothing(base, ip, n) -> None:
    rule = ":".join(base.exploded.split(":")[:n])
    assert not address_matches(rule, str(ip)) and not address_matches(rule, ip.exploded)
    assert address_matches(str(ip), str(ip))


@settings(max_examples=300, deadline=None)
@given(v4s, v6s, st.integers(0, 32), modes)
def test_families_never_cross(a4, a6, mask, mode) -> None:
    for rule, ip in ((str(a4), str(a6)), (str(a6), str(a4)), (f"{a4}/{mask}", str(a6)),
                     (f"{a6}/{mask * 4}", str(a4))):
        assert not address_matches(rule, ip, mode)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789./-:abx", max_size=24), v4s)
def test_every_rule_kind_goes_through_one_test(rule, ip) -> None:
    one = address_matches(rule, str(ip), "if_regex")
    assert listed([rule], str(ip)) is one
    entry = Entry()
    add_rules(entry, {"admit_ips": ["0.0.0.0/0"], "deny_ips": [rule], "maproot": [rule]})
    assert entry.maps_root(str(ip), "") is one
    assert entry.check(str(ip), "", "") is (not address_matches(rule, str(ip), "always"))


# --------------------------------------------------------------------------- against 3.21

@pytest.mark.reference
def test_fuzzy_table_is_321s() -> None:
    if not acl_cases.have_cf_agent():
        pytest.skip("needs cf-agent 3.21 (/usr/bin/cf-agent, cf-key, cf-promises)")
    pairs = [(r, ip) for r, ip, _ in FUZZY_TABLE]
    got = acl_cases.cf_agent_verdicts(pairs)
    assert got == [e for _, _, e in FUZZY_TABLE]


@pytest.mark.reference
@pytest.mark.parametrize("seed", [1, 2])
def test_differential_against_cf_agent(seed: int) -> None:
    """Generated rules near generated addresses: FuzzySetMatch here and in 3.21
    agree on every pair whose answer 3.21 defines."""
    if not acl_cases.have_cf_agent():
        pytest.skip("needs cf-agent 3.21 (/usr/bin/cf-agent, cf-key, cf-promises)")
    pairs = acl_cases.cases(seed, 2500)
    theirs = acl_cases.cf_agent_verdicts(pairs)
    diffs, matched = [], 0
    for (rule, ip), their in zip(pairs, theirs):
        mine = None if acl_cases.parse_refuses(rule) else verdict(rule, ip)
        if mine is None and not acl_cases.parse_refuses(rule):
            assert not address_matches(rule, ip, "if_regex") or rule == ip
            continue                       # undefined in 3.21: denied here
        matched += bool(their)
        if mine != their:
            diffs.append((rule, ip, their, mine))
    assert not diffs, diffs[:20]
    assert 300 < matched < len(pairs) - 300      # both answers well represented


labels = st.lists(st.text(alphabet="abcxyz019-", min_size=1, max_size=6), min_size=1,
                  max_size=4).map(".".join)


@settings(max_examples=300, deadline=None)
@given(labels, labels)
def test_hostname_rules_name_a_host_or_a_domain(rule, host) -> None:
    """3.21's StrList_SearchLongestPrefix on '.': a rule is the whole name, or a
    '.'-domain ending it at a label boundary; then (legacy) the rule as a full regex,
    where '.' is any character -- 3.21's own quirk, kept."""
    import re
    from cfpromise.server.acl import hostname_matches

    def expected(r: str, h: str) -> bool:
        return r == h or (r.startswith(".") and h.endswith(r)) or re.fullmatch(r, h) is not None
    for r in (rule, "." + rule):
        assert hostname_matches(r, host) is expected(r, host)
    assert hostname_matches("." + rule, "www." + rule)
    assert not hostname_matches(rule + "x", rule) and not hostname_matches("", host)
