"""Writing a file so that no reader ever sees half of it: cf-lite's one atomic writer.

The run report, key files, the daemons' pid files, cf-monitord's state files, the
package modules' caches, the hub's spool... are read by other programs (and by the
next run) at any moment.  Each is written to a temporary file beside its place, made
whole (and, unless told otherwise, fsynced) and renamed over it: a reader sees the old
file or the new one, never a part, and when anything fails the temporary file is
removed and the old file stays as it was.

One function, :func:`write_atomically`, does it for every caller; its keywords say
what differs between them:

- ``mode``: the new file's permissions.  ``None`` (the default) gives 0600, the
  temporary file's own mode (nothing is world-readable, not even for an instant);
  an int gives exactly those bits; :data:`UMASK` gives 0666 less the process umask,
  what ``open(path, "w")`` would give (a pid file).
- ``preserve``: the replaced file's mode, owner and group go to the new one (when
  there is no old file, ``mode`` applies).
- ``temp``: a fixed temporary name (a leftover of that name is removed first and the
  file is created exclusively, never through a symbolic link) where a program or a
  reader expects one, as ``env_data.new``; by default a fresh hidden name
  ``.<name>.XXXXXXXX`` in the same directory.
- ``fsync`` (default True) syncs the file before the rename; ``fsync_dir`` syncs the
  directory after it, so that the rename itself survives a power loss.
- ``make_dirs``: the directory is created when missing (``dir_mode``, less the umask).
- ``data`` is text (``encoding``, ``newline`` as ``open`` takes them), bytes, or a
  callable given the open binary file to write into (cf-secret's encryption streams).

When the temporary file cannot be created, :class:`CreateError` (an OSError) says so,
for a program whose message differs for that step (cf-lite-secret's "Could not create
or open output file").
"""
from __future__ import annotations

import os
TYPE_CHECKING = False
if TYPE_CHECKING:                 # (typing's names only for checkers)
    from typing import IO, Callable, Union
    Data = Union[str, bytes, Callable[[IO[bytes]], object]]

UMASK = -1
"""``mode=UMASK``: 0666 less the process umask, as ``open(path, "w")`` creates a file."""

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) \
    | getattr(os, "O_CLOEXEC", 0)


class CreateError(OSError):
    """The temporary file could not be created (nothing was written)."""


def _create(directory: str, base: str, temp: str | None, creation: int) -> tuple[int, str]:
    """Open a new temporary file for writing: ``temp`` (a leftover removed first) or a
    fresh ``.<base>.XXXXXXXX`` beside ``base`` (as tempfile.mkstemp names them)."""
    if temp is not None:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        return os.open(temp, _FLAGS, creation), temp
    for _ in range(100):
        tmp = os.path.join(directory, f".{base}.{os.urandom(5).hex()}")
        try:
            return os.open(tmp, _FLAGS, creation), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no usable temporary name beside {base} in {directory}")


def write_atomically(path: str, data: "Data", *, mode: int | None = None,
                     preserve: bool = False, temp: str | None = None,
                     fsync: bool = True, fsync_dir: bool = False,
                     make_dirs: bool = True, dir_mode: int = 0o777,
                     encoding: str = "utf-8", errors: str = "strict",
                     newline: str | None = None) -> None:
    """Replace ``path`` with ``data`` through a temporary file beside it and a rename
    (the keywords: the module's docstring).  On any failure the temporary file is
    removed, the old file is untouched and the exception propagates."""
    directory = os.path.dirname(os.path.abspath(path))
    if make_dirs:
        os.makedirs(directory, mode=dir_mode, exist_ok=True)
    old = None
    if preserve:
        try:
            old = os.stat(path)
        except FileNotFoundError:
            pass
    try:
        fd, tmp = _create(directory, os.path.basename(path), temp,
                          0o666 if mode == UMASK else 0o600)
    except OSError as exc:
        raise CreateError(exc.errno, exc.strerror, exc.filename) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            if isinstance(data, str):
                ending = os.linesep if newline is None else newline
                if ending not in ("", "\n"):
                    data = data.replace("\n", ending)
                fh.write(data.encode(encoding, errors))
            elif isinstance(data, (bytes, bytearray, memoryview)):
                fh.write(data)
            else:
                data(fh)
            fh.flush()
            if old is not None:
                if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
                    os.fchown(fd, old.st_uid, old.st_gid)
                os.fchmod(fd, old.st_mode & 0o7777)   # after chown, which clears setuid
            elif mode is not None and mode != UMASK:
                os.fchmod(fd, mode)
            if fsync:
                os.fsync(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if fsync_dir:
        _sync_directory(directory)


def _sync_directory(directory: str) -> None:
    """fsync the directory so that a rename in it is on disk (where the system allows)."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
