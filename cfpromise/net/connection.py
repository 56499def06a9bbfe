"""A connection to a CFEngine 3.21 (or cf-lite) server once it is open: the requests.

Why separate from client.py: both protocols share it.  client.py opens a TLS
connection (protocol 2 and later) and classic_client.py a classic one (protocol 1,
whose ClassicConnection subclasses :class:`Connection`); each imports this module,
and neither needs the other, so the two are no import cycle.  Here: the errors, the
connect options, host:port splitting, TCP connect with bind and timeout, and the
requests (STAT, GET, OPENDIR, MD5, VAR, CONTEXT, EXEC...) of an open connection.

Every reply is parsed defensively: a malformed, truncated or oversized answer
raises :class:`NetError` (never anything else), so that a promise can fail
with a clear message instead of the agent crashing.
"""
from __future__ import annotations

import getpass
import hashlib
import os
import socket
import ssl
import time
import attrs
from typing import Callable, Iterator

from cfpromise.net import protocol as P

DEFAULT_PORT = 5308
MAX_DIR_ENTRIES = 1_000_000          # a server cannot make us hold an endless listing


class NetError(Exception):
    """A connection or request failed; the message is what the user should read."""


class AccessDenied(NetError):
    """The server refused the request (``BAD: Unspecified server refusal ...``)."""


class TrustError(NetError):
    """The server presented a key we do not trust."""


class SetupError(NetError):
    """This host cannot connect at all (no key pair, bad TLS settings)."""


class NoHostKey(SetupError):
    """No key pair in WORKDIR/ppkeys: cf-agent 3.21's TLSClientInitialize says so at
    verbose level only ("in case it's a custom, local-only installation")."""


@attrs.define
class ConnectOptions:
    workdir: str
    port: int | str = DEFAULT_PORT
    version: P.Version = P.LATEST
    timeout: float = 30.0
    trust: bool = False                    # trustkey / bootstrap: accept a new server key
    username: str | None = None            # IDENTITY USERNAME (default: current user)
    ciphers: str | None = None
    min_tls: str | None = None
    force_ipv4: bool = False
    restrict_keys: list[str] = attrs.field(factory=list)
    log: Callable[[str, str], None] | None = None    # (level, message)
    encrypt: bool = False                  # classic protocol only: S* (encrypted) requests
    bind_address: str = ""                 # body agent control bindtointerface
    # a client context made once from this host's key (tls.client_context) for a program
    # that opens many connections (cf-lite-hub): loading and checking the key and signing
    # its certificate cost far more than the handshake
    tls_context: ssl.SSLContext | None = None


def split_host_port(text: str, default_port: int | str = DEFAULT_PORT) -> tuple[str, str]:
    """``host``, ``host:port``, ``[v6]:port`` or a bare IPv6 address."""
    text = text.strip()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        return host, rest[1:] if rest.startswith(":") and rest[1:] else str(default_port)
    if text.count(":") == 1:
        host, _, port = text.partition(":")
        return host, port or str(default_port)
    return text, str(default_port)


def current_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "root" if os.geteuid() == 0 else str(os.geteuid())


