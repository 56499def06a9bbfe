"""Low-level host probes used by hard-class discovery (see hardclasses.py).

Everything here is a small, fast probe or a pure parser, so that discovery
costs a few milliseconds: no subprocesses, no expensive imports (``_socket``
instead of ``socket``, no ``re``/``json``/``psutil``), each file read at most
once per run through a :class:`FileSource`.

* :class:`FileSource` reads files under a root directory (``/`` normally, a
  fake tree in tests) and remembers what it read for the rest of the run.
* :func:`scanf` reproduces the few ``sscanf()`` formats cf-agent uses on
  release files, so the distribution logic can be ported pattern for pattern.
* :class:`NetProbe` asks the kernel what cf-agent asks it, with the same
  ioctls (SIOCGIFCONF, SIOCGIFFLAGS, SIOCGIFHWADDR), so interface order,
  alias labels and flags come out exactly as cf-agent sees them.
* the /proc/net parsers are netclasses.py's, beside the probe that reads them (this module was
  over 600 lines).
"""
from __future__ import annotations

import os
import struct

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterator

# ---------------------------------------------------------------------------
# Files under a root

# cf-agent's test hook: /proc/net files are read below this directory instead of "/"
# (GetRelocatedProcdirRoot); its value is a root, so "<root>/proc/net/route" is read.
PROCDIR_OVERRIDE = "CFENGINE_TEST_OVERRIDE_PROCDIR"


def procdir_root(environ: Any = None) -> str:
    """The root the /proc/net files are read under: ``/`` unless relocated."""
    value = (os.environ if environ is None else environ).get(PROCDIR_OVERRIDE, "")
    return value or "/"



class FileSource:
    """Read files below ``root``; every path is read (or stat'ed) once per instance."""

    def __init__(self, root: str = "/") -> None:
        self._prefix = "" if root in ("", "/") else root.rstrip("/")
        self._text: dict[str, str | None] = {}
        self._stat: dict[str, os.stat_result | None] = {}

    @property
    def is_live(self) -> bool:
        """True when reading the real root file system."""
        return not self._prefix

    def path(self, path: str) -> str:
        """The real path of the absolute ``path`` below the root."""
        return self._prefix + path

    def stat(self, path: str) -> os.stat_result | None:
        """``os.stat`` of ``path`` (following links), or None if it fails."""
        if path not in self._stat:
            try:
                self._stat[path] = os.stat(self._prefix + path)
            except OSError:
                self._stat[path] = None
        return self._stat[path]

    def exists(self, path: str) -> bool:
        """True if ``path`` exists (stat succeeds)."""
        return self.stat(path) is not None

    def is_dir(self, path: str) -> bool:
        """True if ``path`` is a directory."""
        st = self.stat(path)
        return st is not None and (st.st_mode & 0o170000) == 0o040000

    def readable(self, path: str) -> bool:
        """True if ``path`` could be opened for reading (``access(R_OK)``)."""
        return os.access(self._prefix + path, os.R_OK)

    def read(self, path: str) -> str | None:
        """The whole text of ``path`` (undecodable bytes kept as surrogates), or None."""
        if path not in self._text:
            try:
                with open(self._prefix + path, "rb") as handle:
                    data = handle.read()
                self._text[path] = data.decode("utf-8", "surrogateescape")
            except OSError:
                self._text[path] = None
        return self._text[path]

    def first_line(self, path: str) -> str | None:
        """The first line without its newline, None if unreadable or empty (like fgets)."""
        text = self.read(path)
        if not text:
            return None
        return text.split("\n", 1)[0]


# ---------------------------------------------------------------------------
# sscanf


