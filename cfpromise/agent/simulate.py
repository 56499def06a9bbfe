"""``--simulate=diff|manifest|manifest-full``: changes made in a chroot, shown at the end.

cf-agent 3.21's simulate mode is a dry run (``DONTDO``) for every promise type
except the ones whose changes it can make somewhere harmless:

* the ``files`` family (files, edit_line, edit_xml, templates, links, perms...)
  works on a copy of each promised file under the *changes chroot*
  ``WORKDIR/state/<pid>.changes``: before a files promise looks at ``/a/b``,
  :meth:`Simulation.prepare` copies ``/a/b`` (a whole tree for a directory, the
  target too for a symlink) to ``<chroot>/a/b``, with the parent directories'
  modes, and the promise then reads and writes ``<chroot>/a/b`` only.  Messages
  name the original paths.  The host is never written.
* ``packages`` promises with a package module record what they would install
  or remove (``Package 'x' would be installed``) instead of calling the module.
* custom promise modules get ``action_policy => "warn"``, as under ``-n``.
* functions that run commands (execresult, execresult_as_data, returnszero,
  usemodule) are not called unless the promise has ``meta => { "simulate_safe" }``.

Files promises record the paths they changed (repaired), renamed, or only
evaluated (kept); at the end of the run :mod:`cfpromise.agent.simulate_report`
prints a manifest (the new state of each changed file), a unified diff against
the host, or (manifest-full) also the files that were promised and kept, then
the chroot is deleted.
"""
from __future__ import annotations

import os
import shutil
import stat
from typing import Any, Callable

MODES = ("diff", "manifest", "manifest-full")


class Simulation:
    """The changes chroot of one simulate-mode run and what was recorded in it."""

    def __init__(self, mode: str, statedir: str, pid: int | None = None) -> None:
        if mode not in MODES:
            raise ValueError(mode)
        self.mode = mode
        self.root = os.path.join(statedir, f"{pid if pid is not None else os.getpid()}.changes")
        self.bindir = os.path.join(os.path.dirname(statedir), "bin")   # WORKDIR/bin (diff)
        os.makedirs(self.root, mode=0o700, exist_ok=True)
        self.changed: list[str] = []
        self.renamed: list[tuple[str, str]] = []
        self.kept: list[str] = []
        self.packages: list[tuple[str, str, str, str]] = []   # (op, name, version, arch)

    # -- paths ----------------------------------------------------------------------
    def to_chroot(self, path: str) -> str:
        """ToChangesChroot: ``/a/b`` -> ``<root>/a/b`` (a path already inside stays)."""
        if self.inside(path):
            return path
        if not path.startswith("/"):
            path = os.path.join(os.getcwd(), path)
        return self.root + "/" + path.lstrip("/")

    def inside(self, path: str) -> bool:
        return path == self.root or path.startswith(self.root + "/")

    def to_normal(self, path: str) -> str:
        """ToNormalRoot: ``<root>/a/b`` -> ``/a/b``; other paths unchanged."""
        if self.inside(path):
            return path[len(self.root):] or "/"
        return path

    def untranslate(self, text: str) -> str:
        """A message with every chroot path shown as the host path it stands for."""
        return text.replace(self.root + "/", "/") if self.root in text else text

    # -- PrepareChangesChroot -----------------------------------------------------------
    def prepare(self, path: str) -> None:
        """Mirror the host's ``path`` (and the modes of its parent directories) into the
        chroot, unless the chroot has it already (it may have been changed there)."""
        if not path.startswith("/"):
            path = os.path.abspath(path)
        chrooted = self.to_chroot(path)
        if os.path.lexists(chrooted):
            return
        self._mirror_parents(path)
        try:
            st = os.lstat(path)
        except OSError:
            return
        self._copy(path, chrooted, st)

    def _mirror_parents(self, path: str) -> None:
        """Create the chroot copies of ``path``'s existing ancestors with their modes."""
        parent = os.path.dirname(path.rstrip("/") or "/")
        while parent != "/" and not os.path.isdir(parent):
            parent = os.path.dirname(parent)
        built = ""
        for part in [p for p in parent.split("/") if p]:
            built += "/" + part
            target = self.to_chroot(built)
            if os.path.isdir(target):
                continue
            try:
                hst = os.stat(built)
                os.mkdir(target, 0o700)
                _copy_perms(target, hst)
            except OSError:
                return

    def _copy(self, path: str, chrooted: str, st: os.stat_result) -> None:
        try:
            if stat.S_ISLNK(st.st_mode):
                target = os.readlink(path)
                if target.startswith("/"):
                    os.symlink(self.to_chroot(target), chrooted)
                    self.prepare(target)
                else:
                    os.symlink(target, chrooted)
                    self.prepare(os.path.realpath(path))
                return
            if stat.S_ISDIR(st.st_mode):
                if not os.path.isdir(chrooted):         # ``/d/.``: made as a parent
                    os.mkdir(chrooted, 0o700)
                for name in os.listdir(path):
                    child = os.path.join(path, name)
                    self.prepare(child)
            elif stat.S_ISREG(st.st_mode):
                shutil.copyfile(path, chrooted, follow_symlinks=False)
            else:
                return                   # sockets, pipes, devices: not mirrored (as 3.21)
            _copy_perms(chrooted, st)
        except OSError:
            pass

    # -- records --------------------------------------------------------------------
    def record_changed(self, path: str) -> None:
        self.changed.append(self.to_normal(path))

    def record_renamed(self, old: str, new: str) -> None:
        self.renamed.append((self.to_normal(old), self.to_normal(new)))

    def record_kept(self, path: str) -> None:
        if self.mode == "manifest-full":
            self.kept.append(self.to_normal(path))

    def record_package(self, op: str, name: str, version: str = "", arch: str = "") -> None:
        """op: install, remove, present or absent (RecordPkgOperationInChroot)."""
        self.packages.append((op, name, version or "", arch or ""))

    # -- the end of the run -----------------------------------------------------------
    def finish(self, write: Callable[[str], None], log: Callable[[str, str], None]) -> None:
        """Print the manifest or diff, then delete the chroot."""
        from cfpromise.agent import simulate_report
        try:
            simulate_report.report(self, write, log)
        finally:
            self.delete(log)

    def delete(self, log: Callable[[str, str], None]) -> None:
        log("verbose", f"Deleting changes chroot '{self.root}'")

        def writable(func: Any, path: str, _exc: Any) -> None:
            try:
                os.chmod(os.path.dirname(path), 0o700)
                func(path)
            except OSError:
                pass
        shutil.rmtree(self.root, onerror=writable)
        if os.path.lexists(self.root):
            log("error", f"Failed to delete changes chroot '{self.root}'")


def _copy_perms(path: str, st: os.stat_result) -> None:
    """CopyFilePermissionsDisk: mode and owner."""
    try:
        os.chmod(path, stat.S_IMODE(st.st_mode), follow_symlinks=False)
    except (OSError, NotImplementedError):
        pass
    try:
        os.chown(path, st.st_uid, st.st_gid, follow_symlinks=False)
    except OSError:
        pass
