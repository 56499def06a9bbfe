"""``acl``: POSIX access control lists on Linux (verify_acl.c and acl_posix.c of cf-agent 3.21).

The ACL is read and written as the kernel stores it, in the ``system.posix_acl_access``
and ``system.posix_acl_default`` extended attributes (what libacl's acl_get_file and
acl_set_file do), so no acl tool or library is needed:

* the ``aces`` are checked first (``user:``/``group:``/``all:``/``mask:`` entries, modes
  of ``=+-`` and ``rwx``, native ``(rwx)`` only with ``acl_type => "posix"``, no
  ``deny``, no ``mask`` with the generic type); ``acl_default`` is for directories
  only.  Any error: the promise fails ("Syntax error in access control list");
* ``acl_method => "overwrite"`` builds the ACL from the aces alone, ``append`` (the
  default) applies them to the file's ACL; ``user:*``/``group:*`` are the owner and
  the owning group; a mask is computed unless one is given (libacl's acl_calc_mask);
* the new ACL is compared with the file's (order aside): equal is kept, else it is
  checked (the owner, group and other entries, a mask with named entries) and
  written -- repaired, or failed ("Invalid ACL");
* on a directory, ``acl_default`` (``nochange`` when not given) says what becomes of
  the default ACL: left alone (kept), the access ACL copied, the
  ``specify_default_aces`` applied, or cleared.

A file system without ACL support fails the promise as cf-agent does ("No Access ACL
for ... could be read").  ``-n`` and ``action_policy => "warn"`` say what would change.
"""
from __future__ import annotations

import errno
import os
import stat
import struct

from cfpromise.promises.files.context import FileRun

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

USER_OBJ, USER, GROUP_OBJ, GROUP, MASK, OTHER = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
_TAG_TEXT = {USER_OBJ: "user", USER: "user", GROUP_OBJ: "group", GROUP: "group",
             MASK: "mask", OTHER: "other"}
_NO_ID = 0xFFFFFFFF
_XATTR = {"Access": "system.posix_acl_access", "Default": "system.posix_acl_default"}
_PERM = {"r": 4, "w": 2, "x": 1}

# an ACL: a list of [tag, id, perm] entries (id None for the unnamed tags)
Acl = list


# --- syntax (CheckACLSyntax) -------------------------------------------------------------

def _mode_syntax(fr: FileRun, mode: str, nperms: str) -> tuple[bool, str]:
    """CheckModeSyntax: (valid, the rest after the mode)."""
    if mode == "" or mode[0] == ":":
        return True, mode
    i = 0
    while True:
        while i < len(mode) and mode[i] in "=+-":
            i += 1
        while i < len(mode) and mode[i] in "rwx":
            i += 1
        if i < len(mode) and mode[i] == "(":
            i += 1
            while i < len(mode) and mode[i] in nperms:
                i += 1
            if i < len(mode) and mode[i] == ")":
                i += 1
            else:
                bad = mode[i] if i < len(mode) else ""
                fr.log("error", f"ACL: Invalid native permission '{bad}', or missing native "
                                "end separator")
                fr.promise_ref()
                return False, mode[i:]
        if i == len(mode) or mode[i] == ":":
            return True, mode[i:]
        if mode[i] == ",":
            i += 1
            continue
        fr.log("error", "ACL: Mode string contains invalid characters")
        fr.promise_ref()
        return False, mode[i:]


def _ace_syntax(fr: FileRun, ace: str, nperms: str, mask_support: bool) -> bool:
    """CheckACESyntax."""
    for prefix in ("user:", "group:"):
        if ace.startswith(prefix):
            rest = ace[len(prefix):]
            if rest.startswith(":"):
                fr.log("error", f"ACL: ACE '{ace}': id cannot be empty or contain ':'")
                return False
            colon = rest.find(":", 1)
            if colon < 0:
                fr.log("error", f"ACL: Nothing following id string in ACE '{ace}'")
                return False
            rest = rest[colon + 1:]
            break
    else:
        if ace.startswith("all:"):
            rest = ace[4:]
        elif ace.startswith("mask:"):
            if not mask_support:
                fr.log("error", "This ACL type does not support mask ACE.")
                fr.promise_ref()
                return False
            rest = ace[5:]
        else:
            fr.log("error", f"ACL: ACE '{ace}' does not start with user:/group:/all")
            fr.promise_ref()
            return False
    valid, rest = _mode_syntax(fr, rest, nperms)
    if not valid:
        fr.log("error", f"ACL: Malformed mode-string in ACE '{ace}'")
        fr.promise_ref()
        return False
    if rest == "":
        return True
    permt = rest[1:]
    if permt == "allow":
        return True
    if permt == "deny":
        fr.log("error", "Deny permission not supported by this ACL type")
        fr.promise_ref()
    fr.log("error", f"ACL: Malformed perm_type syntax in ACE '{ace}'")
    return False


