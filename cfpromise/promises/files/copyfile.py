"""Copying one file of a ``copy_from`` promise (CfCopyFile and what it calls).

:mod:`cfpromise.promises.files.copy` walks the source (a file, or a directory
down to ``depth_search``'s depth, ``purge``) and hands each entry here: the
type check, ``copy_size``, the comparison (``compare``, ``force_update``), the
copy through ``<dest>.cfnew`` and ``<dest>.cfsaved`` so the destination is
always whole, a link instead of a copy (``linkcopy_patterns``, link sources),
``files_single_copy`` and ``files_auto_define``, then the copy's permissions
(``preserve``).
"""
from __future__ import annotations

import os
import shutil
import stat
from typing import Any

from cfpromise.agent.outcome import Outcome
from cfpromise.eval.canon import canonify
from cfpromise.promises.edit import matching
from cfpromise.promises.files import atomic, bridge
from cfpromise.promises.files.attributes import SAME, Perms, as_list
from cfpromise.promises.files.context import FileRun
from cfpromise.promises.files.paths import join_suffix
from cfpromise.promises.files.purge import purge_local_files
from cfpromise.promises.files.sources import LOCAL

CF_NEW = ".cfnew"
CF_SAVED = ".cfsaved"


def _match_any(patterns: Any, name: str) -> bool:
    return any(p == name or matching.full(p, name) for p in patterns)


def _single_copy_list(fr: FileRun) -> list[str]:
    return as_list(bridge.agent_control(fr.agent).get("files_single_copy"))


def _single_copy_cache(fr: FileRun) -> dict[str, bool]:
    return bridge.run_state(fr.agent, "single_copy")


def _in_single_copy(fr: FileRun, dest: str) -> bool:
    return any(_regex_in(p, dest) for p in _single_copy_cache(fr))


def _regex_in(pattern: str, text: str) -> bool:
    return pattern == text or matching.full(pattern, text)


def _auto_define(fr: FileRun, dest: str) -> None:
    patterns = as_list(bridge.agent_control(fr.agent).get("files_auto_define"))
    if _match_any(patterns, dest):
        name = f"auto_{canonify(dest)}"
        fr.agent.define_class(name, namespace=fr.run.namespace)
        fr.log("info", f"Auto defining class '{name}'")


def _src(fr: FileRun) -> Any:
    return fr.source or LOCAL


def _file_type_mismatch(dsb: os.stat_result, ssb: os.stat_result) -> bool:
    for test in (stat.S_ISDIR, stat.S_ISREG, stat.S_ISBLK, stat.S_ISCHR, stat.S_ISSOCK,
                 stat.S_ISFIFO, stat.S_ISLNK):
        if test(dsb.st_mode) and not test(ssb.st_mode):
            return True
    return False