class Connection:
    """An authenticated connection; one request at a time."""

    def __init__(self, sock: ssl.SSLSocket, server: str, address: str, version: P.Version,
                 key_digest: str) -> None:
        self.sock = sock
        self.server = server
        self.address = address
        self.version = version
        self.key_digest = key_digest
        self.broken = False

    # ------------------------------------------------------------------ raw I/O
    def _recv_exact(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            try:
                chunk = self.sock.recv(n - len(buf))
            except (OSError, ssl.SSLError) as exc:
                self.broken = True
                raise NetError(f"Connection to '{self.server}' failed while receiving "
                               f"({exc})") from None
            if not chunk:
                self.broken = True
                raise NetError(f"Connection to '{self.server}' was closed by the server")
            buf += chunk
        return bytes(buf)

    def send(self, payload: bytes, more: bool = False) -> None:
        try:
            self.sock.sendall(P.encode(payload, more))
        except ValueError as exc:
            raise NetError(str(exc)) from None
        except (OSError, ssl.SSLError) as exc:
            self.broken = True
            raise NetError(f"Transmission to '{self.server}' failed ({exc})") from None

    def recv(self) -> tuple[bytes, bool]:
        try:
            return P.read_transaction(self._recv_exact)
        except P.ProtocolError as exc:
            self.broken = True
            raise NetError(f"Bad reply from '{self.server}': {exc}") from None

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _reply(self) -> str:
        payload, _ = self.recv()
        return P.cstring(payload)

    # ------------------------------------------------------------------ requests
    def stat(self, path: str) -> P.RemoteStat:
        """SYNCH/STAT; AccessDenied on refusal, NetError on any other failure."""
        if len(path) > P.CF_BUFSIZE - 30:
            raise NetError("Filename too long")
        self.send(P.synch_stat(path, int(time.time())))
        first = self._reply()
        if "unsynchronized" in first:
            raise NetError("Clocks differ too much to do copy by date (security), server "
                           f"reported: {first[5:]}")
        if first.startswith(P.CF_FAILEDSTR):
            raise AccessDenied(f"Network access to '{self.server}:{path}' denied")
        if P.is_bad(first):
            raise AccessDenied(f"Server returned error: {first[5:]}")
        if not P.is_ok(first):
            raise NetError(f"Transmission refused or failed statting '{path}', got "
                           f"'{first[:100]}'")
        second, _ = self.recv()
        try:
            return P.parse_stat_reply(first, second)
        except P.ProtocolError as exc:
            raise NetError(f"Cannot read STAT reply from '{self.server}' ({exc})") from None

    def get(self, path: str, size: int, write: Callable[[bytes], None]) -> None:
        """GET: exactly ``size`` bytes (from a previous STAT) handed to ``write``."""
        self.send(P.get(path, P.GET_BUFSIZE))
        changed = (P.CF_CHANGEDSTR1 + P.CF_CHANGEDSTR2).encode()
        got = 0
        while got < size:
            toget = min(size - got, P.GET_BUFSIZE)
            try:
                data = self.sock.recv(toget)
            except (OSError, ssl.SSLError) as exc:
                self.broken = True
                raise NetError(f"Error in client-server stream, has {self.server}:{path} "
                               f"shrunk? ({exc})") from None
            if not data:
                self.broken = True
                raise NetError(f"Error in client-server stream, has {self.server}:{path} "
                               "shrunk?")
            if got == 0 and data.startswith(P.CF_FAILEDSTR.encode()):
                self.broken = True
                raise AccessDenied(f"Network access to '{self.server}:{path}' denied")
            if data.startswith(changed):
                self.broken = True
                raise NetError(f"Source '{self.server}:{path}' changed while copying")
            if got == 0 and data[:2] in (b"t ", b"m ") and data[8:13] == b"BAD: ":
                self.broken = True
                raise AccessDenied(f"Network access to cleartext '{self.server}:{path}' denied")
            write(data)
            got += len(data)

    def opendir(self, path: str) -> list[str]:
        if len(path) > P.CF_BUFSIZE - 20:
            raise NetError("Directory name too long")
        self.send(P.opendir(path))
        names: list[str] = []
        while True:
            payload, _ = self.recv()
            head = P.cstring(payload)
            if head.startswith(P.CF_FAILEDSTR):
                raise AccessDenied(f"Network access to '{self.server}:{path}' denied")
            if P.is_bad(head):
                raise NetError(head[5:])
            try:
                chunk, done = P.parse_opendir_chunk(payload)
            except P.ProtocolError as exc:
                self.broken = True
                raise NetError(f"{exc} '{path}'") from None
            names.extend(chunk)
            if done:
                return names
            if len(names) > MAX_DIR_ENTRIES:
                self.broken = True
                raise NetError(f"Directory listing of '{self.server}:{path}' is too long")

    def md5_differs(self, path: str, local_file: str) -> bool:
        """CompareHashNet: does the server's file differ from ``local_file``?"""
        digest = _md5_file(local_file)
        self.send(P.md5(path, digest))
        try:
            reply = self._reply()
        except NetError:
            return True
        return reply == P.CFD_TRUE or reply != P.CFD_FALSE

    def var(self, name: str) -> str:
        """VAR: a server literal (``BAD: ...`` replies are returned as such)."""
        self.send(f"VAR {name}".encode())
        payload, _ = self.recv()
        return P.cstring(payload)

    def context(self, regex: str) -> str:
        """CONTEXT: the comma-separated persistent classes that match (or BAD:)."""
        self.send(f"CONTEXT {regex}".encode())
        payload, _ = self.recv()
        return P.cstring(payload)

    def exec_(self, args: str) -> Iterator[str]:
        """EXEC: the server's output lines until CFD_TERMINATOR."""
        self.send(f"EXEC {args}".encode())
        while True:
            payload, _ = self.recv()
            text = P.cstring(payload)
            if text.startswith(P.CFD_TERMINATOR):
                return
            yield text

    def version_request(self) -> str:
        self.send(b"VERSION")
        return self._reply()


def _md5_file(path: str) -> bytes:
    h = hashlib.md5()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    except OSError:
        pass
    return h.digest()


def _bind(sock: socket.socket, address: str, force_ipv4: bool,
          log: Callable[[str, str], None] | None) -> bool:
    """As 3.21's SocketConnect: bind to ``bindtointerface`` before connecting (the
    first of its addresses that binds); False when the name does not resolve."""
    try:
        infos = socket.getaddrinfo(address, None, socket.AF_INET if force_ipv4 else 0,
                                   socket.SOCK_STREAM, 0, socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        if log:
            log("error", f"Unable to lookup interface '{address}' to bind. ({exc})")
        return False
    for family, _, _, _, addr in infos:
        if family != sock.family:
            continue
        try:
            sock.bind(addr)
            return True
        except OSError:
            continue
    if log:
        log("error", f"Unable to bind to interface '{address}'.")
    return True


def _tcp_connect(host: str, port: str, timeout: float, force_ipv4: bool,
                 log: Callable[[str, str], None] | None = None,
                 bind_address: str = "") -> tuple[socket.socket, str]:
    try:
        infos = socket.getaddrinfo(host, port, socket.AF_INET if force_ipv4 else socket.AF_UNSPEC,
                                   socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        if log:
            log("info", f"Unable to find host '{host}' service '{port}' ({reason})")
        raise NetError(f"No server is responding on port: {port}") from None
    last: Exception | None = None
    for family, kind, proto, _, addr in infos:
        sock = socket.socket(family, kind, proto)
        sock.settimeout(timeout or None)
        if bind_address and not _bind(sock, bind_address, force_ipv4, log):
            sock.close()
            raise NetError(f"Unable to lookup interface '{bind_address}' to bind")
        try:
            sock.connect(addr)
        except OSError as exc:
            last = exc
            sock.close()
            continue
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock, str(addr[0])
    raise NetError(f"No server is responding on port: {port}"
                   + (f" ({last.strerror or last})" if isinstance(last, OSError) else ""))


def _recv_line(sock: ssl.SSLSocket) -> bytes:
    """TLSRecvLines: until a newline, at most IDENT_LINE_MAX bytes."""
    buf = bytearray()
    while not buf.endswith(b"\n"):
        chunk = sock.recv(P.IDENT_LINE_MAX - len(buf))
        if not chunk:
            raise NetError("Connection was hung up during identification!")
        buf += chunk
        if len(buf) >= P.IDENT_LINE_MAX and not buf.endswith(b"\n"):
            raise NetError("Received line too long, hanging up!")
    return bytes(buf)