def _parse_set(fmt: str, pos: int) -> tuple[frozenset[str], bool, int]:
    """Parse a scanset starting after ``[``; return (chars, negated, index after ``]``)."""
    negated = fmt[pos] == "^"
    if negated:
        pos += 1
    chars: set[str] = set()
    first = True
    while pos < len(fmt) and (first or fmt[pos] != "]"):
        if fmt[pos] == "-" and not first and pos + 1 < len(fmt) and fmt[pos + 1] != "]":
            low, high = fmt[pos - 1], fmt[pos + 1]
            chars.update(chr(code) for code in range(ord(low), ord(high) + 1))
            pos += 2
        else:
            chars.add(fmt[pos])
            pos += 1
        first = False
    return frozenset(chars), negated, pos + 1


def scanf(fmt: str, text: str) -> list[Any]:
    """A small ``sscanf``: return the assigned conversions, stopping at the first failure.

    Supports whitespace (skips any run of blanks), literals, ``%d``, ``%s``,
    ``%[set]`` and ``%[^set]`` with optional ``*`` (suppress) and width.
    """
    out: list[Any] = []
    i = j = 0
    n = len(text)
    while i < len(fmt):
        ch = fmt[i]
        if ch.isspace():
            while j < n and text[j].isspace():
                j += 1
            i += 1
            continue
        if ch != "%":
            if j >= n or text[j] != ch:
                return out
            i += 1
            j += 1
            continue
        i += 1
        suppress = fmt[i] == "*"
        if suppress:
            i += 1
        width_start = i
        while fmt[i].isdigit():
            i += 1
        width = int(fmt[width_start:i]) if i > width_start else 0
        conv = fmt[i]
        i += 1
        if conv in "ds":
            while j < n and text[j].isspace():
                j += 1
        if j >= n:
            return out
        start = j
        limit = n if width == 0 else min(n, j + width)
        if conv == "d":
            if j < limit and text[j] in "+-":
                j += 1
            digits = j
            while j < limit and text[j].isdigit() and text[j].isascii():
                j += 1
            if j == digits:
                return out
            if not suppress:
                out.append(int(text[start:j]))
        elif conv == "s":
            while j < limit and not text[j].isspace():
                j += 1
            if not suppress:
                out.append(text[start:j])
        elif conv == "[":
            chars, negated, i = _parse_set(fmt, i)
            while j < limit and ((text[j] in chars) != negated):
                j += 1
            if j == start:
                return out
            if not suppress:
                out.append(text[start:j])
        else:  # pragma: no cover - only the formats above are used
            raise ValueError(f"unsupported scanf conversion %{conv}")
    return out


# ---------------------------------------------------------------------------
# Network interfaces through ioctl, as cf-agent asks the kernel

SIOCGIFCONF = 0x8912
SIOCGIFFLAGS = 0x8913
SIOCGIFHWADDR = 0x8927
_IFREQ_SIZE = 40  # struct ifreq on 64-bit Linux
_AF_INET = 2

IFF_FLAG_NAMES: tuple[tuple[int, str], ...] = (
    (0x1, "up"),
    (0x2, "broadcast"),
    (0x4, "debug"),
    (0x8, "loopback"),
    (0x10, "pointopoint"),
    (0x20, "notrailers"),
    (0x40, "running"),
    (0x80, "noarp"),
    (0x100, "promisc"),
    (0x200, "allmulti"),
    (0x1000, "multicast"),
)
IFF_UP = 0x1
IFF_LOOPBACK = 0x8


def flags_text(flags: int) -> str:
    """``sys.interface_flags`` text for ioctl flags, e.g. ``up broadcast running multicast``."""
    return " ".join(name for bit, name in IFF_FLAG_NAMES if flags & bit)


