"""Writing a state file so that no reader ever sees half of it.

The run report, the package modules' caches and the legacy package list are
read by other programs (and by the next run) at any moment: each is written to
a temporary file beside its place (mode 0600), fsynced and renamed over it.
"""
from __future__ import annotations

import os
import tempfile


def write_atomically(path: str, text: str, dir_mode: int = 0o777,
                     newline: str | None = None) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it and a rename;
    the directory is created (``dir_mode``, less the umask) when missing."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, mode=dir_mode, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
