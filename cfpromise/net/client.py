"""The agent's side of a connection to a CFEngine 3.21 (or cf-lite) server.

``connect()`` does what ServerConnection/TLSConnect do: TCP connect (with a
timeout), TLS handshake presenting our host key's certificate, the server's key
checked against WORKDIR/ppkeys/<user>-<digest>.pub (a new key is trusted and
stored only with ``trust``, as ``trustkey => "true"`` or a bootstrap does),
then the ``CFE_vN`` / ``IDENTITY`` dialog.  Protocol version 1 (classic) is
handed to classic_client.py.  The open connection's requests, the errors and the
options live in connection.py, which both protocols share; their names are
re-exported here, where callers have always found them.

Every reply is parsed defensively: a malformed, truncated or oversized answer
raises :class:`NetError` (never anything else), so that a promise can fail
with a clear message instead of the agent crashing.
"""
from __future__ import annotations

import os
import ssl

from cfpromise.net import protocol as P
from cfpromise.net.connection import (DEFAULT_PORT, MAX_DIR_ENTRIES, AccessDenied,  # noqa: F401
                                      ConnectOptions, Connection, NetError, NoHostKey,
                                      SetupError,
                                      TrustError, _recv_line, _tcp_connect, current_user,
                                      split_host_port)


def client_context(opts: ConnectOptions) -> ssl.SSLContext:
    """The TLS client context of this host's key pair (in ``opts.workdir``)."""
    from cfpromise.net import keys, tls
    try:
        hostkey = keys.load_host_key(opts.workdir)
    except keys.KeyError_ as exc:
        if not os.path.exists(keys.private_key_path(opts.workdir)):
            raise NoHostKey(str(exc)) from None
        raise SetupError(str(exc)) from None
    try:
        return tls.client_context(hostkey.private, opts.ciphers, opts.min_tls)
    except tls.TLSSetupError as exc:
        raise SetupError(str(exc)) from None


def connect(server: str, opts: ConnectOptions) -> Connection:
    """An authenticated connection to ``server`` (``host`` or ``host:port``)."""
    from cfpromise.net import keys, tls
    version = opts.version or P.LATEST
    if version == P.Version.CLASSIC:
        from cfpromise.net import classic_client
        return classic_client.connect(server, opts, opts.encrypt)
    host, port = split_host_port(server, opts.port)
    ctx = opts.tls_context or client_context(opts)
    raw, address = _tcp_connect(host, port, opts.timeout, opts.force_ipv4, opts.log,
                                opts.bind_address)
    try:
        sock = ctx.wrap_socket(raw, server_hostname=None)
    except (OSError, ssl.SSLError) as exc:
        raw.close()
        raise NetError(f"Failed to establish TLS connection to '{server}' ({exc})") from None
    try:
        peer = tls.peer_public_key(sock)
        key_digest = keys.digest(peer)
        username = opts.username or current_user()
        if opts.restrict_keys and key_digest not in opts.restrict_keys:
            raise TrustError(f"Server key not in allowed keys, server presented: {key_digest}")
        if not keys.is_trusted(opts.workdir, peer, username):
            if not opts.trust:
                raise TrustError(f"TRUST FAILED, server presented untrusted key: {key_digest}")
            if opts.log:
                opts.log("notice", f"Trusting new key: {key_digest}")
            keys.trust_key(opts.workdir, peer, username)
        offered = P.parse_version_line(_recv_line(sock))
        if offered in (P.Version.UNDEFINED, P.Version.CLASSIC):
            raise NetError("Server sent a bad version number! (0a)")
        agreed = P.Version(min(int(version), offered)) if offered < version else version
        sock.sendall(P.version_line(agreed, P.CLIENT_NAME) + P.identity_line(username))
        welcome = _recv_line(sock)
        if not welcome.startswith(P.OK_WELCOME.encode()):
            text = welcome.decode("utf-8", "replace").strip()
            raise TrustError(f"Peer did not accept our identity! Responded: {text}")
    except (TrustError, NetError):
        sock.close()
        raise
    except (OSError, ssl.SSLError, P.ProtocolError, keys.KeyError_, tls.TLSSetupError) as exc:
        sock.close()
        raise NetError(f"Connection to '{server}' failed during identification ({exc})") from None
    return Connection(sock, server, address, agreed, key_digest)
