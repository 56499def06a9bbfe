"""May the agent trust state it reads back from its work directory?

Some files under WORKDIR change what a run does when they are read back: the
cache of parsed policy (a pickle), the persistent classes, the state package and
promise modules keep.  Another local user who can plant or replace such a file
could make root's next run do what they like.  So, as cf-agent refuses policy
files that others can write, cf-lite uses such state only when the file and
every directory from the work directory down to it are owned by the user the
agent runs as and are not writable by group or others; anything else is
ignored (the caller warns once and rebuilds it).

:func:`untrusted` answers for one path; it stats each component once (lstat
below the work directory, so a symbolic link planted there is refused, not
followed).
"""
from __future__ import annotations

import os
import stat

_LOOSE = stat.S_IWGRP | stat.S_IWOTH


def _problem(path: str, st: os.stat_result, uid: int) -> str | None:
    if stat.S_ISLNK(st.st_mode):
        return f"'{path}' is a symbolic link"
    if st.st_uid != uid:
        return f"'{path}' is owned by uid {st.st_uid}, not by uid {uid}"
    if st.st_mode & _LOOSE:
        return f"'{path}' is writable by group or others (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def untrusted(path: str, workdir: str, *, uid: int | None = None) -> str | None:
    """Why ``path`` (the work directory itself or something below it) may not be
    trusted, or None when it may.  A missing component is no reason: there is
    nothing to read yet (the caller creates it with safe permissions)."""
    uid = os.geteuid() if uid is None else uid
    root = os.path.abspath(workdir)
    target = os.path.abspath(path)
    try:
        problem = _problem(root, os.stat(root), uid)   # the work directory may be a link
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
        problem = _problem(current, st, uid)
        if problem is not None:
            return problem
    return None
