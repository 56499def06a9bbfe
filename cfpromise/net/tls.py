"""TLS as CFEngine 3.21 sets it up: both sides present a self-signed certificate
made from their host RSA key (CN "a", sha384, TLSGenerateCertFromPrivKey), both
sides *request* the peer's certificate but accept any, and trust is decided
after the handshake from the peer certificate's public key (its digest against
WORKDIR/ppkeys), not from X.509 chains.

The stdlib ``ssl`` module can request a client certificate only with chain
verification on, which a self-signed certificate fails; so the server context
gets OpenSSL's "accept every certificate" verify callback through ctypes on the
very SSL_CTX that ``ssl`` wraps (checked before it is touched; a layout we do
not recognise raises instead of guessing).  The key and certificate reach
OpenSSL through an anonymous memfd, never through a file on disk.
"""
from __future__ import annotations

import datetime
import os
import ssl
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey, RSAPublicKey

# cf-serverd's default "allowciphers" (TLS <= 1.2; TLS 1.3 suites stay OpenSSL's).
SERVER_DEFAULT_CIPHERS = "AES256-GCM-SHA384:AES256-SHA"
TLS_VERSIONS = {"1.0": ssl.TLSVersion.TLSv1, "1": ssl.TLSVersion.TLSv1,
                "1.1": ssl.TLSVersion.TLSv1_1, "1.2": ssl.TLSVersion.TLSv1_2,
                "1.3": ssl.TLSVersion.TLSv1_3}
DEFAULT_MIN_TLS = "1.2"           # (3.21 recommends >= 1.1; OpenSSL 3 peers use 1.3 anyway)


class TLSSetupError(Exception):
    pass


def make_certificate(key: RSAPrivateKey) -> bytes:
    """A PEM self-signed certificate for ``key``, valid 10 years from now."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.x509.oid import NameOID
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "a")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=3650))
            .sign(key, hashes.SHA384()))
    return cert.public_bytes(serialization.Encoding.PEM)


def _load_identity(ctx: ssl.SSLContext, key: RSAPrivateKey) -> None:
    from cfpromise.net.keys import private_pem
    fd = os.memfd_create("cf-lite-tls", os.MFD_CLOEXEC)
    try:
        os.write(fd, make_certificate(key) + private_pem(key))
        ctx.load_cert_chain(f"/proc/self/fd/{fd}")
    finally:
        os.close(fd)


def _min_version(ctx: ssl.SSLContext, min_version: str | None) -> None:
    import warnings
    version = TLS_VERSIONS.get((min_version or DEFAULT_MIN_TLS).strip(), ssl.TLSVersion.TLSv1_2)
    try:
        with warnings.catch_warnings():          # 1.0/1.1 only when asked for explicitly
            warnings.simplefilter("ignore", DeprecationWarning)
            ctx.minimum_version = version
    except (ValueError, ssl.SSLError):
        pass


def client_context(key: RSAPrivateKey, ciphers: str | None = None,
                   min_version: str | None = None) -> ssl.SSLContext:
    """The agent's context: present our certificate, take the server's as is
    (it is checked by key digest after the handshake)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.options |= ssl.OP_NO_TICKET
    _min_version(ctx, min_version)
    legacy, suites = split_ciphers(ciphers)
    try:
        ctx.set_ciphers(legacy or "DEFAULT")
    except ssl.SSLError as exc:
        raise TLSSetupError(f"invalid cipher list '{ciphers}' ({exc})") from None
    if ciphers and not suites:        # as 3.21: a list without TLS 1.3 suites means no TLS 1.3
        ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    _load_identity(ctx, key)
    return ctx


def split_ciphers(ciphers: str | None) -> tuple[str, list[str]]:
    """3.21's TLSSetCipherList split of a ':' list: (the TLS <= 1.2 cipher list, the TLS 1.3
    suites, whose names start with ``TLS_``)."""
    names = [n for n in (ciphers or "").split(":") if n]
    suites = [n for n in names if n.startswith("TLS_")]
    return ":".join(n for n in names if not n.startswith("TLS_")), suites


