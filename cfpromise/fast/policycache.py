"""A cache of parsed, validated policy files for the agent (WORKDIR/state/policy_cache).

A cron agent parses the same unchanged policy every five minutes; parsing is the
biggest part of loading (masterfiles' lib: about 150 ms, read back from the
cache: about 20 ms).  Each policy file has one cache file, named after its path
and role (entry file or input), holding the digest of cf-lite's parser and
schema code, the file's content digest, and the parsed policy (only a policy that
validated is kept).  An entry is used only when both digests still match, so an
edited policy file or an upgraded cf-lite is parsed afresh; anything unreadable
is treated as a miss.  Cache files are written atomically, mode 0600, in a
directory only the agent's user can write.

The parsed policy is kept as nested tuples of plain values
(:mod:`cfpromise.fast.astcodec`) written by ``marshal``, which builds only
values and never calls anything (a pickle can be made to call any function it
can name); it is also three times cheaper to write than a pickle of the tree.
Still, what the agent runs comes from these files, so the cache is trusted only
as :mod:`cfpromise.agent.trust` says (the file and every directory from the work
directory down owned by the agent's user, not writable by group or others): a
loose cache directory is set aside and rebuilt, a loose cache file is a miss and
is replaced, and a loose work or state directory turns the cache off; each with
one warning.
"""
from __future__ import annotations

import marshal
import os
import sys
import time

import cfpromise
from cfpromise.agent import trust
from cfpromise.fast import astcodec
from cfpromise.syntax.errors import gc_paused

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    from cfpromise.syntax.ast import Policy

try:
    # BLAKE2 without hashlib: importing hashlib loads OpenSSL's libcrypto (about 4 ms,
    # the biggest single import of a one-report run and of cf-lite-promises on one
    # file), and BLAKE2 is part of CPython itself.  Hashing masterfiles (1 MB) takes
    # about 2 ms either way.
    from _blake2 import blake2b as _blake2b
except ImportError:                      # an interpreter without the module
    from hashlib import blake2b as _blake2b

FORMAT = 3          # 3: marshal (2: pickle, BLAKE2b digests and names; 1: SHA-256)
SUFFIX = ".ast"
_OLD_SUFFIX = ".pickle"     # formats 1 and 2: removed the first time this process writes


_DIGEST_SIZE = 32
_HEADER = 2 * _DIGEST_SIZE  # an entry: the code stamp, the policy file's digest, the tree


def _digest_of(data: bytes) -> bytes:
    return _blake2b(data, digest_size=_DIGEST_SIZE).digest()


def content_digest(path: str) -> bytes | None:
    """The digest of the file's content (None when it cannot be read): the cache's key,
    and how the agent knows a file it has read already under another name."""
    try:
        with open(path, "rb") as fh:
            return _digest_of(fh.read())
    except OSError:
        return None
_CODE_DIRS = ("syntax", "schema", "data", "fast")


def _code_stamp() -> bytes:
    """cf-lite's version and the size and mtime of every parser/schema source file."""
    root = os.path.dirname(os.path.abspath(cfpromise.__file__))
    parts = [f"{FORMAT}:{cfpromise.__version__}:{sys.version_info[0]}.{sys.version_info[1]}"]
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
    return _digest_of("\n".join(parts).encode())


class PolicyCache:
    """Parsed policy files by path, checked against their content (module docstring)."""

    def __init__(self, directory: str, workdir: str | None = None,
                 log: Callable[[str, str], None] | None = None) -> None:
        self.directory = directory
        self.workdir = workdir if workdir is not None else os.path.dirname(
            os.path.dirname(os.path.abspath(directory)))
        self.log = log or (lambda level, message: None)
        self._stamp: bytes | None = None
        self._usable: bool | None = None
        self._warned_files = False
        self._swept = False

    @property
    def usable(self) -> bool:
        """Whether the cache directory may be trusted (checked once, see the module)."""
        if self._usable is None:
            self._usable = self._check_directory()
        return self._usable

    def _check_directory(self) -> bool:
        problem = trust.untrusted(self.directory, self.workdir)
        if problem is None:
            return True
        parent = os.path.dirname(os.path.abspath(self.directory))
        if trust.untrusted(parent, self.workdir) is None:
            aside = f"{self.directory}.untrusted-{int(time.time())}"
            try:
                os.rename(self.directory, aside)
            except OSError as exc:
                self.log("warning", f"Policy cache not used: {problem}; could not set it "
                                    f"aside ({exc.strerror})")
                return False
            self.log("warning", f"Policy cache ignored: {problem}; set aside as '{aside}' "
                                "and rebuilt")
            return True
        self.log("warning", f"Policy cache not used: {problem}")
        return False

    @property
    def stamp(self) -> bytes:
        if self._stamp is None:
            self._stamp = _code_stamp()
        return self._stamp

    def _file(self, path: str, entry: bool, suffix: str = SUFFIX) -> str:
        name = _digest_of(f"{int(entry)}:{os.path.abspath(path)}".encode()).hex()
        return os.path.join(self.directory, name[:40] + suffix)

    def get(self, path: str, entry: bool) -> tuple[Policy | None, bytes | None]:
        """(the cached policy of ``path`` or None when absent or stale, the digest of the
        file's content now: give it to :meth:`put` after parsing)."""
        digest = content_digest(path)
        if digest is None or not self.usable:
            return None, digest
        try:
            with open(self._file(path, entry), "rb") as fh:
                problem = trust._problem(fh.name, os.fstat(fh.fileno()), os.geteuid())
                if problem is not None:
                    if not self._warned_files:
                        self._warned_files = True
                        self.log("warning", f"Policy cache entry ignored and rebuilt: {problem}")
                    return None, digest
                data = fh.read()
            # the code stamp and the content digest first, then the marshalled tree
            if data[:_DIGEST_SIZE] != self.stamp or data[_DIGEST_SIZE:_HEADER] != digest:
                return None, digest
            with gc_paused():
                return astcodec.decode(marshal.loads(memoryview(data)[_HEADER:])), digest
        except Exception:          # missing, truncated, from another format: a miss
            return None, digest

    def put(self, path: str, entry: bool, policy: Policy, digest: bytes | None) -> None:
        """Keep ``policy``, parsed and validated from ``path`` whose content had ``digest``
        before it was parsed; failures are ignored."""
        if digest is None or not self.usable:
            return
        target = self._file(path, entry)
        try:
            # no collection inside: the encoding's tuples, thousands per file, would start
            # collections over the young AST
            with gc_paused():
                data = marshal.dumps(astcodec.encode(policy))
            from cfpromise.atomic import write_atomically
            write_atomically(target, self.stamp + digest + data, fsync=False,
                             dir_mode=0o700)                            # 0600
        except (OSError, ValueError, TypeError, RecursionError):
            return
        if not self._swept:
            self._swept = True
            self._remove_old_formats()

    def _remove_old_formats(self) -> None:
        """Entries of the pickle formats, which nothing reads any more (once per process,
        when it writes: a run that only reads the cache does not list the directory)."""
        try:
            names = os.listdir(self.directory)
        except OSError:
            return
        for name in names:
            if name.endswith(_OLD_SUFFIX):
                try:
                    os.unlink(os.path.join(self.directory, name))
                except OSError:
                    pass
