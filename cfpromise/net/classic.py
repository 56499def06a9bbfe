"""CFEngine protocol version 1 ("classic"): the pre-TLS protocol, both sides' crypto.

Why: ``protocol_version => "classic"`` (or "1") copies still exist in 3.21
policy, and cf-serverd 3.21 serves them to addresses in ``allowlegacyconnects``.

Framing is the same 8-byte transaction header as the TLS protocols, over plain
TCP.  The client opens with ``CAUTH <ip> <dnsname> <user> 0``, then the RSA
dialogue (3.21 AuthenticateAgent / AuthenticationDialogue):

  C1 ``SAUTH y|n <crypt_len> <nonce_len> c`` NUL-padded to 24 bytes, then the
     nonce (an OpenSSL MPI of 256 random bits), RSA-encrypted with the server's
     key when the client knows it ('y'), else in clear ('n');
  C2, C3 the client's public modulus and exponent (MPIs);
  S1 ``OK: key accepted`` / ``OK: unknown key was accepted on trust`` /
     ``BAD: key could not be accepted on trust``;
  S2 MD5 of the nonce; S3 a counter-challenge MPI encrypted with the client's
     key; S4, S5 (only after 'n') the server's modulus and exponent;
  C4 MD5 of the decrypted counter-challenge;
  C5 a 16-byte Blowfish session key, RSA-encrypted with the server's key.

The ``S*`` requests (``SSYNCH``, ``SGET``, ``SOPENDIR``, ``SMD5``, ``SVAR``,
``SCONTEXT``) carry ``"<CMD> <cipherlen>"`` NUL-padded to 16 bytes then the
Blowfish-CBC ciphertext (IV 1..8, PKCS#7 padding) of the plain request.
"""
from __future__ import annotations

import hashlib
import os
import re
import socket
import attrs
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey, RSAPublicKey

CF_RSA_PROTO_OFFSET = 24
CF_PROTO_OFFSET = 16
NONCE_BITS = 256                      # CF_NONCELEN (CF_BUFSIZE/16) bits
MAX_CHALLENGE = 2 * NONCE_BITS        # server-side bound on SAUTH lengths (CF_NONCELEN*2)
SESSION_KEY_SIZE = 16                 # CF_BLOWFISHSIZE; enterprise field 'c' = Blowfish-CBC
IV = bytes([1, 2, 3, 4, 5, 6, 7, 8])
KEY_ACCEPTED = "OK: key accepted"
KEY_TRUSTED = "OK: unknown key was accepted on trust"
KEY_REFUSED = "BAD: key could not be accepted on trust"

# plain request -> its encrypted form's command word (None: sent in clear)
SECURE_COMMANDS = {"SYNCH": "SSYNCH", "OPENDIR": "SOPENDIR", "MD5": "SMD5", "VAR": "SVAR",
                   "CONTEXT": "SCONTEXT", "QUERY": "SQUERY"}


class ClassicError(Exception):
    """A malformed classic-protocol message; the message says what."""


# ---------------------------------------------------------------------------- MPIs
def mpi(n: int) -> bytes:
    """OpenSSL BN_bn2mpi of a non-negative integer: 4-byte length, big-endian
    magnitude with a leading zero byte when the top bit is set."""
    if n == 0:
        return b"\0\0\0\0"
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    if body[0] & 0x80:
        body = b"\0" + body
    return len(body).to_bytes(4, "big") + body


def parse_mpi(data: bytes, max_bits: int = 16384) -> int:
    if len(data) < 4:
        raise ClassicError("short MPI")
    length = int.from_bytes(data[:4], "big")
    if length != len(data) - 4:
        raise ClassicError("MPI length mismatch")
    body = data[4:]
    if body and body[0] & 0x80:
        raise ClassicError("negative MPI")
    n = int.from_bytes(body, "big")
    if n.bit_length() > max_bits:
        raise ClassicError("MPI too large")
    return n


