"""What is mounted, and the file system table: the host side of storage promises.

The mount table comes from ``/proc/self/mountinfo`` (cf-agent 3.21 parses the
output of ``mount``; mountinfo carries the same facts unambiguously, spaces in
paths included).  Each entry is split the way cf-agent's LoadMountInfo splits
the device: ``server:/export`` (NFS) is host ``server``, source ``/export``;
``//server/share`` (CIFS) is host ``server``, source ``/share``; anything else
is a local file system on host ``localhost`` whose source is the device, or,
for a bind mount, the directory it shows (resolved through the mount that holds
that directory's file system at its root).  3.21 leaves the source of a local
file system empty, so it can never see a local mount as correct; cf-lite can.

The file system table is edited as a whole file: the new content is computed
from the old (lines are added in cf-agent's Linux format, ``host:source \\t
mountpoint \\t type \\t options``, and removed by their mount-point field), then
written by :func:`cfpromise.promises.files.atomic.replace_file`, which keeps a
``.cf-before-edit`` backup and renames the new file into place: the table is
either its old or its new self, never half-written.

Paths of the system files and commands are in :data:`SYSTEM`; the environment
variables ``CF_LITE_TEST_FSTAB``, ``CF_LITE_TEST_MOUNT`` and
``CF_LITE_TEST_UMOUNT`` replace them, for tests only (a scratch fstab, a
missing mount command).
"""
from __future__ import annotations

import os
import re

from cfpromise.fast.records import record

SYSTEM = {"fstab": "/etc/fstab", "mount": "/bin/mount", "umount": "/bin/umount",
          "mountinfo": "/proc/self/mountinfo"}
_TEST_ENV = {"fstab": "CF_LITE_TEST_FSTAB", "mount": "CF_LITE_TEST_MOUNT",
             "umount": "CF_LITE_TEST_UMOUNT"}
DEFAULT_OPTIONS = "defaults"            # cf-agent's VMOUNTOPTS on Linux
LOCAL_HOSTS = frozenset({"", "localhost", "127.0.0.1", "::1"})
FOREIGN_TYPES = ("nfs", "panfs", "cifs")
_OCTAL = re.compile(r"\\([0-7]{3})")


def system_path(name: str) -> str:
    """The path of a system file or command (a test may point it elsewhere)."""
    env = _TEST_ENV.get(name)
    if env is not None and os.environ.get(env):
        return os.environ[env]
    return SYSTEM[name]


@record
class Mount:
    device: str             # as the kernel shows it ("server:/export", "/dev/sda1", "tmpfs")
    mountpoint: str
    fstype: str
    options: str
    host: str
    source: str             # the export, share path, device or bind-mounted directory
    dev_id: str             # major:minor
    root: str               # the directory of the file system mounted here


def _unescape(text: str) -> str:
    return _OCTAL.sub(lambda m: chr(int(m.group(1), 8)), text)


def split_device(device: str, fstype: str) -> tuple[str, str]:
    """(host, source) of a mounted device, as LoadMountInfo splits it."""
    if device.startswith("//"):                     # CIFS //server/share
        host, _, rest = device[2:].partition("/")
        return host, "/" + rest
    if not device.startswith("/") and ":" in device and (
            fstype.startswith(FOREIGN_TYPES) or fstype in ("nfs4",)):
        host, _, source = device.partition(":")
        return host, source
    return "localhost", device


def parse_mountinfo(text: str) -> list[Mount]:
    """The entries of a ``mountinfo`` file, in mount order (the last on a path is on top)."""
    raw: list[tuple[str, str, str, str, str, str]] = []
    for line in text.splitlines():
        fields = line.split()
        if "-" not in fields:
            continue
        sep = fields.index("-")
        if sep < 6 or len(fields) < sep + 3:
            continue
        dev_id, root, mountpoint, options = fields[2], _unescape(fields[3]), \
            _unescape(fields[4]), fields[5]
        fstype, device = fields[sep + 1], _unescape(fields[sep + 2])
        raw.append((dev_id, root, mountpoint, options, fstype, device))
    whole = {}                           # dev_id -> where that file system's root is mounted
    for dev_id, root, mountpoint, *_ in raw:
        if root == "/" and dev_id not in whole:
            whole[dev_id] = mountpoint
    mounts = []
    for dev_id, root, mountpoint, options, fstype, device in raw:
        host, source = split_device(device, fstype)
        if root != "/" and host == "localhost":
            base = whole.get(dev_id)
            if base is not None:
                source = os.path.normpath(base.rstrip("/") + root)
        mounts.append(Mount(device, mountpoint, fstype, options, host, source, dev_id, root))
    return mounts


