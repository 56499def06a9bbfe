"""Safe writes: a changed file is either its old or its new content, never torn.

:func:`replace_file` is cf-agent's SaveAsFile done crash-safe: the new content
goes to a temporary file beside the target (``<file>.cf-after-edit``), is
fsync'd, gets the original's mode, owner and group, and is renamed over the
target.  Before the rename the original is
hard-linked (or copied) to its backup, which is kept, timestamped, rotated or
dropped as ``edit_defaults``/``copy_backup`` ask, or moved to the repository.
A symlinked target is edited through the link.

A process killed at any moment leaves the target with its old content (before
the rename) or its new content (after it); at worst a stray temporary file.
The new file is fsync'd before the rename, so that after a power loss the name
holds a whole file too; the directory itself is not fsync'd (that would only
make the rename itself durable, at a cost per file).
"""
from __future__ import annotations

import os
import shutil
import stat
import time

from cfpromise.eval.canon import canonify

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

_START = time.time()          # cf-agent's CFSTARTTIME, for timestamped backups


def start_time() -> int:
    return int(_START)


def timestamp_suffix(now: float | None = None) -> str:
    """``_<start time>_<canonified ctime>`` as cf-agent appends to timestamped backups."""
    when = time.time() if now is None else now
    return f"_{start_time()}_{canonify(time.ctime(when))}"