def check_syntax(fr: FileRun, path: str, atype: str, default: str | None,
                 aces: list[str], default_aces: list[str]) -> bool:
    if default is not None and default != "none" and not os.path.isdir(path):
        fr.log("error", "acl_default can only be set on directories.")
        fr.promise_ref()
        return False
    nperms, mask_support = ("rwx", True) if atype == "posix" else ("", False)
    for entries in (aces, default_aces):
        for ace in entries:
            if not _ace_syntax(fr, ace, nperms, mask_support):
                fr.log("error", f"ACL: The ACE '{ace}' contains errors")
                fr.promise_ref()
                return False
    return True


# --- reading and writing ------------------------------------------------------------------

def _from_mode(mode: int) -> Acl:
    return [[USER_OBJ, None, (mode >> 6) & 7], [GROUP_OBJ, None, (mode >> 3) & 7],
            [OTHER, None, mode & 7]]


def get_acl(path: str, kind: str) -> Acl:
    """acl_get_file: the stored ACL, else the one the mode stands for (access) or none
    (the default ACL of a directory).  OSError as libacl fails."""
    try:
        data = os.getxattr(path, _XATTR[kind])
    except OSError as exc:
        if exc.errno != errno.ENODATA:
            raise
        st = os.stat(path)
        if kind == "Default":
            if stat.S_ISDIR(st.st_mode):
                return []
            raise OSError(errno.EACCES, os.strerror(errno.EACCES)) from None
        return _from_mode(st.st_mode)
    out: Acl = []
    for off in range(4, len(data) - 7, 8):
        tag, perm, qid = struct.unpack_from("<HHI", data, off)
        out.append([tag, qid if tag in (USER, GROUP) else None, perm & 7])
    return out


def set_acl(path: str, kind: str, acl: Acl) -> None:
    """acl_set_file (the kernel applies an access ACL's owner/group/other to the mode)."""
    if kind == "Default" and not os.path.isdir(path):
        raise OSError(errno.EACCES, os.strerror(errno.EACCES))
    entries = _sorted(acl)
    data = struct.pack("<I", 2) + b"".join(
        struct.pack("<HHI", tag, perm, qid if qid is not None else _NO_ID)
        for tag, qid, perm in entries)
    os.setxattr(path, _XATTR[kind], data)


def text(acl: Acl) -> str:
    """acl_to_any_text(acl, NULL, ',', 0)."""
    import grp
    import pwd
    out = []
    for tag, qid, perm in acl:
        who = ""
        if tag == USER:
            try:
                who = pwd.getpwuid(qid).pw_name
            except KeyError:
                who = str(qid)
        elif tag == GROUP:
            try:
                who = grp.getgrgid(qid).gr_name
            except KeyError:
                who = str(qid)
        rwx = "".join(c if perm & _PERM[c] else "-" for c in "rwx")
        out.append(f"{_TAG_TEXT[tag]}:{who}:{rwx}")
    return ",".join(out)


def _find(acl: Acl, tag: int, qid: int | None) -> list[Any] | None:
    """FindACE: the entry of that tag (and id, for named ones)."""
    for entry in acl:
        if entry[0] == tag and (qid is None or entry[1] == qid):
            return entry
    return None


def equal(first: Acl, second: Acl) -> bool:
    """ACLEquals: the same entries, in any order."""
    if len(first) != len(second):
        return False
    for tag, qid, perm in first:
        other = _find(second, tag, qid)
        if other is None or other[2] != perm:
            return False
    return True


def _sorted(acl: Acl) -> Acl:
    """libacl's order: owner, named users, group, named groups, mask, other."""
    return sorted(acl, key=lambda e: (e[0], e[1] if e[1] is not None else -1))