def cf_copy_file(fr: FileRun, source: str, dest: str, ssb: os.stat_result,
                 inodes: dict[int, str]) -> None:
    """CfCopyFile."""
    from cfpromise.promises.files import select
    from cfpromise.promises.files.create import make_parent_directory
    copy = fr.a.copy
    assert copy is not None
    if source == dest and not _src(fr).remote:
        fr.log("info", f"File copy promise loop: file/dir '{source}' is its own source")
        return
    if fr.a.select is not None and not select.select_leaf(fr, source, ssb):
        fr.log("debug", f"Skipping non-selected file '{source}'")
        return
    if _in_single_copy(fr, dest):
        fr.log("info", f"Skipping single-copied file '{dest}'")
        return
    if copy.link_type != "none":
        lastnode = os.path.basename(source)
        if _match_any(copy.link_instead, lastnode):
            if _match_any(copy.copy_links, lastnode):
                fr.log("info", f"File {source} matches both copylink_patterns and "
                               "linkcopy_patterns - promise loop (skipping)!")
                return
            fr.log("verbose", f"Copy item '{source}' marked for linking")
            link_copy(fr, source, dest, ssb, inodes)
            return
    try:
        dsb: os.stat_result | None = os.lstat(dest)
    except OSError:
        dsb = None
    if dsb is not None:
        if (stat.S_ISLNK(dsb.st_mode) and copy.link_type == "none") or \
                (stat.S_ISLNK(dsb.st_mode) and not stat.S_ISLNK(ssb.st_mode)):
            if not stat.S_ISLNK(ssb.st_mode) and copy.type_check and copy.link_type != "none":
                fr.fail("File image exists but destination type is silly (file/dir/link doesn't "
                        "match)")
                fr.promise_ref()
                return
            if fr.warn_only:
                fr.should(f"Should remove old symbolic link '{dest}' to make way for copy")
                return
            try:
                os.unlink(dest)
            except OSError as exc:
                fr.fail(f"Couldn't remove link '{dest}'. (unlink: {exc.strerror})")
                return
            fr.change(f"Removing old symbolic link '{dest}' to make way for copy")
            dsb = None
    else:
        missing = not os.path.isdir(os.path.dirname(dest))
        make_parent_directory(fr, dest, True)       # (says what it would make under -n)
        if missing and not fr.warn_only and os.path.isdir(os.path.dirname(dest)):
            fr.change(f"Created parent directory for '{dest}'")
    if copy.min_size is not None and copy.max_size is not None:
        if ssb.st_size < copy.min_size or ssb.st_size > copy.max_size:
            fr.kept(f"Source file '{source}' size is not in the permitted safety range")
            return
    if dsb is None:
        _copy_new(fr, source, dest, ssb, inodes)
        return
    fr.log("verbose", f"Destination file '{dest}' already exists")
    if copy.compare == "exists":
        fr.log("verbose", "Existence only is promised, no copying required")
        return
    ok_to_copy = True if copy.force_update else compare_for_copy(fr, source, dest, ssb, dsb)
    if copy.type_check and copy.link_type != "none" and not fr.a.move_obstructions \
            and _file_type_mismatch(dsb, ssb):
        fr.fail(f"Promised file copy {dest} exists but type mismatch with source '{source}'")
        return
    if ok_to_copy and fr.warn_only:
        fr.should(f"Should update file '{dest}' from '{source}' on '{_src(fr).host}'")
        return
    if copy.force_update or ok_to_copy or stat.S_ISLNK(ssb.st_mode):
        if stat.S_ISREG(ssb.st_mode) or copy.link_type == "none":
            _auto_define(fr, dest)
            if copy_regular_file(fr, source, dest, ssb, dsb, inodes):
                try:
                    newst = os.stat(dest)
                except OSError as exc:
                    fr.interrupted(f"Can't stat destination '{dest}'. (stat: {exc.strerror})")
                else:
                    fr.change(f"Updated '{dest}' from source '{source}' on '{_src(fr).host}'")
                    verify_copied_file_attributes(fr, source, dest, ssb, newst)
                if _match_any(_single_copy_list(fr), dest):
                    _single_copy_cache(fr)[dest] = True
            else:
                fr.fail(f"Was not able to copy '{source}' on '{_src(fr).host}' to '{dest}'")
            return
        if stat.S_ISLNK(ssb.st_mode):
            link_copy(fr, source, dest, ssb, inodes)
        return
    verify_copied_file_attributes(fr, source, dest, ssb, dsb)
    if _match_any(_single_copy_list(fr), dest):
        _single_copy_cache(fr)[dest] = True
    fr.kept(f"File '{dest}' is an up to date copy of source")


def _copy_new(fr: FileRun, source: str, dest: str, ssb: os.stat_result,
              inodes: dict[int, str]) -> None:
    copy = fr.a.copy
    assert copy is not None
    mode = ssb.st_mode
    if fr.warn_only:
        fr.should(f"Should copy '{dest}' to '{source}'")
        return
    if stat.S_ISREG(mode) or (stat.S_ISLNK(mode) and copy.link_type == "none"):
        if stat.S_ISLNK(mode) and copy.link_type != "none":
            link_copy(fr, source, dest, ssb, inodes)
            return
        fr.log("verbose", f"'{dest}' wasn't at destination (copying)")
        if copy_regular_file(fr, source, dest, ssb, None, inodes):
            try:
                dsb = os.stat(dest)
            except OSError as exc:
                fr.log("error", f"Can't stat destination file '{dest}'. (stat: {exc.strerror})")
            else:
                verify_copied_file_attributes(fr, source, dest, ssb, dsb)
            fr.change(f"Updated file '{dest}' from '{_src(fr).host}:{source}'")
            if _single_copy_list(fr):
                _single_copy_cache(fr)[dest] = True
            _auto_define(fr, dest)
        else:
            fr.fail(f"Copy from '{_src(fr).host}:{source}' failed")
        return
    if stat.S_ISFIFO(mode):
        try:
            os.mkfifo(dest, stat.S_IMODE(mode))
        except OSError as exc:
            fr.fail(f"Cannot create fifo '{dest}'. (mkfifo: {exc.strerror})")
            return
        fr.change(f"Created fifo '{dest}'")
        return
    if stat.S_ISBLK(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode):
        try:
            os.mknod(dest, mode, ssb.st_rdev)
        except OSError as exc:
            fr.fail(f"Cannot create special file '{dest}'. (mknod: {exc.strerror})")
            return
        fr.change(f"Created special file/device '{dest}'.")
        return
    if stat.S_ISLNK(mode) and copy.link_type != "none":
        link_copy(fr, source, dest, ssb, inodes)