def write_new(path: str, data: bytes, mode: int = 0o600) -> None:
    """Write ``data`` to ``path`` (created exclusively, a leftover removed first), fsync'd."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags, mode)
    except FileExistsError:
        os.unlink(path)
        fd = os.open(path, flags, mode)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    finally:
        os.close(fd)


def copy_permissions(st: os.stat_result, path: str) -> None:
    """CopyFilePermissionsDisk: mode, owner and group of ``st`` onto ``path``."""
    try:
        os.chown(path, st.st_uid, st.st_gid)
    except OSError:
        pass
    os.chmod(path, stat.S_IMODE(st.st_mode))


def resolve_links(path: str) -> str:
    """SaveAsFile follows symlinks to the file it edits."""
    seen = 0
    while seen < 32:
        try:
            st = os.lstat(path)
        except OSError:
            return path
        if not stat.S_ISLNK(st.st_mode):
            return path
        target = os.readlink(path)
        path = target if os.path.isabs(target) else os.path.join(os.path.dirname(path), target)
        seen += 1
    return path


def rotate_files(name: str, number: int, rotated: set[str] | None = None,
                 log: Callable[[str, str], None] | None = None) -> None:
    """RotateFiles: name.N-1 -> name.N ..., then name -> name.1 (copied, as
    :func:`copy_regular_file` says), name emptied."""
    if rotated is not None:
        if name in rotated:
            return
        rotated.add(name)
    try:
        st = os.stat(name)
    except OSError:
        return
    for i in range(number - 1, 0, -1):
        for ext in ("", ".gz", ".Z", ".bz", ".bz2"):
            try:
                os.rename(f"{name}.{i}{ext}", f"{name}.{i + 1}{ext}")
            except OSError:
                pass
    to = f"{name}.1"
    if not copy_regular_file(name, to, log):
        return
    try:
        os.chmod(to, stat.S_IMODE(st.st_mode))
        os.chown(to, st.st_uid, st.st_gid)
    except OSError:
        pass
    try:
        os.chmod(name, 0o600)
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, stat.S_IMODE(st.st_mode))
        try:
            os.fchmod(fd, stat.S_IMODE(st.st_mode))
        finally:
            os.close(fd)
        os.chown(name, st.st_uid, st.st_gid)
    except OSError:
        pass


def copy_regular_file(source: str, destination: str,
                      log: Callable[[str, str], None] | None = None) -> bool:
    """CopyRegularFileDisk: ``source`` read into a new ``destination`` (an old one removed
    first), what fails said in cf-agent's words -- a directory opens, and fails at its
    first read."""
    def say(level: str, message: str) -> None:
        if log is not None:
            log(level, message)
    try:
        sd = os.open(source, os.O_RDONLY)
    except OSError as exc:
        say("info", f"Can't copy '{source}' (open: {exc.strerror})")
        return False
    try:
        mode = stat.S_IMODE(os.fstat(sd).st_mode)
        _discard(destination)
        try:
            dd = os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                         mode)
        except OSError as exc:
            say("info", f"Unable to open destination file while copying '{source}' to "
                        f"'{destination}' (open: {exc.strerror})")
            return False
        try:
            while True:
                try:
                    chunk = os.read(sd, 1 << 16)
                except OSError as exc:
                    say("error", f"Unable to read source file while copying '{source}' to "
                                 f"'{destination}' (read: {exc.strerror})")
                    _discard(destination)
                    return False
                if not chunk:
                    return True
                view = memoryview(chunk)
                while view:
                    view = view[os.write(dd, view):]
        finally:
            os.close(dd)
    finally:
        os.close(sd)


def archive_to_repository(path: str, repository: str | None, log: Callable[[str, str], None]
                          ) -> bool:
    """ArchiveToRepository: copy ``path`` into the repository as its canonified full path.
    True when archived (the caller then removes the local copy)."""
    if not repository:
        return False
    if not os.path.isabs(repository):
        return False
    name = path.replace("/", "_")
    dest = os.path.join(repository, name)
    try:
        os.makedirs(repository, exist_ok=True)
        st = os.stat(path)
        tmp = dest + ".cfnew"
        shutil.copyfile(path, tmp)
        copy_permissions(st, tmp)
        os.rename(tmp, dest)
    except OSError as exc:
        log("error", f"Failed to archive '{path}' to repository '{repository}'. "
                     f"({exc.strerror})")
        return False
    log("verbose", f"Moved '{path}' to repository location '{dest}'")
    return True


def backup_name(path: str, option: str, suffix: str) -> str:
    name = path
    if option == "timestamp":
        name += timestamp_suffix()
    return name + suffix


def replace_file(path: str, data: bytes, *, backup: str = "true", rotate: int = 0,
                 repository: str | None = None,
                 log: Callable[[str, str], None] = lambda level, msg: None,
                 rotated: set[str] | None = None, staged: bool = False) -> str:
    """SaveAsFile: put ``data`` in place of the file ``path`` (which must exist).

    ``staged``: cf-agent's own SaveAsFile, which stages the backup whatever
    ``backup`` says (a hard link, else a copy, dropped afterwards when no backup is
    wanted) and, when that fails, leaves the new content behind in
    ``<file>.cf-after-edit`` -- so a path that is a directory (``D/``) gets
    ``D/.cf-after-edit`` and fails at the copy of ``D/`` (it opens, and cannot be read).

    Returns the path written (the symlink target when ``path`` is a link); raises
    OSError after logging cf-agent's error when the save fails (the original is then
    untouched)."""
    target = resolve_links(path)
    pretty = f"'{target}'" if target == path else f"'{target}' (from symlink '{path}')"
    try:
        st = os.lstat(target)
    except OSError as exc:
        log("error", f"Can no longer access file {pretty}, which needed editing. "
                     f"(lstat: {exc.strerror})")
        raise
    new = target + ".cf-after-edit"
    try:
        write_new(new, data, 0o600)
        copy_permissions(st, new)
    except OSError as exc:
        log("error", f"Unable to open destination file '{new}' for writing. "
                     f"(fopen: {exc.strerror})")
        _discard(new)
        raise
    if staged or backup != "false" or rotate:
        bak = backup_name(target, backup, ".cf-before-edit")
        _discard(bak)
        try:
            os.link(target, bak)
        except OSError as exc:
            log("verbose", f"Can't link {pretty} to '{bak}' - falling back to copy. "
                           f"(link: {exc.strerror})")
            copied = copy_regular_file(target, bak, log) if staged else \
                _copy_plain(target, bak)
            if not copied:
                log("error", f"Can't copy {pretty} to '{bak}' - so promised edits could not be "
                             "moved into place.")
                if not staged:
                    _discard(new)
                raise OSError(exc.errno, exc.strerror) from exc
            try:
                copy_permissions(st, bak)
            except OSError:
                pass
        if backup == "rotate":
            rotate_files(bak, rotate, rotated)
            _discard(bak)
        elif backup == "false" and not rotate:
            _discard(bak)
        elif archive_to_repository(bak, repository, log):
            _discard(bak)
    try:
        os.rename(new, target)
    except OSError as exc:
        log("error", f"Can't rename '{new}' to {pretty} - so promised edits could not be moved "
                     f"into place. (rename: {exc.strerror})")
        if not staged:
            _discard(new)
        raise
    return target


def _copy_plain(source: str, destination: str) -> bool:
    try:
        shutil.copyfile(source, destination)
    except OSError:
        return False
    return True


def _discard(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def read_bytes(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def file_digest(path: str, algorithm: str = "md5") -> bytes | None:
    import hashlib
    try:
        h = hashlib.new(algorithm)
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 16), b""):
                h.update(chunk)
        return h.digest()
    except (OSError, ValueError):
        return None
