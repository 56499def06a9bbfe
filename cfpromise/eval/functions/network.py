"""Network built-ins: name resolution, address ranges, peer groups, TCP.

* ``host2ip``/``ip2host`` return their argument unchanged when resolution
  fails (cf-agent's "legacy behaviour");
* ``iprange``/``isipinsubnet`` use cf-agent's FuzzySetMatch: CIDR
  (``10.0.0.0/8``), per-octet ranges (``10.0.0.1-100``) and prefixes
  (``10.0`` matches ``10.0.x.y`` but not ``10.01``);
* ``hostrange("host", "1-9")`` matches this host's short name;
* ``peers``/``peerleader``/``peerleaders`` split a host list file (comments
  stripped) into groups;
* ``readtcp``, ``selectservers`` and ``url_get`` talk to the network for real
  (only loopback may be reachable on a test host): connection failures are
  errors, not hangs (short timeouts);
* ``hostsseen`` needs cf-agent's lastseen database, which cf-lite does not
  keep: it fails like cf-agent does when no host has been seen.
"""
from __future__ import annotations

import re

from cfpromise.eval.functions import pcre
from cfpromise.eval.functions.api import FunctionError, builtin
from cfpromise.eval.functions.common import argv, cached, flat_args, int_arg, scalar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Sequence

    from cfpromise.eval.functions.api import FunctionContext, Value

_CONNECT_TIMEOUT = 10.0

# ---------------------------------------------------------------------------
# Names


