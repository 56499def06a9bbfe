"""The agent's side of protocol version 1 ("classic"): handshake and requests.

Why separate: client.py is the TLS path every copy takes; this one is loaded
only for ``protocol_version => "classic"``.  The handshake is 3.21's
IdentifyAgent + AuthenticateAgent (see classic.py); the server's key is known
when lastseen has this address and ppkeys holds its key (the nonce then goes
RSA-encrypted and the server proves it owns the key); otherwise it is accepted
only with ``trust`` (trustkey), exactly as cf-agent 3.21 does.  ``encrypt``
turns SYNCH/GET/OPENDIR/MD5/VAR/CONTEXT into their Blowfish-encrypted S* forms.
"""
from __future__ import annotations

import socket
from typing import Callable

from cfpromise.net import classic as C
from cfpromise.net import protocol as P
from cfpromise.net.connection import (AccessDenied, ConnectOptions, Connection, NetError,
                                      SetupError, TrustError, _tcp_connect, current_user,
                                      split_host_port)


class ClassicConnection(Connection):
    """A classic connection: the TLS Connection's requests over plain TCP."""

    def __init__(self, sock: socket.socket, server: str, address: str, key_digest: str,
                 session_key: bytes, encrypt: bool) -> None:
        super().__init__(sock, server, address, P.Version.CLASSIC, key_digest)  # type: ignore[arg-type]
        self.session_key = session_key
        self.encrypt = encrypt
        self._decrypt_replies = False

    def send(self, payload: bytes, more: bool = False) -> None:
        if self.encrypt:
            word = payload.split(b" ", 1)[0].decode("latin-1")
            secure = C.SECURE_COMMANDS.get(word)
            if secure is not None:
                plain = payload if word == "MD5" else payload + b"\0"
                payload = C.secure_request(self.session_key, secure, plain)
        super().send(payload, more)

    def recv(self) -> tuple[bytes, bool]:
        payload, more = super().recv()
        if self._decrypt_replies:
            try:
                payload = C.decrypt(self.session_key, payload)
            except C.ClassicError:
                if not P.is_bad(P.cstring(payload)):   # refusals come in clear
                    self.broken = True
                    raise NetError(f"Cannot decrypt reply from '{self.server}'") from None
        return payload, more

    def _decrypting(self, call: Callable[[], object]) -> object:
        self._decrypt_replies = self.encrypt
        try:
            return call()
        finally:
            self._decrypt_replies = False

    def opendir(self, path: str) -> list[str]:
        return self._decrypting(lambda: Connection.opendir(self, path))  # type: ignore[return-value]

    def var(self, name: str) -> str:
        return self._decrypting(lambda: Connection.var(self, name))  # type: ignore[return-value]

    def context(self, regex: str) -> str:
        return self._decrypting(lambda: Connection.context(self, regex))  # type: ignore[return-value]

    def get(self, path: str, size: int, write: Callable[[bytes], None]) -> None:
        if not self.encrypt:
            return super().get(path, size, write)
        if size == 0:
            return None                       # EncryptCopyRegularFileNet asks nothing
        plain = f"GET dummykey {path}".encode("utf-8", "surrogateescape") + b"\0"
        Connection.send(self, C.secure_request(self.session_key, "SGET", plain,
                                               f" {P.GET_BUFSIZE:4d}"))
        got, more = 0, True
        while more:
            payload, more = Connection.recv(self)
            text = payload[:len(P.CF_FAILEDSTR) + 8]
            if got == 0 and (text.startswith(P.CF_FAILEDSTR.encode())
                             or text[8:].startswith(P.CF_FAILEDSTR.encode())):
                raise AccessDenied(f"Network access to '{self.server}:{path}' denied")
            if P.is_bad(P.cstring(payload)):
                self.broken = more
                raise NetError(f"Source '{self.server}:{path}' changed while copying")
            try:
                data = C.decrypt(self.session_key, payload)
            except C.ClassicError:
                self.broken = True
                raise NetError(f"Cannot decrypt '{self.server}:{path}'") from None
            got += len(data)
            if got > size:
                self.broken = True
                raise NetError(f"Source '{self.server}:{path}' grew while copying")
            write(data)
        if got != size:
            raise NetError(f"Error in client-server stream, has {self.server}:{path} shrunk?")
        return None


