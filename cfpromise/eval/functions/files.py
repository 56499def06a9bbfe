"""File system built-ins: paths, stat() details, globbing, directory listing.

These follow cf-agent's C code closely: ``fileexists``/``isdir``/``islink``/
``isplain`` use ``lstat`` (a dangling symlink exists), ``isexecutable`` follows
the link and applies CFEngine's IsExecutable (owner or root: user x bit;
world-writable files never count), ``filesexist`` uses ``stat``.  Comparisons of
two files fail (the promise's variable stays undefined) when either cannot be
stat'ed.  ``findfiles`` expands ``**`` to one to six directory levels like
cf-agent 3.21's GlobFileList and returns sorted, unique paths.
"""
from __future__ import annotations

import os
import stat as st

from cfpromise.eval.functions.api import FunctionError, builtin
from cfpromise.eval.functions.common import (
    argv, boolean, collect_container, flat_args, int_arg, primitive_strs, to_bytes)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence

    from cfpromise.eval.functions.api import FunctionContext, Value


def _stat(fn: str, path: str, follow: bool = True) -> os.stat_result:
    try:
        return os.stat(path) if follow else os.lstat(path)
    except OSError as exc:
        raise FunctionError(f"Function '{fn}': cannot stat '{path}' ({exc.strerror})") from None


# ---------------------------------------------------------------------------
# Paths


def chop_last_node(path: str) -> str:
    """CFEngine's DeleteSlash + ChopLastNode (dirname)."""
    while len(path) > 1 and path.endswith("/"):
        path = path[:-1]
    slash = path.rfind("/")
    if slash < 0:
        return "."
    if slash == 0:
        return "/"
    return path[:slash]


