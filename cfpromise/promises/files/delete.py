"""``delete``: remove the file, link or (with ``rmdirs``) empty directory (VerifyDelete).

Non-empty directories are never deleted (skipped quietly); the base directory
of a depth_search is never deleted by that promise.  Symlinks are removed
themselves, never what they point to.
"""
from __future__ import annotations

import errno
import os
import stat

from cfpromise.promises.files.context import FileRun


def verify_delete(fr: FileRun, path: str, st: os.stat_result) -> None:
    """VerifyDelete, in cf-agent's order: under -n or warn the deletion is only said
    (whatever the object); a directory is kept without ``rmdirs``; the base directory of
    a search and a directory that is not empty are passed over without a result."""
    fr.log("verbose", f"Verifying file deletions for '{path}'")
    # cf-agent removes the last node of the path, from inside its directory: for a path
    # ending in "/" that is the empty name, which is not there
    target = "" if path.endswith("/") else path
    is_dir = stat.S_ISDIR(st.st_mode)
    delete = fr.a.delete
    assert delete is not None
    if fr.warn_only:
        fr.should(f"Should delete {'directory' if is_dir else 'file'} '{path}'")
        return
    if not is_dir:
        try:
            os.unlink(target)
        except OSError as exc:
            fr.fail(f"Couldn't unlink '{path}' tidying. (unlink: {exc.strerror})")
            return
        fr.change(f"Deleted file '{path}'")
        return
    if not delete.rmdirs:
        fr.kept(f"Keeping directory '{path}' since 'rmdirs' attribute was not specified")
        return
    # (the promise's depth_search, also when the base directory itself is handled)
    if "depth_search" in fr.run.attributes and \
            path.rstrip("/") == fr.run.promiser.rstrip("/"):
        fr.log("debug", f"Skipping deletion of parent directory for recursive promise "
                        f"'{path}', you must specify separate promise for deleting")
        return
    try:
        os.rmdir(target)
    except OSError as exc:
        if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
            # never deleted, passed over quietly: no result of its own
            fr.log("verbose", f"Delete directory '{path}' not empty, skipping")
            return
        fr.fail(f"Delete directory '{path}' failed (rmdir: {exc.strerror})")
        return
    fr.change(f"Deleted directory '{path}'")