def server_context(key: RSAPrivateKey, ciphers: str | None = None,
                   min_version: str | None = None) -> ssl.SSLContext:
    """cf-serverd's context: requires a client certificate, accepts any (the key
    is checked after the identification dialog)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.options |= ssl.OP_NO_TICKET
    ctx.num_tickets = 0
    _min_version(ctx, min_version)
    try:
        ctx.set_ciphers(ciphers or SERVER_DEFAULT_CIPHERS)
    except ssl.SSLError as exc:
        raise TLSSetupError(f"invalid cipher list '{ciphers}' ({exc})") from None
    _load_identity(ctx, key)
    ctx.verify_mode = ssl.CERT_REQUIRED
    _accept_any_certificate(ctx)
    return ctx


# --------------------------------------------------------------------------- the callback

_LIB: Any = None
_ACCEPT: Any = None


def _libssl() -> Any:
    global _LIB, _ACCEPT
    if _LIB is None:
        import ctypes
        import _ssl
        lib = ctypes.CDLL(_ssl.__file__)          # resolves through _ssl's own libssl
        lib.SSL_CTX_get_verify_mode.restype = ctypes.c_int
        lib.SSL_CTX_get_verify_mode.argtypes = [ctypes.c_void_p]
        callback_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
        lib.SSL_CTX_set_cert_verify_callback.restype = None
        lib.SSL_CTX_set_cert_verify_callback.argtypes = [ctypes.c_void_p, callback_type,
                                                         ctypes.c_void_p]
        _ACCEPT = callback_type(lambda store, arg: 1)
        _LIB = lib
    return _LIB


def _ssl_ctx_pointer(ctx: ssl.SSLContext) -> int:
    """The SSL_CTX* of a PySSLContext (first field after PyObject_HEAD), checked
    against the verify mode ssl reports so that a different layout is caught."""
    import ctypes
    lib = _libssl()
    ptr = ctypes.c_void_p.from_address(id(ctx) + 2 * ctypes.sizeof(ctypes.c_void_p)).value
    if not ptr:
        raise TLSSetupError("cannot reach the OpenSSL context")
    ctx.verify_mode = ssl.CERT_OPTIONAL
    optional = lib.SSL_CTX_get_verify_mode(ptr)
    ctx.verify_mode = ssl.CERT_REQUIRED
    required = lib.SSL_CTX_get_verify_mode(ptr)
    if optional != 0x01 or required != 0x03:        # SSL_VERIFY_PEER, |FAIL_IF_NO_PEER_CERT
        raise TLSSetupError("unexpected ssl module layout: cannot install the peer-key check")
    return ptr


def _accept_any_certificate(ctx: ssl.SSLContext) -> None:
    ptr = _ssl_ctx_pointer(ctx)
    _libssl().SSL_CTX_set_cert_verify_callback(ptr, _ACCEPT, None)
    ctx._cf_lite_accept_any = True                  # type: ignore[attr-defined]


def peer_public_key(sock: ssl.SSLSocket | ssl.SSLObject) -> RSAPublicKey:
    """The RSA public key of the peer's certificate (TLSVerifyPeer's first half)."""
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric import rsa
    der = sock.getpeercert(binary_form=True)
    if not der:
        raise TLSSetupError("No certificate presented by remote peer")
    import warnings
    try:
        with warnings.catch_warnings():        # 3.21's certificates have serial number 0
            warnings.simplefilter("ignore")
            key = x509.load_der_x509_certificate(der).public_key()
    except ValueError as exc:
        raise TLSSetupError(f"unreadable peer certificate ({exc})") from None
    if not isinstance(key, rsa.RSAPublicKey):
        raise TLSSetupError("Received key of unknown type, only RSA currently supported!")
    return key
