"""May the agent trust state it reads back from its work directory?

Some files under WORKDIR change what a run does when they are read back: the
cache of parsed policy, the persistent classes, the state package and
promise modules keep.  Another local user who can plant or replace such a file
could make root's next run do what they like.  So, as cf-agent refuses policy
files that others can write, cf-lite uses such state only when the file and
every directory from the work directory down to it are owned by the user the
agent runs as and are not writable by group or others; anything else is
ignored (the caller warns once and rebuilds it).

:func:`untrusted` answers for one path; it stats each component once (lstat
below the work directory, so a symbolic link planted there is refused, not
followed).  :func:`ignored` is the callers' one-warning form of it.

Modules the agent runs from the work directory (WORKDIR/modules/packages/NAME,
usemodule()'s WORKDIR/modules/NAME, a promise module whose path lies in the
work directory) are checked by :func:`module_problem`: every directory from the
work directory down to the module, and the module itself, must be owned by
root or the agent's user (usemodule()'s rule in cf-agent 3.21) and not be
writable by group or others; a module that is a symbolic link is judged by its
target and the directory holding it.  Otherwise it is not run.
"""
from __future__ import annotations

import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

_LOOSE = stat.S_IWGRP | stat.S_IWOTH


def _problem(path: str, st: os.stat_result, uid: int, root_too: bool = False) -> str | None:
    if stat.S_ISLNK(st.st_mode):
        return f"'{path}' is a symbolic link"
    if st.st_uid != uid and not (root_too and st.st_uid == 0):
        owners = f"uid {uid}" if not root_too or uid == 0 else f"root or uid {uid}"
        return f"'{path}' is owned by uid {st.st_uid}, not by {owners}"
    if st.st_mode & _LOOSE:
        return f"'{path}' is writable by group or others (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def untrusted(path: str, workdir: str, *, uid: int | None = None,
              root_too: bool = False) -> str | None:
    """Why ``path`` (the work directory itself or something below it) may not be
    trusted, or None when it may.  A missing component is no reason: there is
    nothing to read yet (the caller creates it with safe permissions)."""
    uid = os.geteuid() if uid is None else uid
    root = os.path.abspath(workdir)
    target = os.path.abspath(path)
    try:
        problem = _problem(root, os.stat(root), uid, root_too)   # the workdir may be a link
    except OSError:
        return None
    if problem is not None or target == root:
        return problem
    rel = os.path.relpath(target, root)
    if rel.startswith(os.pardir):
        return f"'{path}' is not inside the work directory '{root}'"
    current = root
    for part in rel.split(os.sep):
        current = os.path.join(current, part)
        try:
            st = os.lstat(current)
        except OSError:
            return None
        problem = _problem(current, st, uid, root_too)
        if problem is not None:
            return problem
    return None


def inside(path: str, workdir: str) -> bool:
    root = os.path.abspath(workdir)
    return os.path.commonpath([os.path.abspath(path), root]) == root


def ignored(path: str, workdir: str, log: Callable[[str, str], None], what: str,
            warned: set[str] | None = None) -> bool:
    """True (after one warning per path in ``warned``, the run's set) when the state
    file ``path`` may not be trusted and so must be ignored and rebuilt."""
    problem = untrusted(path, workdir)
    if problem is None:
        return False
    if warned is None or path not in warned:
        if warned is not None:
            warned.add(path)
        log("warning", f"{what} '{path}' ignored: {problem}")
    return True


def warned_set(run_cache: dict[Any, Any]) -> set[str]:
    """The run's set of untrusted paths already warned about (in the run's cache that
    the functions and the promise types share, so each gets one warning a run)."""
    found = run_cache.get(("trust-warned",))
    if found is None:
        found = run_cache[("trust-warned",)] = set()
    return found


def module_problem(path: str, workdir: str, *, uid: int | None = None) -> str | None:
    """Why the module executable ``path`` (inside ``workdir``) may not be run, or None."""
    uid = os.geteuid() if uid is None else uid
    problem = untrusted(os.path.dirname(os.path.abspath(path)), workdir, uid=uid, root_too=True)
    if problem is not None:
        return problem
    try:
        st = os.lstat(path)
    except OSError:
        return None                         # missing: the caller says so in its own words
    if stat.S_ISLNK(st.st_mode):
        target = os.path.realpath(path)
        try:
            st, holder = os.stat(target), os.stat(os.path.dirname(target))
        except OSError:
            return None
        problem = _problem(os.path.dirname(target), holder, uid, True)
        if problem is not None:
            return problem
        path = target
    return _problem(path, st, uid, True)
