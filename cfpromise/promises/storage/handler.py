"""Storage promises as cf-agent 3.21 keeps them on Linux (VerifyStoragePromise).

The promiser is a path.  With a ``mount`` body (VerifyMountPromise):

* a mount needs ``mount_source`` and ``mount_server`` (else not kept:
  ``Insufficient specification in mount promise - need source and server``),
  and root (else interrupted: ``Only root can mount filesystems``);
* the promised file system already on the path: kept (``Filesystem '...'
  seems to be mounted as promised``); with ``edit_fstab`` cf-lite also adds a
  missing table entry (3.21 leaves the table alone then);
* another file system on the path: not kept; cf-lite never stacks a mount on
  top of it (3.21 mounts over it);
* nothing there: the mount point is created and the file system mounted
  (``Mounting '...' to keep promise``, repaired).  With ``edit_fstab`` the
  entry is added to the table after a successful mount (``Adding file system
  'host:source' to '/etc/fstab'``), so a failed mount never leaves an entry
  that would break the next boot.  Without ``edit_fstab`` 3.21 first reports
  ``Filesystem '...' was not mounted as promised, and no edits were promised
  in '/etc/fstab'`` as a failure and then mounts: the promise ends not kept
  and sets both its repaired and its failed classes; cf-lite does the same.
  3.21 runs ``mount -va`` at the end of the run; cf-lite mounts each file
  system itself, with its own command line (see mounts.mount_argv);
* ``unmount => "true"``: the file system on the path is unmounted
  (``Unmounting '...' to keep promise``; busy: interrupted), and with
  ``edit_fstab`` its table entries are removed (``Deleting file system
  mounted on '...'``).

With a ``volume`` body (VerifyFileSystem, VerifyFreeSpace): a directory with
fewer than ``sensible_count`` entries (default 2) or whose entries total fewer
than ``sensible_size`` bytes (default 1000) is interrupted (``Filesystem '...'
has only N files/directories.``, ``File system '...' is suspiciously small!``),
else kept (``Filesystem '...' content seems to be sensible as promised``);
``freespace`` (``1k``, ``10M``, ``20%``...) below what the file system offers
to non-root users fails (``Disk space under N kB for volume containing '...'``,
``Free disk space is under N% ...``), unless the path is on an NFS/PanFS/CIFS
mount and ``check_foreign`` is false; ``scan_arrivals`` is a verbose note, as
in 3.21.

Under ``-n`` and ``action_policy => "warn"`` nothing is mounted, unmounted or
written: a warning says what would change and the promise is not kept (warn).
Every change is recorded for ``--report json`` (kind ``mount``, ``unmount``,
``fstab``).
"""
from __future__ import annotations

import os
import subprocess
from typing import Any

from cfpromise.agent.outcome import Outcome, merge
from cfpromise.promises.api import PromiseRun, handler
from cfpromise.promises.storage import mounts

COMMAND_TIMEOUT_S = 60          # cf-agent's RPCTIMEOUT guards its mount commands likewise
DEFAULT_SENSIBLE_SIZE = 1000
DEFAULT_SENSIBLE_COUNT = 2
_FALSE = frozenset({"false", "no", "off"})


def _bool(value: Any) -> bool:
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() not in _FALSE


def _int(value: Any, default: int) -> int:
    from cfpromise.eval.functions.common import int_from_string
    from cfpromise.eval.functions.common import CF_NOINT
    if value is None:
        return default
    number = int_from_string(str(value))
    return default if number == CF_NOINT else number


def _options(body: dict[str, Any]) -> str:
    value = body.get("mount_options")
    if isinstance(value, str):
        value = [value]
    return ",".join(value) if value else mounts.DEFAULT_OPTIONS


def _run(argv: list[str]) -> tuple[int, str]:
    """Run a mount command: (exit code, its output), or (-1, why it could not run)."""
    try:
        proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT_S)
    except FileNotFoundError:
        return -1, f"command '{argv[0]}' not found"
    except PermissionError:
        return -1, f"command '{argv[0]}' is not executable"
    except subprocess.TimeoutExpired:
        return -1, f"'{' '.join(argv)}' did not finish within {COMMAND_TIMEOUT_S} s"
    except OSError as exc:
        return -1, f"'{argv[0]}': {exc.strerror}"
    text = " ".join(line.strip() for line in (proc.stderr + proc.stdout).splitlines()
                    if line.strip())
    return proc.returncode, text


