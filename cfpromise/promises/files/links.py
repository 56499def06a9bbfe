"""``link_from``: symlinks (plain, relative, absolute) and hard links (files_links.c).

* ``symlink`` links to the source as written (a bare name becomes ``./name``);
* ``relative`` computes a ``./../..`` path from the link to the source;
* ``absolute`` resolves the source's own symlinks first (``when_no_source =>
  "force"``);
* ``hardlink`` needs a regular source file.

A missing source fails the promise, unless ``when_no_source`` is ``force``
(link anyway) or ``delete`` (remove the link).  A wrong link is replaced only
with ``move_obstructions``; a file in the way is moved aside
(``<name>.cfsaved``) only with ``move_obstructions`` too.
``link_children`` links every entry of a source directory into the promiser
directory; ``copy_patterns`` copies matching names instead of linking them
(both in :mod:`cfpromise.promises.files.linkfrom`, above copying and linking).
"""
from __future__ import annotations

import os
import stat

from cfpromise.promises.files import atomic
from cfpromise.promises.files.context import FileRun

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CF_MAXLINKLEVEL = 4


def compress_path(path: str) -> str:
    """CompressPath: remove ``.`` and resolve ``..`` textually."""
    absolute = path.startswith("/")
    out: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if out:
                out.pop()
            continue
        out.append(part)
    text = "/".join(out)
    return ("/" + text) if absolute else text


def abs_link_path(source_of_link: str, relto: str) -> str:
    """AbsLinkPath: the absolute target of relative link text ``relto`` placed at
    ``source_of_link``."""
    pop = 1
    i = 0
    while i < len(relto):
        if relto.startswith("../", i):
            pop += 1
            i += 3
            continue
        if relto.startswith("./", i):
            i += 2
            continue
        break
    dest = source_of_link
    for _ in range(pop):
        dest = dest.rsplit("/", 1)[0] if "/" in dest else ""
    if not dest:
        dest = "/"
    elif not dest.endswith("/"):
        dest += "/"
    return dest + relto[i:]


def expand_links(path: str, level: int = 0) -> str | None:
    """ExpandLinks: ``path`` with its symlinks resolved (up to 4 levels)."""
    if level >= CF_MAXLINKLEVEL:
        return None
    try:
        return os.path.realpath(path, strict=True)
    except (OSError, TypeError):
        try:
            return os.path.realpath(path)
        except OSError:
            return None


def move_obstruction(fr: FileRun, path: str) -> bool:
    """MoveObstruction: move whatever is at ``path`` out of the way (if allowed)."""
    try:
        st = os.lstat(path)
    except OSError:
        return True
    if not fr.a.move_obstructions:
        fr.fail(f"Object '{path}' is obstructing promise")
        return False
    if fr.warn_only:
        fr.should(f"Should move obstructing object '{path}'")
        return False
    if not stat.S_ISDIR(st.st_mode):
        saved = path
        if (fr.a.copy is not None and fr.a.copy.backup == "timestamp") or \
                fr.a.edits.backup == "timestamp":
            saved += atomic.timestamp_suffix()
        saved += ".cfsaved"
        try:
            os.rename(path, saved)
        except OSError as exc:
            fr.fail(f"Can't rename '{path}' to '{saved}'. (rename: {exc.strerror})")
            return False
        fr.change(f"Moved file object '{path}' to '{saved}'", level="verbose")
        if atomic.archive_to_repository(saved, fr.a.repository, fr.log):
            try:
                os.unlink(saved)
            except OSError:
                pass
        return True
    saved = path + atomic.timestamp_suffix() + ".cfsaved.dir"
    if os.path.exists(saved):
        fr.fail(f"Couldn't save directory '{path}', since '{saved}' exists already")
        fr.log("error", f"Unable to force link to existing directory '{path}'")
        return False
    try:
        os.rename(path, saved)
    except OSError as exc:
        fr.fail(f"Can't rename '{path}' to '{saved}'. (rename: {exc.strerror})")
        return False
    fr.change(f"Moved directory '{path}' to '{saved}'", level="verbose")
    return True


