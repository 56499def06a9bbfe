"""How a path a client names becomes the path the access rules see.

3.21's PreprocessRequestPath, shared by the file requests (cfpromise/server/requests.py)
and EXEC's command check (cfpromise/server/execreq.py), which requests.py dispatches
to: a module of its own so that neither needs the other (no import cycle).
"""
from __future__ import annotations

import os
import stat as st_


def canonical_request_path(path: str) -> str | None:
    """PreprocessRequestPath: absolute, symlinks and '..' resolved, must exist (a dead
    symlink is kept as named); a trailing '/' is kept.  None: refuse -- also a path that
    goes on after a file (``file.txt/``), which 3.21's realpath(3) refuses."""
    if not path.startswith("/") or "\0" in path:
        return None
    try:
        os.lstat(path)
    except NotADirectoryError:         # "file/", "file/.", "file/..": realpath(3) refuses them
        return None
    except (OSError, ValueError):
        pass
    try:
        real = os.path.realpath(path, strict=True)
    except (OSError, ValueError):
        try:
            if st_.S_ISLNK(os.lstat(path).st_mode) and ".." not in path.split("/"):
                real = os.path.normpath(path)
            else:
                return None
        except (OSError, ValueError):
            return None
    if path.endswith("/") and not real.endswith("/"):
        real += "/"
    return real
