"""What ``--simulate`` prints at the end of the run, in cf-agent 3.21's format.

Each entry starts with a line of ``=`` (``$COLUMNS``, at least 80, minus 5).

* manifest: ``'/p' is a regular file`` with stat-like lines (Size, Access mode
  and owner, Access/Modify/Change times) and the contents (a directory's
  entries, a symlink's target), or ``'/p' no longer exists``; renames first as
  ``'/new' is the new name of '/old'``.
* manifest-full: the same, then every file that was promised but not changed.
* diff: ``diff -u`` between the host's file and the chroot's (labels
  ``original /p`` and ``changed  /p``); a file new in the chroot is manifested.
* packages: what package operations would do (``Package 'x [1.0]' would be
  installed``), netted over the run.
"""
from __future__ import annotations

import grp
import os
import pwd
import shutil
import stat
import subprocess
import time
from typing import Any, Callable

Write = Callable[[str], None]
Log = Callable[[str, str], None]

_TYPES = ((stat.S_ISBLK, "block device"), (stat.S_ISCHR, "character device"),
          (stat.S_ISDIR, "directory"), (stat.S_ISFIFO, "FIFO/pipe"),
          (stat.S_ISLNK, "symbolic link"), (stat.S_ISREG, "regular file"),
          (stat.S_ISSOCK, "socket"))
_CHUNK = 4096


def report(sim: Any, write: Write, log: Log) -> None:
    audited: set[str] = set()
    if sim.renamed:
        log("info", "Manifesting renamed files (in the changes chroot)")
    for old, new in sim.renamed:
        delimiter(write)
        write(f"'{new}' is the new name of '{old}'\n")
    if sim.mode == "diff":
        _audit(sim, sim.changed, audited, "changed", "show diff for", "Showing diff for",
               lambda p: diff_file(sim, p, write, log), log)
        diff_packages(sim.packages, write, log)
        return
    _audit(sim, sim.changed, audited, "changed", "manifest", "Manifesting",
           lambda p: manifest_file(sim, p, write, log), log)
    if sim.mode == "manifest-full":
        _audit(sim, sim.kept, audited, "unmodified", "manifest", "Manifesting",
               lambda p: manifest_file(sim, p, write, log), log)
    manifest_packages(sim.packages, write, log)


def _audit(sim: Any, paths: list[str], audited: set[str], category: str, action: str,
           action_ing: str, show: Callable[[str], None], log: Log) -> None:
    if not paths:
        log("info", f"No {category} files to {action}")
        return
    log("info", f"{action_ing} {category} files (in the changes chroot)")
    for path in paths:
        if path not in audited:
            audited.add(path)
            show(path)


def delimiter(write: Write) -> None:
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    write("=" * (max(columns, 80) - 5) + "\n")


def file_type(mode: int) -> str:
    return next((name for test, name in _TYPES if test(mode)), "unknown")


def _mode_string(mode: int) -> str:
    def x(bit: int, special: int, on: str, off: str) -> str:
        if mode & special:
            return on if mode & bit else off
        return "x" if mode & bit else "-"
    return "".join((
        "r" if mode & stat.S_IRUSR else "-", "w" if mode & stat.S_IWUSR else "-",
        x(stat.S_IXUSR, stat.S_ISUID, "s", "S"),
        "r" if mode & stat.S_IRGRP else "-", "w" if mode & stat.S_IWGRP else "-",
        x(stat.S_IXGRP, stat.S_ISGID, "s", "S"),
        "r" if mode & stat.S_IROTH else "-", "w" if mode & stat.S_IWOTH else "-",
        x(stat.S_IXOTH, stat.S_ISVTX, "t", "T")))


