"""One agent's connection, from accept to close, as cf-serverd 3.21 handles it.

1. The first 13 bytes are peeked: ``CAUTH`` after the 8-byte header (or fewer
   bytes) is the classic protocol, refused unless ``allowlegacyconnects`` admits
   the address (then cfpromise.server.classic serves it); anything else is a
   TLS ClientHello.
2. TLS handshake with the host key's certificate; the client's certificate is
   required and its RSA key is the peer's identity.
3. ``CFE_v3 cf-serverd VERSION`` is sent; the client's ``CFE_vN`` line and its
   ``IDENTITY USERNAME=...`` line are read (at most 1024 bytes); versions 2 and 3
   are accepted.
4. The key is trusted when WORKDIR/ppkeys/<user>-MD5=....pub holds it, or
   ``trustkeysfrom`` admits the address (then it is saved); else the connection
   is dropped.  ``OK WELCOME`` ends the dialog.
   From accept to here the peer has ``handshake_timeout`` seconds in all (every
   read and write gets what is left of them); then it is identified, keeps its
   slot (:mod:`cfpromise.server.slots`) and the idle timeout takes over.
5. Requests, one transaction each (header checked, payload at most 4088 bytes),
   dispatched to :mod:`cfpromise.server.requests` until the peer closes, breaks
   the protocol, or stays silent longer than the idle timeout.

Nothing the peer sends reaches a traceback: every failure is logged and closes
this connection only.
"""
from __future__ import annotations

import socket
import ssl
import time
from typing import TYPE_CHECKING, Any

from cfpromise.net import protocol as P
from cfpromise.server.acl import listed
from cfpromise.server.requests import Peer, Request, dispatch
from cfpromise.server.slots import HANDSHAKEN, HELLO

if TYPE_CHECKING:
    from cfpromise.server.daemon import ServerD
    from cfpromise.server.slots import Conn

PEEK_SIZE = P.CF_INBAND_OFFSET + len("CAUTH")


class Closed(Exception):
    pass


