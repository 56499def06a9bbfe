"""``rename``: newname, disable (with disable_suffix/disable_mode), rotate (VerifyName).

* ``newname`` moves the file (relative names are siblings);
* ``disable`` renames it to ``<file>.cfdisabled`` (or the suffix given) with
  ``disable_mode`` applied, or deletes it when it is a symlink;
* ``rotate => N`` keeps N rotated copies (``file.1`` ... ``file.N``) and empties
  the file; ``rotate => 0`` just empties it.
"""
from __future__ import annotations

import os
import stat

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.files import atomic, paths
from cfpromise.promises.files.context import FileRun


def _in_repository(fr: FileRun, name: str) -> bool:
    repository = fr.a.repository
    return bool(repository) and os.path.exists(
        os.path.join(str(repository), name.replace("/", "_")))


def verify_name(fr: FileRun, path: str, st: os.stat_result, rotated: set[str]) -> None:
    rename = fr.a.rename
    assert rename is not None
    try:
        lst = os.lstat(path)
    except OSError:
        fr.kept(f"File object named '{path}' is not there (promise kept)", level="info")
        return
    if rename.disable:
        fr.log("warning", f"File object '{path}' exists, contrary to promise")
    kind = "directory" if stat.S_ISDIR(st.st_mode) else "file"
    if rename.newname and not rename.disable:
        newname = rename.newname
        if not os.path.isabs(newname):
            newname = paths.path_append(paths.chop_last_node(path), newname)
        if fr.warn_only:
            fr.should(f"Should rename file '{path}' to '{newname}'")
            return
        if _in_repository(fr, newname):
            fr.fail("Rename to same destination twice? Would overwrite saved copy - aborting",
                    outcome=Outcome.WARN)
            return
        try:
            os.rename(path, newname)
        except OSError as exc:
            fr.fail(f"Error occurred while renaming '{path}'. (rename: {exc.strerror})")
            return
        fr.note_rename(path, newname)
        fr.change(f"Renamed file '{path}' to '{newname}'")
        return
    if stat.S_ISLNK(lst.st_mode) and rename.disable:
        if fr.warn_only:
            fr.should(f"Should disable symlink '{path}' by deleting it")
            return
        try:
            os.unlink(path)
        except OSError as exc:
            fr.fail(f"Unable to unlink '{path}'. (unlink: {exc.strerror})")
            return
        fr.change(f"Disabled symlink '{path}' by deleting it")
        return
    if rename.disable:
        if fr.warn_only:
            fr.should(f"Should rename '{kind}' '{path}'")
            return
        if rename.newname:
            newname = rename.newname if os.path.isabs(rename.newname) else \
                paths.path_append(paths.chop_last_node(path), rename.newname)
        else:
            newname = paths.join_suffix(path, rename.disable_suffix or ".cfdisabled")
        mode = stat.S_IMODE(st.st_mode)
        if rename.disable_plus is not None and rename.disable_minus is not None:
            mode = (mode | rename.disable_plus) & ~rename.disable_minus & 0o7777
        try:
            os.chmod(path, mode)
        except OSError:
            pass
        else:
            fr.change(f"Changed permissions of '{path}' to 'mode {mode:04o}'")
        if _in_repository(fr, newname):
            fr.fail("Disable required twice? Would overwrite saved copy - changing "
                    "permissions only", outcome=Outcome.WARN)
            return
        try:
            os.rename(path, newname)
        except OSError as exc:
            fr.fail(f"Error occurred while renaming '{path}'. (rename: {exc.strerror})")
            return
        fr.note_rename(path, newname)
        fr.change(f"Disabled file '{path}' by renaming to '{newname}' with mode {mode:04o}")
        if atomic.archive_to_repository(newname, fr.a.repository, fr.log):
            try:
                os.unlink(newname)
            except OSError:
                pass
        return
    if rename.rotate is None:
        return
    if rename.rotate == 0:
        if fr.warn_only:
            fr.should(f"Should truncate file '{path}'")
            return
        try:
            fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
            os.close(fd)
        except OSError as exc:
            fr.fail(f"Failed to create or truncate file '{path}'. (create: {exc.strerror})")
            return
        fr.change(f"Truncated (emptied) file '{path}'")
        return
    if rename.rotate > 0:
        if fr.warn_only:
            fr.should(f"Should rotate file '{path}' in {rename.rotate} fifo")
            return
        atomic.rotate_files(path, rename.rotate, rotated, fr.log)
        fr.change(f"Rotated file '{path}' in {rename.rotate} fifo")