def mounted() -> list[Mount]:
    """The live mount table (OSError when it cannot be read)."""
    with open(system_path("mountinfo"), encoding="utf-8", errors="surrogateescape") as fh:
        return parse_mountinfo(fh.read())


def mounted_on(mounts: list[Mount], path: str) -> Mount | None:
    """The file system on top at ``path`` (None: nothing is mounted there)."""
    path = os.path.normpath(path)
    found = None
    for entry in mounts:
        if entry.mountpoint == path:
            found = entry
    return found


def is_local(server: str | None) -> bool:
    return server is None or server in LOCAL_HOSTS


def source_matches(entry: Mount, server: str | None, source: str) -> bool:
    """Is ``entry`` the promised file system?  3.21 compares the source only."""
    if entry.source == source:
        return True
    return is_local(server) and entry.device == source


def device_spec(server: str | None, source: str, fstype: str | None) -> str:
    """What mount(8) and fstab call the file system: ``server:/export``, ``//server/share``
    for CIFS, the source itself for a local one."""
    if is_local(server):
        return source
    if fstype == "cifs":
        return f"//{server}{source}"
    return f"{server}:{source}"


def mount_argv(server: str | None, source: str, mountpoint: str, fstype: str | None,
               options: str) -> list[str]:
    """The mount command line (cf-agent: ``mount -o OPTS host:source mountpoint``; cf-lite
    adds ``-t TYPE`` when the promise names one, and mounts a local source as it is)."""
    argv = [system_path("mount")]
    if fstype and not is_local(server):
        argv += ["-t", fstype]
    return argv + ["-o", options, device_spec(server, source, fstype), mountpoint]


def umount_argv(mountpoint: str) -> list[str]:
    return [system_path("umount"), mountpoint]


# --- the file system table -------------------------------------------------------------

def fstab_line(server: str | None, source: str, mountpoint: str, fstype: str | None,
               options: str) -> str:
    """cf-agent's Linux fstab line: ``host:source \\t mountpoint \\t type \\t options``."""
    kind = fstype or ("auto" if is_local(server) else "nfs")
    return f"{device_spec(server, source, fstype)} \t {mountpoint} \t {kind} \t {options}"


def _mountpoint_field(line: str) -> str | None:
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return None
    fields = stripped.split()
    return os.path.normpath(_unescape(fields[1])) if len(fields) > 1 else None


def in_fstab(lines: list[str], mountpoint: str) -> bool:
    mountpoint = os.path.normpath(mountpoint)
    return any(_mountpoint_field(line) == mountpoint for line in lines)


def without_mountpoint(lines: list[str], mountpoint: str) -> tuple[list[str], list[str]]:
    """(kept lines, removed lines) for the entries whose mount point is ``mountpoint``."""
    mountpoint = os.path.normpath(mountpoint)
    kept, removed = [], []
    for line in lines:
        (removed if _mountpoint_field(line) == mountpoint else kept).append(line)
    return kept, removed


def read_fstab(path: str) -> list[str] | None:
    """The table's lines (None when it does not exist; OSError when unreadable)."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as fh:
            return fh.read().splitlines()
    except FileNotFoundError:
        return None


def write_fstab(path: str, lines: list[str]) -> None:
    """Replace the table atomically, keeping ``<path>.cf-before-edit`` (OSError on failure,
    the old table intact).  A missing table is created 0644."""
    from cfpromise.promises.files import atomic
    data = ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape") if lines else b""
    if os.path.lexists(path):
        atomic.replace_file(path, data, backup="true")
        return
    from cfpromise.atomic import write_atomically
    write_atomically(path, data, mode=0o644, temp=path + ".cf-after-edit", make_dirs=False)
