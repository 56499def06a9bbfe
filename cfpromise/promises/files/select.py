"""``file_select``: which files a promise (or a depth_search) applies to (SelectLeaf).

Each criterion that holds for a file adds a name to a set -- ``leaf_name``,
``path_name``, ``file_types``, ``owner``, ``group``, ``mode``, ``bsdflags``,
``atime``/``ctime``/``mtime``, ``size``, ``issymlinkto``, ``exec_regex``,
``exec_program`` -- and ``file_result`` is a class expression over those
names.  Absent name/owner/group criteria count as matching (with cf-agent's
quirk: an absent ``path_name`` adds ``leaf_path``, not ``path_name``).
"""
from __future__ import annotations

import grp
import os
import pwd
import stat
import subprocess

from cfpromise.promises.edit import matching
from cfpromise.promises.files.attributes import CF_INFINITY, as_list
from cfpromise.syntax import classexpr

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _range(value: Any, default: tuple[int, int]) -> tuple[int, int]:
    if value is None or value == "" or value == []:
        return default
    if isinstance(value, list):
        text = ",".join(str(v) for v in value)
    else:
        text = str(value)
    parts = [p.strip() for p in text.split(",") if p.strip() != ""]
    if len(parts) != 2:
        return default
    try:
        return int(float(parts[0])), int(float(parts[1]))
    except ValueError:
        return default


def eval_result(expr: str, names: set[str]) -> bool:
    """EvalFileResult: a class expression over the criteria that held."""
    try:
        tree = classexpr.parse(expr)
    except Exception:
        return False
    return classexpr.evaluate(tree, lambda name: name in names)


def _type_names(mode: int) -> set[str]:
    names: set[str] = set()
    if stat.S_ISREG(mode):
        names |= {"reg", "plain"}
    if stat.S_ISDIR(mode):
        names.add("dir")
    if stat.S_ISLNK(mode):
        names.add("symlink")
    if stat.S_ISFIFO(mode):
        names.add("fifo")
    if stat.S_ISSOCK(mode):
        names.add("socket")
    if stat.S_ISCHR(mode):
        names.add("char")
    if stat.S_ISBLK(mode):
        names.add("block")
    return names


def _owner_match(st: os.stat_result, crit: list[str]) -> bool:
    uid = str(st.st_uid)
    try:
        name: str | None = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        name = None
    names = {uid, name if name is not None else "none"}
    for c in crit:
        if eval_result(c, names) or (name is not None and matching.full(c, name)) \
                or matching.full(c, uid):
            return True
    return False


def _group_match(st: os.stat_result, crit: list[str]) -> bool:
    gid = str(st.st_gid)
    try:
        name: str | None = grp.getgrgid(st.st_gid).gr_name
    except KeyError:
        name = None
    names = {gid, name if name is not None else "none"}
    for c in crit:
        if eval_result(c, names) or (name is not None and matching.full(c, name)) \
                or matching.full(c, gid):
            return True
    return False


def _mode_match(st: os.stat_result, modes: list[str], log: Any) -> bool:
    from cfpromise.promises.files.perms import parse_mode
    current = stat.S_IMODE(st.st_mode)
    for text in modes:
        parsed = parse_mode(text, None)
        if parsed is None:
            log("error", f"Problem validating a mode string '{text}' in search filter")
            continue
        plus, minus = parsed
        if ((current | plus) & ~minus) & 0o7777 == current:
            return True
    return False


def _symlink_to(path: str, crit: list[str], log: Any) -> bool:
    for c in crit:
        try:
            if not stat.S_ISLNK(os.lstat(path).st_mode):
                return False
        except OSError:
            pass
        try:
            target = os.readlink(path)
        except OSError as exc:
            log("error", f"Unable to read link '{path}' in filter. (readlink: {exc.strerror})")
            return False
        if matching.full(c, target):
            return True
    return False


def _this_promiser(command: str, path: str) -> str:
    return command.replace("$(this.promiser)", path).replace("${this.promiser}", path)


def _exec_regex(path: str, regex: str, program: str | None, log: Any) -> bool:
    if not program:
        return False
    from cfpromise.promises.commands import split_command
    command = _this_promiser(program, path)
    try:
        out = subprocess.run(split_command(command), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, check=False)
    except OSError as exc:
        log("error", f"Couldn't open pipe to command '{command}'. (cf_popen: {exc.strerror})")
        return False
    text = out.stdout.decode("utf-8", "surrogateescape")
    return any(matching.full(regex, line) for line in text.split("\n") if line != "" or True)


def _exec_program(path: str, program: str) -> bool:
    from cfpromise.promises.commands import split_command
    command = _this_promiser(program, path)
    try:
        return subprocess.run(split_command(command), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                              check=False).returncode == 0
    except OSError:
        return False


def select_leaf(fr: Any, path: str, st: os.stat_result) -> bool:
    """SelectLeaf: does the file_select body accept ``path`` (``st`` from lstat)?"""
    fs: dict[str, Any] = fr.a.select or {}
    log = fr.log
    names: set[str] = set()
    leaf = as_list(fs.get("leaf_name"))
    if not leaf or any(matching.full(c, os.path.basename(path)) for c in leaf):
        names.add("leaf_name")
    paths = as_list(fs.get("path_name"))
    if not paths:
        names.add("leaf_path")
    elif any(matching.full(c, path) for c in paths):
        names.add("path_name")
    types = as_list(fs.get("file_types"))
    tnames = _type_names(st.st_mode)
    if any(eval_result(t, tnames) for t in types):
        names.add("file_types")
    owners = as_list(fs.get("search_owners"))
    if not owners or _owner_match(st, owners):
        names.add("owner")
    groups = as_list(fs.get("search_groups"))
    if not groups or _group_match(st, groups):
        names.add("group")
    if _mode_match(st, as_list(fs.get("search_mode")), log):
        names.add("mode")
    flags = getattr(st, "st_flags", None)
    if flags is not None and fs.get("search_bsdflags") is not None:
        from cfpromise.promises.files.perms import CHFLAGS_MASK, parse_bsdflags
        plus, minus = parse_bsdflags(as_list(fs.get("search_bsdflags")))
        if ((flags | plus) & ~minus) & CHFLAGS_MASK == flags & CHFLAGS_MASK:
            names.add("bsdflags")
    for key, value in (("atime", st.st_atime), ("ctime", st.st_ctime), ("mtime", st.st_mtime)):
        lo, hi = _range(fs.get(key), (0, CF_INFINITY))
        if lo < value < hi:
            names.add(key)
    lo, hi = _range(fs.get("search_size"), (0, CF_INFINITY))
    if lo <= st.st_size <= hi:
        names.add("size")
    links = as_list(fs.get("issymlinkto"))
    if links and _symlink_to(path, links, log):
        names.add("issymlinkto")
    regex = fs.get("exec_regex")
    program = fs.get("exec_program")
    if regex and _exec_regex(path, str(regex), str(program) if program else None, log):
        names.add("exec_regex")
    if program and _exec_program(path, str(program)):
        names.add("exec_program")
    result_expr = str(fs.get("file_result") or "")
    result = eval_result(result_expr, names) if result_expr else False
    log("verbose", f"file_select result '{result_expr}' on '{path}' was "
                   f"'{'true' if result else 'false'}'")
    return result
