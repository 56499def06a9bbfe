"""cf-serverd 3.21's address test (libcfnet FuzzySetMatch) and IsRegex, step by step.

Why a literal port: every address rule of cf-serverd (admit_ips, deny_ips,
allowconnects, trustkeysfrom, ...) goes through FuzzySetMatch, and an operator's
rules must mean here what they mean there -- no more (a text-prefix test let a
rule for 127.0.0.1 admit 127.0.0.12, issue #27) and no less.  What 3.21 does,
checked against cf-agent 3.21's ``isipinsubnet()`` (which calls the same
function) by tests/server/test_acl_match.py:

* the rule equal to the address matches;
* a rule with both '.' and ':' (rule or address) matches nothing, nor one with
  both '/' and '-', nor one with neither '.' nor ':' on either side;
* no '/' or '-': the rule must be a prefix of the address ending at an octet
  boundary: ``10.0.0`` and ``10`` match 10.0.0.*/10.*, ``10.0.0.1`` matches
  10.0.0.1 only, and ``10.0.0.`` (trailing dot) matches nothing; for IPv6 the
  next character would have to be '.', so a partial IPv6 address matches nothing;
* IPv4 CIDR ``a.b.c.d/n`` (n <= 32, /0 matches every IPv4 address); IPv6 CIDR
  with n a multiple of 8 (an unparsable IPv6 address reads as ``::``);
* IPv4 ranges: octet by octet, ``lo-hi`` inclusive, plain octets compared as
  numbers (sscanf "%ld": ``01`` is 1, ``1x`` is 1, an unreadable one keeps the
  previous number); a rule with fewer octets compares only those;
* IPv6 ranges: group by group split at ':', ``lo-hi`` hex with ``lo``
  exclusive, plain groups compared as *decimal* numbers -- 3.21's quirks, kept.

Where 3.21 reads memory it does not own (past a string's NUL, an uninitialised
buffer or address: :func:`verdict` says None) its answer is undefined -- seen
both ways with cf-agent 3.21 -- and nothing matches here (default deny): so a
range rule needs its four octets (``10.0.0.1-100``; ``10.0.1-5`` admits nothing).
"""
from __future__ import annotations

_LONG_MAX = (1 << 63) - 1
_ULONG_MAX = (1 << 64) - 1


def _at(s: str, i: int) -> str:
    return s[i] if 0 <= i < len(s) else "\0"


def _scan_set(s: str, pos: int, stop: str, width: int) -> str | None:
    """sscanf("%<width>[^<stop>]") at ``pos``: None when no character is taken."""
    end = pos
    while end - pos < width and _at(s, end) not in (stop, "\0"):
        end += 1
    return s[pos:end] if end > pos else None


def _scan_int(s: str, pos: int, base: int, unsigned: bool = False) -> tuple[int, int] | None:
    """sscanf "%ld" / "%lx" / "%lu" at ``pos``: (value, position after) or None."""
    i = pos
    while _at(s, i) in " \t\n\v\f\r":
        i += 1
    neg = False
    if _at(s, i) in "+-":
        neg = _at(s, i) == "-"
        i += 1
    digits = "0123456789abcdefABCDEF"[:10 if base == 10 else 22]
    if base == 16 and _at(s, i) == "0" and _at(s, i + 1) in "xX" and _at(s, i + 2) in digits:
        i += 2
    start = i
    while _at(s, i) != "\0" and _at(s, i) in digits:
        i += 1
    if i == start:
        return None
    value = int(s[start:i], base)
    if unsigned:
        value = min(value, _ULONG_MAX)
        if neg:
            value = (-value) & _ULONG_MAX
    else:
        value = min(value, _LONG_MAX + (1 if neg else 0))
        value = -value if neg else value
    return value, i


def _range(text: str, base: int) -> tuple[int | None, int | None]:
    """sscanf(text, "%ld-%ld") (or %lx): each None when it was not assigned."""
    first = _scan_int(text, 0, base)
    if first is None:
        return None, None
    lo, pos = first
    if _at(text, pos) != "-":
        return lo, None
    second = _scan_int(text, pos + 1, base)
    return lo, (second[0] if second else None)


def _cidr(rule: str, width: int) -> tuple[str, int] | None:
    """sscanf(rule, "%<width>[^/]/%lu") == 2: (address, mask)."""
    address = _scan_set(rule, 0, "/", width)
    if address is None or _at(rule, len(address)) != "/":
        return None
    mask = _scan_int(rule, len(address) + 1, 10, unsigned=True)
    if mask is None:
        return None
    return address, mask[0]


def fuzzy_set_match(rule: str, ip: str) -> bool:
    """FuzzySetMatch(rule, ip) == 0; where 3.21's result is undefined, no match."""
    return verdict(rule, ip) is True


