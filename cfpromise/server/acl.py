"""Access control lists of cf-lite-serverd, with cf-serverd 3.21's matching rules.

An ``access`` promise adds admit/deny entries to the ACL of its resource (a path,
a literal handle, a class regex, a variable, a query, a bundle); ``roles`` adds
the users allowed to activate classes.  Several promises for one resource add to
the same entry.  A request is checked against one entry:

* paths: the longest entry that is a prefix of the canonical path, ending at a
  '/' (a directory entry ends with '/') or equal to it; an entry written with
  ``$(connection.ip)``/``hostname``/``key`` is tried with those substituted;
* admission: an admit rule (IP, hostname, key or user) must match and no deny
  rule may match.  Default deny: no entry or no admit match refuses.

Every address rule -- ``admit_ips``/``deny_ips`` (and the addresses of legacy
``admit``/``deny``), ``maproot``, and ``body server control``'s
``allowconnects``, ``denyconnects``, ``allowallconnects``, ``trustkeysfrom``,
``allowlegacyconnects`` -- is decided by :func:`address_matches`, which is 3.21's
FuzzySetMatch (cfpromise.server.fuzzyset) or a regex full match (3.21 tries the
regex for every access-rule entry, and for a control-body entry only when
IsRegex() takes it for one).  So a rule for 127.0.0.1 admits 127.0.0.1 only,
``10.0.0`` admits 10.0.0.*, never 10.0.00x; regexes run bounded
(cfpromise.server.patterns).  Hostname rules match the name or a '.'-prefixed
domain suffix, or as a full regex.
"""
from __future__ import annotations

from typing import Iterable

import attrs

from cfpromise.regexlike import is_regex
from cfpromise.server.fuzzyset import fuzzy_set_match
from cfpromise.server.patterns import full_match, match_many

CONNECTION_VARS = ("$(connection.ip)", "$(connection.hostname)", "$(connection.key)")


def address_matches(rule: str, ip: str, regex: str = "always") -> bool:
    """Does one address rule name ``ip``?  The one test of every rule kind.

    ``regex``: "always" (access rules: 3.21's access_CheckResource tries
    ``StringMatchFull(rule, ip)`` after FuzzySetMatch), "if_regex" (control-body
    lists and maproot: 3.21's IsMatchItemIn only when IsRegex(rule)).  An empty
    rule or address matches nothing (default deny)."""
    if not rule or not ip:
        return False
    if fuzzy_set_match(rule, ip):
        return True
    if regex == "if_regex" and not is_regex(rule):
        return False
    return full_match(rule, ip)


def listed(rules: Iterable[str], ip: str) -> bool:
    """IsMatchItemIn: a control-body list (allowconnects, denyconnects,
    allowallconnects, trustkeysfrom, allowlegacyconnects) names ``ip``."""
    return any(address_matches(r, ip, "if_regex") for r in rules)


def ip_matches(rule: str, ip: str) -> bool:
    """An access rule's IP entry (admit_ips, deny_ips) names ``ip``."""
    return address_matches(rule, ip, "always")


def hostname_matches(rule: str, hostname: str) -> bool:
    if not rule or not hostname:
        return False
    if rule == hostname or (rule.startswith(".") and hostname.endswith(rule)):
        return True
    return full_match(rule, hostname)


def _regex_item(rule: str, name: str) -> bool:
    """IsRegexItemIn: equal, or either one a full regex match of the other."""
    if not rule or not name:
        return False
    # the name (a reverse lookup's answer) read as a regex too: never cached
    return rule == name or match_many(name, [rule])[0] or full_match(rule, name)


def admit_type(entry: str) -> str:
    """The kind of a legacy ``admit``/``deny`` entry."""
    if entry.startswith(("SHA=", "MD5=")):
        return "keys"
    if entry and all(c in "0123456789abcdef.:/[-]*()\\" for c in entry):
        return "ips"
    return "hostnames"


def legacy_hostname_rules(host: str) -> list[str]:
    """3.21's StrList_AppendRegexHostname: a legacy ``admit``/``deny`` hostname that
    looks like a regex becomes a name and/or a '.'-domain (``.*\\.example\\.com``
    -> ``.example.com``); one it cannot read that way is dropped (it admits nobody)."""
    if not is_regex(host):
        return [host]
    if any(c in host for c in "({[|+?]})"):
        return []
    skip_domain = skip_host = False
    name = host
    if name.startswith("^"):        # anchored: the intent is a host name
        skip_domain, name = True, name[1:]
    if name.startswith(".*"):
        skip_domain, name = False, name[2:]
    if name.startswith("\\."):
        skip_host, name = True, name[2:]
    if "*" in name:
        return []
    if len(name) == len(host) and "\\" not in host:
        return [host]               # IsRegex() said yes, but it is taken as a name
    plain = []
    i = 0
    while i < len(name):
        if name[i] == "\\":
            i += 1
            if i >= len(name) or name[i] != ".":
                return []
        plain.append(name[i])
        i += 1
    domain = "." + "".join(plain)
    return ([] if skip_host else [domain[1:]]) + ([] if skip_domain else [domain])