def kill_ghost_link(fr: FileRun, name: str, rmdeadlinks: bool = False) -> bool:
    """KillGhostLink: remove a symlink to nothing (when_no_source delete / rmdeadlinks).
    True when ``name`` is to be ignored from now on."""
    try:
        target = os.readlink(name)
    except OSError:
        fr.log("verbose", f"Can't read link '{name}' while checking for deadlinks")
        return True
    full = target if os.path.isabs(target) else os.path.join(os.path.dirname(name), target)
    if os.path.exists(compress_path(full)):
        return False
    delete = (fr.a.link is not None and fr.a.link.when_no_source == "delete") or rmdeadlinks
    if not delete:
        return False
    fr.log("verbose", f"'{name}' is a link which points to '{target}', but the target doesn't "
                      "seem to exist")
    if fr.warn_only:
        fr.should(f"Should remove dead link '{name}'")
        return True
    try:
        os.unlink(name)     # (cf-agent reports it removed whatever unlink says)
    except OSError:
        pass
    fr.change(f"Removed dead link '{name}'")
    return True


# symbolic / hard: (system call, cf-agent's "Should ..." verb, its failure verb and call
# name, its success message head)
_LINKERS = {
    False: (os.symlink, "link files", "link", "symlink", "Linked files"),
    True: (os.link, "hard link files", "hard link", "link", "Hard linked file"),
}


def _make_link(fr: FileRun, link: str, to: str, hard: bool = False) -> bool:
    """Create the (symbolic or hard) link ``link`` -> ``to``, with cf-agent's messages."""
    call, should, verb, name, done = _LINKERS[hard]
    if fr.warn_only:
        fr.should(f"Should {should} '{link}' -> '{to}'")
        return False
    try:
        call(to, link)
    except OSError as exc:
        fr.fail(f"Couldn't {verb} '{to}' to '{link}'. ({name}: {exc.strerror})")
        return False
    fr.change(f"{done} '{link}' -> '{to}'")
    return True


def verify_link(fr: FileRun, destination: str, source: str,
                when_no_source: str | None = None) -> None:
    """VerifyLink (symlink); ``when_no_source`` overrides the link_from body's (copies
    always force links)."""
    from cfpromise.promises.files.create import make_parent_directory
    link = fr.a.link
    if when_no_source is None:
        when_no_source = link.when_no_source if link is not None else "nop"
    to = source if (os.path.isabs(source) or source.startswith(".")) else "./" + source
    absto = to if os.path.isabs(to) else abs_link_path(destination, to)
    exists = os.path.exists(absto)
    if not exists and when_no_source not in ("force", "delete"):
        fr.log("verbose", f"Source '{absto}' for linking is absent")
        fr.fail(f"Unable to create link '{destination}' -> '{to}', no source")
        return
    if not exists and when_no_source == "delete":
        if os.path.islink(destination):
            kill_ghost_link(fr, destination)
        return
    try:
        current = os.readlink(destination)
    except OSError:
        current = None
    if current is None:
        if fr.warn_only:
            fr.should(f"Should create link '{destination}'")
            return
        missing = not os.path.isdir(os.path.dirname(destination))
        if not make_parent_directory(fr, destination, fr.a.move_obstructions):
            return                              # (it said why, and failed the promise)
        if missing and os.path.isdir(os.path.dirname(destination)):
            fr.change(f"Created parent directory for link '{destination}'")
        if not move_obstruction(fr, destination):
            fr.fail(f"Unable to create link '{destination}' -> '{to}', failed to move "
                    "obstruction")
            return
        if not _make_link(fr, destination, source):
            fr.fail(f"Unable to create link '{destination}' -> '{to}'")
        return
    if current == source:
        fr.kept(f"Link '{destination}' points to '{source}', promise kept")
        return
    if not fr.a.move_obstructions:
        fr.fail(f"Link '{destination}' points to '{current}' not '{to}', but not moving "
                "obstructions")
        return
    if fr.warn_only:
        fr.should(f"Should override incorrect link '{destination}'")
        return
    try:
        os.unlink(destination)
    except OSError:
        fr.fail(f"Link '{destination}' points to '{current}' not '{to}', error removing link")
        return
    fr.change(f"Overrode incorrect link '{destination}'")
    _make_link(fr, destination, source)