def nonce() -> bytes:
    """BN_rand(256 bits, top bit set) as an MPI (37 bytes)."""
    n = int.from_bytes(os.urandom(NONCE_BITS // 8), "big") | (1 << (NONCE_BITS - 1))
    return mpi(n)


def md5(data: bytes) -> bytes:
    return hashlib.md5(data).digest()


def public_from_mpis(n_mpi: bytes, e_mpi: bytes) -> "RSAPublicKey":
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicNumbers
    n, e = parse_mpi(n_mpi), parse_mpi(e_mpi, 64)
    if n.bit_length() < 512 or e < 3 or not e & 1:
        raise ClassicError("unusable RSA public key")
    try:
        return RSAPublicNumbers(e, n).public_key()
    except ValueError as exc:
        raise ClassicError(f"bad RSA public key ({exc})") from None


def key_mpis(key: "RSAPublicKey") -> tuple[bytes, bytes]:
    nums = key.public_numbers()
    return mpi(nums.n), mpi(nums.e)


def rsa_encrypt(key: "RSAPublicKey", data: bytes) -> bytes:
    from cryptography.hazmat.primitives.asymmetric import padding
    try:
        return key.encrypt(data, padding.PKCS1v15())
    except ValueError:             # a peer's key that parses but cannot encrypt (found by fuzzing)
        raise ClassicError("RSA encryption failed (unusable public key)") from None


def rsa_decrypt(key: "RSAPrivateKey", data: bytes) -> bytes:
    from cryptography.hazmat.primitives.asymmetric import padding
    try:
        return key.decrypt(data, padding.PKCS1v15())
    except ValueError:
        raise ClassicError("RSA decryption failed") from None


# ---------------------------------------------------------------------------- session cipher
def _cipher(key: bytes):       # noqa: ANN202 - cryptography's Cipher
    from cryptography.hazmat.primitives.ciphers import Cipher, modes
    try:
        from cryptography.hazmat.decrepit.ciphers.algorithms import Blowfish
    except ImportError:                                  # cryptography < 43
        from cryptography.hazmat.primitives.ciphers.algorithms import Blowfish  # type: ignore
    return Cipher(Blowfish(key), modes.CBC(IV))


def encrypt(key: bytes, plain: bytes) -> bytes:
    """EncryptString: Blowfish-CBC, fixed IV, PKCS#7 padding."""
    from cryptography.hazmat.primitives import padding
    padder = padding.PKCS7(64).padder()
    data = padder.update(plain) + padder.finalize()
    enc = _cipher(key).encryptor()
    return enc.update(data) + enc.finalize()


def decrypt(key: bytes, data: bytes) -> bytes:
    """DecryptString; ClassicError when the ciphertext or its padding is bad."""
    from cryptography.hazmat.primitives import padding
    if not data or len(data) % 8:
        raise ClassicError("ciphertext is not a whole number of blocks")
    dec = _cipher(key).decryptor()
    padded = dec.update(data) + dec.finalize()
    unpadder = padding.PKCS7(64).unpadder()
    try:
        return unpadder.update(padded) + unpadder.finalize()
    except ValueError:
        raise ClassicError("decryption failed (bad padding)") from None


def secure_request(key: bytes, word: str, plain: bytes, extra: str = "") -> bytes:
    """``"<word> <cipherlen>[ extra]"`` NUL-padded to 16 bytes + ciphertext."""
    cipher = encrypt(key, plain)
    head = (f"{word} {len(cipher)}" + extra).encode()
    if len(head) >= CF_PROTO_OFFSET:
        raise ClassicError("request header too long")
    return head.ljust(CF_PROTO_OFFSET, b"\0") + cipher


_SECURE_HEAD = re.compile(rb"([A-Z][A-Z0-9]*) +(\d+)(?: +(-?\d+))?\0*$")


def open_secure_request(key: bytes, payload: bytes) -> tuple[str, bytes, int | None]:
    """Server side: (word, decrypted plain request, extra number) of an S* request."""
    head = payload[:CF_PROTO_OFFSET].split(b"\0", 1)[0]
    m = _SECURE_HEAD.match(head)
    if m is None:
        raise ClassicError("bad encrypted request header")
    length = int(m.group(2))
    if length != len(payload) - CF_PROTO_OFFSET:
        raise ClassicError("encrypted request length mismatch")
    plain = decrypt(key, payload[CF_PROTO_OFFSET:])
    extra = int(m.group(3)) if m.group(3) is not None else None
    return m.group(1).decode(), plain, extra


# ---------------------------------------------------------------------------- SAUTH
@attrs.define
class Sauth:
    encrypted: bool
    crypt_len: int
    nonce_len: int
    enterprise: str
    body: bytes


_SAUTH = re.compile(rb"SAUTH ([\x21-\x7e]) (\d{1,9}) (\d{1,9})(?: ([\x21-\x7e]))?")


def sauth_request(encrypted: bool, challenge: bytes, nonce_len: int) -> bytes:
    head = f"SAUTH {'y' if encrypted else 'n'} {len(challenge)} {nonce_len} c".encode()
    return head.ljust(CF_RSA_PROTO_OFFSET, b"\0") + challenge


def parse_sauth(payload: bytes) -> Sauth:
    head = payload[:CF_RSA_PROTO_OFFSET].split(b"\0", 1)[0]
    m = _SAUTH.match(head)
    if m is None:
        raise ClassicError("was expecting SAUTH command")
    crypt_len, nonce_len = int(m.group(2)), int(m.group(3))
    if not crypt_len or not nonce_len:
        raise ClassicError("unexpected challenge length")
    if crypt_len > MAX_CHALLENGE or nonce_len > MAX_CHALLENGE:
        raise ClassicError("challenge too long")
    body = payload[CF_RSA_PROTO_OFFSET:CF_RSA_PROTO_OFFSET + crypt_len]
    if len(body) < crypt_len:
        raise ClassicError("challenge shorter than announced")
    encrypted = m.group(1) == b"y"
    if not encrypted and crypt_len != nonce_len:
        raise ClassicError("illegal challenge (lengths differ)")
    return Sauth(encrypted, crypt_len, nonce_len, (m.group(4) or b"c").decode(), body)


def cauth_line(sock: socket.socket, username: str) -> bytes:
    """IdentifyAgent's ``CAUTH <local ip> <dns name> <user> 0``."""
    local = sock.getsockname()[0]
    try:
        dnsname = socket.getnameinfo((local, 0), 0)[0] or local
    except OSError:
        dnsname = local
    return f"CAUTH {local} {dnsname} {username} 0".encode("utf-8", "surrogateescape")


def parse_cauth(payload: bytes) -> tuple[str, str, str]:
    """(ip, hostname, username) from a CAUTH request (missing fields empty)."""
    text = payload.split(b"\0", 1)[0].decode("utf-8", "replace")
    fields = text[len("CAUTH"):].split()
    fields += [""] * (3 - len(fields))
    return fields[0][:255], fields[1][:255].lower(), fields[2][:255]
