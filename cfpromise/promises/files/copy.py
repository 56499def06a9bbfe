"""``copy_from`` from local sources (verify_files_utils.c: CopyFileSources and friends).

* A regular source is compared with the destination (``compare``: mtime
  (default: mtime or ctime newer), atime, digest/hash, binary, exists) and
  copied when newer/different, or always with ``force_update``.  The copy goes
  to ``<dest>.cfnew`` beside the destination, is fsync'd, checked (size, and
  digest with ``verify``), the old file is kept as ``<dest>.cfsaved`` (hard
  link; timestamped with ``copy_backup => "timestamp"``, none with ``false``)
  and the new one renamed over it -- so the destination is always whole.
* ``copy_size`` bounds the source size; ``stealth`` keeps the source's times;
  ``preserve`` copies mode and owner; ``type_check`` refuses to replace an
  object of another type.
* A source directory is copied entry by entry down to ``depth_search``'s
  depth; ``purge`` deletes destination entries the source does not have.
* Source symlinks are reproduced as links (``link_type``), unless a
  ``copylink_patterns`` name says copy the target; ``linkcopy_patterns``
  names are linked instead of copied.
* ``body agent control``: ``files_single_copy`` copies a matching destination
  only once per run, ``files_auto_define`` defines ``auto_<dest>`` on a copy.

* ``servers``: the source is read through cfpromise/promises/files/sources.py
  -- the local disk, or a server over CFEngine 3.21's protocol (failover over
  the list; the literal ``localhost`` is the local disk, any address goes
  through the server and its access rules).  Remote digest comparisons and
  ``verify`` ask the server (MD5), as cf-agent does.

This module walks the source; copying each file is :mod:`cfpromise.promises.files.copyfile`.
"""
from __future__ import annotations

import os
import stat

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.files.context import FileRun
from cfpromise.promises.files.copyfile import _src, cf_copy_file, verify_copied_file_attributes
from cfpromise.promises.files.purge import purge_local_files



def schedule_copy(fr: FileRun, destination: str) -> None:
    """ScheduleCopyOperation."""
    copy = fr.a.copy
    assert copy is not None
    if copy.source is None:
        fr.fail("Body copy_from has no source! Maybe a typo in the policy?", level="info")
        return
    fr.log("verbose", f"File '{destination}' copy_from '{copy.source}'")
    from cfpromise.promises.files.sources import open_source
    source = open_source(fr, fr.log)
    if source is None:
        fr.fail(f"No suitable server found for '{destination}'")
        fr.promise_ref()
        return
    fr.source = source
    try:
        copy_file_sources(fr, destination)
    finally:
        fr.source = None


def copy_file_sources(fr: FileRun, destination: str) -> None:
    """CopyFileSources."""
    from cfpromise.promises.files.create import make_parent_directory
    copy = fr.a.copy
    assert copy is not None and copy.source is not None
    source = copy.source
    src = _src(fr)
    if fr.sim is not None and not src.remote:
        # cf-agent 3.21 reads a local source inside the --simulate chroot too: a source
        # that no promise of the run made there cannot be stat'ed ("Can't stat file")
        chrooted = fr.sim.to_chroot(source)
    else:
        chrooted = source
    try:
        ssb = src.stat(chrooted)
    except OSError as exc:
        if src.remote:
            import errno
            fr.log("verbose" if exc.errno == errno.EACCES else "error",
                   f"Server returned error: {exc.strerror}")
        if copy.missing_ok:
            fr.log("debug", f"Can't stat file '{source}' on '{src.host}' but promise is kept "
                            "'missing_ok' in files.copy_from promise")
            fr.kept()
            return
        fr.fail(f"Can't stat file '{source}' on '{src.host}' in files.copy_from promise")
        return
    source = chrooted                   # (the copy reads what the simulation made)
    vbuff = destination
    if stat.S_ISDIR(ssb.st_mode):
        vbuff = os.path.join(destination, ".")
    missing = not os.path.isdir(os.path.dirname(vbuff))
    if not make_parent_directory(fr, vbuff, fr.a.move_obstructions):     # (warns under -n)
        return                                  # (it said why, and failed the promise)
    if missing and not fr.warn_only and os.path.isdir(os.path.dirname(vbuff)):
        fr.change(f"Created parent directory for '{destination}'")
    inodes: dict[int, str] = {}
    if stat.S_ISDIR(ssb.st_mode):
        if copy.purge:
            fr.log("verbose", "Destination purging enabled")
        fr.log("verbose", f"Entering directory '{source}'")
        depth = fr.a.depth.depth if fr.a.depth is not None else 0
        source_search_and_copy(fr, source, destination, depth, ssb.st_dev, inodes)
        try:
            dsb = os.stat(destination)
        except OSError:
            return
        if copy.check_root:
            verify_copied_file_attributes(fr, source, destination, ssb, dsb)
    else:
        verify_copy(fr, source, destination, inodes)


