"""What a ``link_from`` promise links: one link, or one per child of the source directory.

cf-agent's ScheduleLinkOperation and ScheduleLinkChildrenOperation: the promiser
is linked to the source as ``link_type`` says (:mod:`cfpromise.promises.files.links`),
or, when its name matches ``copy_patterns``, copied from it
(:mod:`cfpromise.promises.files.copy`); with ``link_children`` each entry of the
source directory is, down to ``depth_search``'s depth.  Copying can make links
(``linkcopy_patterns``) and linking can copy, so this choice sits above both.
"""
from __future__ import annotations

import os
import stat

from cfpromise.promises.edit import matching
from cfpromise.promises.files import copy
from cfpromise.promises.files.context import FileRun
from cfpromise.promises.files.links import link_by_type

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _match_any(patterns: Any, name: str) -> bool:
    return any(p == name or matching.full(p, name) for p in patterns)


def schedule_link(fr: FileRun, destination: str, source: str) -> None:
    """ScheduleLinkOperation."""
    link = fr.a.link
    assert link is not None
    if _match_any(link.copy_patterns, os.path.basename(destination)):
        fr.log("verbose", f"Link '{destination}' matches copy_patterns")
        copy.verify_copy(fr, source, destination, {})
        return
    link_by_type(fr, destination, source, link.link_type)


def schedule_link_children(fr: FileRun, destination: str, source: str, recurse: int) -> None:
    """ScheduleLinkChildrenOperation."""
    from cfpromise.promises.files.create import make_parent_directory
    link = fr.a.link
    assert link is not None
    try:
        lsb = os.lstat(destination)
    except OSError:
        lsb = None
    if lsb is not None:
        if fr.a.move_obstructions and stat.S_ISLNK(lsb.st_mode):
            os.unlink(destination)
            lsb = None
        elif not stat.S_ISDIR(lsb.st_mode):
            fr.log("error", f"Cannot promise to link multiple files to children of "
                            f"'{destination}' as it is not a directory!")
            return
    if lsb is None:
        if fr.warn_only:
            # (MakeParentDirectory does not make it: the children cannot be linked)
            fr.should(f"Should create directory '{destination}/.'")
            fr.fail(f"Failed to create directory '{destination}' for linking files as its "
                    "children")
            return
        make_parent_directory(fr, destination + "/.", fr.a.move_obstructions)
        fr.change(f"Created directory '{destination}/.'")
    try:
        entries = os.listdir(source)
    except OSError as exc:
        fr.fail(f"Can't open source of children to link '{link.source}'. (opendir: "
                f"{exc.strerror})")
        return
    depth = fr.a.depth.depth if fr.a.depth is not None else 0
    for entry in entries:
        promiser = os.path.join(destination, entry)
        sourcepath = os.path.join(source, entry)
        try:
            psb = os.lstat(promiser)
        except OSError:
            psb = None
        saved = fr.a
        if psb is not None and not stat.S_ISLNK(psb.st_mode) and not stat.S_ISDIR(psb.st_mode):
            if link.when_linking_children != "override_file":
                fr.log("verbose", f"Have promised not to disturb existing content belonging "
                                  f"to '{promiser}'")
                continue
            fr.a = fr.a._replace(move_obstructions=True)
        try:
            if depth > recurse and os.path.isdir(sourcepath) and not os.path.islink(sourcepath):
                schedule_link_children(fr, promiser, sourcepath, recurse + 1)
            else:
                schedule_link(fr, promiser, sourcepath)
        finally:
            fr.a = saved
