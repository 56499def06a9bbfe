"""``depth_search``: walking a directory tree (DepthSearch in verify_files_utils.c).

The promiser directory's entries are visited in directory order; each
subdirectory is entered while the level allows (``depth``; ``inf``), unless
``exclude_dirs`` matches it or ``include_dirs`` does not (by name or path);
symlinks to directories are followed only with ``traverse_links`` (and only
when owned by root or the agent's user), ``xdev`` stays on the base
directory's device, ``rmdeadlinks`` removes dangling symlinks met on the way.
Every entry that ``file_select`` accepts (all, without one) is a leaf the
promise's operations apply to; the base directory itself only with
``include_basedir``.
"""
from __future__ import annotations

import os
import stat

from cfpromise.promises.edit import matching
from cfpromise.promises.files.context import FileRun

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    Leaf = Callable[[str, os.stat_result], None]

CF_RECURSION_LIMIT = 100


def _match_any(patterns: tuple[str, ...], text: str) -> bool:
    return any(p == text or matching.full(p, text) for p in patterns)


def skip_dir(fr: FileRun, path: str, lastnode: str) -> bool:
    """SkipDirLinks: exclude_dirs / include_dirs."""
    depth = fr.a.depth
    if depth is None:
        return False
    if depth.exclude_dirs and (_match_any(depth.exclude_dirs, path)
                               or _match_any(depth.exclude_dirs, lastnode)):
        fr.log("verbose", f"Skipping matched excluded directory '{path}'")
        return True
    if depth.include_dirs and not (_match_any(depth.include_dirs, path)
                                   or _match_any(depth.include_dirs, lastnode)):
        fr.log("verbose", f"Skipping matched non-included directory '{path}'")
        return True
    return False


def depth_search(fr: FileRun, name: str, rlevel: int, rootdev: int, leaf: Leaf,
                 select: Callable[[str, os.stat_result], bool],
                 seen: Callable[[str], None] | None = None,
                 enter: Callable[[str], None] | None = None,
                 leave: Callable[[str], None] | None = None) -> bool:
    """Visit the entries below ``name`` (DepthSearch with a depth_search body); ``enter``
    and ``leave`` are told each directory listed, ``seen`` each selected leaf (for
    ``changes``)."""
    from cfpromise.promises.files.links import kill_ghost_link
    depth = fr.a.depth
    assert depth is not None
    if rlevel > CF_RECURSION_LIMIT:
        fr.log("warning", f"Very deep nesting of directories (>{rlevel} deep) for '{name}' "
                          "(Aborting files)")
        return False
    try:
        entries = os.listdir(name)
    except OSError as exc:
        fr.log("info", f"Could not open existing directory '{name}'. (opendir: {exc.strerror})")
        return False
    if enter is not None:
        enter(name)
    for entry in entries:
        path = name.rstrip("/") + "/" + entry if name != "/" else "/" + entry
        try:
            lsb = os.lstat(path)
        except OSError as exc:
            fr.log("verbose", f"Recurse was looking at '{path}' when an error occurred. "
                              f"(lstat: {exc.strerror})")
            continue
        if stat.S_ISLNK(lsb.st_mode):
            if kill_ghost_link(fr, path, depth.rmdeadlinks):
                continue
        if depth.travlinks and stat.S_ISLNK(lsb.st_mode):
            if lsb.st_uid != 0 and lsb.st_uid != os.getuid():
                fr.log("info", f"File '{path}' is an untrusted link: cfengine will not follow it "
                               "with a destructive operation")
                continue
            try:
                lsb = os.stat(path)
            except OSError as exc:
                fr.log("error", f"Recurse was working on '{path}' when this failed. "
                                f"(stat: {exc.strerror})")
                continue
        if depth.xdev and lsb.st_dev != rootdev:
            fr.log("verbose", f"Skipping '{path}' on different device - use xdev option to "
                              "change this")
            continue
        if stat.S_ISDIR(lsb.st_mode):
            if skip_dir(fr, path, entry):
                continue
            if depth.depth > 1 and rlevel <= depth.depth:
                fr.log("verbose", f"Entering '{path}', level {rlevel}")
                depth_search(fr, path, rlevel + 1, rootdev, leaf, select, seen, enter, leave)
        if select(path, lsb):
            if seen is not None:
                seen(path)
            leaf(path, lsb)
        else:
            fr.log("debug", f"Skipping non-selected file '{path}'")
    if leave is not None:
        leave(name)
    return True
