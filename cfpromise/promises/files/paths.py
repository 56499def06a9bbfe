"""What cf-agent does to a files promiser's path, and the directory it changes into.

cf-agent 3.21 keeps the promiser as written: a promiser ending in "/" is named so in its
messages, and the system calls it makes on ``D/`` fail on anything but a directory (or
a link to one).  Its path arithmetic is CFEngine's own: ChopLastNode (``/a/b`` -> ``/a``,
but ``/a/b/`` -> ``/a/b``), DeleteSlash and JoinSuffix (``/a/b/`` + ``.cfdisabled`` ->
``/a/b.cfdisabled``).  Some of its steps change the promiser itself (it is the buffer
they work on): ``/.`` is chopped off a directory promiser, a recursive copy deletes the
trailing slash -- what follows in that pass, the closing line included, names the
shorter path (:func:`rename_promiser`).

For a promiser without depth_search, cf-agent (VerifyFilePromise) changes into the
promiser with its last node chopped -- for ``/a/b/`` that is ``/a/b``, the directory
itself -- and only logs an error when it cannot (:func:`check_base_directory`).  The
agent stays there: later relative paths (``filesexist()``, a command's working
directory) are taken from it, as in cf-agent (the run puts the start directory back at
its end).
"""
from __future__ import annotations

import os
import re
import stat

from cfpromise.promises.api import PromiseRun
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


def delete_slash(path: str) -> str:
    """DeleteSlash: trailing separators off, the root kept."""
    return path.rstrip("/") or path[:1]


def join_suffix(path: str, suffix: str) -> str:
    """JoinSuffix: trailing white space and separators off, then ``suffix``."""
    return delete_slash(path.rstrip()) + suffix


def path_append(path: str, leaf: str) -> str:
    """PathAppend: ``leaf`` after ``path``, with one separator between them."""
    return path + leaf if path.endswith("/") else f"{path}/{leaf}"


def rename_promiser(fr: FileRun, path: str, new: str) -> None:
    """``path``, when it is the promiser itself, is from now on ``new`` (cf-agent's steps
    that work on the promiser's own buffer)."""
    if path == fr.run.promiser and new != path:
        run = fr.run
        fr.promiser = new
        fr.run = PromiseRun(run.promise, run.promise_type, new, run.attributes,
                            run.namespace, run.bundle, run.agent, run.promisee)


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