class Session:
    def __init__(self, server: ServerD, sock: socket.socket, ip: str,
                 conn: Conn | None = None) -> None:
        self.server = server
        self.sock: Any = sock
        self.ip = ip
        self.conn = conn
        self.access = server.access
        self.log_prefix = f"{ip}> ".ljust(17)
        # until the peer is identified: the moment its handshake time is up
        self.deadline: float | None = time.monotonic() + server.handshake_timeout

    def log(self, level: str, message: str) -> None:
        self.server.log(level, self.log_prefix + message)

    # -- raw I/O -----------------------------------------------------------------------------
    def arm(self) -> None:
        """Before each blocking step of the handshake: wait no longer than its deadline
        (a peer dripping a byte at a time gets no more time than a silent one)."""
        if self.deadline is None:
            return
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("handshake deadline")
        self.sock.settimeout(left)

    def progressed(self, stage: int) -> None:
        if self.conn is not None:
            self.server.table.progressed(self.conn, stage)

    def identified(self) -> bool:
        """The peer is who it says: keep the slot, switch to the idle timeout.  False when
        the connection was pre-empted meanwhile (the caller ends it)."""
        if self.conn is not None and not self.server.table.identified(self.conn):
            return False
        self.deadline = None
        self.sock.settimeout(self.server.idle_timeout)
        return True

    def recv_exact(self, n: int) -> bytes:
        data = bytearray()
        while len(data) < n:
            self.arm()
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise P.ConnectionClosed(f"connection closed after {len(data)} of {n} bytes")
            data += chunk
        return bytes(data)

    def send(self, data: bytes) -> None:
        self.arm()
        self.sock.sendall(data)

    def receive(self) -> bytes:
        payload, _more = P.read_transaction(self.recv_exact)
        return payload

    def recv_lines(self) -> bytes:
        """TLSRecvLines: until the data ends with a newline (at most 1024 bytes)."""
        data = bytearray()
        while not data.endswith(b"\n"):
            if len(data) >= P.IDENT_LINE_MAX:
                raise P.ProtocolError("identification line too long")
            self.arm()
            chunk = self.sock.recv(P.IDENT_LINE_MAX - len(data))
            if not chunk:
                raise P.ConnectionClosed("closed during identification")
            data += chunk
        return bytes(data)

    # -- the connection ---------------------------------------------------------------------
    def run(self) -> None:
        try:
            protocol = self.choose_protocol()
            if not protocol:
                return
            if protocol == "classic":
                from cfpromise.server import classic
                classic.serve(self)
                return
            peer = self.establish()
            if peer is None:
                return
            req = Request(self.access, peer, self.send, self.receive, self.log,
                          self.server.options.workdir)
            while not self.server.stopping:
                try:
                    payload = self.receive()
                except P.ConnectionClosed:
                    self.log("verbose", "Connection closed by peer")
                    return
                if not dispatch(req, payload):
                    return
        except (socket.timeout, TimeoutError):
            if self.deadline is not None:
                self.log("info", "Peer not identified within "
                                 f"{self.server.handshake_timeout:g} s, closing the connection")
            else:
                self.log("info", "Connection timed out (peer silent), closing it")
        except P.ProtocolError as err:
            self.log("error", f"ReceiveTransaction: {err}")
        except (ssl.SSLError, OSError) as err:
            self.log("info", f"Connection error: {err}")
        except Exception as err:          # noqa: BLE001 - never die of what a peer sends
            self.log("error", f"Unexpected error, closing connection: {type(err).__name__}: "
                              f"{err}")
        finally:
            self.log("info", "Closing connection, terminating thread")
            if self.conn is not None:        # leave the table before the descriptor closes
                self.server.table.release(self.conn)
            try:
                self.sock.close()
            except OSError:
                pass

    def choose_protocol(self) -> str:
        """Which protocol: "tls", "classic" (allowlegacyconnects admits it) or "" (refused)."""
        self.arm()
        head = self.sock.recv(PEEK_SIZE, socket.MSG_PEEK | socket.MSG_WAITALL)
        if not head:
            self.log("info", "Peer closed TCP connection without sending data!")
            return ""
        if len(head) < PEEK_SIZE or head[P.CF_INBAND_OFFSET:] == b"CAUTH":
            if not listed(self.access.allowlegacyconnects, self.ip):
                self.log("info", "Connection is not using latest protocol, denying")
                return ""
            return "classic"
        self.progressed(HELLO)
        return "tls"

    def establish(self) -> Peer | None:
        from cfpromise.net import keys
        from cfpromise.net.tls import TLSSetupError, peer_public_key
        try:
            tls = self.server.tls_context.wrap_socket(self.sock, server_side=True,
                                                      do_handshake_on_connect=False)
            self.sock = tls
            self.arm()
            tls.do_handshake()
        except TimeoutError:
            raise                             # run() says: not identified in time
        except (ssl.SSLError, OSError) as err:
            self.log("error", f"Failed to accept TLS connection: {err}")
            return None
        self.progressed(HANDSHAKEN)
        self.log("verbose", f"TLS version negotiated: {tls.version()}; Cipher: "
                            f"{(tls.cipher() or ('?',))[0]}")
        self.send(P.version_line(P.LATEST, P.SERVER_NAME))
        try:
            data = self.recv_lines()
        except P.ConnectionClosed:
            self.log("notice", "Client closed connection early! He probably does not trust "
                               "our key...")
            return None
        version = P.parse_version_line(data)
        if version <= 0:
            self.log("notice", f"Protocol version negotiation failed! Received: "
                               f"{data[:80]!r}")
            return None
        if version == int(P.Version.CLASSIC):
            self.log("notice", f"Client advertises disallowed protocol version: {version}")
            return None
        if version > int(P.LATEST):
            self.log("notice", "Client attempted a protocol version which is too new for us: "
                               f"{version}")
            return None
        nl = data.find(b"\nIDENTITY ")
        if nl < 0 and not data.rstrip(b"\n").endswith(b"\nIDENTITY"):
            line2 = self.recv_lines()
        else:
            line2 = data[data.find(b"\nIDENTITY") + 1:]
        try:
            fields = P.parse_identity(line2)
        except P.ProtocolError as err:
            self.log("notice", f"Received invalid IDENTITY: {err}")
            return None
        username = fields.get("USERNAME", "")
        if username and ("/" in username or "\\" in username):
            self.log("notice", f"Received invalid IDENTITY: USERNAME={username}")
            return None
        try:
            key = peer_public_key(tls)
        except TLSSetupError as err:
            self.log("error", str(err))
            return None
        digest = keys.digest(key)
        workdir = self.server.options.workdir
        user = username or "root"
        if keys.is_trusted(workdir, key, user):
            self.log("verbose", f"{digest}: Client is TRUSTED, public key MATCHES stored one.")
        elif listed(self.access.trustkeysfrom, self.ip):
            self.log("notice", f"Trusting new key: {digest}")
            try:
                keys.trust_key(workdir, key, user)
            except OSError as err:
                self.log("error", f"Could not save the key of {digest} ({err})")
        else:
            self.log("notice", "TRUST FAILED, peer presented an untrusted key, dropping "
                               "connection!")
            self.log("verbose", "Add peer to \"trustkeysfrom\" if you really want to start "
                                "trusting this new key.")
            return None
        if not self.identified():
            self.log("info", "Connection pre-empted during its handshake")
            return None
        self.send(P.welcome_line(username or None))
        hostname = self.server.reverse_lookup(self.ip)
        return Peer(ip=self.ip, hostname=hostname, key=digest, username=username,
                    protocol=version)
