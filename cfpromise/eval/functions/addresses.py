"""IP and MAC addresses as ``sort(list, "ip")`` and ``sort(list, "mac")`` read them.

cf-agent 3.21 orders a list of addresses with its own readers, not with the textbook rules,
and a text one of them does not read goes first, among the others by byte order
(:func:`cfpromise.eval.functions.lists.sort_less`).  What they read, found by sorting many
shapes under both agents (tests/differential/agentmisc.py, ``sort_addresses``):

* IPv4 (tried first): four decimal fields, each at most 255, then maybe ``:PORT``; a
  field with no digit is no address.  Its reader stops at the first character it cannot
  take after the third dot without saying no, so ``1.2.3.4x`` and ``1.2.3.4.`` read as
  1.2.3.0, while ``9.7.5`` or ``9`` read as nothing;
* IPv6: lower-case hex fields of at most 16 bits, one ``::``, maybe in brackets with a
  ``:PORT`` after them; an upper-case hex digit (``FE80::1``), a dotted IPv4 tail
  (``::ffff:192.0.2.47``) or a second ``::`` is no address.  Inside brackets the fields
  after a ``::`` are placed from the end in reverse;
* every IPv4 address sorts before every IPv6 one; the port does not count;
* MAC (ParseEtherAddress): a text longer than 12 is ``sscanf("%hhx:%hhx:...")``, a
  shorter one ``%2hhx`` six times: each field a run of hex digits after blanks, a sign and
  a ``0x``, kept modulo 256 (``00:014:BF:0F7:23:01D`` is 00:14:BF:F7:23:1D).
"""
from __future__ import annotations

_HEX = frozenset("0123456789abcdefABCDEF")
_LOWER_HEX = frozenset("0123456789abcdef")
_DIGITS = frozenset("0123456789")


def ip_key(text: str) -> tuple[int, tuple[int, ...]] | None:
    """(4 or 6, the address's fields) as cf-agent's IPAddressNew reads ``text``, or None."""
    v4 = _ipv4(text)
    if v4 is not None:
        return 4, v4
    v6 = _ipv6(text)
    return None if v6 is None else (6, v6)


def _ipv4(text: str) -> tuple[int, ...] | None:
    octets = [0, 0, 0, 0]
    state = value = port = count = periods = colons = 0
    digit = False
    for ch in text:
        if state > 5:               # (the reader's error state, met at the next character)
            return None
        periods += ch == "."
        colons += ch == ":"
        changed = False
        if state < 3:
            if ch in _DIGITS:
                value, digit = value * 10 + int(ch), True
            elif ch == ".":
                octets[state], state, changed = value, state + 1, True
            else:
                state, changed = 7, True
        elif state == 3:
            if ch in _DIGITS:
                value, digit = value * 10 + int(ch), True
            elif ch == ":":
                octets[3], state, changed = value, 5, True
            else:
                state, changed = 7, True
        elif state == 5:
            if ch in _DIGITS:
                port = port * 10 + int(ch)
            else:
                state, changed = 7, True
        count += 1
        if value > 255 or port > 65535 or periods > 1 or colons > 1:
            return None
        if changed:
            if not digit:
                return None
            value = port = count = periods = colons = 0
            digit = False
    if state < 3 or state in (3, 5) and count == 0:
        return None
    if state == 3:
        octets[3] = value
    return tuple(octets)


def _ipv6(text: str) -> tuple[int, ...] | None:
    fields = [0] * 8
    later: list[int] = []           # the fields after a "::", placed from the end
    state = value = port = count = 0
    bracket = compressed = False
    for ch in text:
        if state == 11:
            return None
        hexdigit = ch in _HEX
        if hexdigit and ch not in _LOWER_HEX:
            state, hexdigit = 11, False     # (upper case: RFC 5952 says no, so does it)
            changed = True
        else:
            changed = False
        if state == 0 and not changed:
            if ch == "[" and count == 0:
                bracket = True
            elif hexdigit:
                value = value * 16 + int(ch, 16)
            elif ch == ":":
                fields[0], state, changed = value, 1, True
            else:
                state, changed = 11, True
        elif 1 <= state <= 6 and not changed:
            if hexdigit:
                value = value * 16 + int(ch, 16)
            elif ch == ":":
                if count == 0:
                    if compressed and state > 1:
                        state, changed = 11, True
                    else:
                        compressed = True
                        if state == 1:
                            state, changed = 2, True
                else:
                    if compressed and state > 1:
                        later.append(value)
                    else:
                        fields[state] = value
                    state, changed = state + 1, True
            elif ch == "]" and state > 1 and bracket and compressed:
                bracket = False
                later.append(value)
                state, changed = 8, True
            else:
                state, changed = 11, True
        elif state == 7 and not changed:
            if hexdigit:
                value = value * 16 + int(ch, 16)
            elif ch == "]" and bracket:
                bracket = False
                fields[7], state, changed = value, 8, True
            else:
                state, changed = 11, True
        elif state == 8 and not changed:
            state, changed = (9, True) if ch == ":" else (11, True)
        elif state == 9 and not changed:
            if ch in _DIGITS:
                port = port * 10 + int(ch)
            else:
                state, changed = 11, True
        count += 1
        if value > 0xFFFF or port > 65535:
            return None
        if changed:
            value = port = count = 0
    if state in (0, 1, 11):
        return None
    if 2 <= state <= 6:
        if bracket or not compressed:
            return None
        later.append(value)
        for i, field in enumerate(reversed(later)):
            fields[7 - i] = field
    elif state == 7:
        if count == 0 or bracket:
            return None
        fields[7] = value
    elif state == 8 and compressed:
        for i, field in enumerate(later):
            fields[7 - i] = field
    elif state == 9 and count == 0:
        return None
    return tuple(fields)


def mac_bytes(text: str) -> bytes | None:
    """ParseEtherAddress's six bytes of ``text``, or None unless all six are read."""
    pos, out = 0, []
    for i in range(6):
        if len(text) > 12 and i:
            if pos >= len(text) or text[pos] != ":":
                return None
            pos += 1
        found = _scan_hex(text, pos, None if len(text) > 12 else 2)
        if found is None:
            return None
        value, pos = found
        out.append(value)
    return bytes(out)


def _scan_hex(text: str, pos: int, width: int | None) -> tuple[int, int] | None:
    """One ``%hhx`` (``width``: ``%2hhx``) from ``pos``: (its byte, where it stopped)."""
    n = len(text)
    while pos < n and text[pos] in " \t\n\r\f\v":
        pos += 1
    end = n if width is None else min(n, pos + width)
    sign = 1
    if pos < end and text[pos] in "+-":
        sign = -1 if text[pos] == "-" else 1
        pos += 1
    if text[pos:pos + 2] in ("0x", "0X") and pos + 2 < end and text[pos + 2] in _HEX:
        pos += 2
    start = pos
    while pos < end and text[pos] in _HEX:
        pos += 1
    if pos == start:
        return None
    return (sign * int(text[start:pos], 16)) % 256, pos
