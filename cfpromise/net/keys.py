"""Host keys in cf-key 3.21's file formats, their digests, and trusted peer keys.

cf-key writes WORKDIR/ppkeys/localhost.priv as a PKCS#1 PEM ("BEGIN RSA PRIVATE
KEY", unencrypted; older keys may be encrypted with the passphrase "Cfengine
passphrase", which we accept on reading) and localhost.pub as a PKCS#1 PEM
("BEGIN RSA PUBLIC KEY"): 2048-bit RSA, e = 65537, both files 0600.

A key's digest is the hash of the big-endian bytes of the modulus followed by
those of the exponent (HashPubKey), printed as ``MD5=<hex>`` (3.21's default
digest; ``SHA=<hex>`` is SHA-256, FIPS mode).  A trusted peer key lives in
WORKDIR/ppkeys/<user>-<digest>.pub (``root-MD5=....pub``).

Everything here uses pyca/cryptography; nothing is hand-written crypto.  Key
files are written atomically (temp file + rename) with mode 0600, and a key is
never loaded from a file or directory that another user can write.
"""
from __future__ import annotations

import hashlib
import os
import stat
import attrs
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey, RSAPublicKey

KEY_SIZE = 2048
PUBLIC_EXPONENT = 65537
LEGACY_PASSPHRASE = b"Cfengine passphrase"
DEFAULT_DIGEST = "MD5"          # CF_DEFAULT_DIGEST in 3.21 (SHA with FIPS mode)
PRIVATE_NAME = "localhost.priv"
PUBLIC_NAME = "localhost.pub"


class KeyError_(Exception):
    """A key file is missing, unsafe or unreadable (the message names the file)."""


def ppkeys_dir(workdir: str) -> str:
    return os.path.join(workdir, "ppkeys")


def private_key_path(workdir: str) -> str:
    return os.path.join(ppkeys_dir(workdir), PRIVATE_NAME)


def public_key_path(workdir: str) -> str:
    return os.path.join(ppkeys_dir(workdir), PUBLIC_NAME)


# --------------------------------------------------------------------------- digests