@attrs.define(slots=True)
class Rules:
    ips: list[str] = attrs.Factory(list)
    hostnames: list[str] = attrs.Factory(list)
    keys: list[str] = attrs.Factory(list)
    usernames: list[str] = attrs.Factory(list)

    def match(self, ip: str, hostname: str, key: str, username: str) -> bool:
        return (any(ip_matches(r, ip) for r in self.ips)
                or any(hostname_matches(r, hostname) for r in self.hostnames)
                or (bool(key) and key in self.keys)
                or (bool(username) and username in self.usernames))


@attrs.define(slots=True)
class Entry:
    """The ACL of one resource."""
    admit: Rules = attrs.Factory(Rules)
    deny: Rules = attrs.Factory(Rules)
    maproot: list[str] = attrs.Factory(list)
    encrypted: bool = False

    def check(self, ip: str, hostname: str, key: str, username: str = "") -> bool:
        if not self.admit.match(ip, hostname, key, username):
            return False
        return not self.deny.match(ip, hostname, key, username)

    def found(self, ip: str, hostname: str, key: str, username: str = "") -> bool | None:
        """None when no rule names the peer, else whether it is admitted."""
        if self.admit.match(ip, hostname, key, username):
            return not self.deny.match(ip, hostname, key, username)
        if self.deny.match(ip, hostname, key, username):
            return False
        return None

    def maps_root(self, ip: str, hostname: str) -> bool:
        """3.21: IsMatchItemIn(maproot, ip) || IsRegexItemIn(maproot, hostname)."""
        return listed(self.maproot, ip) or any(_regex_item(r, hostname) for r in self.maproot)


class Table:
    """Resources by name, each with its Entry."""

    def __init__(self) -> None:
        self.entries: dict[str, Entry] = {}

    def entry(self, name: str) -> Entry:
        found = self.entries.get(name)
        if found is None:
            found = self.entries[name] = Entry()
        return found

    def __len__(self) -> int:
        return len(self.entries)

    # -- lookups ---------------------------------------------------------------
    def longest_path(self, path: str) -> Entry | None:
        best: Entry | None = None
        best_len = -1
        candidates = [path[:i + 1] for i, c in enumerate(path) if c == "/"] + [path]
        for cand in candidates:
            found = self.entries.get(cand)
            if found is not None and len(cand) > best_len:
                best, best_len = found, len(cand)
        return best

    def check_path(self, path: str, ip: str, hostname: str, key: str) -> bool:
        access = False
        entry = self.longest_path(path)
        if entry is not None and entry.check(ip, hostname, key):
            access = True
        mangled = path
        for value, var in zip((ip, hostname, key), CONNECTION_VARS):
            if value:
                mangled = mangled.replace(value, var)
        if mangled != path:
            entry = self.longest_path(mangled)
            if entry is not None and entry.check(*CONNECTION_VARS):
                access = True
        return access

    def path_entry(self, path: str, ip: str, hostname: str, key: str) -> Entry | None:
        """The entry that admits ``path`` (for maproot), if any."""
        entry = self.longest_path(path)
        if entry is not None and entry.check(ip, hostname, key):
            return entry
        return None

    def check_exact(self, name: str, ip: str, hostname: str, key: str) -> bool:
        entry = self.entries.get(name)
        return entry is not None and entry.check(ip, hostname, key)

    def check_regex(self, name: str, ip: str, hostname: str, key: str,
                    username: str = "") -> bool:
        """Every entry whose regex matches ``name``: one that refuses wins."""
        result = False
        for pattern, entry in self.entries.items():
            if full_match(pattern, name):
                verdict = entry.found(ip, hostname, key, username)
                if verdict is False:
                    return False
                if verdict:
                    result = True
        return result


def add_rules(entry: Entry, attributes: dict[str, object]) -> None:
    """Apply an access promise's admit/deny/maproot/ifencrypted attributes to ``entry``."""
    def items(name: str) -> Iterable[str]:
        value = attributes.get(name)
        if isinstance(value, str):
            return [value]
        if isinstance(value, list):
            return [v for v in value if isinstance(v, str) and v]
        return []
    entry.admit.ips += items("admit_ips")
    entry.deny.ips += items("deny_ips")
    entry.admit.hostnames += items("admit_hostnames")
    entry.deny.hostnames += items("deny_hostnames")
    entry.admit.keys += items("admit_keys")
    entry.deny.keys += items("deny_keys")
    for legacy, rules in (("admit", entry.admit), ("deny", entry.deny)):
        for value in items(legacy):
            kind = admit_type(value)
            if kind == "hostnames":
                rules.hostnames += legacy_hostname_rules(value)
            else:
                getattr(rules, kind).append(value)
    entry.maproot += items("maproot")
    enc = attributes.get("ifencrypted")
    if isinstance(enc, str):
        entry.encrypted = enc in ("true", "yes", "on")
