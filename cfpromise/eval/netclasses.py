"""Host discovery's network probes: interfaces (step 2 of hardclasses.discover) and
/proc/net (step 3).

A module of its own because it is a job of its own (and hardclasses.py was over 600
lines): the kernel's interface list (SIOCGIFCONF through hostinfo.NetProbe) gives the
``ipv4_*``, ``net_iface_*`` and ``mac_*`` classes and the ``sys.ipv4[...]`` arrays;
what cf-agent reads from ``/sbin/ifconfig -a`` (IPv6 addresses, the MACs of
interfaces without IPv4) is read from /proc and /sys, and only when /sbin/ifconfig
exists, like cf-agent; /proc/net gives ``sys.inet``, ``sys.inet6``,
``sys.interfaces_data`` and the ``ipv4_gw_*`` class, through the parsers at the end of
this module, which reproduce cf-agent 3.21's quirks: IPv6 route lines whose hex
``refcnt``/``use`` contain letters are dropped, IPv6 metrics are hex and signed (IPv4
ones decimal), and the IPv6 route ``dest`` is always ``0:0:0:0:0:0:0:0`` on real hosts
(we print the source column there, all zeros in practice; cf-agent's exact rule is
unknown).  Pure functions of the text, no expensive imports (no ``re``): discovery runs
at every agent start (one module, not two: a module import is about 0.3 M
instructions of a 85 M one-report run).  Facts go to the collector
hardclasses.discover passes in (releases.Sink's put_class/put_var).
"""
from __future__ import annotations


from cfpromise.eval import hostinfo
from cfpromise.eval.canon import canonify
from cfpromise.eval.releases import INV
from cfpromise.eval.hostinfo import FileSource, ipv6_groups

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cfpromise.eval.releases import Sink as Collector

SRC = "source=agent"
NET_TAGS = "networking,/proc,source=agent,procfs"


# ---------------------------------------------------------------------------
# Interfaces


def _ignored_interfaces(inputdir: str) -> list[str]:
    try:
        with open(inputdir + "/ignore_interfaces.rx", encoding="utf-8", errors="replace") as handle:
            return handle.read().split()
    except OSError:
        return []


def _is_ignored(name: str, patterns: list[str]) -> bool:
    if not patterns:
        return False
    import re

    for pattern in patterns:
        try:
            if pattern == name or re.fullmatch(pattern, name):
                return True
        except re.error:
            continue
    return False


def _ipv4_prefix_classes(sink: Collector, address: str) -> None:
    ip = "ipv4_" + address
    while "." in ip:
        ip = ip.rsplit(".", 1)[0]
        sink.put_class(ip, INV)


def _ipv4_array(sink: Collector, key: str, address: str) -> None:
    ip, index = address, 3
    while "." in ip:
        ip = ip.rsplit(".", 1)[0]
        sink.put_var(f"ipv4_{index}[{key}]", "string", ip, SRC)
        index -= 1


def interfaces(
    sink: Collector, files: FileSource, live: FileSource, inputdir: str, fqhost: str
) -> None:
    """GetInterfacesInfo plus what cf-agent parses out of ``ifconfig -a``."""
    ignore = _ignored_interfaces(inputdir)
    interfaces: list[str] = []
    hardware: list[str] = []
    flag_texts: list[str] = []
    ips: list[str] = []
    kernel_names: list[str] = []
    if files.is_live:
        with hostinfo.NetProbe() as probe:
            entries = probe.ifconf()
            last_name = ""
            address_set = False
            for name, family, address in entries:
                if family == 0 or not name or _is_ignored(name, ignore):
                    continue
                kernel_names.append(name)
                if name != last_name:
                    last_name = name
                    sink.put_var("interface", "string", name, SRC)
                sink.put_class("net_iface_" + canonify(name), SRC)
                if family != 2:
                    continue
                flags = probe.flags(name)
                if flags is None:
                    continue
                text = hostinfo.flags_text(flags)
                if text:
                    sink.put_var(f"interface_flags[{name}]", "string", text, SRC)
                    flag_texts.append(text)
                loopback = bool(flags & hostinfo.IFF_LOOPBACK)
                if flags & hostinfo.IFF_UP:
                    key = canonify(name)
                    sink.put_class(address, INV)
                    if address == "0.0.0.0":
                        resolved = hostinfo.resolve_host(fqhost, live)
                        if resolved and resolved[2]:
                            dns_ip = resolved[2][0]
                            _ipv4_prefix_classes(sink, dns_ip)
                            ips.append(dns_ip)
                            _ipv4_array(sink, canonify(dns_ip), dns_ip)
                        continue
                    sink.put_class("ipv4_" + address, INV)
                    if not address_set and not loopback:
                        sink.put_var("ipv4", "string", address,
                                     "inventory,source=agent,attribute_name=none")
                        address_set = True
                    ips.append(address)
                    _ipv4_prefix_classes(sink, address)
                    sink.put_var(f"ipv4[{key}]", "string", address, SRC)
                    _ipv4_array(sink, key, address)
                    sink.put_var(f"ip2iface[{address}]", "string", key, SRC)
                if loopback:
                    continue
                mac = probe.hwaddr(name)
                if mac is None:
                    continue
                sink.put_var(f"hardware_mac[{canonify(name)}]", "string", mac, SRC)
                if mac not in hardware:
                    hardware.append(mac)
                if name not in interfaces:
                    interfaces.append(name)
                sink.put_class("mac_" + canonify(mac), INV)
    ipv6 = _ifconfig_facts(sink, files, kernel_names, hardware)
    if interfaces:
        sink.put_var("interfaces", "slist", interfaces,
                     "inventory,source=agent,attribute_name=Interfaces")
    if hardware:
        sink.put_var("hardware_addresses", "slist", hardware,
                     "inventory,source=agent,attribute_name=MAC addresses")
    if flag_texts:
        sink.put_var("hardware_flags", "slist", flag_texts, SRC)
    if ips or ipv6:
        sink.put_var("ip_addresses", "slist", ips + ipv6, SRC)


