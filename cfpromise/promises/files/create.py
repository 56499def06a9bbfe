"""``create``: make a missing file (or directory, when the promiser ends in ``/.``).

CfCreateFile and MakeParentDirectory of cf-agent: missing parent directories
are made first (mode 0700: cf-agent's 0755 under its umask 077); a path
component that exists but is not a directory is an error, unless
``move_obstructions`` moves it aside (``<name>.cf-moved``).  A new file gets the
promised mode exactly (umask ignored), or 0600; it is created with O_EXCL and
never through a dangling symlink.
"""
from __future__ import annotations

import os
import stat

from cfpromise.promises.files.context import FileRun
from cfpromise.promises.files.perms import creation_mode

DIR_MODE = 0o700


def make_parent_directory(fr: FileRun | None, path: str, force: bool) -> bool:
    """MakeParentDirectory: every directory above the last component of ``path``."""
    parent = os.path.dirname(path)
    if not parent or parent == path:
        return True
    try:
        st = os.stat(parent)
        if stat.S_ISDIR(st.st_mode):
            return True
    except OSError:
        pass
    # walk down from the root, creating what is missing
    parts = parent.split("/")
    current = ""
    for part in parts:
        if part == "":
            current = "/" if not current else current
            continue
        current = current + part if current.endswith("/") else current + "/" + part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            if fr is not None and fr.warn_only:
                # MakingChanges: -n or action_policy warn says what it would make
                fr.should(f"Should make directory '{current}' for '{path}'")
                continue
            try:
                os.mkdir(current, DIR_MODE)
                os.chmod(current, DIR_MODE)
            except FileExistsError:
                continue
            except OSError as exc:
                if fr is not None:
                    fr.log("error", f"Unable to make directories to '{path}'. "
                                    f"(mkdir: {exc.strerror})")
                return False
            if fr is not None:
                fr.log("verbose", f"Created directory '{current}'")
            continue
        except OSError:
            return False
        if stat.S_ISDIR(st.st_mode):
            continue
        if stat.S_ISLNK(st.st_mode):
            try:
                if stat.S_ISDIR(os.stat(current).st_mode):
                    continue
            except OSError:
                pass
        if not force:
            if fr is not None:
                fr.fail(f"The object '{current}' is not a directory. Cannot make a new "
                        "directory without deleting it.")
            return False
        moved = current + ".cf-moved"
        try:
            os.rename(current, moved)
            os.mkdir(current, DIR_MODE)
        except OSError as exc:
            if fr is not None:
                fr.log("error", f"Couldn't move obstruction '{current}' aside. "
                                f"(rename: {exc.strerror})")
            return False
        if fr is not None:
            fr.log("info", f"Moved obstructing file '{current}' to '{moved}'")
    return True


def is_dir_promise(fr: FileRun, path: str) -> bool:
    return fr.a.depth is not None or os.path.basename(path) == "."


def create_file(fr: FileRun, path: str) -> bool:
    """CfCreateFile: True when the file (or directory) now exists."""
    if not os.path.isabs(path):
        fr.fail(f"Cannot create a relative filename '{path}' - has no invariant meaning. "
                "(creat: No such file or directory)")
        return False
    if is_dir_promise(fr, path):
        if fr.warn_only:
            fr.should(f"Should create directory '{path}'")
            return False
        target = path if os.path.basename(path) == "." else os.path.join(path, ".")
        if not make_parent_directory(fr, target, fr.a.move_obstructions):
            fr.fail(f"Error creating directories for '{path}'. (creat: No such file or "
                    "directory)")
            return False
        fr.change(f"Created directory '{path}'")
        return True
    mode = creation_mode(fr.a.perms)
    if fr.a.file_type == "fifo":
        # the parents first, as cf-agent (under -n: "Should make directory", then this)
        make_parent_directory(fr, path, fr.a.move_obstructions)
        if fr.warn_only:
            fr.should(f"Should create fifo '{path}'")
            return False
        try:
            os.mkfifo(path, mode)
            os.chmod(path, mode)
        except OSError as exc:
            fr.fail(f"Error creating file '{path}', mode '{mode:04o}'. (mkfifo: {exc.strerror})")
            return False
        fr.change(f"Created fifo '{path}', mode {mode:04o}")
        return True
    parent_missing = not os.path.isdir(os.path.dirname(path))
    if not make_parent_directory(fr, path, fr.a.move_obstructions):
        return False
    if fr.warn_only:
        fr.should(f"Should create file '{path}', mode '{mode:04o}'")
        return False
    if parent_missing and os.path.isdir(os.path.dirname(path)):
        fr.log("info", f"Created directory for '{path}'")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    except OSError as exc:
        if isinstance(exc, FileExistsError):
            detail = (f"(open: '{exc.strerror}'). Most likely a dangling symlink is in the way. "
                      "Refusing to create the target file of dangling symlink (security risk).")
        else:
            detail = f"(open: {exc.strerror})"
        fr.fail(f"Error creating file '{path}', mode '{mode:04o}'. {detail}")
        return False
    try:
        os.fchmod(fd, mode)
    finally:
        os.close(fd)
    fr.change(f"Created file '{path}', mode {mode:04o}")
    return True
