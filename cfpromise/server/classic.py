"""The server's side of protocol version 1 ("classic"), as cf-serverd 3.21.

Why: cf-agent 3.21 still copies with ``protocol_version => "classic"``; 3.21's
server serves those clients when ``allowlegacyconnects`` admits their address
(session.py checks that before handing the socket here).

The dialogue (3.21 BusyWithClassicConnection + AuthenticationDialogue): the
first transaction must be ``CAUTH <ip> <name> <user> 0``, the second ``SAUTH``
(see cfpromise.net.classic for the messages).  The client's key must already be
in ppkeys or its address in ``trustkeysfrom``.  Then the requests are the TLS
protocol's handlers (cfpromise.server.requests: same resolution, same access
rules), plus their encrypted ``S*`` forms: the request is Blowfish-decrypted and
dispatched; SOPENDIR/SVAR/SCONTEXT/SQUERY replies are encrypted, SGET sends the
file as encrypted transactions of 4064 plain bytes, SSYNCH/SMD5 reply in clear.
A plain (unencrypted) GET/OPENDIR/MD5 of a path whose access rule says
``ifencrypted => "true"`` is refused, as 3.21's AccessControl does.

Anything malformed ends this connection with a log line, never a traceback.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from cfpromise.net import classic as C
from cfpromise.net import protocol as P
from cfpromise.server import requests as R
from cfpromise.server.slots import HANDSHAKEN

if TYPE_CHECKING:
    from cfpromise.server.session import Session

SGET_BLOCK = P.CF_BUFSIZE - 4 * P.CF_INBAND_OFFSET        # 4064 plain bytes per transaction
PLAIN_COMMANDS = {"EXEC", "GET", "OPENDIR", "SYNCH", "MD5", "VERSION", "VAR", "CONTEXT",
                  "QUERY"}
# encrypted command -> (its plain command, are the replies encrypted?)
SECURE = {"SSYNCH": ("SYNCH", False), "SMD5": ("MD5", False), "SOPENDIR": ("OPENDIR", True),
          "SVAR": ("VAR", True), "SCONTEXT": ("CONTEXT", True), "SQUERY": ("QUERY", True),
          "SGET": ("GET", True)}
ENCRYPTION_REQUIRED_CHECK = {"GET": 2, "OPENDIR": 1, "MD5": 1}   # path field index


class AuthFailed(Exception):
    pass


def serve(session: "Session") -> None:
    """Authenticate the classic client, then serve its requests until it closes."""
    try:
        peer, key = authenticate(session)
    except (AuthFailed, C.ClassicError) as err:
        session.log("info", f"Authentication failure: {err}")
        _refuse(session)
        return
    if not session.identified():
        session.log("info", "Connection pre-empted during its authentication")
        return
    plain_req = R.Request(session.access, peer, session.send, session.receive, session.log,
                          session.server.options.workdir)
    while not session.server.stopping:
        try:
            payload = session.receive()
        except P.ConnectionClosed:
            session.log("verbose", "Connection closed by peer")
            return
        if not handle(session, plain_req, key, payload):
            return


def _refuse(session: "Session") -> None:
    try:
        session.send(P.encode(P.CF_FAILEDSTR))
    except OSError:
        pass


def authenticate(session: "Session") -> tuple[R.Peer, bytes]:
    from cfpromise.net import keys, lastseen
    first = session.receive()
    if not first.startswith(b"CAUTH"):
        raise AuthFailed("REFUSAL due to no RSA authentication (first request is not CAUTH)")
    _ip, _name, username = C.parse_cauth(first)
    if not P.valid_username(username):
        raise AuthFailed(f"Client is sending wrong username: {username[:64]!r}")
    session.progressed(HANDSHAKEN)
    sauth = C.parse_sauth(session.receive())
    hostkey = session.server.host_key
    if sauth.encrypted:
        challenge = C.rsa_decrypt(hostkey.private, sauth.body)
        if len(challenge) != sauth.nonce_len:
            raise AuthFailed("decrypted challenge has the wrong length")
    else:
        challenge = sauth.body
    client_key = C.public_from_mpis(session.receive(), session.receive())
    digest = keys.digest(client_key)
    session.log("verbose", f"Peer's identity is: {digest}")
    workdir = session.server.options.workdir
    from cfpromise.server.acl import listed
    if keys.is_trusted(workdir, client_key, username):
        session.send(P.encode(C.KEY_ACCEPTED))
    elif listed(session.access.trustkeysfrom, session.ip):
        session.send(P.encode(C.KEY_TRUSTED))
        session.log("notice", f"Trusting new key: {digest}")
        keys.trust_key(workdir, client_key, username)
    else:
        session.send(P.encode(C.KEY_REFUSED))
        raise AuthFailed("No previous key found, and unable to accept this one on trust")
    session.send(P.encode(C.md5(challenge)))
    counter = C.nonce()
    session.send(P.encode(C.rsa_encrypt(client_key, counter)))
    if not sauth.encrypted:
        n_mpi, e_mpi = C.key_mpis(hostkey.public)
        session.send(P.encode(n_mpi))
        session.send(P.encode(e_mpi))
    if session.receive()[:16] != C.md5(counter):
        raise AuthFailed("counter-challenge response was incorrect")
    encrypted_key = session.receive()
    if len(encrypted_key) > P.CF_BUFSIZE // 2:
        raise AuthFailed("session key received is too long")
    # 3.21 also takes a 16-byte session key in clear ("upgrade" path); an
    # eavesdropper could then read everything, so cf-lite refuses it.
    session_key = C.rsa_decrypt(hostkey.private, encrypted_key)
    if len(session_key) != C.SESSION_KEY_SIZE:
        raise AuthFailed(f"session key decrypts to {len(session_key)} bytes, expected 16")
    session.log("verbose", f"Authentication of client {session.ip} achieved")
    try:
        lastseen.record(workdir, session.ip, digest, incoming=True)
    except Exception:     # noqa: BLE001 - lastseen is best effort
        pass
    peer = R.Peer(ip=session.ip, hostname=session.server.reverse_lookup(session.ip),
                  key=digest, username=username, protocol=int(P.Version.CLASSIC))
    return peer, session_key


def handle(session: "Session", plain_req: R.Request, key: bytes, payload: bytes) -> bool:
    """One classic request; False closes the connection."""
    text = P.cstring(payload)
    if not text:
        session.log("warning", "Got NULL transmission, skipping!")
        return True
    word = text.split(" ", 1)[0]
    if word in SECURE:
        plain_word, encrypted_replies = SECURE[word]
        try:
            _w, plain, extra = C.open_secure_request(key, payload)
        except C.ClassicError as err:
            session.log("info", f"Protocol error {word}: {err}")
            plain_req.refuse(word)
            return False
        plain_text = P.cstring(plain) if plain_word != "MD5" else plain.split(b"\0", 1)[0] \
            .decode("utf-8", "surrogateescape")
        if not plain_text.startswith(plain_word):
            session.log("info", f"{word}: decrypted request is not {plain_word}")
            plain_req.refuse(word)
            return word in ("SSYNCH", "SGET", "SOPENDIR")
        if word == "SGET":
            return _sget(session, plain_req, key, plain_text, extra)
        if plain_word == "MD5":
            plain_payload = plain
        else:
            plain_payload = plain_text.encode("utf-8", "surrogateescape")
        req = _encrypting(plain_req, key) if encrypted_replies else plain_req
        return R.dispatch(req, plain_payload)
    if word not in PLAIN_COMMANDS:
        session.log("info", f"Unexpected classic protocol command: {text[:100]}")
        return plain_req.protocol_error(text[:200])
    if word in ENCRYPTION_REQUIRED_CHECK and _needs_encryption(plain_req, text, word):
        session.log("info", f"access to {text[:200]} requires encryption (ifencrypted)")
        plain_req.refuse(text)
        return word != "OPENDIR"
    return R.dispatch(plain_req, payload)


def _needs_encryption(req: R.Request, text: str, word: str) -> bool:
    """Does the access rule of the requested path say ifencrypted?"""
    fields = text.split(" ", ENCRYPTION_REQUIRED_CHECK[word])
    if len(fields) <= ENCRYPTION_REQUIRED_CHECK[word]:
        return False
    raw = fields[ENCRYPTION_REQUIRED_CHECK[word]].split("\n", 1)[0]
    path = R._resolve(req, raw, word)
    if path is None:
        return False                       # the handler refuses it anyway
    p = req.peer
    for candidate in (path, R._strip_slash(path), path.rstrip("/") + "/"):
        entry = req.access.paths.path_entry(candidate, p.ip, p.hostname, p.key)
        if entry is not None:
            return bool(entry.encrypted)
    return False


def _encrypting(req: R.Request, key: bytes) -> R.Request:
    """A Request whose framed replies are re-framed with encrypted payloads."""
    def send(data: bytes) -> None:
        out = bytearray()
        pos = 0
        while pos < len(data):
            more, length = P.parse_header(data[pos:pos + P.CF_INBAND_OFFSET])
            body = data[pos + P.CF_INBAND_OFFSET:pos + P.CF_INBAND_OFFSET + length]
            pos += P.CF_INBAND_OFFSET + length
            cipher = C.encrypt(key, body if body.endswith(b"\0") else body + b"\0")
            if len(cipher) > P.CF_MSGSIZE:
                cipher = C.encrypt(key, body[:P.CF_MSGSIZE - 16] + b"\0")
            out += P.encode(cipher, more)
        req.send(bytes(out))
    return R.Request(req.access, req.peer, send, req.receive, req.log, req.workdir,
                     req.run_command)


def _sget(session: "Session", req: R.Request, key: bytes, plain_text: str,
          bufsize: int | None) -> bool:
    """SGET: ``GET dummykey <path>``; the file goes out as encrypted transactions."""
    parts = plain_text.split(" ", 2)
    if len(parts) < 3 or bufsize is None or not 0 <= bufsize <= 8192:
        session.log("info", "SGET bounding error")
        req.refuse("SGET")
        return False
    pending = bytearray()
    state = {"first": True, "refused": False}
    failed = (P.encode(P.CF_FAILEDSTR), R._padded(P.CF_FAILEDSTR, P.GET_BUFSIZE))

    def flush(last: bool) -> None:
        while len(pending) > SGET_BLOCK or (last and pending):
            block = bytes(pending[:SGET_BLOCK])
            del pending[:SGET_BLOCK]
            session.send(P.encode(C.encrypt(key, block), more=not (last and not pending)))

    def send(data: bytes) -> None:
        if state["refused"]:
            return
        if state["first"] and (data in failed or data.startswith(failed[0])):
            state["refused"] = True
            session.send(failed[0])
            return
        state["first"] = False
        pending.extend(data)
        flush(False)

    stream_req = R.Request(req.access, req.peer, send, req.receive, req.log, req.workdir,
                           req.run_command)
    get_payload = f"GET {P.GET_BUFSIZE} {parts[2]}".encode("utf-8", "surrogateescape")
    keep = R.dispatch(stream_req, get_payload)
    if not state["refused"]:
        if pending:
            flush(True)
        elif state["first"]:                   # empty file: one empty encrypted block
            session.send(P.encode(C.encrypt(key, b"")))
    return keep