def check(acl: Acl) -> tuple[str, int] | None:
    """acl_check: None, or libacl's message for an ACL that cannot be set and the index
    of the entry it stopped at."""
    multi, dup, miss = ("Multiple entries of same type", "Duplicate entries",
                        "Missing or wrong entry")
    state, qual, needs_mask = USER_OBJ, 0, False
    for index, (tag, qid, _) in enumerate(_sorted(acl)):
        if tag == USER_OBJ:
            if state != USER_OBJ:
                return multi, index
            state, qual = USER, 0
        elif tag in (USER, GROUP):
            if state != tag:
                return miss, index
            if qid is None or qid < qual:
                return dup, index
            qual, needs_mask = qid + 1, True
        elif tag == GROUP_OBJ:
            if state != USER:
                return (multi if state >= GROUP else miss), index
            state, qual = GROUP, 0
        elif tag == MASK:
            if state != GROUP:
                return (multi if state >= OTHER else miss), index
            state = OTHER
        elif tag == OTHER:
            if not (state == OTHER or (state == GROUP and not needs_mask)):
                return (multi if state == 0 else miss), index
            state = 0
        else:
            return "Invalid entry type", index
    if state != 0:
        return miss, len(acl)
    return None


# --- building the new ACL (CheckPosixLinuxACEs) -------------------------------------------

def _entity(fr: FileRun, ace: str) -> tuple[int, int | None, str] | None:
    """ParseEntityPosixLinux: (tag, id, the rest from the ':' before the mode)."""
    import grp
    import pwd
    for prefix, obj, named in (("user:", USER_OBJ, USER), ("group:", GROUP_OBJ, GROUP)):
        if ace.startswith(prefix):
            rest = ace[len(prefix):]
            name, sep, mode = rest.partition(":")
            if name == "*":
                return obj, None, sep + mode
            try:
                qid = pwd.getpwnam(name).pw_uid if named == USER else grp.getgrnam(name).gr_gid
            except KeyError:
                qid = _numeric(name, named)
                if qid is None:
                    what, call = ("UID", "getpwnam") if named == USER else ("GID", "getgrnam")
                    fr.log("error", f"Could not get {what} for {prefix[:-1]} '{name}', "
                                    f"({call}: not found)")
                    return None
            return named, qid, sep + mode
    if ace.startswith("all:"):
        return OTHER, None, ace[3:]
    if ace.startswith("mask:"):
        return MASK, None, ace[4:]
    fr.log("error", "ACE does not start with user:/group:/all:/mask:")
    return None


def _after_id(ace: str) -> str:
    for prefix in ("user:", "group:"):
        if ace.startswith(prefix):
            rest = ace[len(prefix):]
            colon = rest.find(":")
            return rest[colon:] if colon >= 0 else ""
    return ace


def _numeric(name: str, tag: int) -> int | None:
    """A number that names a user (group), as ``getent`` finds it."""
    import grp
    import pwd
    if not name.isdigit():
        return None
    try:
        return pwd.getpwuid(int(name)).pw_uid if tag == USER else grp.getgrgid(int(name)).gr_gid
    except (KeyError, OverflowError):
        return None


def _apply_mode(mode: str, perm: int) -> int:
    """ParseModePosixLinux: ``mode`` applied to the permission bits ``perm``."""
    if mode == "" or mode[0] == ":":
        return 0
    i = 0
    while True:
        add = True
        if i < len(mode) and mode[i] in "+-":
            add = mode[i] == "+"
            i += 1
        else:
            if i < len(mode) and mode[i] == "=":
                i += 1
            perm = 0
        while i < len(mode) and mode[i] in "rwx":
            perm = perm | _PERM[mode[i]] if add else perm & ~_PERM[mode[i]]
            i += 1
        if i < len(mode) and mode[i] == "(":
            i += 1
            while i < len(mode) and mode[i] in "rwx":
                perm = perm | _PERM[mode[i]] if add else perm & ~_PERM[mode[i]]
                i += 1
            i += 1
        if i < len(mode) and mode[i] == ",":
            i += 1
            continue
        return perm