def _time(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S %z", time.localtime(seconds))


def stat_info(st: os.stat_result, write: Write) -> None:
    write(f"Size: {st.st_size}\n")
    mode = stat.S_IMODE(st.st_mode)
    line = f"Access: ({mode:04o}/{_mode_string(mode)})  "
    try:
        line += f"Uid: ({st.st_uid}/{pwd.getpwuid(st.st_uid).pw_name})   "
    except KeyError:
        pass
    try:
        line += f"Gid: ({st.st_gid}/{grp.getgrgid(st.st_gid).gr_name})"
    except KeyError:
        pass
    write(line + "\n")
    write(f"Access: {_time(st.st_atime)}\n")
    write(f"Modify: {_time(st.st_mtime)}\n")
    write(f"Change: {_time(st.st_ctime)}\n")


def _contents(path: str, write: Write, log: Log) -> None:
    try:
        f = open(path, "rb")
    except OSError as exc:
        log("error", f"Failed to open file for reading: {exc.strerror}")
        return
    write("Contents of the file:\n")
    last = b"\n"
    with f:
        while True:
            chunk = f.read(_CHUNK)
            if not chunk:
                break
            if not chunk.isascii():
                write("File contains non-ASCII data\n")
                return
            last = chunk[-1:]
            write(chunk.decode("ascii"))
    if last != b"\n":
        write("\n\\no newline at the end of file\n")


def _listing(path: str, write: Write, log: Log) -> None:
    try:
        names = os.listdir(path)
    except OSError as exc:
        log("error", f"Failed to open the directory: {exc.strerror}")
        return
    write("Directory contents:\n")
    for name in names:
        write(name + "\n")


def _details(sim: Any, real: str, st: os.stat_result, write: Write, log: Log) -> None:
    if stat.S_ISREG(st.st_mode):
        write("\n")
        _contents(real, write, log)
    elif stat.S_ISLNK(st.st_mode):
        write("\n")
        try:
            write(f"Target: '{sim.to_normal(os.readlink(real))}'\n")
        except OSError:
            write("Invalid target\n")
    elif stat.S_ISDIR(st.st_mode):
        write("\n")
        _listing(real, write, log)


def manifest_file(sim: Any, path: str, write: Write, log: Log) -> None:
    delimiter(write)
    real = sim.to_chroot(path)
    try:
        st = os.lstat(real)
    except OSError:
        write(f"'{path}' no longer exists\n")
        return
    write(f"'{path}' is a {file_type(st.st_mode)}\n")
    stat_info(st, write)
    _details(sim, real, st, write, log)


def diff_file(sim: Any, path: str, write: Write, log: Log) -> None:
    try:
        original = os.lstat(path)
    except OSError:
        manifest_file(sim, path, write, log)    # new in the chroot
        return
    delimiter(write)
    real = sim.to_chroot(path)
    try:
        changed = os.lstat(real)
    except OSError:
        write(f"'{path}' no longer exists\n")
        return
    if stat.S_IFMT(original.st_mode) != stat.S_IFMT(changed.st_mode):
        write(f"'{path}' changed type from {file_type(original.st_mode)} to "
              f"{file_type(changed.st_mode)}\n")
        stat_info(changed, write)
        _details(sim, real, changed, write, log)
    elif stat.S_ISREG(changed.st_mode) or stat.S_ISDIR(changed.st_mode):
        run_diff(path, real, write, log, sim.bindir)
    else:
        write(f"'{path}' is a {file_type(changed.st_mode)}\n")
        stat_info(changed, write)
        _details(sim, real, changed, write, log)


def run_diff(original: str, changed: str, write: Write, log: Log, bindir: str = "") -> None:
    """``diff -u`` with the labels cf-agent gives (the original path on both)."""
    program = os.path.join(bindir, "diff")           # 3.21: GetBinDir()/diff ...
    if not os.access(program, os.X_OK):
        program = shutil.which("diff") or "/usr/bin/diff"   # ... ours: the system's
    try:
        proc = subprocess.run([program, "-u", "--label", f"original {original}", "--label",
                               f"changed  {original}", original, changed],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    except OSError:
        log("error", f"'diff -u {original} {changed}' failed")
        return
    write(proc.stdout.decode("utf-8", "replace"))
    if proc.returncode == 2:
        log("error", f"'diff -u {original} {changed}' failed")


# -- package operations (DiffPkgOperations / ManifestPkgOperations) ------------------------

def _message(op: str, name: str, arch: str, version: str) -> str:
    what = {"install": "installed", "remove": "removed", "present": "present",
            "absent": "absent"}[op]
    if arch and version:
        return f"Package '{name}-{arch} [{version}]' would be {what}\n"
    if arch:
        return f"Package '{name}-{arch}' would be {what}\n"
    if version:
        return f"Package '{name} [{version}]' would be {what}\n"
    return f"Package '{name}' would be {what}\n"


def _greater(v1: str, v2: str) -> bool:
    """PkgVersionIsGreater: "latest" beats any version, else string order (as 3.21)."""
    return v1 == "latest" or v1 > v2


def diff_packages(records: list[tuple[str, str, str, str]], write: Write, log: Log) -> None:
    """What would be installed and removed, the operations of the run netted out."""
    if not records:
        log("info", "No package operations done by the agent run")
        return
    installed: dict[tuple[str, str], tuple[str, str]] = {}    # key -> (message, version)
    removed: dict[tuple[str, str], tuple[str, str]] = {}
    for op, name, version, arch in records:
        key = (name, arch)
        if op == "present":
            removed.pop(key, None)
        elif op == "absent":
            if not version or (key in installed and installed[key][1] == version):
                installed.pop(key, None)
        elif op == "install":
            prev = installed.get(key)
            if prev is None or (version and prev[1] and _greater(version, prev[1])):
                installed[key] = (_message("install", name, arch, version), version)
            removed.pop(key, None)
        else:
            prev = removed.get(key)
            insert = prev is None or not prev[1]
            if not version:
                installed.pop(key, None)
            elif key in installed and installed[key][1] == version:
                installed.pop(key, None)
            elif key in installed:
                insert = False
            if insert:
                removed[key] = (_message("remove", name, arch, version), version)
    if not installed and not removed:
        log("info", "No differences in installed packages to report")
        return
    log("info", "Showing differences in installed packages")
    for message, _ in list(installed.values()) + list(removed.values()):
        write(message + "\n")


def manifest_packages(records: list[tuple[str, str, str, str]], write: Write, log: Log) -> None:
    """The packages that would be present and absent after the run."""
    if not records:
        log("info", "No package operations done by the agent run")
        return
    present: dict[tuple[str, str], tuple[str, str]] = {}
    absent: dict[tuple[str, str], tuple[str, str]] = {}
    for op, name, version, arch in records:
        key = (name, arch)
        if op in ("install", "present"):
            prev = present.get(key)
            if prev is None or (not prev[1] and version) or \
                    (version and prev[1] and _greater(version, prev[1])):
                present[key] = (_message("present", name, arch, version), version)
            absent.pop(key, None)
        else:
            prev_present = present.get(key)
            if prev_present is None or not prev_present[1] or not version \
                    or prev_present[1] == version:
                present.pop(key, None)
                prev = absent.get(key)
                if prev is None or (prev[1] and not version):
                    absent[key] = (_message("absent", name, arch, version), version)
    log("info", "Manifesting present and absent packages")
    for message, _ in list(present.values()) + list(absent.values()):
        write(message + "\n")
