"""network_connections(): /proc/net/{tcp,tcp6,udp,udp6} as cf-agent 3.21 shows
them.

Each line matching ``^\\s*\\d+:\\s+LOCAL\\s+REMOTE\\s+STATE`` becomes
``{"local": {"address", "port"}, "remote": {...}, "state": NAME}``.  IPv4
addresses are the little-endian hex words as dotted quads, IPv6 ones eight
``%x`` groups (cf-agent's IPAddressNewHex); ports are decimal text.  cf-agent
reads the state with a *decimal* pattern, so only states 01..09 get a name
(``0A``, LISTEN, reads as 0 and shows as ``UNKNOWN``); we do the same.
"""
from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_LINE = re.compile(r"^\s*\d+:\s+([0-9A-F:]+)\s+([0-9A-F:]+)\s+([0-9]+)")
_STATES = {1: "ESTABLISHED", 2: "SYN_SENT", 3: "SYN_RECV", 4: "FIN_WAIT1", 5: "FIN_WAIT2",
           6: "TIME_WAIT", 7: "CLOSE", 8: "CLOSE_WAIT", 9: "LAST_ACK", 10: "LISTEN",
           11: "CLOSING"}


def _address(raw: str) -> dict[str, str] | None:
    host, _, port = raw.partition(":")
    try:
        port_number = int(port, 16) if port else 0
    except ValueError:
        return None
    if len(host) == 8:
        octets = bytes.fromhex(host)[::-1]
        address = ".".join(str(b) for b in octets)
    elif len(host) == 32:
        address = ":".join(f"{int(host[k:k + 4], 16):x}" for k in range(0, 32, 4))
    else:
        return None
    return {"address": address, "port": str(port_number)}


def parse(text: str) -> list[dict[str, Any]]:
    """The connections of one /proc/net file."""
    out: list[dict[str, Any]] = []
    for line in text.split("\n"):
        m = _LINE.match(line)
        if not m:
            continue
        entry: dict[str, Any] = {}
        local, remote = _address(m.group(1)), _address(m.group(2))
        if local is not None:
            entry["local"] = local
        if remote is not None:
            entry["remote"] = remote
        entry["state"] = _STATES.get(int(m.group(3)), "UNKNOWN")
        out.append(entry)
    return out


def connections(procdir: str = "/proc") -> dict[str, Any] | None:
    """All four tables; None if none could be read."""
    result: dict[str, Any] = {}
    for name in ("tcp", "tcp6", "udp", "udp6"):
        try:
            with open(f"{procdir}/net/{name}") as handle:
                result[name] = parse(handle.read())
        except OSError:
            continue
    return result or None
