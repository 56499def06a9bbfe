"""Linux distribution and virtualisation hard classes, as cf-agent 3.21 derives them.

cf-agent looks at release files in a fixed order and each one may define
classes and set ``sys.flavor``; a later file overrides the flavor, while a
class keeps the tags of whoever defined it first.  The order is the data
table :data:`RELEASE_PROBES`: each row is a group of alternatives of which
only the first existing path is used (``elif`` chains in CFEngine), and rows
are all tried.  Before the table comes /etc/os-release (``ID`` and
``VERSION_ID`` give ``<id>_<major>`` as flavor and every
``<id>_<v1>_<v2>...`` prefix as a class, plus aliases such as rhel ->
redhat); after it come the CPU count, ``sys.crontab`` and ``sys.doc_root``.

The handlers, one per distribution (each ports one of CFEngine's readers pattern for
pattern), and os-release are releases.py's; here are the order, the dispatch and
the names derived from the classes found.
"""
from __future__ import annotations

import os

from cfpromise.eval.hostinfo import FileSource
from cfpromise.eval.releases import (FLAVOR_TAGS, INV, VIRT, _class_only,  # noqa: F401
                                     _flavor_only, alpine, amazon, big_ip, debian, eos,
                                     fedora, lsb_release, mandrake, mandriva, openvz,
                                     oracle, oracle_vm_server, os_release, redhat,
                                     slackware, suse, vmware, xen)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cfpromise.eval.releases import Handler, Sink


# Release probes in cf-agent's order.  Each row lists alternatives: the first
# path that exists (a trailing '/' means: exists and is a directory) runs its
# handler, the rest of the row is skipped.
RELEASE_PROBES: tuple[tuple[tuple[str, Handler], ...], ...] = (
    (
        ("/etc/mandriva-release", mandriva),
        ("/etc/mandrake-release", mandrake),
        ("/etc/fedora-release", fedora),
        ("/etc/ovs-release", oracle_vm_server),
        ("/etc/redhat-release", redhat),
    ),
    (("/etc/oracle-release", oracle),),
    (("/etc/generic-release", _flavor_only("SunCobalt")),),
    (("/etc/SuSE-release", suse),),
    (("/etc/system-release", amazon),),
    (("/etc/slackware-version", slackware), ("/etc/slackware-release", slackware)),
    (("/etc/debian_version", debian),),
    (("/etc/lsb-release", lsb_release),),
    (("/usr/bin/aptitude", _class_only("have_aptitude")),),
    (("/etc/UnitedLinux-release", _flavor_only("UnitedLinux")),),
    (("/etc/alpine-release", alpine),),
    (("/etc/gentoo-release", _flavor_only("gentoo")),),
    (("/etc/arch-release", _flavor_only("archlinux")),),
    (("/proc/vmware/version", vmware), ("/etc/vmware-release", vmware), ("/etc/vmware/", vmware)),
    (("/proc/xen/capabilities", xen),),
    (("/etc/Eos-release", eos),),
    (("/etc/issue", big_ip),),
    (("/proc/self/status", openvz),),
)


def is_systemd(files: FileSource) -> bool:
    """True when PID 1's argv[0], symlinks resolved, ends in ``/systemd``."""
    text = files.read("/proc/1/cmdline")
    if not text:
        return False
    init = text.split("\0", 1)[0].split("\n", 1)[0]
    if init.startswith("/"):
        resolved = os.path.realpath(files.path(init))
        prefix = files.path("")
        if prefix and resolved.startswith(prefix + "/"):
            resolved = resolved[len(prefix):]
        init = resolved
    return init.endswith("/systemd")


def distribution_classes(sink: Sink, files: FileSource) -> None:
    """systemd, os-release and every release probe, in cf-agent's order."""
    if is_systemd(files):
        sink.put_class("systemd", INV)
    os_release(sink, files)
    for row in RELEASE_PROBES:
        for path, handler in row:
            found = files.is_dir(path[:-1]) if path.endswith("/") else files.exists(path)
            if found:
                handler(sink, files, path.rstrip("/"))
                break
    if files.read("/sys/hypervisor/type") in ("xen", "xen\n"):
        # cf-agent asks CPUID for the Xen signature; sysfs is our approximation.
        sink.put_class("xen", VIRT)
        sink.put_class("xen_domu_hv", "source=agent")


# sys.os_name_human: the first class present wins.
OS_NAME_HUMAN: tuple[tuple[str, str], ...] = (
    ("ubuntu", "Ubuntu"),
    ("debian", "Debian"),
    ("centos", "CentOS"),
    ("fedora", "Fedora"),
    ("redhat", "RHEL"),
    ("aix", "AIX"),
    ("hpux", "HP-UX"),
    ("opensuse", "OpenSUSE"),
    ("suse", "SUSE"),
    ("macos", "macOS"),
    ("windows", "Windows"),
    ("freebsd", "FreeBSD"),
    ("solaris", "Solaris"),
)

# sys.crontab directory by class (first present wins), then the default.
CRONTAB_DIRS: tuple[tuple[str, str], ...] = (
    ("SUSE", "/var/spool/cron/tabs"),
    ("redhat", "/var/spool/cron"),
    ("freebsd", "/var/cron/tabs"),
)
DEFAULT_CRONTAB_DIR = "/var/spool/cron/crontabs"

# sys.doc_root by class: every match is applied in turn, so the last one wins.
DOC_ROOTS: tuple[tuple[str, str], ...] = (
    ("redhat", "/var/www/html"),
    ("SUSE", "/srv/www/htdocs"),
    ("debian", "/var/www"),
)


def os_name_human(sink: Sink) -> None:
    """``sys.os_name_human`` from the distribution classes."""
    for cls, human in OS_NAME_HUMAN:
        if sink.has_class(cls):
            sink.put_var("os_name_human", "string", human, f"source=agent,derived-from={cls}")
            return
    sink.put_var("os_name_human", "string", "Unknown", "source=agent")


def os_version_major(sink: Sink) -> None:
    """``sys.os_version_major``: the first integer of ``sys.flavor`` (second on Solaris)."""
    flavor = sink.var_value("flavor")
    runs: list[str] = []
    current = ""
    for ch in str(flavor or ""):
        if ch.isdigit() and ch.isascii():
            current += ch
        elif current:
            runs.append(current)
            current = ""
    if current:
        runs.append(current)
    index = 1 if str(flavor or "").startswith(("solaris", "sunos")) else 0
    if flavor is None or len(runs) <= index:
        sink.put_var("os_version_major", "string", "Unknown", "source=agent")
    else:
        sink.put_var("os_version_major", "string", runs[index], "source=agent,derived-from=flavor")