def new_acl(fr: FileRun, aces: list[str], method: str, existing: Acl) -> Acl | None:
    """The ACL the aces make (None after cf-agent's failure)."""
    acl: Acl = [list(e) for e in existing] if method == "append" else []
    has_mask = False
    for ace in aces:
        parsed = _entity(fr, ace)
        if parsed is None:
            # (cf-agent names the ace from where its parsing stopped: past a user's name)
            fr.fail(f"ACL: Error parsing entity in '{_after_id(ace)}'")
            return None
        tag, qid, rest = parsed
        has_mask = has_mask or tag == MASK
        entry = _find(acl, tag, qid)
        if entry is None:
            entry = [tag, qid, 0]
            acl.append(entry)
        if not rest.startswith(":"):
            fr.fail(f"ACL: No separator before mode-string '{rest}'")
            return None
        entry[2] = _apply_mode(rest[1:], entry[2])
    if not has_mask:            # acl_calc_mask
        mask = 0
        for tag, _, perm in acl:
            if tag in (USER, GROUP_OBJ, GROUP):
                mask |= perm
        entry = _find(acl, MASK, None)
        if entry is None:
            acl.append([MASK, None, mask])
        else:
            entry[2] = mask
    return acl


def _check_aces(fr: FileRun, path: str, aces: list[str], method: str, kind: str) -> bool:
    """CheckPosixLinuxACEs for the access or the default ACL."""
    try:
        existing = get_acl(path, kind)
    except OSError as exc:
        fr.fail(f"No {kind} ACL for '{path}' could be read. (acl_get_file: {exc.strerror})")
        return False
    acl = new_acl(fr, aces, method, existing)
    if acl is None:
        return False
    if equal(existing, acl):
        fr.kept(f"'{kind}' ACL on '{path}' needs no modification.")
        return True
    if fr.warn_only:
        fr.should(f"Should update ACL {kind} on file '{path}'")
        return True
    problem = check(acl)
    if problem is not None:
        fr.fail(f"Invalid ACL in '{text(_sorted(acl))}' at index {problem[1]} (acl_check: "
                f"{problem[0]})")
        return False
    try:
        set_acl(path, kind, acl)
    except OSError as exc:
        fr.fail(f"Error setting new {kind} ACL({text(_sorted(acl))}) on file '{path}' (acl_set_file: "
                f"{exc.strerror}), are required ACEs present ?")
        return False
    fr.change(f"{kind} ACL on '{path}' successfully changed")
    return True


def _default_acl(fr: FileRun, path: str, default: str, aces: list[str], method: str) -> bool:
    """CheckPosixLinuxDefaultACEs."""
    if default == "nochange":
        fr.kept(f"No change required for '{path}' with acl_default=nochange")
        return True
    if default == "specify":
        return _check_aces(fr, path, aces, method, "Default")
    try:
        current = get_acl(path, "Default")
        access = get_acl(path, "Access") if default == "access" else []
    except OSError as exc:
        fr.fail(f"Could not find default ACL for '{path}'. (acl_get_file: {exc.strerror})")
        return False
    if equal(current, access):
        fr.kept(f"Default ACL on '{path}' as promised")
        return True
    what = "copy default ACL on '{0}' from access ACL" if default == "access" else \
        "clean default ACL on '{0}'"
    if fr.warn_only:
        fr.should("Should " + what.format(path))
        return False        # (cf-agent then names the promise, as after an error)
    try:
        set_acl(path, "Default", access)
    except OSError as exc:
        verb = "set default ACL to access on" if default == "access" else "reset ACL for"
        fr.fail(f"Could not {verb} '{path}'. (acl_set_file: {exc.strerror})")
        return False
    fr.change(f"Default ACL on '{path}' successfully "
              + ("copied from access ACL." if default == "access" else "cleared"))
    return True


def _strings(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def has_aces(acl: dict[str, Any] | None) -> bool:
    """cf-agent acts on an acl body only when it has ``aces``."""
    return acl is not None and bool(_strings(acl.get("aces")))


def verify_acl(fr: FileRun, path: str) -> None:
    """VerifyACL for ``path``."""
    body = fr.a.acl or {}
    method = str(body.get("acl_method") or "append")
    atype = str(body.get("acl_type") or "generic")
    default = body.get("acl_default") or body.get("acl_directory_inherit")
    aces = _strings(body.get("aces"))
    default_aces = _strings(body.get("specify_default_aces")
                            or body.get("specify_inherit_aces"))
    if not check_syntax(fr, path, atype, default, aces, default_aces):
        fr.fail(f"Syntax error in access control list for '{path}'")
        fr.promise_ref()
        return
    if atype == "ntfs":
        fr.fail("NTFS ACLs are not supported on this system")
        return
    if not _check_aces(fr, path, aces, method, "Access"):
        fr.promise_ref()
        return
    if os.path.isdir(path):
        if not _default_acl(fr, path, str(default or "nochange"), default_aces, method):
            fr.promise_ref()
