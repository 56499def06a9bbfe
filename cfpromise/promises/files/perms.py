"""``perms``: mode (octal or symbolic), owners, groups, rxdirs, bsdflags.

:func:`parse_mode` (:mod:`cfpromise.promises.files.modes`) reads a mode into a
pair of masks: bits to add and bits to remove.

:func:`verify_file_attributes` is VerifyFileAttributes: the new mode is the
current one plus/minus the masks (directories also get ``x`` wherever they get
``r`` when ``rxdirs`` is true); owner and group are left alone when the file
already belongs to one of the promised users/groups, otherwise set to the
first promised one that exists.  Symlinks are never chmod'ed.
"""
from __future__ import annotations

import os
import stat

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.files.attributes import SAME, UNKNOWN, Perms
from cfpromise.promises.files.modes import CHFLAGS_MASK, parse_bsdflags, parse_mode  # noqa: F401

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    Log = Callable[[str, str], None]

def new_mode(perms: Perms, st: os.stat_result) -> int:
    """The mode the file should have (07777 bits)."""
    mode = stat.S_IMODE(st.st_mode)
    if perms.has_mode:
        assert perms.plus is not None and perms.minus is not None
        mode |= perms.plus
        mode &= ~perms.minus
        if stat.S_ISDIR(st.st_mode) and perms.rxdirs:
            if mode & stat.S_IRUSR:
                mode |= stat.S_IXUSR
            if mode & stat.S_IRGRP:
                mode |= stat.S_IXGRP
            if mode & stat.S_IROTH:
                mode |= stat.S_IXOTH
    return mode & 0o7777


def creation_mode(perms: Perms | None) -> int:
    """The mode a new file gets: the promised one, else 0600."""
    if perms is None or not perms.has_mode or perms.mode_text is None:
        return 0o600
    assert perms.plus is not None and perms.minus is not None
    return perms.plus & ~perms.minus & 0o7777


def rxdirs_warning(fr: Any) -> None:
    """cf-agent 3.21 warns when a promise gives a mode (any: the read bits are what rxdirs
    is about, but GetPermissionConstraints asks only whether there is one) and relies on
    the rxdirs default."""
    perms = fr.a.perms
    if perms is None or perms.rxdirs_given or not perms.has_mode or not perms.mode_text:
        return
    c = fr.run.promise.coord
    from cfpromise.promises.api import shown_path
    shown = shown_path(c.file, getattr(fr.run.agent, "start_dir", ""))
    fr.log("warning", f"Using the default value 'false' for attribute rxdirs (promiser: "
                      f"{fr.run.promiser}, file: {shown}:{c.line}), please set it explicitly")


def unknown_ids(fr: Any) -> bool:
    perms = fr.a.perms
    return perms is not None and (UNKNOWN in perms.owners or UNKNOWN in perms.groups)


def log_unknown_ids(fr: Any) -> None:
    """cf-agent's notes on promised owners/groups that do not exist (it prints them each
    time it reads the promise's attributes)."""
    if unknown_ids(fr):
        _unknown_ids_logged(fr)


def _unknown_ids_logged(fr: Any) -> None:
    perms = fr.a.perms
    ref = fr.run.belongs_to()
    for uid, name in zip(perms.owners, perms.owner_names):
        if uid == UNKNOWN:
            fr.log("info", f"Could not get UID for user '{name}', (getpwnam: not found)")
            fr.log("info", ref)
    for gid, name in zip(perms.groups, perms.group_names):
        if gid == UNKNOWN:
            fr.log("info", f"Could not get GID for group '{name}', (getgrnam: not found)")
            fr.log("info", ref)


def verify_owner(fr: Any, path: str, st: os.stat_result, perms: Perms,
                 owners: tuple[int, ...] | None = None,
                 groups: tuple[int, ...] | None = None) -> None:
    """VerifyOwner."""
    owners = perms.owners if owners is None else owners
    groups = perms.groups if groups is None else groups
    # (an owner found right is reported kept, as cf-agent's VerifyOwner does: over a tree
    # walk that fixes every mode, the promise is then kept and repaired)
    uid = _wanted_id(fr, path, owners, st.st_uid, "Owner", "owners")
    gid = _wanted_id(fr, path, groups, st.st_gid, "Group", "groups")
    if uid == SAME and gid == SAME:
        return
    _unowned_warnings(fr, path, st)
    if fr.warn_only:
        if uid != SAME and gid != SAME:
            fr.should(f"Should change owner and group of '{path}' to '{uid}:{gid}'")
        elif uid != SAME:
            fr.should(f"Should change owner of '{path}' to '{uid}'")
        else:
            fr.should(f"Should change group of '{path}' to '{gid}'")
        return
    link = stat.S_ISLNK(st.st_mode)
    try:
        os.lchown(path, uid if uid != SAME else -1, gid if gid != SAME else -1)
    except OSError as exc:
        if link:     # (cf-agent reports it failed, and the promise's result goes on)
            fr.note(Outcome.FAILED, f"Cannot set ownership on link '{path}'. "
                                    f"(lchown: {exc.strerror})")
        else:
            fr.denied(f"Cannot set ownership on file '{path}'. (chown: {exc.strerror})")
        return
    what = "link '" if link else "'"
    if uid != SAME:
        fr.change(f"Owner of {what}{path}' was {st.st_uid}, set to {uid}")
    if gid != SAME:
        fr.change(f"Group of {what}{path}' was {st.st_gid}, set to {gid}")