@builtin("host2ip", cached=True)
def host2ip(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (name,) = argv("host2ip", args, 1)

    def compute() -> Any:
        import socket
        try:
            infos = socket.getaddrinfo(name, None, 0, socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            return name
        return str(infos[0][4][0]) if infos else name

    return cached(ctx, ("host2ip", name), compute)


@builtin("ip2host", cached=True)
def ip2host(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (address,) = argv("ip2host", args, 1)

    def compute() -> Any:
        import socket
        try:
            return socket.getnameinfo((address, 0), socket.NI_NAMEREQD)[0]
        except (OSError, UnicodeError, ValueError):
            return address

    return cached(ctx, ("ip2host", address), compute)


# ---------------------------------------------------------------------------
# Address ranges (FuzzySetMatch)


def _leading_long(text: str, base: int = 10) -> int | None:
    m = re.match(r"\s*([+-]?[0-9a-fA-F]+)" if base == 16 else r"\s*([+-]?\d+)", text)
    return int(m.group(1), base) if m else None


def fuzzy_set_match(pattern: str, address: str) -> bool:
    """cf-agent's FuzzySetMatch(pattern, address) == 0."""
    import ipaddress
    if pattern == address:
        return True
    cidr, ranged = "/" in pattern, "-" in pattern
    v4 = "." in pattern or "." in address
    v6 = ":" in pattern or ":" in address
    if (v4 and v6) or (cidr and ranged) or not (v4 or v6):
        return False
    if not (cidr or ranged):
        if len(address) > len(pattern) and address[len(pattern)] != ".":
            return False
        return address.startswith(pattern)
    if cidr:
        base, _, mask_text = pattern.partition("/")
        if not mask_text.isdigit():
            return False
        mask = int(mask_text)
        try:
            a = ipaddress.ip_address(base)
            b = ipaddress.ip_address(address)
        except ValueError:
            return False
        if a.version != b.version:
            return False
        if v4:
            if mask > 32:
                return False
            if mask == 0:
                return True
            shift = 32 - mask
            return int(a) >> shift == int(b) >> shift
        if mask > 128 or mask % 8:
            return False
        return a.packed[:mask // 8] == b.packed[:mask // 8]
    sep, count, base = (".", 4, 10) if v4 else (":", 8, 16)
    parts1, parts2 = pattern.split(sep), address.split(sep)
    for i in range(count):
        p1 = parts1[i] if i < len(parts1) else ""
        p2 = parts2[i] if i < len(parts2) else ""
        if v4 and p1 == "":
            break
        if "-" in p1:
            low_text, _, high_text = p1.partition("-")
            low, high = _leading_long(low_text, base), _leading_long(high_text, base)
            cmp = _leading_long(p2, base)
            if low is None or high is None or low < 0 or high < 0 or cmp is None:
                return False
            if (low > cmp or cmp > high) if v4 else (low >= cmp or cmp > high):
                return False
        else:
            if _leading_long(p1) != _leading_long(p2):
                return False
    return True


def host_addresses() -> list[tuple[str, str]]:
    """(address, canonified interface) for this host's IPv4 and IPv6 addresses."""
    from cfpromise.eval.canon import canonify
    from cfpromise.eval.hostinfo import NetProbe, ipv6_compressed
    out: list[tuple[str, str]] = []
    try:
        with NetProbe() as probe:
            for name, _family, ip in probe.ifconf():
                out.append((ip, canonify(name)))
    except OSError:
        pass
    try:
        with open("/proc/net/if_inet6") as handle:
            for line in handle:
                fields = line.split()
                if len(fields) >= 6:
                    out.append((ipv6_compressed(fields[0]), canonify(fields[5])))
    except OSError:
        pass
    return out


@builtin("iprange")
def iprange(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    values = flat_args("iprange", args)
    if not values:
        raise FunctionError("Function 'iprange' requires at least one argument")
    pattern, interfaces = values[0], values[1:]
    from cfpromise.eval.canon import canonify
    wanted = {canonify(i) for i in interfaces}
    for address, interface in host_addresses():
        if fuzzy_set_match(pattern, address) and (not wanted or interface in wanted):
            return True
    return False


@builtin("isipinsubnet")
def isipinsubnet(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    values = flat_args("isipinsubnet", args)
    if not values:
        raise FunctionError("Function 'isipinsubnet' requires at least one argument")
    return any(fuzzy_set_match(values[0], ip) for ip in values[1:])


@builtin("hostrange")
def hostrange(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    prefix, span = argv("hostrange", args, 2)
    m = re.match(r"\s*([+-]?\d+)-\s*([+-]?\d+)", span)
    if not m:
        raise FunctionError("HostRange syntax error: second arg should have X-Y format where "
                            "X and Y are decimal numbers")
    var = ctx.lookup("sys.uqhost")
    if var is not None:
        host = str(var.value)
    else:
        import socket
        host = socket.gethostname().split(".")[0]
    digits = re.search(r"(\d*)$", host)
    number = digits.group(1) if digits else ""
    base = host[:len(host) - len(number)]
    if not number or not base:
        return False
    value = int(number)
    if value < int(m.group(1)) or value > int(m.group(2)):
        return False
    return base.lower() == prefix.lower()


@builtin("hostsseen")
def hostsseen(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    argv("hostsseen", args, 3)
    raise FunctionError("hostsseen(): no host has been seen (cf-lite keeps no lastseen "
                        "database)")


@builtin("network_connections")
def network_connections(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """TCP and UDP sockets from /proc/net, as cf-agent's GetNetworkingConnections."""
    argv("network_connections", args, 0)
    from cfpromise.eval.functions.netconn import connections
    from cfpromise.eval.hostinfo import procdir_root
    result = connections(procdir_root().rstrip("/") + "/proc")
    if result is None:
        raise FunctionError("network_connections: nothing could be read from /proc/net")
    return result


# ---------------------------------------------------------------------------
# Peer groups


def _peer_hosts(fn: str, ctx: FunctionContext, args: Sequence[Value]) -> tuple[list[str], int]:
    from cfpromise.eval.functions import messages
    from cfpromise.eval.functions.files import cf_read_file
    from cfpromise.eval.functions.readers import strip_patterns
    path, comment, size = argv(fn, args, 3)
    group = int_arg(size)
    if group < 2:
        raise messages.fail("peers.group_size", fn=fn, size=group)
    text = cf_read_file(ctx, path, 100000)
    if text is None:
        raise FunctionError(f"Function {fn}: cannot read '{path}'")
    text = strip_patterns(text, comment, path, ctx)
    hosts = [h for h in pcre.split(text, "\n", 100000, True) if h]
    return hosts, group


def _me(ctx: FunctionContext) -> set[str]:
    names = set()
    for var in ("sys.fqhost", "sys.uqhost"):
        v = ctx.lookup(var)
        if v is not None:
            names.add(str(v.value))
    if not names:
        import socket
        names.add(socket.gethostname())
    return names


@builtin("peers")
def peers(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    hosts, group = _peer_hosts("peers", ctx, args)
    me = _me(ctx)
    for start in range(0, len(hosts), group):
        chunk = hosts[start:start + group]
        if me & set(chunk):
            return [h for h in chunk if h not in me]
    return []


@builtin("peerleader")
def peerleader(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    hosts, group = _peer_hosts("peerleader", ctx, args)
    me = _me(ctx)
    for start in range(0, len(hosts), group):
        chunk = hosts[start:start + group]
        for host in chunk:
            if host in me:
                return "localhost" if chunk[0] in me else chunk[0]
    raise FunctionError("peerleader: this host is not in the peer list")


@builtin("peerleaders")
def peerleaders(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    hosts, group = _peer_hosts("peerleaders", ctx, args)
    me = _me(ctx)
    return ["localhost" if hosts[i] in me else hosts[i] for i in range(0, len(hosts), group)]


# ---------------------------------------------------------------------------
# TCP and URLs


def _tcp_exchange(host: str, port: str, send: str, maxbytes: int) -> str:
    import socket
    if maxbytes < 0 or maxbytes > 4095:
        maxbytes = 4095
    try:
        with socket.create_connection((host, int(port)), timeout=_CONNECT_TIMEOUT) as sock:
            if send:
                sock.sendall(send.encode("utf-8", "surrogateescape"))
            data = sock.recv(maxbytes) if maxbytes else b""
    except (OSError, ValueError) as exc:
        raise FunctionError(f"readtcp: Couldn't connect to {host}:{port} ({exc})") from None
    return data.decode("utf-8", "surrogateescape")


@builtin("readtcp", cached=True)
def readtcp(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    host, port, send, maxbytes = argv("readtcp", args, 4)
    return cached(ctx, ("readtcp", host, port, send, maxbytes),
                  lambda: _tcp_exchange(host, port, send, int_arg(maxbytes)))


@builtin("selectservers")
def selectservers(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """Hosts of the list that answer on ``port`` (and whose reply to ``send``
    matches ``regex``) go into ``array[0]``, ``array[1]``...; returns their number."""
    hostlist, port, send, regex, maxbytes, array = argv("selectservers", args, 6, raw=(0,))
    if isinstance(hostlist, list):
        hosts = [scalar(h, "selectservers", 0) for h in hostlist]
    else:
        from cfpromise.eval.functions.common import naked
        name = scalar(hostlist, "selectservers", 0)
        if not name.startswith("@"):
            raise FunctionError(f"Function selectservers was promised a list called "
                                f"'{name}' but this was not found")
        var = ctx.lookup(naked(name))
        if var is None or not isinstance(var.value, list):
            raise FunctionError(f"Function selectservers was promised a list called "
                                f"'{name}' but this was not found")
        hosts = [str(h) for h in var.value]
    rx = pcre.compile_regex(regex) if regex else None
    count = 0
    for host in hosts:
        try:
            reply = _tcp_exchange(host, port, send, int_arg(maxbytes)) if send else \
                _tcp_exchange(host, port, "", 0)
        except FunctionError:
            continue
        if send and rx is not None and not pcre.full_match(rx, reply):
            continue
        ctx.define_variable(f"{array}[{count}]", "string", host,
                            ("source=function", "function=selectservers"))
        count += 1
    return str(count)


@builtin("url_get")
def url_get(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """Fetch a URL (file, ftp, http, https) like cf-agent's libcurl code."""
    url, options_arg = argv("url_get", args, 2, raw=(1,))
    from cfpromise.eval.functions.common import collect
    options = collect(ctx, options_arg)
    if not isinstance(options, dict):
        raise FunctionError("url_get: the options must be a data container object")
    from cfpromise.eval.functions import jsondata
    key = ("url_get", url, jsondata.dumps(options, pretty=False))
    return cached(ctx, key, lambda: _fetch(url, options))


def _fetch(url: str, options: dict[str, Any]) -> dict[str, Any]:
    import urllib.error
    import urllib.request
    timeout = float(int_arg(str(options.get("url.timeout", "3"))))
    max_content = int_arg(str(options.get("url.max_content", "4096")))
    max_headers = int_arg(str(options.get("url.max_headers", "4096")))
    headers = options.get("url.headers", [])
    request = urllib.request.Request(url)
    for header in headers if isinstance(headers, list) else []:
        name, _, value = str(header).partition(":")
        request.add_header(name.strip(), value.strip())
    if "url.user-agent" in options:
        request.add_header("User-Agent", str(options["url.user-agent"]))
    if "url.referer" in options:
        request.add_header("Referer", str(options["url.referer"]))
    result: dict[str, Any] = {"returncode": 0, "rc": 0, "success": True}
    content = header_text = b""
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            result["returncode"] = getattr(response, "status", 0) or 0
            header_text = str(getattr(response, "headers", "")).encode()
            content = response.read(max_content)
    except urllib.error.HTTPError as exc:
        result["returncode"] = exc.code
        content = exc.read()[:max_content]
    except (urllib.error.URLError, OSError, ValueError) as exc:
        result.update(rc=7, success=False, error_message=str(exc))
    result["content"] = content[:max_content].decode("utf-8", "surrogateescape")
    result["headers"] = header_text[:max_headers].decode("utf-8", "surrogateescape")
    return result