def compare_for_copy(fr: FileRun, source: str, dest: str, ssb: os.stat_result,
                     dsb: os.stat_result) -> bool:
    """CompareForFileCopy: True when the destination must be copied again."""
    copy = fr.a.copy
    assert copy is not None
    compare = copy.compare
    regular = stat.S_ISREG(dsb.st_mode) and stat.S_ISREG(ssb.st_mode)
    # (whole seconds: cf-agent's struct stat times are time_t)
    newer = int(dsb.st_ctime) < int(ssb.st_ctime) or int(dsb.st_mtime) < int(ssb.st_mtime)
    src = _src(fr)
    if compare in ("digest", "hash", "checksum"):
        ok = src.differs(source, dest) if regular else newer
        if ok:
            fr.log("verbose", f"Image file '{dest}' has a wrong digest/checksum, should be copy "
                              f"of '{source}'")
        return ok
    if compare == "binary":
        if src.remote:                   # cf-agent compares remote files by digest
            ok = (ssb.st_size != dsb.st_size or src.differs(source, dest)) if regular else newer
        else:
            ok = files_differ_binary(source, dest, ssb, dsb) if regular else newer
        if ok:
            fr.log("verbose", f"Image file {dest} has a wrong binary checksum, should be copy of "
                              f"'{source}'")
        return ok
    if compare == "mtime":
        ok = int(dsb.st_mtime) < int(ssb.st_mtime)
    elif compare == "atime":
        ok = newer or (src.differs(source, dest) if src.remote
                       else files_differ_binary(source, dest, ssb, dsb))
    else:
        ok = newer
    if ok:
        fr.log("verbose", f"Image file '{dest}' out of date, should be copy of '{source}'")
    return ok


def files_differ_digest(a: str, b: str) -> bool:
    return atomic.file_digest(a, "md5") != atomic.file_digest(b, "md5")


def files_differ_binary(a: str, b: str, sa: os.stat_result, sb: os.stat_result) -> bool:
    if sa.st_size != sb.st_size:
        return True
    try:
        with open(a, "rb") as fa, open(b, "rb") as fb:
            while True:
                ca, cb = fa.read(1 << 16), fb.read(1 << 16)
                if ca != cb:
                    return True
                if not ca:
                    return False
    except OSError:
        return True