def verify_absolute_link(fr: FileRun, destination: str, source: str,
                         when_no_source: str | None = None) -> None:
    if source.startswith("."):
        linkto = os.path.dirname(destination) + "/" + source
    else:
        linkto = source
    absto = compress_path(linkto)
    when = when_no_source or (fr.a.link.when_no_source if fr.a.link is not None else "nop")
    if when == "force":
        expanded = expand_links(absto)
        if expanded is None:
            fr.log("error", "Failed to make absolute link in")
            fr.promise_ref()
            fr.fail(f"Unable to create link '{destination}' -> '{absto}'")
            return
        absto = expanded
    verify_link(fr, destination, compress_path(absto), when)


def relative_path(destination: str, source: str) -> str:
    """VerifyRelativeLink's ``./../x`` text from ``destination`` to ``source``."""
    linkto = compress_path(source)
    i = 0
    while i < len(linkto) and i < len(destination) and linkto[i] == destination[i]:
        i += 1
    # back up to the last common directory separator
    while i > 0 and not (linkto[i - 1:i] == "/" and destination[i - 1:i] == "/"):
        i -= 1
    commonto = linkto[i:]
    commonfrom = destination[i - 1:] if i > 0 else destination
    levels = commonfrom.count("/")
    buff = "./" + "../" * max(0, levels - 1)
    return buff + commonto


def verify_relative_link(fr: FileRun, destination: str, source: str,
                         when_no_source: str | None = None) -> None:
    if source.startswith("."):
        verify_link(fr, destination, source, when_no_source)
        return
    linkto = compress_path(source)
    if linkto == destination:
        fr.interrupted(f"Failed to link '{destination}' to '{source}', can't link file "
                       f"'{linkto}' to itself")
        return
    verify_link(fr, destination, relative_path(destination, linkto), when_no_source)


def verify_hard_link(fr: FileRun, destination: str, source: str) -> None:
    to = source if (os.path.isabs(source) or source.startswith(".")) else "./" + source
    absto = to if os.path.isabs(to) else abs_link_path(destination, to)
    try:
        ssb = os.stat(absto)
    except OSError:
        fr.interrupted(f"Source file '{source}' doesn't exist", level="info")
        return
    if not stat.S_ISREG(ssb.st_mode):
        fr.fail(f"Source file '{to}' is not a regular file, not appropriate to hard-link")
        return
    try:
        dsb = os.stat(destination)
    except OSError:
        _make_link(fr, destination, to, hard=True)
        return
    if dsb.st_ino == ssb.st_ino and dsb.st_dev == ssb.st_dev:
        fr.kept(f"Hard link '{destination}' -> '{to}' exists and is okay")
        return
    fr.log("info", f"'{destination}' does not appear to be a hard link to '{to}'")
    if not move_obstruction(fr, destination):
        fr.fail(f"Unable to create hard link '{destination}' -> '{to}', unable to move "
                "obstruction")
        return
    if not _make_link(fr, destination, to, hard=True):
        fr.fail(f"Unable to create hard link '{destination}' -> '{to}'")


def link_by_type(fr: FileRun, destination: str, source: str, link_type: str) -> None:
    if link_type == "hardlink":
        verify_hard_link(fr, destination, source)
    elif link_type == "relative":
        verify_relative_link(fr, destination, source)
    elif link_type == "absolute":
        verify_absolute_link(fr, destination, source)
    else:
        verify_link(fr, destination, source)
