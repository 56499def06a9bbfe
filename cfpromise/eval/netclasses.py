"""Host discovery's network probes: interfaces (step 2 of hardclasses.discover) and
/proc/net (step 3).

A module of its own because it is a job of its own (and hardclasses.py was over 600
lines): the kernel's interface list (SIOCGIFCONF through hostinfo.NetProbe) gives the
``ipv4_*``, ``net_iface_*`` and ``mac_*`` classes and the ``sys.ipv4[...]`` arrays;
what cf-agent reads from ``/sbin/ifconfig -a`` (IPv6 addresses, the MACs of
interfaces without IPv4) is read from /proc and /sys, and only when /sbin/ifconfig
exists, like cf-agent; /proc/net gives ``sys.inet``, ``sys.inet6``,
``sys.interfaces_data`` and the ``ipv4_gw_*`` class.  Facts go to the collector
hardclasses.discover passes in (releases.Sink's put_class/put_var).
"""
from __future__ import annotations


from cfpromise.eval import hostinfo, procnet
from cfpromise.eval.canon import canonify
from cfpromise.eval.releases import INV
from cfpromise.eval.hostinfo import FileSource

TYPE_CHECKING = False
if TYPE_CHECKING:
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
    dev_names = [name for name, _ in procnet.parse_net_dev(files.read("/proc/net/dev") or "")]
    names = sorted(set(dev_names) | set(kernel_names), key=hostinfo.natural_key)
    inet6 = procnet.parse_if_inet6(files.read("/proc/net/if_inet6") or "")
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
        routes = procnet.parse_route(route_text)
        default = next((r for r in routes if r["active_default_gateway"]), None)
        if default is not None:
            inet["default_gateway"] = default["gateway"]
            inet["default_route"] = default
        inet["routes"] = routes
    netstat = files.read("/proc/net/netstat")
    if netstat is not None:
        inet["stats"] = procnet.parse_netstat(netstat)
    if inet:
        sink.put_var("inet", "data", dict(sorted(inet.items())), NET_TAGS)
    if "default_gateway" in inet:
        sink.put_class(f"ipv4_gw_{inet['default_gateway']}",
                       "inventory,networking,/proc,source=agent,attribute_name=none,procfs")
    inet6: dict[str, object] = {}
    if_inet6 = files.read("/proc/net/if_inet6")
    if if_inet6 is not None:
        addresses: dict[str, object] = {}
        for entry in procnet.parse_if_inet6(if_inet6):
            entry = {k: v for k, v in entry.items() if not k.startswith("_")}
            # One entry per interface: the last one, but a link-local address
            # (scope 0x20) never replaces another (observed on cf-agent 3.21).
            name = str(entry["interface"])
            if name not in addresses or entry["scope"] != 0x20:
                addresses[name] = entry
        inet6["addresses"] = dict(sorted(addresses.items()))
    ipv6_route = files.read("/proc/net/ipv6_route")
    if ipv6_route is not None:
        inet6["routes"] = procnet.parse_ipv6_route(ipv6_route)
    snmp6 = files.read("/proc/net/snmp6")
    if snmp6 is not None:
        inet6["stats"] = procnet.parse_snmp6(snmp6)
    if inet6:
        sink.put_var("inet6", "data", dict(sorted(inet6.items())), NET_TAGS)
    dev = files.read("/proc/net/dev")
    if dev is not None:
        data = dict(sorted(procnet.parse_net_dev(dev)))
        sink.put_var("interfaces_data", "data", data, NET_TAGS)