def copy_regular_file(fr: FileRun, source: str, dest: str, ssb: os.stat_result,
                      dsb: os.stat_result | None, inodes: dict[int, str]) -> bool:
    """CopyRegularFile, crash-safe: ``dest.cfnew`` -> fsync -> backup link -> rename."""
    copy = fr.a.copy
    assert copy is not None
    if ssb.st_nlink > 1:
        linkable = inodes.get(ssb.st_ino)
        if linkable is not None and linkable != dest and os.path.exists(linkable):
            try:
                os.unlink(dest)
            except OSError:
                pass
            try:
                os.link(linkable, dest)
            except OSError as exc:
                fr.fail(f"Couldn't hard link '{linkable}' to '{dest}'. (link: {exc.strerror})")
                return False
            fr.change(f"Hard linked files '{dest}' -> '{linkable}'")
            return True
    # cf-agent's names (JoinSuffix: a destination 'D/' is copied to 'D.cfnew'), and the
    # destination as it is now (a directory made for 'D/' since it was first looked at)
    new = join_suffix(dest, CF_NEW)
    try:
        now: os.stat_result | None = os.stat(dest)
    except OSError:
        now = None
    if copy.preserve:
        mode = stat.S_IMODE(ssb.st_mode)
    elif now is not None:
        mode = stat.S_IMODE(now.st_mode) & 0o777        # (never a set-id bit)
    else:
        mode = stat.S_IMODE(ssb.st_mode) & ~0o077
    src = _src(fr)
    try:
        _copy_data(src, source, new, mode, ssb.st_size)
        if copy.preserve:
            try:
                os.chown(new, ssb.st_uid, ssb.st_gid)
            except OSError:
                pass
    except OSError as exc:
        if src.remote:
            fr.fail(f"Failed to copy file '{source}' from '{src.host}' to '{new}'. "
                    f"({exc.strerror})")
        else:
            fr.fail(f"Failed copying file '{source}' to '{new}'. ({exc.strerror})")
        _discard(new)
        return False
    if src.remote:
        fr.change(f"Copied file '{source}' from '{src.host}' to '{new}'")
    elif copy.preserve:
        fr.change(f"Copied file '{source}' to '{new}' (permissions preserved)")
    else:
        fr.change(f"Copied file '{source}' to '{new}' (mode '{mode:o}')")
    if copy.stealth and not src.remote:
        try:
            os.utime(source, ns=(ssb.st_atime_ns, ssb.st_mtime_ns))
        except OSError:
            pass
    try:
        nst = os.lstat(new)
    except OSError as exc:
        fr.fail(f"Can't stat new file '{new}' - another agent has picked it up?. "
                f"(stat: {exc.strerror})")
        return False
    if stat.S_ISREG(nst.st_mode) and nst.st_size != ssb.st_size:
        fr.fail(f"New file '{new}' seems to have been corrupted in transit, destination "
                f"{nst.st_size} and source {ssb.st_size}, aborting.")
        _discard(new)
        return False
    if copy.verify:
        fr.log("verbose", "Final verification of transmission ...")
        if src.differs(source, new):
            fr.fail(f"New file '{new}' seems to have been corrupted in transit, aborting.")
            _discard(new)
            return False
        fr.log("verbose", f"New file '{new}' transmitted correctly - verified")
    backup, renamed, backup_is_dir = "", False, False
    if now is not None and copy.backup != "false":
        stamp = atomic.timestamp_suffix() if copy.backup == "timestamp" else ""
        backup = join_suffix(join_suffix(dest, stamp), CF_SAVED)
        backup_is_dir, renamed = _back_up(fr, dest, backup, now)
        if not os.path.lexists(backup):
            backup = ""
    elif now is not None and stat.S_ISDIR(now.st_mode):
        # no backup wanted: the directory in the way goes (emptied first under
        # depth_search only)
        purge_local_files(fr, None, dest)
        try:
            os.rmdir(dest)
        except OSError:
            fr.fail(f"Failed to remove directory '{dest}'")
        else:
            fr.change(f"Removed directory '{dest}'")
    try:
        os.rename(new, dest)
    except OSError as exc:
        # (the new copy is left where it is, as cf-agent leaves it)
        fr.fail(f"Could not install copy file as '{dest}', directory in the way?. "
                f"(rename: {exc.strerror})")
        _restore(fr, dest, backup, renamed)
        return False
    fr.change(f"Moved '{new}' to '{dest}'")
    if backup and backup_is_dir:
        fr.log("info", f"Cannot move a directory to repository, leaving at '{backup}'")
    elif backup and atomic.archive_to_repository(backup, fr.a.repository, fr.log):
        _discard(backup)
    if copy.stealth:
        try:
            os.utime(dest, (ssb.st_atime, ssb.st_mtime)) if src.remote else \
                os.utime(dest, ns=(ssb.st_atime_ns, ssb.st_mtime_ns))
        except OSError:
            pass
    return True


def _back_up(fr: FileRun, dest: str, backup: str, now: os.stat_result) -> tuple[bool, bool]:
    """The destination kept as ``backup`` (an old one removed first: a directory is
    emptied under depth_search only, so a full one stays in the way).  A file is hard
    linked there rather than renamed (so the destination is never missing, not even for
    a moment); a directory, or a file that cannot be linked, is renamed.  Returns
    (the old backup was a directory, the destination was renamed)."""
    try:
        old: os.stat_result | None = os.lstat(backup)
    except OSError:
        old = None
    was_dir = old is not None and stat.S_ISDIR(old.st_mode)
    if old is not None:
        if was_dir:
            purge_local_files(fr, None, backup)
            try:
                os.rmdir(backup)
            except OSError:
                fr.fail(f"Failed to remove old backup directory '{backup}'")
            else:
                fr.change(f"Removed old backup directory '{backup}'")
        try:
            os.unlink(backup)
        except OSError:
            fr.fail(f"Failed to remove old backup '{backup}'")
        else:
            fr.change(f"Removed old backup '{backup}'")
    renamed = False
    try:
        if stat.S_ISDIR(now.st_mode):
            raise IsADirectoryError
        os.link(dest, backup)
    except OSError:
        try:
            os.rename(dest, backup)
            renamed = True
        except OSError:
            fr.fail(f"Failed to back up '{dest}' as '{backup}'")
            return was_dir, False
    fr.change(f"Backed up '{dest}' as '{backup}'")
    return was_dir, renamed


def _restore(fr: FileRun, dest: str, backup: str, renamed: bool) -> None:
    """The backup put back after a failed install (a linked one is only dropped: the
    destination never left)."""
    try:
        if not backup:
            raise OSError
        if renamed:
            os.rename(backup, dest)
        else:
            os.unlink(backup)
    except OSError:
        fr.fail(f"Could not restore '{dest}' as '{backup}'")
        return
    fr.change(f"Restored '{dest}' from '{backup}'")