def _ifconfig_facts(
    sink: Collector, files: FileSource, kernel_names: list[str], hardware: list[str]
) -> list[str]:
    """What cf-agent takes from ``/sbin/ifconfig -a``: IPv6 addresses and extra MACs.

    ifconfig lists every interface of /proc/net/dev (and the IPv4 labels) in
    natural name order, with its /proc/net/if_inet6 addresses in file order
    and, for Ethernet-type devices, the hardware address.  Returns the IPv6
    addresses (``::1`` excluded) and defines their classes.
    """
    if not files.readable("/sbin/ifconfig"):
        return []
    dev_names = [name for name, _ in parse_net_dev(files.read("/proc/net/dev") or "")]
    names = sorted(set(dev_names) | set(kernel_names), key=hostinfo.natural_key)
    inet6 = parse_if_inet6(files.read("/proc/net/if_inet6") or "")
    addresses: list[str] = []
    for name in names:
        for entry in inet6:
            if entry["interface"] != name:
                continue
            address = hostinfo.ipv6_compressed(entry["_hex"])
            if address == "::1":
                continue
            addresses.append(address)
            sink.put_class(address, INV)
            sink.put_class("ipv6_" + address, INV)
        key = f"hardware_mac[{canonify(name)}]"
        if key in sink.vars or (files.read(f"/sys/class/net/{name}/type") or "").strip() != "1":
            continue
        mac = (files.read(f"/sys/class/net/{name}/address") or "").strip()
        if mac:
            sink.put_var(key, "string", mac, "source=agent,derived-from=ifconfig")
            if mac not in hardware:
                hardware.append(mac)
    return addresses


# ---------------------------------------------------------------------------
# /proc/net


def networking(sink: Collector, files: FileSource) -> None:
    """GetNetworkingInfo: sys.inet, sys.inet6, sys.interfaces_data, ipv4_gw_*.

    Object keys are sorted at every level, as cf-agent stores these containers.
    """
    inet: dict[str, object] = {}
    route_text = files.read("/proc/net/route")
    if route_text is not None:
        routes = parse_route(route_text)
        default = next((r for r in routes if r["active_default_gateway"]), None)
        if default is not None:
            inet["default_gateway"] = default["gateway"]
            inet["default_route"] = default
        inet["routes"] = routes
    netstat = files.read("/proc/net/netstat")
    if netstat is not None:
        inet["stats"] = parse_netstat(netstat)
    if inet:
        sink.put_var("inet", "data", dict(sorted(inet.items())), NET_TAGS)
    if "default_gateway" in inet:
        sink.put_class(f"ipv4_gw_{inet['default_gateway']}",
                       "inventory,networking,/proc,source=agent,attribute_name=none,procfs")
    inet6: dict[str, object] = {}
    if_inet6 = files.read("/proc/net/if_inet6")
    if if_inet6 is not None:
        addresses: dict[str, object] = {}
        for entry in parse_if_inet6(if_inet6):
            entry = {k: v for k, v in entry.items() if not k.startswith("_")}
            # One entry per interface: the last one, but a link-local address
            # (scope 0x20) never replaces another (observed on cf-agent 3.21).
            name = str(entry["interface"])
            if name not in addresses or entry["scope"] != 0x20:
                addresses[name] = entry
        inet6["addresses"] = dict(sorted(addresses.items()))
    ipv6_route = files.read("/proc/net/ipv6_route")
    if ipv6_route is not None:
        inet6["routes"] = parse_ipv6_route(ipv6_route)
    snmp6 = files.read("/proc/net/snmp6")
    if snmp6 is not None:
        inet6["stats"] = parse_snmp6(snmp6)
    if inet6:
        sink.put_var("inet6", "data", dict(sorted(inet6.items())), NET_TAGS)
    dev = files.read("/proc/net/dev")
    if dev is not None:
        data = dict(sorted(parse_net_dev(dev)))
        sink.put_var("interfaces_data", "data", data, NET_TAGS)


# ---------------------------------------------------------------------------
# /proc/net parsers


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