def _be(n: int) -> bytes:
    return n.to_bytes(max(1, (n.bit_length() + 7) // 8), "big")


def digest_bytes(key: RSAPublicKey, method: str = DEFAULT_DIGEST) -> bytes:
    nums = key.public_numbers()
    data = _be(nums.n) + _be(nums.e)
    if method.upper() == "MD5":
        return hashlib.md5(data).digest()
    if method.upper() in ("SHA", "SHA256"):
        return hashlib.sha256(data).digest()
    raise ValueError(f"unknown digest method '{method}'")


def digest(key: RSAPublicKey, method: str = DEFAULT_DIGEST) -> str:
    """The printable digest, e.g. ``MD5=19c349ba...`` (KeyPrintableHash)."""
    prefix = "MD5" if method.upper() == "MD5" else "SHA"
    return f"{prefix}={digest_bytes(key, method).hex()}"


def is_digest(text: str) -> bool:
    """``MD5=<32 hex>`` or ``SHA=<64 hex>``."""
    head, _, tail = text.partition("=")
    size = {"MD5": 32, "SHA": 64}.get(head)
    return size is not None and len(tail) == size and all(c in "0123456789abcdef" for c in tail)


# --------------------------------------------------------------------------- PEM

def private_pem(key: RSAPrivateKey) -> bytes:
    from cryptography.hazmat.primitives import serialization as ser
    return key.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.TraditionalOpenSSL,
                             ser.NoEncryption())


def public_pem(key: RSAPublicKey) -> bytes:
    from cryptography.hazmat.primitives import serialization as ser
    return key.public_bytes(ser.Encoding.PEM, ser.PublicFormat.PKCS1)


def parse_public(data: bytes) -> RSAPublicKey:
    """A PKCS#1 ("RSA PUBLIC KEY") or SubjectPublicKeyInfo ("PUBLIC KEY") PEM."""
    from cryptography.hazmat.primitives import serialization as ser
    from cryptography.hazmat.primitives.asymmetric import rsa
    try:
        key = ser.load_pem_public_key(data)
    except (ValueError, TypeError) as exc:
        raise KeyError_(f"not a PEM public key ({exc})") from None
    if not isinstance(key, rsa.RSAPublicKey):
        raise KeyError_("not an RSA public key")
    return key


def parse_private(data: bytes) -> RSAPrivateKey:
    from cryptography.hazmat.primitives import serialization as ser
    from cryptography.hazmat.primitives.asymmetric import rsa
    key = None
    for password in (None, LEGACY_PASSPHRASE):
        try:
            key = ser.load_pem_private_key(data, password=password)
            break
        except TypeError:          # encrypted and no password, or the reverse
            continue
        except ValueError as exc:
            raise KeyError_(f"not a PEM private key ({exc})") from None
    if key is None:
        raise KeyError_("encrypted private key (unknown passphrase)")
    if not isinstance(key, rsa.RSAPrivateKey):
        raise KeyError_("not an RSA private key")
    return key


# --------------------------------------------------------------------------- safe files

def _check_safe(path: str) -> None:
    """Refuse a key that another user could have written: the file and every
    directory above it must be owned by us or root and not group/other-writable
    (sticky /tmp-like directories excepted, as they protect their entries)."""
    me = os.geteuid()
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise KeyError_(f"'{path}' is not a regular file")
    if st.st_uid not in (me, 0) or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise KeyError_(f"'{path}' can be written by another user: refusing to use it")
    directory = os.path.dirname(os.path.abspath(path))
    while True:
        dst = os.stat(directory)
        writable = dst.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        if dst.st_uid not in (me, 0) or (writable and not dst.st_mode & stat.S_ISVTX):
            raise KeyError_(f"'{path}' is in '{directory}', which another user can write: "
                            "refusing to use it")
        parent = os.path.dirname(directory)
        if parent == directory:
            return
        directory = parent


def read_key_file(path: str, check: bool = True) -> bytes:
    try:
        if check:
            _check_safe(path)
        with open(path, "rb") as fh:
            return fh.read(1 << 16)
    except OSError as exc:
        raise KeyError_(f"Couldn't read key file '{path}' ({exc.strerror})") from None


def write_private_file(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically with mode 0600 (never world-readable,
    not even for an instant)."""
    from cfpromise.atomic import write_atomically
    write_atomically(path, data, mode=0o600, dir_mode=0o700)


# --------------------------------------------------------------------------- host key pair

@attrs.define
class HostKey:
    """This host's key pair (PRIVKEY/PUBKEY)."""

    private: RSAPrivateKey

    @property
    def public(self) -> RSAPublicKey:
        return self.private.public_key()

    def digest(self, method: str = DEFAULT_DIGEST) -> str:
        return digest(self.public, method)


def generate(bits: int = KEY_SIZE) -> RSAPrivateKey:
    from cryptography.hazmat.primitives.asymmetric import rsa
    return rsa.generate_private_key(public_exponent=PUBLIC_EXPONENT, key_size=bits)


def create_key_pair(private_path: str, public_path: str, bits: int = KEY_SIZE) -> HostKey:
    """KeepKeyPromises: make a new pair; refuses to overwrite an existing file."""
    for path in (public_path, private_path):
        if os.path.lexists(path):
            raise KeyError_(f"A key file already exists at {path}")
    key = generate(bits)
    write_private_file(private_path, private_pem(key))
    write_private_file(public_path, public_pem(key.public_key()))
    return HostKey(key)


def load_host_key(workdir: str) -> HostKey:
    """The host's pair from WORKDIR/ppkeys (KeyError_ naming the file if absent/unsafe)."""
    path = private_key_path(workdir)
    if not os.path.exists(path):
        raise KeyError_(f"No public/private key pair is loaded ('{path}' is missing), "
                        "please create one using cf-lite-key")
    return HostKey(parse_private(read_key_file(path)))


def ensure_host_key(workdir: str) -> HostKey:
    """Load the pair, creating it first when neither file exists."""
    priv, pub = private_key_path(workdir), public_key_path(workdir)
    if not os.path.exists(priv) and not os.path.exists(pub):
        return create_key_pair(priv, pub)
    return load_host_key(workdir)


# --------------------------------------------------------------------------- trusted keys

def trusted_key_path(workdir: str, key_digest: str, user: str = "root") -> str:
    return os.path.join(ppkeys_dir(workdir), f"{user}-{key_digest}.pub")


def find_trusted_key(workdir: str, key_digest: str, user: str = "root") -> RSAPublicKey | None:
    """HavePublicKey: the stored key of ``user`` with that digest, or None.  (The
    client always looks under root; the server under the peer's IDENTITY user.)"""
    path = trusted_key_path(workdir, key_digest, user or "root")
    if not os.path.exists(path):
        return None
    try:
        key = parse_public(read_key_file(path))
    except KeyError_:
        return None
    e = key.public_numbers().e
    return key if e.bit_length() >= 2 and e & 1 else None


def is_trusted(workdir: str, key: RSAPublicKey, user: str = "root") -> bool:
    """The peer key is stored and equal to the one presented (TLSVerifyPeer == 1)."""
    stored = find_trusted_key(workdir, digest(key), user)
    return stored is not None and stored.public_numbers() == key.public_numbers()


def trust_key(workdir: str, key: RSAPublicKey, user: str = "root") -> str:
    """SavePublicKey: store the peer key as trusted; returns the path written."""
    path = trusted_key_path(workdir, digest(key), user or "root")
    write_private_file(path, public_pem(key))
    return path


def remove_trusted(workdir: str, key_digest: str) -> list[str]:
    """Remove every ``*-<digest>.pub`` (cf-key -r DIGEST); returns the removed paths."""
    removed: list[str] = []
    directory = ppkeys_dir(workdir)
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        if name.endswith(f"-{key_digest}.pub"):
            try:
                os.unlink(os.path.join(directory, name))
                removed.append(os.path.join(directory, name))
            except OSError:
                pass
    return removed
