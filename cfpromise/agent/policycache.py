"""A cache of parsed, validated policy files for the agent (WORKDIR/state/policy_cache).

A cron agent parses the same unchanged policy every five minutes; parsing is the
biggest part of loading (masterfiles' lib: about 150 ms, read back from the
cache: about 20 ms).  Each policy file has one cache file, named after its path
and role (entry file or input), holding the file's content digest, the digest
of cf-lite's parser and schema code, and the parsed policy (only a policy that
validated is kept).  An entry is used only when both digests still match, so an
edited policy file or an upgraded cf-lite is parsed afresh; anything unreadable
is treated as a miss.  Cache files are written atomically, mode 0600, in a
directory only the agent's user can write (they are pickles: never point the
cache at a directory others can write).
"""
from __future__ import annotations

import hashlib
import os
import pickle
from typing import Any

import cfpromise

FORMAT = 1
_CODE_DIRS = ("syntax", "schema", "data")


def _code_stamp() -> bytes:
    """cf-lite's version and the size and mtime of every parser/schema source file."""
    root = os.path.dirname(os.path.abspath(cfpromise.__file__))
    parts = [f"{FORMAT}:{cfpromise.__version__}"]
    for sub in _CODE_DIRS:
        directory = os.path.join(root, sub)
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        for name in names:
            if name.endswith((".py", ".json")):
                try:
                    st = os.stat(os.path.join(directory, name))
                except OSError:
                    continue
                parts.append(f"{sub}/{name}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).digest()


class PolicyCache:
    """Parsed policy files by path, checked against their content (module docstring)."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self._stamp: bytes | None = None

    @property
    def stamp(self) -> bytes:
        if self._stamp is None:
            self._stamp = _code_stamp()
        return self._stamp

    def _file(self, path: str, entry: bool) -> str:
        name = hashlib.sha256(f"{int(entry)}:{os.path.abspath(path)}".encode()).hexdigest()
        return os.path.join(self.directory, name[:40] + ".pickle")

    @staticmethod
    def _digest(path: str) -> bytes | None:
        try:
            with open(path, "rb") as fh:
                return hashlib.sha256(fh.read()).digest()
        except OSError:
            return None

    def get(self, path: str, entry: bool) -> tuple[Any, bytes | None]:
        """(the cached policy of ``path`` or None when absent or stale, the digest of the
        file's content now: give it to :meth:`put` after parsing)."""
        digest = self._digest(path)
        if digest is None:
            return None, None
        try:
            with open(self._file(path, entry), "rb") as fh:
                stamp, content, policy = pickle.load(fh)
        except Exception:          # missing, truncated, from another format: a miss
            return None, digest
        if stamp != self.stamp or content != digest:
            return None, digest
        return policy, digest

    def put(self, path: str, entry: bool, policy: Any, digest: bytes | None) -> None:
        """Keep ``policy``, parsed and validated from ``path`` whose content had ``digest``
        before it was parsed; failures are ignored."""
        if digest is None:
            return
        target = self._file(path, entry)
        tmp = f"{target}.{os.getpid()}.tmp"
        try:
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as fh:
                pickle.dump((self.stamp, digest, policy), fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, target)
        except (OSError, pickle.PicklingError, RecursionError):
            try:
                os.unlink(tmp)
            except OSError:
                pass