@handler("storage")
def verify_storage(run: PromiseRun) -> Outcome:
    path = run.promiser
    results: list[Outcome] = []
    if isinstance(run.attributes.get("mount"), dict):
        results.append(verify_mount(run, os.path.normpath(path), run.body("mount")))
    if isinstance(run.attributes.get("volume"), dict):
        results.append(verify_volume(run, path, run.body("volume")))
    outcome = merge(results)
    return Outcome.KEPT if outcome is Outcome.SKIPPED else outcome


# --- mounts ------------------------------------------------------------------------------

def verify_mount(run: PromiseRun, path: str, body: dict[str, Any]) -> Outcome:
    log = run.agent.log
    unmount = _bool(body.get("unmount"))
    server, source = body.get("mount_server"), body.get("mount_source")
    if unmount:
        for name, value in (("mount-source", source), ("mount-server", server)):
            if value:
                log("verbose", f"An unmount promise indicates a {name} information - "
                               "probably an error")
    elif not source or not server:
        log("error", "Insufficient specification in mount promise - need source and server "
                     f"({run.where()})")
        return Outcome.FAILED
    log("verbose", f"Verifying mounted file systems on '{path}'")
    if os.geteuid() != 0:
        log("error", f"Only root can mount filesystems ({run.where()})")
        return Outcome.INTERRUPTED
    try:
        table = mounts.mounted()
    except OSError as exc:
        log("error", f"Couldn't obtain a list of mounted filesystems ({exc.strerror}) - "
                     f"aborting {run.where()}")
        return Outcome.FAILED
    entry = mounts.mounted_on(table, path)
    if unmount:
        return _unmount(run, path, body, entry)
    return _mount(run, path, body, entry)


def _mount(run: PromiseRun, path: str, body: dict[str, Any], entry: mounts.Mount | None
           ) -> Outcome:
    log = run.agent.log
    server, source = str(body["mount_server"]), str(body["mount_source"])
    fstype = body.get("mount_type")
    options = _options(body)
    edit_fstab = _bool(body.get("edit_fstab"))
    fstab = mounts.system_path("fstab")
    if entry is not None:
        if not mounts.source_matches(entry, server, source):
            log("info", f"A different file system '{entry.host}:{entry.source}' is mounted on "
                        f"'{path}' than what is promised")
            log("error", f"Filesystem '{path}' has '{entry.device}' mounted on it, not "
                         f"'{mounts.device_spec(server, source, fstype)}': not mounting over "
                         f"it ({run.where()})")
            return Outcome.FAILED
        log("verbose", f"File system '{entry.source}' seems to be mounted correctly")
        outcome = Outcome.KEPT
        if edit_fstab:
            outcome = _ensure_in_fstab(run, path, server, source, fstype, options, fstab)
        if outcome is Outcome.KEPT:
            log("info", f"Filesystem '{path}' seems to be mounted as promised")
        return outcome
    log("verbose", f"File system '{path}' seems not to be mounted correctly")
    argv = mounts.mount_argv(server, source, path, fstype, options)
    if run.warn_only:
        log("warning", f"Filesystem '{path}' should be mounted from "
                       f"'{mounts.device_spec(server, source, fstype)}' ('{' '.join(argv)}'), "
                       f"but only warning was promised")
        if edit_fstab:
            _ensure_in_fstab(run, path, server, source, fstype, options, fstab)
        return Outcome.WARN
    results: list[Outcome] = []
    if not edit_fstab:
        log("error", f"Filesystem '{path}' was not mounted as promised, and no edits were "
                     f"promised in '{fstab}'")
        run.agent.record_result(run, Outcome.FAILED)
        results.append(Outcome.FAILED)
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        log("error", f"Cannot create mount point '{path}' ({exc.strerror}) in {run.where()}")
        return Outcome.FAILED
    code, output = _run(argv)
    if code != 0:
        cause = output or f"exit code {code}"
        if "busy" in output.lower():
            log("info", f"The device under '{path}' cannot be mounted")
            log("error", f"Mounting '{path}' failed: {cause} ({run.where()})")
            return Outcome.INTERRUPTED
        log("error", f"Mounting '{path}' failed: {cause} ({run.where()})")
        return Outcome.FAILED
    log("info", f"Mounting '{path}' to keep promise")
    run.agent.note_change(run, kind="mount", mountpoint=path,
                          device=mounts.device_spec(server, source, fstype), options=options,
                          old=None, new="mounted")
    if len(results) == 1:
        run.agent.record_result(run, Outcome.REPAIRED)
    results.append(Outcome.REPAIRED)
    if edit_fstab:
        results.append(_ensure_in_fstab(run, path, server, source, fstype, options, fstab))
    return merge(results)


