"""The /proc/net parsers of host discovery (cfpromise/eval/netclasses.py).

They turn /proc/net files into the data containers ``sys.inet``, ``sys.inet6`` and
``sys.interfaces_data``, reproducing cf-agent 3.21's quirks: IPv6 route lines whose
hex ``refcnt``/``use`` contain letters are dropped, IPv6 metrics are hex and signed
(IPv4 ones decimal), and the IPv6 route ``dest`` is always ``0:0:0:0:0:0:0:0`` on
real hosts (we print the source column there, all zeros in practice; cf-agent's
exact rule is unknown).  Pure functions of the text, no expensive imports (no
``re``), as hostinfo.py's probes: discovery runs at every agent start.
"""
from __future__ import annotations

from cfpromise.eval.hostinfo import ipv6_groups

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any



def _hex_le_ipv4(hex8: str) -> str:
    """``0102A8C0`` (little-endian, as in /proc/net/route) -> ``192.168.2.1``."""
    raw = bytes.fromhex(hex8)
    return ".".join(str(b) for b in reversed(raw))


def _is_hex(text: str) -> bool:
    return bool(text) and not text.strip("0123456789abcdefABCDEF")


def _is_dec(text: str) -> bool:
    return bool(text) and text.isascii() and text.isdigit()


def _decimal_or_text(text: str) -> int | str:
    return int(text) if _is_dec(text) else text


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


RTF_UP = 0x1
RTF_GATEWAY = 0x2
RTF_HOST = 0x4


def _route_flags(flags: int, default: bool | None) -> list[str]:
    out = ["up" if flags & RTF_UP else "down", "host" if flags & RTF_HOST else "net"]
    if default is not None:
        out.append("default" if default else "not_default")
    out.append("gateway" if flags & RTF_GATEWAY else "local")
    return out


def parse_route(text: str) -> list[dict[str, Any]]:
    """/proc/net/route -> ``sys.inet[routes]`` entries."""
    routes = []
    for line in text.splitlines()[1:]:
        f = line.split()
        if len(f) < 11 or not all(_is_hex(x) for x in f[1:11]):
            continue
        flags = int(f[3], 16)
        dest = _hex_le_ipv4(f[1])
        default = dest == "0.0.0.0"
        routes.append({
            "active_default_gateway": bool(default and flags & RTF_GATEWAY and flags & RTF_UP),
            "dest": dest,
            "flags": _route_flags(flags, default),
            "gateway": _hex_le_ipv4(f[2]),
            "interface": f[0],
            "irtt": _decimal_or_text(f[10]),
            "mask": _hex_le_ipv4(f[7]),
            "metric": _decimal_or_text(f[6]),
            "mtu": _decimal_or_text(f[8]),
            "refcnt": _decimal_or_text(f[4]),
            "use": _decimal_or_text(f[5]),
            "window": _decimal_or_text(f[9]),
        })
    return routes


def parse_ipv6_route(text: str) -> list[dict[str, Any]]:
    """/proc/net/ipv6_route -> ``sys.inet6[routes]`` entries, with cf-agent 3.21's quirks.

    Checked against cf-agent on live hosts and on the acceptance suite's
    proc-net fixture; see the module docstring for the quirks.
    """
    routes = []
    for line in text.splitlines():
        f = line.split()
        if len(f) < 10 or not all(_is_hex(x) for x in f[0:6] + f[8:9]):
            continue
        if not (_is_dec(f[6]) and _is_dec(f[7])) or len(f[0]) != 32 or len(f[2]) != 32:
            continue
        if len(f[4]) != 32:
            continue
        flags = int(f[8], 16)
        routes.append({
            "dest": ipv6_groups(f[2]),
            "dest_prefix": f[1],
            "flags": _route_flags(flags, None),
            "interface": f[9],
            "metric": _int32(int(f[5], 16)),
            "next_hop": ipv6_groups(f[4]),
            "refcnt": int(f[6]),
            "source_prefix": f[3],
            "use": int(f[7]),
        })
    return routes


def parse_if_inet6(text: str) -> list[dict[str, Any]]:
    """/proc/net/if_inet6 -> one dict per address, in file order.

    Each has the ``sys.inet6[addresses]`` keys plus ``_hex`` (the raw address).
    """
    out = []
    for line in text.splitlines():
        f = line.split()
        if len(f) < 6 or len(f[0]) != 32 or not all(_is_hex(x) for x in f[0:5]):
            continue
        out.append({
            "_hex": f[0],
            "address": ipv6_groups(f[0]),
            "device_number": int(f[1], 16),
            "interface": f[5],
            "prefix_length": int(f[2], 16),
            "raw_flags": f[4],
            "scope": int(f[3], 16),
        })
    return out


_DEV_FIELDS = ("bytes", "packets", "errors", "drop", "fifo", "frame", "compressed", "multicast")


def parse_net_dev(text: str) -> list[tuple[str, dict[str, str]]]:
    """/proc/net/dev -> (interface, ``sys.interfaces_data`` entry, keys sorted) in file order.

    cf-agent names the eight transmit columns like the receive ones.
    """
    out = []
    for line in text.splitlines()[2:]:
        name, sep, rest = line.partition(":")
        values = rest.split()
        if not sep or len(values) < 16:
            continue
        name = name.strip()
        entry = {"device": name}
        for k, field in enumerate(_DEV_FIELDS):
            entry["receive_" + field] = values[k]
            entry["transmit_" + field] = values[8 + k]
        out.append((name, dict(sorted(entry.items()))))
    return out


def parse_netstat(text: str) -> dict[str, dict[str, str]]:
    """/proc/net/netstat -> {section: {counter: value string}}, keys sorted."""
    out: dict[str, dict[str, str]] = {}
    lines = text.splitlines()
    for header, values in zip(lines[0::2], lines[1::2]):
        h_name, _, h_rest = header.partition(":")
        v_name, _, v_rest = values.partition(":")
        if h_name != v_name:
            continue
        out[h_name.strip()] = dict(sorted(zip(h_rest.split(), v_rest.split())))
    return dict(sorted(out.items()))


def parse_snmp6(text: str) -> dict[str, int | str]:
    """/proc/net/snmp6 -> {counter: integer}, keys sorted."""
    out: dict[str, int | str] = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 2:
            out[f[0]] = _decimal_or_text(f[1])
    return dict(sorted(out.items()))
