"""``create``: make a missing file (or directory, when the promiser ends in ``/.``).

CfCreateFile and MakeParentDirectory of cf-agent: missing parent directories
are made first (mode 0700: cf-agent's 0755 under its umask 077).  Something that is
not a directory where the immediate parent should be fails the promise, unless
``move_obstructions`` moves it aside (``<name>.cf-moved``); one higher up fails it
with MakeParentDirectory's other message.  A new file gets the promised mode exactly
(umask ignored), or 0600; it is created with O_EXCL and never through a dangling
symlink.
"""
from __future__ import annotations

import os
import stat

from cfpromise.promises.files.context import FileRun
from cfpromise.promises.files.perms import creation_mode

DIR_MODE = 0o700


def make_parent_directory(fr: FileRun | None, path: str, force: bool) -> bool:
    """MakeParentDirectory (3.21's libpromises/files_lib.c): every directory above the
    last component of ``path``.  The immediate parent is checked first: when something
    that is not a directory stands there, ``force`` (move_obstructions) moves it to
    ``NAME.cf-moved``, else the promise fails; then each ancestor from the root down is
    made when missing, and one that exists but is not a directory fails the promise.
    ``fr`` None: no promise, errors are only logged."""
    if not os.path.isabs(path):
        _log(fr, "error", f"Will not create directories for a relative filename: {path}")
        return False
    parent = _delete_slash(path[:path.rfind("/")])
    try:
        st = os.lstat(parent)
    except OSError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        return True             # (so are its ancestors: the walk below would find them)
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            _log(fr, "verbose", f"'{parent}' is a symbolic link, not a directory")
        if force:
            if not os.path.isdir(parent):
                if not _move_aside(fr, parent, path):
                    return False
                if fr is not None and fr.warn_only:
                    return True         # (cf-agent goes no further either)
        elif not stat.S_ISLNK(st.st_mode):
            _fail(fr, f"The object '{parent}' is not a directory. Cannot make a new "
                      "directory without deleting it.")
            return False
    # then from the root down (each prefix of the path before a separator)
    for end in range(1, len(path)):
        if path[end] != "/":
            continue
        current = path[:end]
        try:
            st = os.stat(current)
        except OSError:
            if fr is not None and fr.warn_only:
                fr.should(f"Should make directory '{current}' for '{path}'")
                continue
            try:
                os.mkdir(current, DIR_MODE)
                os.chmod(current, DIR_MODE)
            except FileExistsError:
                pass
            except OSError as exc:
                _fail(fr, f"Failed to make directory: {current} (mkdir: {exc.strerror})")
                return False
            continue
        if not stat.S_ISDIR(st.st_mode):
            _fail(fr, f"Cannot make {parent} - {current} is not a directory!")
            return False
    return True


def _move_aside(fr: FileRun | None, parent: str, path: str) -> bool:
    """move_obstructions: the file or link at ``parent`` renamed to ``parent.cf-moved``
    (an earlier such backup removed first)."""
    moved = parent + ".cf-moved"
    _log(fr, "verbose", f"Moving obstructing file/link {parent} to {moved} to make directory")
    if fr is not None and fr.warn_only:
        fr.should(f"Should move obstructing file/link '{parent}' to '{moved}' to make "
                  f"directories for '{path}'")
        return True
    if os.path.lexists(moved):
        try:
            if os.path.isdir(moved) and not os.path.islink(moved):
                import shutil
                shutil.rmtree(moved)
            else:
                os.unlink(moved)
        except OSError as exc:
            _log(fr, "warning", f"Couldn't remove file/link '{moved}' while trying to remove a "
                                f"backup (unlink: {exc.strerror})")
    try:
        os.rename(parent, moved)
    except OSError as exc:
        _fail(fr, f"Couldn't rename '{parent}' to .cf-moved (rename: {exc.strerror})")
        return False
    if fr is not None:
        fr.change(f"Moved obstructing file/link '{parent}' to '{moved}' to make directories "
                  f"for '{path}'")
    return True


def _delete_slash(path: str) -> str:
    """DeleteSlash: trailing separators off, the root kept."""
    stripped = path.rstrip("/")
    return stripped or path[:1]


def _log(fr: FileRun | None, level: str, message: str) -> None:
    if fr is not None:
        fr.log(level, message)
    elif level not in ("verbose", "debug"):
        import sys
        print(f"   {level}: {message}", file=sys.stderr)


def _fail(fr: FileRun | None, message: str) -> None:
    if fr is not None:
        fr.fail(message)
    else:
        _log(None, "error", message)


def is_dir_promise(fr: FileRun, path: str) -> bool:
    return fr.a.depth is not None or os.path.basename(path) == "."


def create_file(fr: FileRun, path: str) -> bool:
    """CfCreateFile: True when the file (or directory) now exists."""
    if not os.path.isabs(path):
        fr.fail(f"Cannot create a relative filename '{path}' - has no invariant meaning. "
                "(create: No such file or directory)")
        return False
    if is_dir_promise(fr, path):
        if fr.warn_only:
            fr.should(f"Should create directory '{path}'")
            return False
        target = path if os.path.basename(path) == "." else os.path.join(path, ".")
        if not make_parent_directory(fr, target, fr.a.move_obstructions):
            return False
        fr.change(f"Created directory '{path}'")
        return True
    mode = creation_mode(fr.a.perms)
    if fr.a.file_type == "fifo":
        # the parents first, as cf-agent (under -n: "Should make directory", then this)
        if not make_parent_directory(fr, path, fr.a.move_obstructions):
            return False
        if fr.warn_only:
            fr.should(f"Should create named pipe '{path}', mode {mode:04o}")
            return False
        try:
            os.mkfifo(path, mode)
            os.chmod(path, mode)
        except OSError as exc:
            fr.fail(f"Error creating file '{path}', mode '{mode:04o}'. (mkfifo: {exc.strerror})")
            return False
        fr.change(f"Created named pipe '{path}', mode {mode:04o}")
        return True
    parent_missing = not os.path.isdir(os.path.dirname(path))
    if not make_parent_directory(fr, path, fr.a.move_obstructions):
        return False
    if fr.warn_only:
        fr.should(f"Should create file '{path}', mode '{mode:04o}'")
        return False
    if parent_missing and os.path.isdir(os.path.dirname(path)):
        fr.change(f"Created directory for '{path}'")
    try:
        # (cf-agent's safe_open opens the last name as such: for a path ending in "/",
        # the directory made for it, or what stands there)
        fd = os.open(_delete_slash(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                     mode)
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