class NetProbe:
    """A datagram socket for the interface ioctls; use as a context manager."""

    def __init__(self) -> None:
        import _socket  # the C module: `socket` costs ~2.5 ms to import

        self._sock = _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM)

    def __enter__(self) -> NetProbe:
        return self

    def __exit__(self, *exc: object) -> None:
        self._sock.close()

    def _ioctl(self, request: int, name: str) -> bytes | None:
        import fcntl

        req = struct.pack("16s24x", name.encode("utf-8", "surrogateescape")[:15])
        try:
            return fcntl.ioctl(self._sock.fileno(), request, req)
        except OSError:
            return None

    def ifconf(self) -> list[tuple[str, int, str]]:
        """SIOCGIFCONF: (interface name, address family, IPv4 text) in kernel order."""
        import fcntl

        from cfpromise.fast.cmodules import array_module
        array = array_module()
        count = 64
        while True:
            buf = array.array("B", bytes(count * _IFREQ_SIZE))
            address, _ = buf.buffer_info()
            req = struct.pack("iP", len(buf), address)
            try:
                res = fcntl.ioctl(self._sock.fileno(), SIOCGIFCONF, req)
            except OSError:
                return []
            length = struct.unpack("iP", res)[0]
            if length < len(buf) or count >= 8192:
                break
            count *= 2
        data = buf.tobytes()[:length]
        entries = []
        for offset in range(0, length - _IFREQ_SIZE + 1, _IFREQ_SIZE):
            raw_name = data[offset:offset + 16].split(b"\0", 1)[0]
            family = struct.unpack_from("H", data, offset + 16)[0]
            ip = ".".join(str(b) for b in data[offset + 20:offset + 24])
            entries.append((raw_name.decode("utf-8", "surrogateescape"), family, ip))
        return entries

    def flags(self, name: str) -> int | None:
        """SIOCGIFFLAGS of ``name`` (aliases like ``eth0:1`` work), or None."""
        res = self._ioctl(SIOCGIFFLAGS, name)
        return None if res is None else struct.unpack_from("H", res, 16)[0]

    def hwaddr(self, name: str) -> str | None:
        """SIOCGIFHWADDR of ``name`` as ``xx:xx:xx:xx:xx:xx``, or None."""
        res = self._ioctl(SIOCGIFHWADDR, name)
        if res is None:
            return None
        return ":".join(f"{b:02x}" for b in res[18:24])


# ---------------------------------------------------------------------------
# IPv6 text forms


def ipv6_groups(hex32: str) -> str:
    """cf-agent's IPv6 form for ``sys.inet6``: eight ``%x`` groups, no ``::``."""
    return ":".join(f"{int(hex32[k:k + 4], 16):x}" for k in range(0, 32, 4))


def ipv6_compressed(hex32: str) -> str:
    """The inet_ntop form (what ifconfig prints), e.g. ``fe80::fc:ff:fe00:1``."""
    import _socket

    return _socket.inet_ntop(_socket.AF_INET6, bytes.fromhex(hex32))


def is_ipv4_literal(text: str) -> bool:
    """True for a dotted-quad IPv4 address."""
    parts = text.split(".")
    return len(parts) == 4 and all(p.isdigit() and p.isascii() and int(p) < 256 for p in parts)


def natural_key(name: str) -> list[tuple[int, int, str]]:
    """Sort key comparing digit runs numerically (net-tools' ``nstrcmp`` order)."""
    key: list[tuple[int, int, str]] = []
    i = 0
    while i < len(name):
        j = i
        digits = name[i].isdigit()
        while j < len(name) and name[j].isdigit() == digits:
            j += 1
        key.append((0, int(name[i:j]), "") if digits else (1, 0, name[i:j]))
        i = j
    return key


# ---------------------------------------------------------------------------
# Environment files (os-release)