def _copy_data(src: Any, source: str, new: str, mode: int, expected: int) -> None:
    try:
        os.unlink(new)
    except FileNotFoundError:
        pass
    fd = os.open(new, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        src.fetch(source, fd, expected)
        size = os.fstat(fd).st_size
        end = os.lseek(fd, 0, os.SEEK_CUR)
        if end > size:
            os.ftruncate(fd, end)
        os.fchmod(fd, mode)
        os.fsync(fd)
    finally:
        os.close(fd)


def _discard(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def link_copy(fr: FileRun, source: str, dest: str, ssb: os.stat_result,
              inodes: dict[int, str]) -> None:
    """LinkCopy: make ``dest`` a link instead of a copy."""
    from cfpromise.promises.files import links
    copy = fr.a.copy
    assert copy is not None
    src = _src(fr)
    if stat.S_ISLNK(ssb.st_mode):
        try:
            linkbuf = src.readlink(source)
        except OSError:
            fr.fail(f"Can't readlink '{source}'")
            return
        fr.log("verbose", f"Checking link from '{dest}' to '{linkbuf}'")
        if copy.link_type == "absolute" and not os.path.isabs(linkbuf):
            linkbuf = os.path.join(os.path.dirname(source), linkbuf)
    else:
        linkbuf = source
    if _match_any(copy.copy_links, os.path.basename(source)):
        target = (linkbuf if src.remote else links.expand_links(source)) or linkbuf
        if src.remote and not os.path.isabs(target):
            target = os.path.join(os.path.dirname(source), target)
        fr.log("verbose", f"Link item in copy '{source}' marked for copying from '{target}' "
                          "instead")
        try:
            tsb = src.stat(target)
        except OSError:
            fr.fail(f"Can't stat '{target}' in verify copy")
            return
        cf_copy_file(fr, target, dest, tsb, inodes)
        return
    before = len(fr.results)
    if copy.link_type == "symlink":           # (copies always force links: when_no_file)
        if linkbuf.startswith("."):
            links.verify_relative_link(fr, dest, linkbuf, "force")
        else:
            links.verify_link(fr, dest, linkbuf, "force")
    elif copy.link_type == "relative":
        links.verify_relative_link(fr, dest, linkbuf, "force")
    elif copy.link_type == "absolute":
        links.verify_absolute_link(fr, dest, linkbuf, "force")
    elif copy.link_type == "hardlink":
        links.verify_hard_link(fr, dest, linkbuf)
    status = fr.results[before:]
    if all(o in (Outcome.KEPT, Outcome.REPAIRED) for o in status):
        try:
            dsb = os.lstat(dest)
        except OSError as exc:
            fr.log("error", f"Can't lstat '{dest}'. (lstat: {exc.strerror})")
        else:
            verify_copied_file_attributes(fr, source, dest, ssb, dsb)


def verify_copied_file_attributes(fr: FileRun, src: str, dest: str, sstat: os.stat_result,
                                  dstat: os.stat_result) -> None:
    """VerifyCopiedFileAttributes: perms for the copy (``preserve`` takes the source's)."""
    from cfpromise.promises.files.perms import verify_file_attributes
    copy = fr.a.copy
    assert copy is not None
    perms = fr.a.perms or Perms(plus=0, minus=0)
    owners, groups = perms.owners, perms.groups
    if copy.preserve:
        if owners == (SAME,):
            owners = (sstat.st_uid,)
        if groups == (SAME,):
            groups = (sstat.st_gid,)
        plus = stat.S_IMODE(sstat.st_mode)
        minus = ~plus & 0o7777
        perms = Perms(plus=plus, minus=minus, mode_text=perms.mode_text, owners=owners,
                      owner_names=perms.owner_names, groups=groups,
                      group_names=perms.group_names, rxdirs=perms.rxdirs,
                      rxdirs_given=perms.rxdirs_given)
    elif fr.a.perms is not None and perms.has_mode:
        assert perms.plus is not None and perms.minus is not None
        plus = stat.S_IMODE(dstat.st_mode) | perms.plus
        minus = ~(plus & ~perms.minus) & 0o7777
        perms = Perms(plus=plus, minus=minus, mode_text=perms.mode_text, owners=owners,
                      owner_names=perms.owner_names, groups=groups,
                      group_names=perms.group_names, rxdirs=perms.rxdirs,
                      rxdirs_given=perms.rxdirs_given)
    verify_file_attributes(fr, dest, dstat, perms)
