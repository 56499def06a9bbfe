"""Purging a copy's destination directory (PurgeLocalFiles).

A recursive copy with ``purge`` deletes what its source does not have; a single copy
that replaces a directory (the destination, or an old backup in the way) empties it
first.  Either way cf-agent does it only under ``depth_search``, from inside the
directory (the agent stays there).
"""
from __future__ import annotations

import os
import shutil
import stat

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.files.context import FileRun


def purge_local_files(fr: FileRun, keep: list[str] | None, localdir: str) -> None:
    """PurgeLocalFiles: delete what is in ``localdir`` but not in ``keep`` (None: all of
    it).  Its results set the promise's classes but do not count in its outcome (its
    callers drop them)."""
    if len(localdir) < 2:
        fr.log("error", f"Purge of '{localdir}' denied - too dangerous!")
        return
    if fr.a.depth is None:
        fr.kept(f"No depth search when copying '{localdir}' so purging does not apply",
                counted=False)
        return
    try:
        os.chdir(localdir)      # cf-agent purges from inside it (and stays there)
        entries = os.listdir(localdir)
    except OSError as exc:
        fr.log("verbose", f"Can't open local directory '{localdir}'. (opendir: {exc.strerror})")
        return
    wanted = set(keep or ())
    for name in entries:
        if name in wanted:
            continue
        path = os.path.join(localdir, name)
        if fr.warn_only:
            fr.should(f"Should purge '{path}' from copy dest directory", counted=False)
            continue
        try:
            st = os.lstat(path)
        except OSError as exc:
            fr.fail(f"Couldn't stat '{path}' while purging. (lstat: {exc.strerror})",
                    outcome=Outcome.INTERRUPTED, counted=False)
            continue
        if stat.S_ISDIR(st.st_mode):
            try:
                shutil.rmtree(path)
            except OSError:
                fr.fail(f"Unable to purge directory tree '{path}'", counted=False)
                continue
            fr.change(f"Purged directory '{path}' in copy dest directory", counted=False)
            continue
        try:
            os.unlink(path)
        except OSError:
            fr.fail(f"Couldn't delete '{path}' while purging", counted=False)
            continue
        fr.change(f"Purged '{path}' copy dest directory", counted=False)
