"""cf-secret's file format: data encrypted for one or more host keys.

The file is::

    Version: 1.0\\n
    Encrypted-for: MD5=<digest of key 1>\\n
    ...
    \\n
    <16-byte IV> <one RSA-encrypted (PKCS#1 v1.5) session key per host, key-size
    bytes each, in header order> <AES-256-CBC ciphertext, PKCS#7 padding>

which is what OpenSSL's EVP_SealInit/EVP_OpenInit with AES-256-CBC produce, so
files move both ways between cf-secret 3.21 and cf-lite-secret.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey, RSAPublicKey

VERSION = "1.0"
IV_SIZE = 16
MAX_HEADER_KEY_LEN, MAX_HEADER_VAL_LEN = 256, 256
CHUNK = 1 << 16


class SecretError(Exception):
    """Encryption/decryption failed; the message is cf-secret's."""


def encrypt(keys: list[RSAPublicKey], src: BinaryIO, dst: BinaryIO) -> None:
    from cryptography.hazmat.primitives import padding as sympad
    from cryptography.hazmat.primitives.asymmetric import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from cfpromise.net.keys import digest
    if not keys:
        raise SecretError("No key to encrypt for")
    session, iv = os.urandom(32), os.urandom(IV_SIZE)
    header = f"Version: {VERSION}\n" + "".join(f"Encrypted-for: {digest(k)}\n" for k in keys)
    dst.write(header.encode() + b"\n" + iv)
    for key in keys:
        dst.write(key.encrypt(session, padding.PKCS1v15()))
    enc = Cipher(algorithms.AES(session), modes.CBC(iv)).encryptor()
    pad = sympad.PKCS7(128).padder()
    for block in iter(lambda: src.read(CHUNK), b""):
        dst.write(enc.update(pad.update(block)))
    dst.write(enc.update(pad.finalize()) + enc.finalize())


def read_headers(src: BinaryIO) -> list[tuple[str, str]]:
    """The ``Key: value`` headers up to the blank line (ParseHeaders)."""
    headers: list[tuple[str, str]] = []
    while True:
        line = bytearray()
        while not line.endswith(b"\n"):
            c = src.read(1)
            if not c:
                raise SecretError("Failed to parse headers")
            line += c
            if len(line) > MAX_HEADER_KEY_LEN + MAX_HEADER_VAL_LEN + 4:
                raise SecretError("Failed to parse headers")
        if line == b"\n":
            if not headers:
                raise SecretError("Failed to parse headers")
            return headers
        text = line[:-1].decode("utf-8", "replace")
        key, colon, value = text.partition(":")
        key = key.strip(" ")
        if not colon or not key or " " in key:
            raise SecretError("Failed to parse headers")
        value = value.strip(" ")
        if key == "Version":
            if value != VERSION:
                raise SecretError(f"Unsupported file format version: '{value}'")
        elif key != "Encrypted-for":
            raise SecretError(f"Unsupported header: '{key}'")
        headers.append((key, value))


def decrypt(key: RSAPrivateKey, src: BinaryIO, dst: BinaryIO) -> None:
    from cryptography.hazmat.primitives import padding as sympad
    from cryptography.hazmat.primitives.asymmetric import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from cfpromise.net.keys import digest
    ours = digest(key.public_key())
    headers = read_headers(src)
    if not any(k == "Version" for k, _ in headers):
        raise SecretError("File format version not specified")
    recipients = [v for k, v in headers if k == "Encrypted-for"]
    if ours not in recipients:
        raise SecretError(f"File not encrypted for host '{ours}'")
    position = recipients.index(ours)
    iv = src.read(IV_SIZE)
    if len(iv) != IV_SIZE:
        raise SecretError("Failed to read the IV")
    size = key.key_size // 8
    wrapped = b""
    for _ in range(position + 1):
        wrapped = src.read(size)
        if len(wrapped) != size:
            raise SecretError("Failed to read the key")
    for _ in range(len(recipients) - position - 1):
        if len(src.read(size)) != size:
            raise SecretError("Failed to read the key")
    try:
        session = key.decrypt(wrapped, padding.PKCS1v15())
        dec = Cipher(algorithms.AES(session), modes.CBC(iv)).decryptor()
    except ValueError:
        raise SecretError(f"Failed to decrypt contents using key '{ours}'") from None
    unpad = sympad.PKCS7(128).unpadder()
    try:
        for block in iter(lambda: src.read(CHUNK), b""):
            dst.write(unpad.update(dec.update(block)))
        dst.write(unpad.update(dec.finalize()) + unpad.finalize())
    except ValueError:
        raise SecretError("Failed to decrypt data: bad decrypt") from None