def _wanted_id(fr: Any, path: str, promised: tuple[int, ...], current: int, what: str,
               plural: str) -> int:
    """The uid/gid to set (SAME: none): the first known one promised, unless the current
    one is promised (kept) or SAME comes first; none known at all fails the promise."""
    for wanted in promised:
        if wanted == SAME:
            return SAME
        if wanted == current:
            fr.kept(f"{what} of '{path}' as promised ({wanted})")
            return SAME
    known = [i for i in promised if i != UNKNOWN]
    if known:
        return known[0]
    if promised:
        fr.fail(f"None of the promised {plural} for '{path}' exist -- see INFO logs for more")
    return SAME


def _unowned_warnings(fr: Any, path: str, st: os.stat_result) -> None:
    """cf-agent warns (a warning class, the promise's result unchanged) before it changes
    the owner of a file whose uid or gid has no name."""
    import grp
    import pwd
    try:
        pwd.getpwuid(st.st_uid)
    except KeyError:
        fr.note(Outcome.WARN, f"File '{path}' is not owned by anybody in the passwd database "
                              f"(uid = {st.st_uid})", "warning")
    try:
        grp.getgrgid(st.st_gid)
    except KeyError:
        fr.note(Outcome.WARN, f"File '{path}' is not owned by any group in group database  "
                              f"(gid = {st.st_gid})", "warning")


def verify_setuid(fr: Any, path: str, st: os.stat_result, mode: int) -> None:
    """VerifySetUidGid: removing a root setuid/setgid bit is reported (the chmod after
    removes it)."""
    if st.st_uid != 0:
        return
    for bit, name in ((stat.S_ISUID, "setuid"), (stat.S_ISGID, "setgid")):
        if st.st_mode & bit and not mode & bit:
            if fr.warn_only:
                fr.should(f"Should remove {name} (root) flag from '{path}'")
            else:
                fr.change(f"Removed {name} (root) flag from '{path}'")


def verify_file_attributes(fr: Any, path: str, st: os.stat_result,
                           perms: Perms | None = None) -> None:
    """VerifyFileAttributes for ``path`` (``st`` from lstat)."""
    perms = perms if perms is not None else fr.a.perms
    if perms is None:
        from cfpromise.promises.files.attributes import Perms as _Perms
        perms = _Perms(plus=0, minus=0)
    mode = new_mode(perms, st)
    if stat.S_ISLNK(st.st_mode):
        verify_owner(fr, path, st, perms)
        return
    verify_setuid(fr, path, st, mode)
    verify_owner(fr, path, st, perms)
    if fr.a.changes is not None:
        from cfpromise.promises.files import changes
        changes.verify_file_changes(fr, path, st)
    current = stat.S_IMODE(st.st_mode)
    if mode == current:
        fr.kept(f"File permissions on '{path}' as promised")
    elif fr.warn_only:
        fr.should(f"Should change permissions of '{path}' from {current:04o} to {mode:04o}")
    else:
        error: str | None = None
        try:
            os.chmod(path, mode, follow_symlinks=False)
        except NotImplementedError:
            try:
                os.chmod(path, mode)
            except OSError as exc:
                error = exc.strerror
        except OSError as exc:
            error = exc.strerror
        if error is not None:
            # (the checks after go on, as cf-agent's)
            fr.fail(f"Failed to change permissions of '{path}'. (chmod: {error})")
        else:
            from cfpromise.promises.files.context import note_change
            note_change(fr, kind="perms", path=path, old_mode=f"{current:04o}",
                        new_mode=f"{mode:04o}")
            fr.change(f"Object '{path}' had permissions {current:04o}, changed it to {mode:04o}")
    _verify_bsdflags(fr, path, st, perms)
    if fr.a.acl is not None and fr.a.acl.get("aces"):
        from cfpromise.promises.files import acl
        acl.verify_acl(fr, path)
    if fr.a.touch:
        try:
            os.utime(path)
        except OSError as exc:
            fr.denied(f"Touching file '{path}' failed. (utime: {exc.strerror})", level="info")
        else:
            fr.change(f"Touched file '{path}'")


def _verify_bsdflags(fr: Any, path: str, st: os.stat_result, perms: Perms) -> None:
    flags = getattr(st, "st_flags", None)
    if flags is None or not hasattr(os, "chflags"):
        return
    new = (flags | perms.bsd_plus) & ~perms.bsd_minus & CHFLAGS_MASK
    if new == flags & CHFLAGS_MASK:
        return
    if fr.warn_only:
        fr.should(f"Should change flags of '{path}' from {flags:o} to {new:o}")
        return
    try:
        os.chflags(path, new)
    except OSError as exc:
        fr.denied(f"Failed setting BSD flags '{new:x}' on '{path}'. (chflags: {exc.strerror})")
        return
    fr.change(f"'{path}' had flags {flags:o}, changed it to {new:o}")