def parse_env_file(text: str) -> dict[str, str]:
    """KEY=VALUE lines (os-release style) with shell-like quoting; comments skipped."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        key = key.strip()
        value = value.strip()
        if not key:
            continue
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            quote, value = value[0], value[1:-1]
            if quote == '"':
                value = _unescape(value)
        out[key] = value
    return out


def _unescape(value: str) -> str:
    chars: list[str] = []
    it: Iterator[str] = iter(value)
    for ch in it:
        if ch == "\\":
            nxt = next(it, "")
            chars.append("\n" if nxt == "n" else nxt)
        else:
            chars.append(ch)
    return "".join(chars)


# ---------------------------------------------------------------------------
# Name resolution


def _hosts_lookup(name: str, hosts_text: str) -> tuple[str, list[str], str] | None:
    """The single IPv4 /etc/hosts line naming ``name``: (canonical, aliases, address).

    Returns None when there is no such line or more than one (then glibc's
    merging rules apply and the caller should ask the real resolver).
    """
    wanted = name.lower()
    found: list[tuple[str, list[str], str]] = []
    for line in hosts_text.splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) < 2 or not is_ipv4_literal(fields[0]):
            continue
        if any(n.lower() == wanted for n in fields[1:]):
            found.append((fields[1], fields[2:], fields[0]))
    return found[0] if len(found) == 1 else None


def resolve_host(name: str, etc: FileSource) -> tuple[str, list[str], list[str]] | None:
    """``gethostbyname(name)``: (canonical name, aliases, IPv4 addresses) or None.

    When nsswitch.conf consults ``files`` first and /etc/hosts names ``name``
    on exactly one IPv4 line, the answer is read from there through ``etc``
    (a live FileSource: no NSS start-up); otherwise the C resolver is asked.
    """
    if name:
        nss = etc.read("/etc/nsswitch.conf") or ""
        hosts_sources = next(
            (line.split(":", 1)[1].split() for line in nss.splitlines()
             if line.strip().startswith("hosts:")),
            [],
        )
        if hosts_sources[:1] == ["files"]:
            hit = _hosts_lookup(name, etc.read("/etc/hosts") or "")
            if hit is not None:
                return hit[0], hit[1], [hit[2]]
    import _socket

    try:
        canonical, aliases, addresses = _socket.gethostbyname_ex(name)
    except (OSError, UnicodeError):
        return None
    return canonical, list(aliases), list(addresses)


def resolve_address(host: str) -> str | None:
    """First address ``getaddrinfo`` gives for ``host`` (literal addresses unchanged)."""
    if is_ipv4_literal(host) or ":" in host:
        return host
    import _socket

    try:
        infos = _socket.getaddrinfo(host, None)
    except (OSError, UnicodeError):
        return None
    return infos[0][4][0] if infos else None


# ---------------------------------------------------------------------------
# Keys


def _der_tlv(data: bytes, pos: int) -> tuple[int, bytes, int]:
    tag, length = data[pos], data[pos + 1]
    pos += 2
    if length & 0x80:
        size = length & 0x7F
        length = int.from_bytes(data[pos:pos + size], "big")
        pos += size
    return tag, data[pos:pos + length], pos + length


def pubkey_digest(pem: str) -> str | None:
    """cf-agent's key digest of an RSA public key in PEM: ``MD5=<hex>``.

    CFEngine hashes the big-endian bytes of the modulus followed by those of
    the public exponent (PKCS#1 ``RSA PUBLIC KEY`` or X.509 ``PUBLIC KEY``).
    """
    import base64
    import hashlib

    body = "".join(line for line in pem.splitlines() if line and not line.startswith("-----"))
    try:
        der = base64.b64decode(body)
        _, seq, _ = _der_tlv(der, 0)
        tag, first, after = _der_tlv(seq, 0)
        if tag == 0x30:  # SubjectPublicKeyInfo: algorithm, then BIT STRING
            _, bits, _ = _der_tlv(seq, after)
            _, seq, _ = _der_tlv(bits[1:], 0)
            tag, first, after = _der_tlv(seq, 0)
        _, exponent, _ = _der_tlv(seq, after)
    except (ValueError, IndexError):
        return None
    digest = hashlib.md5(first.lstrip(b"\0") + exponent.lstrip(b"\0")).hexdigest()
    return "MD5=" + digest