def source_search_and_copy(fr: FileRun, source: str, to: str, maxrecurse: int, rootdev: int,
                           inodes: dict[int, str]) -> None:
    """SourceSearchAndCopy: one directory level of a recursive copy."""
    from cfpromise.promises.files.create import make_parent_directory
    from cfpromise.promises.files.depth import skip_dir
    copy = fr.a.copy
    assert copy is not None
    depth = fr.a.depth
    if maxrecurse == 0:
        # a directory below the search's depth (or any, without depth_search): the copy
        # fails there, as cf-agent's does
        fr.fail(f"Maximum recursion level reached at '{source}'")
        return
    # (under -n the directory is only said to be made, and then cannot be stat'ed: cf-agent
    # reports that as an error)
    missing = not os.path.isdir(to)
    if not make_parent_directory(fr, os.path.join(to, "dummy"), fr.a.move_obstructions):
        fr._result(Outcome.FAILED)          # (make_parent_directory said why)
        return
    # cf-agent deletes the trailing slash of the destination -- of the promiser itself at
    # the top (its buffer): what follows names it without (see files/paths.py)
    from cfpromise.promises.files import paths
    chopped = paths.delete_slash(to)
    paths.rename_promiser(fr, to, chopped)
    to = chopped
    try:
        tost = os.lstat(to)
    except OSError as exc:
        fr.fail(f"Unable to stat newly created directory '{to}'. (lstat: {exc.strerror})")
        return
    if missing and not stat.S_ISLNK(tost.st_mode):
        fr.change(f"Created parent directory for '{to}'")
    if stat.S_ISLNK(tost.st_mode):
        if not fr.a.move_obstructions:
            fr.fail(f"Path '{to}' is a symlink. Unable to move it aside without "
                    "move_obstructions is set")
            return
        if fr.warn_only:
            fr.should(f"Should backup '{to}'")
            fr.should(f"Should create directory '{to}'")
        else:
            try:
                os.rename(to, to + ".cf-moved")
            except OSError:
                fr.log("error", f"Unable to backup old '{to}'")
                os.unlink(to)
            else:
                fr.change(f"Backed up '{to}'")
            try:
                os.mkdir(to, 0o755)
            except OSError as exc:
                fr.fail(f"Failed to make directory '{to}'. (mkdir: {exc.strerror})")
                return
            fr.change(f"Created directory for '{to}'")
    src = _src(fr)
    try:
        entries = src.listdir(source)
    except OSError:
        fr.interrupted(f"copy can't open directory '{source}'", level="info")
        return
    names: list[str] = []
    for name in entries:
        newfrom = os.path.join(source, name)
        if copy.purge:
            names.append(name)
        follow = (depth is not None and depth.travlinks) or copy.link_type == "none"
        try:
            sb = src.stat(newfrom) if follow else src.lstat(newfrom)
        except OSError as exc:
            fr.log("verbose", f"Can't stat '{newfrom}'. (cf_stat: {exc.strerror})")
            continue
        newto = to if (copy.collapse and stat.S_ISDIR(sb.st_mode)) else os.path.join(to, name)
        if depth is not None and depth.xdev and sb.st_dev != rootdev:
            fr.log("verbose", f"Skipping '{newfrom}' on different device")
            continue
        if stat.S_ISDIR(sb.st_mode):
            if depth is not None and depth.travlinks:
                fr.log("verbose", "Traversing directory links during copy is too dangerous, "
                                  "pruned")
                continue
            if depth is not None and skip_dir(fr, newfrom, name):
                continue
            dsb: os.stat_result | None = None
            if not copy.collapse:
                try:
                    dsb = os.stat(newto)
                except OSError:
                    if fr.warn_only:
                        fr.should(f"Should create directory '{newto}'")
                        continue
                    try:
                        os.mkdir(newto, 0o700)
                        dsb = os.stat(newto)
                    except OSError as exc:
                        fr.interrupted(f"Can't make directory '{newto}'. (mkdir: {exc.strerror})")
                        continue
                    fr.change(f"Created directory '{newto}'")
            fr.log("verbose", f"Entering '{newto}'")
            if not copy.collapse and dsb is not None:
                verify_copied_file_attributes(fr, newfrom, newto, sb, dsb)
            source_search_and_copy(fr, newfrom, newto, maxrecurse - 1, rootdev, inodes)
        else:
            verify_copy(fr, newfrom, newto, inodes)
    if copy.purge:
        purge_local_files(fr, names, to)


def verify_copy(fr: FileRun, source: str, destination: str, inodes: dict[int, str]) -> None:
    """VerifyCopy: a file, or the entries of a directory (one level)."""
    copy = fr.a.copy
    assert copy is not None
    src = _src(fr)
    try:
        ssb = src.stat(source) if copy.link_type == "none" else src.lstat(source)
    except OSError:
        fr.fail(f"Can't stat '{source}' in verify copy")
        return
    if ssb.st_nlink > 1 and not stat.S_ISDIR(ssb.st_mode):
        inodes.setdefault(ssb.st_ino, destination)
    if not stat.S_ISDIR(ssb.st_mode):
        cf_copy_file(fr, source, destination, ssb, inodes)
        return
    try:
        dsb = os.stat(destination)
    except OSError as exc:
        fr.fail(f"Can't stat directory '{destination}/'. (stat: {exc.strerror})")
    else:
        verify_copied_file_attributes(fr, source, destination, ssb, dsb)
    try:
        entries = src.listdir(source)
    except OSError as exc:
        fr.fail(f"Can't open directory '{source}/'. (opendir: {exc.strerror})")
        return
    for name in entries:
        sfile = os.path.join(source, name)
        dfile = os.path.join(destination, name)
        try:
            sb = src.stat(sfile) if copy.link_type == "none" else src.lstat(sfile)
        except OSError as exc:
            fr.fail(f"Can't stat source file '{sfile}'. (lstat: {exc.strerror})")
            return
        cf_copy_file(fr, sfile, dfile, sb, inodes)
