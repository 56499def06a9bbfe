"""The directory cf-agent changes into before it handles a files promiser.

For a promiser without depth_search, cf-agent 3.21 (VerifyFilePromise) changes into
the path with its last node chopped (ChopLastNode: ``/a/b`` -> ``/a``, but ``/a/b/``
-> ``/a/b``, the promiser's own directory; a promiser ending in ``/.`` loses that first),
and only logs an error when it cannot.  The agent stays there: later relative paths
(``filesexist()``, a command's working directory) are taken from it, as in cf-agent
(the run puts the start directory back at its end).  The promiser itself keeps its
trailing slash: the messages name it as written.
"""
from __future__ import annotations

import os
import re
import stat

from cfpromise.promises.files.context import FileRun

_SLASHES = re.compile("/{2,}")


def chop_last_node(path: str) -> str:
    """ChopLastNode: repeated separators collapsed, then everything from the last one
    off (the root's own kept); a path without one becomes ``.``."""
    path = _SLASHES.sub("/", path)
    slash = path.rfind("/")
    if slash < 0:
        return "."
    return path[:slash + 1] if slash == 0 else path[:slash]


def check_base_directory(fr: FileRun, path: str) -> None:
    """Change into the directory of ``path`` (see the module's docstring), or log
    cf-agent's error (nothing more: the promise goes on)."""
    basedir = chop_last_node(path)
    if _SLASHES.sub("/", path)[len(basedir):].lstrip("/") == ".":
        basedir = chop_last_node(basedir)          # the "/." notation of a directory
    st = fr.stat(basedir)
    if st is not None and stat.S_ISDIR(st.st_mode):
        change_dir(basedir)
        return
    problem = "Not a directory"
    if st is None:
        try:                                    # what chdir() would say (ENOTDIR too)
            problem = "No such file or directory" if os.stat(basedir) else problem
        except OSError as exc:
            problem = exc.strerror or "No such file or directory"
    fr.log("error", f"Failed to chdir into '{basedir}'. (chdir: '{problem}')")


def change_dir(directory: str) -> None:
    try:
        os.chdir(directory)
    except OSError:             # gone since it was looked at; -n's simulated tree
        pass