def _recv(sock: socket.socket, server: str) -> bytes:
    def exact(n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = sock.recv(n - len(buf))
            if not chunk:
                raise NetError(f"Connection to '{server}' was closed during authentication")
            buf += chunk
        return bytes(buf)
    try:
        return P.read_transaction(exact)[0]
    except P.ProtocolError as exc:
        raise NetError(f"Protocol error in RSA authentication from '{server}' ({exc})") from None


def _known_server_key(workdir: str, address: str, user: str):  # noqa: ANN202
    """HavePublicKeyByIP: lastseen's key for this address, if ppkeys has it."""
    from cfpromise.net import keys, lastseen
    for entry in reversed(lastseen.load(workdir)):
        if entry.get("address") == address and not entry.get("incoming"):
            return keys.find_trusted_key(workdir, str(entry.get("key")), user)
    return None


def connect(server: str, opts: ConnectOptions, encrypt: bool = False) -> ClassicConnection:
    """An authenticated classic connection (IdentifyAgent + AuthenticateAgent)."""
    from cfpromise.net import keys
    host, port = split_host_port(server, opts.port)
    try:
        hostkey = keys.load_host_key(opts.workdir)
    except keys.KeyError_ as exc:
        raise SetupError(str(exc)) from None
    sock, address = _tcp_connect(host, port, opts.timeout, opts.force_ipv4, opts.log,
                                 opts.bind_address)
    username = opts.username or current_user()
    try:
        key_digest, session_key = _handshake(sock, server, address, username, hostkey, opts)
    except (NetError, TrustError):
        sock.close()
        raise
    except (OSError, C.ClassicError, keys.KeyError_) as exc:
        sock.close()
        raise NetError(f"Authentication dialogue with '{server}' failed ({exc})") from None
    return ClassicConnection(sock, server, address, key_digest, session_key, encrypt)


def _handshake(sock: socket.socket, server: str, address: str, username: str,
               hostkey: object, opts: ConnectOptions) -> tuple[str, bytes]:
    from cfpromise.net import keys
    send = lambda data: sock.sendall(P.encode(data))      # noqa: E731
    send(C.cauth_line(sock, username))
    challenge = C.nonce()
    expected = C.md5(challenge)
    server_key = _known_server_key(opts.workdir, address, username)
    if server_key is not None:
        send(C.sauth_request(True, C.rsa_encrypt(server_key, challenge), len(challenge)))
    else:
        send(C.sauth_request(False, challenge, len(challenge)))
    n_mpi, e_mpi = C.key_mpis(hostkey.public)               # type: ignore[attr-defined]
    send(n_mpi)
    send(e_mpi)
    reply = P.cstring(_recv(sock, server))
    if P.is_bad(reply):
        raise TrustError(f"Bad protocol reply: {reply}")
    if _recv(sock, server)[:16] != expected:
        raise NetError(f"Challenge response from server '{server}/{address}' was incorrect")
    if server_key is None and not opts.trust:
        raise TrustError(f"Not authorized to trust public key of server '{server}' "
                         "(trustkey = false)")
    counter = C.rsa_decrypt(hostkey.private, _recv(sock, server))  # type: ignore[attr-defined]
    send(C.md5(counter[:len(challenge)]))
    if server_key is None:
        server_key = C.public_from_mpis(_recv(sock, server), _recv(sock, server))
    key_digest = keys.digest(server_key)
    if opts.restrict_keys and key_digest not in opts.restrict_keys:
        raise TrustError(f"Server key not in allowed keys, server presented: {key_digest}")
    if not keys.is_trusted(opts.workdir, server_key, username):
        if opts.log:
            opts.log("notice", f"Trusting new key: {key_digest}")
        keys.trust_key(opts.workdir, server_key, username)
    session_key = C.os.urandom(C.SESSION_KEY_SIZE)
    send(C.rsa_encrypt(server_key, session_key))
    return key_digest, session_key