def verdict(rule: str, ip: str) -> bool | None:
    """FuzzySetMatch(rule, ip) == 0, or None where 3.21 reads memory it does not
    own (its answer then depends on that memory: a range rule of fewer than four
    octets, an IPv4 CIDR whose address does not parse, an IPv6 range read past
    its end)."""
    if rule == ip:
        return True
    is_cidr = "/" in rule
    is_range = "-" in rule
    isv4 = "." in rule or "." in ip
    isv6 = ":" in rule or ":" in ip
    if (isv4 and isv6) or (is_cidr and is_range) or not (isv4 or isv6):
        return False
    if not (is_range or is_cidr):
        if len(ip) > len(rule) and ip[len(rule)] != ".":
            return False            # xxx.1 does not match xxx.12
        return ip.startswith(rule)
    if isv4:
        return _v4_cidr(rule, ip) if is_cidr else _v4_range(rule, ip)
    return _v6_cidr(rule, ip) if is_cidr else _v6_range(rule, ip)


def _v4(text: str) -> int | None:
    import ipaddress
    try:
        return int(ipaddress.IPv4Address(text))
    except ValueError:
        return None


def _v4_cidr(rule: str, ip: str) -> bool | None:
    parsed = _cidr(rule, 16)
    if parsed is None or parsed[1] > 32:
        return False                # "Invalid IPv4 CIDR"
    address, mask = parsed
    if mask == 0:
        return True
    a1, a2 = _v4(address), _v4(ip)
    if a1 is None or a2 is None:     # inet_pton failed: 3.21 compares garbage
        return None
    shift = 32 - mask
    return a1 >> shift == a2 >> shift


def _v4_range(rule: str, ip: str) -> bool | None:
    lo = hi = cmp = -1
    p1 = p2 = 0
    buf2 = ""
    for _ in range(4):
        if p1 > len(rule):
            return None              # past the rule's NUL
        buf1 = _scan_set(rule, p1, ".", 63) or ""
        if not buf1:
            break
        p1 += len(buf1) + 1
        got = _scan_set(ip, p2, ".", 63)
        if got is not None:
            buf2 = got
        p2 += len(buf2) + 1
        if "-" in buf1:
            a, b = _range(buf1, 10)
            lo = a if a is not None else lo
            hi = b if b is not None else hi
            c = _scan_int(buf2, 0, 10)
            cmp = c[0] if c else cmp
            if lo < 0 or hi < 0:
                return False
            if lo > cmp or cmp > hi:
                return False
        else:
            a1 = _scan_int(buf1, 0, 10)
            lo = a1[0] if a1 else lo
            c = _scan_int(buf2, 0, 10)
            cmp = c[0] if c else cmp
            if lo != cmp:
                return False
    return True


def _v6_bytes(text: str) -> bytes:
    import ipaddress
    if "%" in text:
        return bytes(16)
    try:
        return ipaddress.IPv6Address(text).packed
    except ValueError:
        return bytes(16)             # a failed inet_pton leaves the zeroed address


def _v6_cidr(rule: str, ip: str) -> bool:
    parsed = _cidr(rule, 40)
    if parsed is None or parsed[1] > 128 or parsed[1] % 8:
        return False
    address, mask = parsed
    blocks = mask // 8
    return _v6_bytes(address)[:blocks] == _v6_bytes(ip)[:blocks]


def _v6_range(rule: str, ip: str) -> bool | None:
    lo = hi = cmp = -1
    p1 = p2 = 0
    buf1 = buf2 = None               # not reset between groups, as in 3.21
    for _ in range(8):
        if p1 > len(rule) or p2 > len(ip):
            return None              # past a NUL
        got = _scan_set(rule, p1, ":", 63)
        buf1 = got if got is not None else buf1
        got = _scan_set(ip, p2, ":", 63)
        buf2 = got if got is not None else buf2
        if buf1 is None or buf2 is None:
            return None              # 3.21 reads an uninitialised buffer
        p1 += len(buf1) + 1
        p2 += len(buf2) + 1
        if "-" in buf1:
            a, b = _range(buf1, 16)
            lo = a if a is not None else lo
            hi = b if b is not None else hi
            c = _scan_int(buf2, 0, 16)
            cmp = c[0] if c else cmp
            if lo < 0 or hi < 0:
                return False
            if lo >= cmp or cmp > hi:
                return False
        else:
            a1 = _scan_int(buf1, 0, 10)
            lo = a1[0] if a1 else lo
            c = _scan_int(buf2, 0, 10)
            cmp = c[0] if c else cmp
            if lo != cmp:
                return False
    return True