def _load_fstab(run: PromiseRun, fstab: str) -> list[str] | None:
    try:
        lines = mounts.read_fstab(fstab)
    except OSError as exc:
        run.agent.log("error", f"Couldn't open '{fstab}' ({exc.strerror}) in {run.where()}")
        return None
    return [] if lines is None else lines


def _ensure_in_fstab(run: PromiseRun, path: str, server: str, source: str,
                     fstype: str | None, options: str, fstab: str) -> Outcome:
    """VerifyInFstab: add the entry when no line mounts on ``path``."""
    log = run.agent.log
    lines = _load_fstab(run, fstab)
    if lines is None:
        return Outcome.FAILED
    log("verbose", f"Verifying '{path}' in '{fstab}'")
    if mounts.in_fstab(lines, path):
        return Outcome.KEPT
    line = mounts.fstab_line(server, source, path, fstype, options)
    device = mounts.device_spec(server, source, fstype)
    if run.warn_only:
        log("warning", f"File system '{device}' should be added to '{fstab}' "
                       f"('{line}'), but only warning was promised")
        return Outcome.WARN
    try:
        mounts.write_fstab(fstab, lines + [line])
    except OSError as exc:
        log("error", f"Cannot write '{fstab}' ({exc.strerror}): '{path}' is not in the table "
                     f"({run.where()})")
        return Outcome.FAILED
    log("info", f"Adding file system '{server}:{source}' to '{fstab}'")
    run.agent.note_change(run, kind="fstab", path=fstab, added=[line], removed=[])
    return Outcome.REPAIRED


def _unmount(run: PromiseRun, path: str, body: dict[str, Any], entry: mounts.Mount | None
             ) -> Outcome:
    log = run.agent.log
    server, source = body.get("mount_server"), body.get("mount_source")
    results: list[Outcome] = []
    if entry is not None and source and not mounts.source_matches(entry, server, str(source)):
        log("verbose", f"'{entry.device}' is mounted on '{path}', not the file system "
                       "the promise names: not unmounting it")
        entry = None
    if entry is not None:
        argv = mounts.umount_argv(path)
        if run.warn_only:
            log("warning", f"Filesystem '{path}' should be unmounted ('{' '.join(argv)}'), "
                           "but only warning was promised")
            results.append(Outcome.WARN)
        else:
            code, output = _run(argv)
            if code != 0:
                cause = output or f"exit code {code}"
                busy = "busy" in output.lower()
                if busy:
                    log("info", f"The device under '{path}' cannot be unmounted")
                log("error", f"Unmounting '{path}' failed: {cause} ({run.where()})")
                return Outcome.INTERRUPTED if busy else Outcome.FAILED
            log("info", f"Unmounting '{path}' to keep promise")
            run.agent.note_change(run, kind="unmount", mountpoint=path, device=entry.device,
                                  old="mounted", new=None)
            results.append(Outcome.REPAIRED)
    if _bool(body.get("edit_fstab")):
        results.append(_remove_from_fstab(run, path))
    outcome = merge(results)
    if outcome is Outcome.SKIPPED:
        log("verbose", f"Nothing is mounted on '{path}', as promised")
        return Outcome.KEPT
    return outcome


def _remove_from_fstab(run: PromiseRun, path: str) -> Outcome:
    """VerifyNotInFstab: drop the lines whose mount point is ``path``."""
    log = run.agent.log
    fstab = mounts.system_path("fstab")
    lines = _load_fstab(run, fstab)
    if lines is None:
        return Outcome.FAILED
    kept, removed = mounts.without_mountpoint(lines, path)
    if not removed:
        return Outcome.KEPT
    if run.warn_only:
        log("warning", f"The file system mounted on '{path}' should be deleted from "
                       f"'{fstab}', but only warning was promised")
        return Outcome.WARN
    try:
        mounts.write_fstab(fstab, kept)
    except OSError as exc:
        log("error", f"Cannot write '{fstab}' ({exc.strerror}) in {run.where()}")
        return Outcome.FAILED
    log("info", f"Deleting file system mounted on '{path}'")
    run.agent.note_change(run, kind="fstab", path=fstab, added=[], removed=removed)
    return Outcome.REPAIRED