@builtin("dirname")
def dirname(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """The path without its last component; repeated slashes collapse (cf-agent 3.21:
    ``dirname("//a///b////c///")`` is ``/a/b``)."""
    (path,) = argv("dirname", args, 1)
    import re
    collapsed = re.sub("/+", "/", path)
    if collapsed in ("/", ""):
        return "/" if collapsed else ""
    return chop_last_node(collapsed)


def c_basename(path: str) -> str:
    """POSIX basename(3)."""
    if path == "":
        return "."
    stripped = path.rstrip("/")
    if stripped == "":
        return "/"
    return stripped.rsplit("/", 1)[-1]


@builtin("basename")
def basename(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    values = argv("basename", args, 1, 2)
    path = values[0]
    if path == "":
        return ""
    base = c_basename(path)
    if len(values) > 1 and values[1] and base.endswith(values[1]) \
            and len(values[1]) < len(base):
        return base[:-len(values[1])]
    return base


@builtin("translatepath")
def translatepath(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """Unix style path separators are already native: the path unchanged."""
    (path,) = argv("translatepath", args, 1)
    return path


# ---------------------------------------------------------------------------
# stat() predicates


def is_executable(path: str) -> bool:
    """CFEngine's IsExecutable."""
    try:
        sb = os.stat(path)
    except OSError:
        return False
    if sb.st_mode & 0o002:
        return False
    uid = os.getuid()
    if uid == sb.st_uid or uid == 0:
        return bool(sb.st_mode & 0o100)
    if os.getgid() == sb.st_gid:
        return bool(sb.st_mode & 0o010)
    if sb.st_mode & 0o001:
        return True
    return sb.st_gid in os.getgroups() and bool(sb.st_mode & 0o010)


def _lstat_or_none(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


@builtin("fileexists")
def fileexists(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (path,) = argv("fileexists", args, 1)
    return _lstat_or_none(path) is not None


@builtin("isdir")
def isdir(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (path,) = argv("isdir", args, 1)
    sb = _lstat_or_none(path)
    return sb is not None and st.S_ISDIR(sb.st_mode)


@builtin("islink")
def islink(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (path,) = argv("islink", args, 1)
    sb = _lstat_or_none(path)
    return sb is not None and st.S_ISLNK(sb.st_mode)


@builtin("isplain")
def isplain(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (path,) = argv("isplain", args, 1)
    sb = _lstat_or_none(path)
    return sb is not None and st.S_ISREG(sb.st_mode)


@builtin("isexecutable")
def isexecutable(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (path,) = argv("isexecutable", args, 1)
    if _lstat_or_none(path) is None:
        return False
    return is_executable(path)


@builtin("filesize")
def filesize(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (path,) = argv("filesize", args, 1)
    return str(_stat("filesize", path, follow=False).st_size)


@builtin("filesexist")
def filesexist(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (source,) = argv("filesexist", args, 1, raw=(0,))
    paths = primitive_strs(collect_container(ctx, "filesexist", source))
    return bool(paths) and all(_stat_ok(p) for p in paths)


def _stat_ok(path: str) -> bool:
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def _compare(fn: str, args: Sequence[Value], field: str, newer: bool) -> bool:
    a, b = argv(fn, args, 2)
    x = getattr(_stat(fn, a), field)
    y = getattr(_stat(fn, b), field)
    return int(x) > int(y) if newer else int(x) < int(y)


@builtin("isnewerthan")
def isnewerthan(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _compare("isnewerthan", args, "st_mtime", True)


@builtin("accessedbefore")
def accessedbefore(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _compare("accessedbefore", args, "st_atime", False)


@builtin("changedbefore")
def changedbefore(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    # cf-agent 3.21 compares ctime(arg1) > ctime(arg2), despite the name
    return _compare("changedbefore", args, "st_ctime", True)


# ---------------------------------------------------------------------------
# filestat


_TYPES = ((st.S_IFBLK, "block device"), (st.S_IFCHR, "character device"),
          (st.S_IFDIR, "directory"), (st.S_IFIFO, "FIFO/pipe"), (st.S_IFLNK, "symlink"),
          (st.S_IFREG, "regular file"), (st.S_IFSOCK, "socket"))


def _permstr(mode: int) -> str:
    bits = "rwxrwxrwx"
    return ("d" if st.S_ISDIR(mode) else "-") + "".join(
        bits[i] if mode & (0o400 >> i) else "-" for i in range(9))


def _linktarget(path: str, recurse: bool) -> str:
    current = path
    try:
        sb = os.lstat(current)
    except OSError:
        return path
    cycles = 0
    while st.S_ISLNK(sb.st_mode):
        if cycles > 30:
            break
        try:
            target = os.readlink(current)
        except OSError:
            return ""
        if not target.startswith("/") and recurse:
            target = os.path.normpath(os.path.join(chop_last_node(current), target))
        current = target
        if not recurse:
            break
        try:
            sb = os.lstat(current)
        except OSError:
            break
        cycles += 1
    return current


def _xattrs(path: str) -> str:
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError:
        return ""
    out: list[str] = []
    for name in names:
        try:
            value = os.getxattr(path, name, follow_symlinks=False)
        except OSError:
            continue
        text = value.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
        if name.isprintable() and text.isprintable():
            out.append(f"{name}={text}\n")
    return "".join(out)


@builtin("filestat")
def filestat(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    path, field = argv("filestat", args, 2)
    sb = _stat("filestat", path, follow=False)
    mode = sb.st_mode
    simple = {
        "size": sb.st_size, "gid": sb.st_gid, "uid": sb.st_uid, "ino": sb.st_ino,
        "nlink": sb.st_nlink, "ctime": int(sb.st_ctime), "mtime": int(sb.st_mtime),
        "atime": int(sb.st_atime), "mode": mode, "devno": sb.st_dev,
        "dev_minor": os.minor(sb.st_dev), "dev_major": os.major(sb.st_dev),
    }
    if field in simple:
        return str(simple[field])
    if field == "modeoct":
        return "%o" % mode
    if field == "permoct":
        return "%o" % (mode & 0o777)
    if field == "permstr":
        return _permstr(mode)
    if field == "type":
        kind = st.S_IFMT(mode)
        return next((name for bits, name in _TYPES if bits == kind), "unknown")
    if field == "basename":
        return path.rstrip("/").rsplit("/", 1)[-1] if path.rstrip("/") else path
    if field == "dirname":
        return chop_last_node(path)
    if field == "linktarget":
        return _linktarget(path, True)
    if field == "linktarget_shallow":
        return _linktarget(path, False)
    if field == "xattr":
        return _xattrs(path)
    raise FunctionError(f"Function 'filestat': unknown field '{field}'")


# ---------------------------------------------------------------------------
# Globbing and listing


def glob_file_list(pattern: str) -> list[str]:
    """libntech's GlobFileList in cf-agent 3.21: every ``**`` becomes the same
    1 to 6 levels of ``*`` (``a/**/f`` does not match ``a/f``); sorted."""
    import glob as globmod
    found: set[str] = set()
    replacements = ["*", "*/*", "*/*/*", "*/*/*/*", "*/*/*/*/*", "*/*/*/*/*/*"] \
        if "**" in pattern else [None]
    for rep in replacements:
        expanded = pattern if rep is None else pattern.replace("**", rep)
        while "//" in expanded:
            expanded = expanded.replace("//", "/")
        found.update(globmod.glob(expanded))
    return sorted(found, key=to_bytes)


@builtin("findfiles")
def findfiles(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    out: list[str] = []
    for pattern in flat_args("findfiles", args):
        if not pattern.startswith("/"):
            from cfpromise.eval.functions import messages
            messages.say(ctx, "findfiles.relative", pattern=pattern)
            continue
        for path in glob_file_list(pattern):
            if path not in out:
                out.append(path)
    return out


def _findfiles_up(fn: str, args: Sequence[Value]) -> list[str]:
    from cfpromise.eval.functions import messages
    values = argv(fn, args, 2, 3)
    path, pattern = values[0], values[1]
    level = int_arg(values[2]) if len(values) > 2 else 999999999
    if not path.startswith("/"):
        raise messages.fail("findfiles_up.relative", fn=fn, path=path)
    if not os.path.isdir(path):
        raise messages.fail("findfiles_up.not_dir", fn=fn, path=path)
    if pattern.startswith("/"):
        raise messages.fail("findfiles_up.absolute_glob", fn=fn, glob=pattern)
    while "//" in path:
        path = path.replace("//", "/")
    while "//" in pattern:
        pattern = pattern.replace("//", "/")
    if path.endswith("/"):
        path = path[:-1]
    out: list[str] = []
    while level >= 0:
        level -= 1
        out.extend(glob_file_list(path + "/" + pattern))
        sep = path.rfind("/")
        if sep < 0:
            break
        path = path[:sep]
    return out


@builtin("findfiles_up")
def findfiles_up(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _findfiles_up("findfiles_up", args)


@builtin("search_up")
def search_up(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _findfiles_up("search_up", args)


@builtin("lsdir")
def lsdir(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """Entries of a directory (with ``.`` and ``..``) whose name matches."""
    from cfpromise.eval.functions import pcre
    directory, regex, include_path = argv("lsdir", args, 3)
    try:
        names = [".", ".."] + os.listdir(directory)
    except OSError as exc:
        from cfpromise.eval.functions import messages
        messages.say(ctx, "dir.lsdir", path=directory, err=exc.strerror)
        return []
    try:
        rx = pcre.compile_regex(regex) if regex else None
    except pcre.RegexError as exc:          # no entry matches a pattern that does not compile
        from cfpromise.eval.functions import messages
        messages.say(ctx, "regex.compile", message=str(exc))
        return []
    with_path = boolean(include_path)
    out = [f"{directory}/{n}" if with_path else n for n in names
           if rx is None or pcre.full_match(rx, n)]
    return out[::-1]


@builtin("makerule")
def makerule(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """True if ``target`` is missing or older than a source (a file name, or a
    list/container of them; a source that does not exist makes it false)."""
    target, sources = argv("makerule", args, 2, raw=(1,))
    target_sb = _lstat_or_none(target)
    stale = target_sb is None
    target_time = 0 if target_sb is None else int(target_sb.st_mtime)
    if target_sb is not None and not st.S_ISREG(target_sb.st_mode):
        from cfpromise.eval.functions import messages
        messages.say(ctx, "makerule.target", target=target)
    if isinstance(sources, str) and _lstat_or_none(sources) is not None:
        return stale or int(os.lstat(sources).st_mtime) > target_time
    from cfpromise.eval.functions.common import primitive_texts
    for path in primitive_texts(collect_container(ctx, "makerule", sources)):
        sb = _lstat_or_none(path)
        if sb is None:
            ctx.log("verbose", f"Function 'makerule', source dependency {path} was not "
                               f"(yet) readable")
            return False
        if int(sb.st_mtime) > target_time:
            stale = True
    return stale


@builtin("diskfree")
def diskfree(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """Free space in KiB for unprivileged users on the file system of ``path``."""
    (path,) = argv("diskfree", args, 1)
    try:
        vfs = os.statvfs(path)
    except OSError:
        return "0"
    return str(vfs.f_bavail * vfs.f_frsize // 1024)


def cf_read_file(ctx: FunctionContext, path: str, maxsize: int) -> str | None:
    """CfReadFile: the file's text, or None once its error is said (messages.py)."""
    from cfpromise.eval.functions import messages
    try:
        os.stat(path)
    except OSError as exc:
        messages.say(ctx, "file.stat", path=path, err=exc.strerror)
        return None
    text = read_text_file(path, max(maxsize, 0))
    if text is None:
        try:
            with open(path, "rb") as handle:
                handle.read(1)
            err = "Unknown error"
        except OSError as exc:
            err = exc.strerror
        messages.say(ctx, "file.read", path=path, err=err)
    return text


def read_text_file(path: str, limit: int = 0) -> str | None:
    """A file's contents as cf-agent's CfReadFile reads them: at most ``limit``
    bytes (0: all), up to the first NUL, one trailing newline dropped when the
    file is a single line.  None if it cannot be read."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit) if limit > 0 else handle.read()
    except OSError:
        return None
    data = data.split(b"\0", 1)[0]
    first = min((i for i in (data.find(b"\n"), data.find(b"\r")) if i >= 0), default=-1)
    if first >= 0 and first == len(data) - 1:
        data = data[:-1]
    return data.decode("utf-8", "surrogateescape")

