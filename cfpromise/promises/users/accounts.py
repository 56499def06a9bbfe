"""The local account databases, read as cf-agent 3.21 reads them on Linux.

cf-agent looks users and groups up in the files themselves (fgetpwent,
fgetgrent, fgetspent), never through NSS, so that an LDAP user is not taken for
a local one; so does this module.  It only reads: changes go through the shadow
utilities (useradd, usermod, userdel, chpasswd), which lock the files and keep
them consistent.  ``ETC`` is where the files are (tests point it elsewhere).

Also here: what a password hash may look like, and checking a plaintext
password against a stored hash with the system's crypt(3).
"""
from __future__ import annotations

import os
import re
import time
from typing import Iterator

import attrs

ETC = "/etc"


class AccountsError(Exception):
    """An account database cannot be read (e.g. /etc/shadow without root)."""


@attrs.frozen
class Account:
    name: str
    uid: int
    gid: int
    gecos: str
    home: str
    shell: str
    passwd_field: str            # "x" when the hash is in shadow
    hash: str | None             # from shadow when there is one, else the passwd field
    expire: str                  # shadow's account-expiry field (days since 1970), "" for none

    @property
    def locked(self) -> bool:
        """cf-agent's test: the hash starts with '!'."""
        return (self.hash or "").startswith("!")

    @property
    def expired(self) -> bool:
        """The account expiry lies in the past (cf-agent locks by expiring on 1970-01-02)."""
        return self.expire.isdigit() and int(self.expire) <= int(time.time() // 86400)


@attrs.frozen
class Group:
    name: str
    gid: int
    members: tuple[str, ...]


def _rows(path: str, width: int) -> Iterator[list[str]]:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as fh:
            for line in fh:
                line = line.rstrip("\n")
                if not line or line.startswith(("#", "+", "-")):
                    continue
                fields = line.split(":")
                if len(fields) >= width:
                    yield fields
    except FileNotFoundError:
        return
    except OSError as exc:
        raise AccountsError(f"cannot read {path}: {exc.strerror}") from None


def _int(text: str) -> int:
    return int(text) if text.strip().lstrip("-").isdigit() else -1


def shadow_entries() -> dict[str, list[str]]:
    return {f[0]: f for f in _rows(os.path.join(ETC, "shadow"), 2)}


def users() -> dict[str, Account]:
    shadow = shadow_entries()
    out: dict[str, Account] = {}
    for f in _rows(os.path.join(ETC, "passwd"), 7):
        sp = shadow.get(f[0])
        hashed = sp[1] if sp is not None and len(f[1]) <= 4 else f[1]
        expire = sp[7] if sp is not None and len(sp) > 7 else ""
        out.setdefault(f[0], Account(f[0], _int(f[2]), _int(f[3]), f[4], f[5], f[6], f[1],
                                     hashed, expire))
    return out


def groups() -> list[Group]:
    return [Group(f[0], _int(f[2]), tuple(m for m in f[3].split(",") if m))
            for f in _rows(os.path.join(ETC, "group"), 4)]


def find_group(key: str, table: list[Group]) -> Group | None:
    """A group by name, else (for a number) by gid: names win, as in cf-agent."""
    for g in table:
        if g.name == key:
            return g
    if key.isdigit():
        for g in table:
            if g.gid == int(key):
                return g
    return None


def secondary_groups(user: str, table: list[Group]) -> set[str]:
    return {g.name for g in table if user in g.members}


# crypt(3) hashes: $id$[param$]salt$hash (md5, bcrypt, sha256/512, yescrypt, gost...),
# traditional DES (13 characters) and BSDi extended DES ("_" + 19); a leading run of
# "!" (locked) and the placeholders "*" and "x" (no password can match) are accepted too.
_HASH = re.compile(r"!*(?:\*|x|[./0-9A-Za-z]{13}|_[./0-9A-Za-z]{19}"
                   r"|\$[0-9a-z]{1,3}\$(?:[^$:\s]+\$){0,2}[^$:\s]+)")


def hash_problem(value: str) -> str | None:
    """Why ``value`` cannot be stored as a password hash, or None."""
    if any(c in value for c in ":\n\r") or any(ord(c) < 32 for c in value):
        return "a password hash cannot contain ':', a newline or control characters"
    if not _HASH.fullmatch(value):
        return (f"'{value}' is not a crypt(3) password hash (expected $id$salt$hash, or a "
                "13-character DES hash)")
    return None


def password_matches(plaintext: str, stored: str | None) -> bool:
    """Whether ``plaintext`` is the password of the hash ``stored`` (crypt(3) with the
    stored hash as salt); a locking '!' prefix is ignored."""
    stored = (stored or "").lstrip("!")
    if not stored or stored in ("*", "x"):
        return False
    result = _crypt(plaintext, stored)
    return result is not None and result == stored


def _crypt(word: str, salt: str) -> str | None:
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import crypt          # Python < 3.13
        except ImportError:
            crypt = None          # type: ignore[assignment]
    if crypt is not None:
        try:
            return crypt.crypt(word, salt)
        except OSError:
            return None
    import ctypes
    import ctypes.util
    name = ctypes.util.find_library("crypt")
    if name is None:
        return None
    lib = ctypes.CDLL(name)
    lib.crypt.restype = ctypes.c_char_p
    lib.crypt.argtypes = (ctypes.c_char_p, ctypes.c_char_p)
    out = lib.crypt(word.encode(), salt.encode())
    return out.decode() if out else None