# --- volumes -----------------------------------------------------------------------------

def verify_volume(run: PromiseRun, path: str, body: dict[str, Any]) -> Outcome:
    results = [verify_file_system(run, path, body)]
    freespace = body.get("freespace")
    if freespace is not None:
        results.append(verify_free_space(run, path, str(freespace), _bool(body.get(
            "check_foreign"))))
    if _bool(body.get("scan_arrivals")):
        run.agent.log("verbose", "Scan arrival sequence . not yet implemented")
    return merge(results)


def verify_file_system(run: PromiseRun, path: str, body: dict[str, Any]) -> Outcome:
    log = run.agent.log
    log("verbose", f"Checking required filesystem {path}")
    try:
        st = os.stat(path)
    except OSError:
        return Outcome.SKIPPED
    import stat as stat_
    if stat_.S_ISDIR(st.st_mode):
        sensible_size = _int(body.get("sensible_size"), DEFAULT_SENSIBLE_SIZE)
        sensible_count = _int(body.get("sensible_count"), DEFAULT_SENSIBLE_COUNT)
        try:
            names = os.listdir(path)
        except OSError as exc:
            log("error", f"Can't open directory '{path}' which checking required/disk. "
                         f"(opendir: {exc.strerror})")
            return Outcome.SKIPPED
        size = 0
        for name in names:
            try:
                size += os.lstat(os.path.join(path, name)).st_size
            except OSError as exc:
                log("error", f"Can't stat volume '{os.path.join(path, name)}'. "
                             f"(lstat: {exc.strerror})")
        if size < sensible_size:
            log("error", f"File system '{path}' is suspiciously small! ({size} bytes)")
            return Outcome.INTERRUPTED
        if len(names) < sensible_count:
            log("error", f"Filesystem '{path}' has only {len(names)} files/directories.")
            return Outcome.INTERRUPTED
    log("info", f"Filesystem '{path}' content seems to be sensible as promised")
    run.agent.record_result(run, Outcome.KEPT)   # 3.21 sets the kept classes here, even if
    return Outcome.KEPT                          # the free space check then fails


def is_foreign(path: str) -> bool:
    """IsForeignFileSystem: ``path`` is the mount point of an NFS/PanFS/CIFS file system."""
    try:
        if os.stat(path).st_dev == os.stat(os.path.join(path, "..")).st_dev:
            return False
        entry = mounts.mounted_on(mounts.mounted(), path)
    except OSError:
        return False
    return entry is not None and entry.fstype.startswith(mounts.FOREIGN_TYPES)


def disk_usage(path: str) -> tuple[int, int]:
    """GetDiskUsage on Linux: (bytes available to non-root, free percentage)."""
    st = os.statvfs(path)
    used = (st.f_blocks - st.f_bfree) * st.f_bsize
    avail = st.f_bavail * st.f_bsize
    percent = int(avail / (avail + used) * 100) if avail + used else 0
    return avail, percent


def verify_free_space(run: PromiseRun, path: str, freespace: str, check_foreign: bool
                      ) -> Outcome:
    log = run.agent.log
    from cfpromise.eval.functions.common import CF_NOINT
    threshold = _int(freespace, CF_NOINT)
    if threshold == CF_NOINT:
        log("error", f"Invalid freespace '{freespace}' in {run.where()}")
        return Outcome.FAILED
    try:
        os.stat(path)
    except OSError as exc:
        log("error", f"Couldn't stat '{path}' while checking diskspace. (stat: {exc.strerror})")
        return Outcome.SKIPPED
    if not check_foreign and is_foreign(path):
        log("info", f"Filesystem '{path}' is mounted from a foreign system, so skipping it")
        return Outcome.KEPT
    try:
        avail, percent = disk_usage(path)
    except OSError as exc:
        log("error", f"Couldn't get filesystem info for '{path}'. (statfs: {exc.strerror})")
        return Outcome.FAILED
    if threshold < 0:
        if percent < -threshold:
            log("error", f"Free disk space is under {-threshold}% for volume containing "
                         f"'{path}', {percent}% free")
            return Outcome.FAILED
    elif avail < threshold:
        log("error", f"Disk space under {threshold // 1024} kB for volume containing '{path}' "
                     f"({avail // 1024} kB free)")
        return Outcome.FAILED
    return Outcome.KEPT
