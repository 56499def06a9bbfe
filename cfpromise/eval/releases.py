"""The release-file readers of distribution discovery, one per distribution.

Each handler ports one of CFEngine's per-distribution readers pattern for
pattern (the ``sscanf`` formats are reproduced by :func:`hostinfo.scanf`), so
that fake release files in tests give the same classes cf-agent would.  A handler
may define classes and set ``sys.flavor``; the order in which they run, and which
file runs which, is distro.py's table (this module was part of distro.py, split
off because it passed 600 lines: the readers here, the order and the dispatch
there).  Also here: /etc/os-release, which runs before the table, and the tags
and the Sink protocol every host probe shares.
"""
from __future__ import annotations


from cfpromise.eval.canon import canonify
from cfpromise.eval.hostinfo import FileSource, scanf

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Protocol

INV = "inventory,attribute_name=none,source=agent"
VIRT = "inventory,attribute_name=Virtual host,source=agent"
FLAVOR_TAGS = "inventory,attribute_name=none,source=agent,derived-from=sys.flavor"


if TYPE_CHECKING:
    class Sink(Protocol):
        """Where discovered facts go (implemented by hardclasses._Collector)."""

        def put_class(self, name: str, tags: str) -> None: ...

        def put_var(self, name: str, type_: str, value: object, tags: str) -> None: ...

        def has_class(self, name: str) -> bool: ...

        def var_value(self, name: str) -> object | None: ...

    Handler = Callable[[Sink, FileSource, str], None]


def set_flavor(sink: Sink, flavor: str) -> None:
    """CFEngine's SetFlavor: the flavor class plus ``sys.flavor``/``sys.flavour``."""
    sink.put_class(flavor, FLAVOR_TAGS)
    sink.put_var("flavour", "string", flavor, "source=agent")
    sink.put_var("flavor", "string", flavor, "inventory,source=agent,attribute_name=none")


def _versioned_classes(sink: Sink, tags: str, ident: str, version: str) -> None:
    """``id_1_2_3``, ``id_1_2``, ``id_1``, ``id`` (every '_' prefix of id_version)."""
    name = f"{ident}_{version}"
    while "_" in name:
        sink.put_class(name, tags)
        name = name.rsplit("_", 1)[0]
    sink.put_class(name, tags)


# Aliases defined next to an os-release ID.
OS_RELEASE_ALIASES: dict[str, str] = {"rhel": "redhat", "opensuse": "suse", "sles": "suse"}


def os_release(sink: Sink, files: FileSource) -> None:
    """``sys.os_release`` and the classes/flavor from /etc/os-release (or /usr/lib/...)."""
    for path in ("/etc/os-release", "/usr/lib/os-release"):
        text = files.read(path)
        if text is not None:
            break
    else:
        return
    from cfpromise.eval.hostinfo import parse_env_file

    data = parse_env_file(text)
    tags = f"{INV},derived-from-file={path}"
    sink.put_var("os_release", "data", dict(sorted(data.items())), tags)
    ident = data.get("ID")
    if ident is None:
        return
    ident = canonify(ident)
    alias = OS_RELEASE_ALIASES.get(ident)
    version = data.get("VERSION_ID")
    if version is None:
        sink.put_class(ident, tags)
        if alias:
            sink.put_class(alias, tags)
        return
    version = canonify(version)
    set_flavor(sink, f"{ident}_{version.split('_', 1)[0]}")
    _versioned_classes(sink, tags, ident, version)
    if alias:
        _versioned_classes(sink, tags, alias, version)


# ---------------------------------------------------------------------------
# Red Hat family

# /etc/redhat-release first-line prefixes -> (vendor, edition), first match wins.
REDHAT_VENDORS: tuple[tuple[str, str, str], ...] = (
    ("Red Hat Enterprise Linux ES", "redhat", "es"),
    ("Red Hat Enterprise Linux WS", "redhat", "ws"),
    ("Red Hat Enterprise Linux AS", "redhat", "as"),
    ("Red Hat Linux Advanced Server", "redhat", "as"),
    ("Red Hat Enterprise Linux Server", "redhat", "s"),
    ("Red Hat Enterprise Linux Client", "redhat", "c"),
    ("Red Hat Enterprise Linux Workstation", "redhat", "c"),
    ("Red Hat Enterprise Linux ComputeNode", "redhat", "cn"),
    ("Red Hat Linux", "redhat", ""),
    ("Red Hat Enterprise Linux", "redhat", ""),
    ("Linux Mandrake", "mandrake", ""),
    ("Mandrakelinux", "mandrake", ""),
    ("White Box Enterprise Linux", "whitebox", ""),
    ("Scientific Linux SL", "scientific", "sl"),
    ("Scientific Linux CERN", "scientific", "cern"),
    ("Scientific Linux", "scientific", "sl"),
    ("CentOS", "centos", ""),
    ("Enterprise Linux Enterprise Linux Server", "oracle", "s"),
)


def _after(text: str, marker: str) -> str | None:
    index = text.find(marker)
    return None if index < 0 else text[index + len(marker):]


def redhat(sink: Sink, files: FileSource, path: str) -> None:
    """/etc/redhat-release: vendor[_edition]_major[_minor] classes and flavor."""
    tags = f"{INV},derived-from-file={path}"
    sink.put_class("redhat", tags)
    line = files.first_line(path)
    if line is None:
        return
    match = next((v for v in REDHAT_VENDORS if line.startswith(v[0])), None)
    if match is None:
        return
    _, vendor, edition = match
    release = _after(line.lower(), "release ")
    if release is None:
        return
    nums = scanf("%d.%d", release)
    if len(nums) == 2:
        major, minor = str(nums[0]), str(nums[1])
    elif len(scanf("%d", release)) == 1:
        major, minor = str(scanf("%d", release)[0]), None
    else:
        return
    for with_edition in (True, False):
        name = vendor
        sink.put_class(name, tags)
        if with_edition and edition:
            name += "_" + edition
            sink.put_class(name, tags)
        name += "_" + major
        if with_edition:
            sink.put_class(name, tags)
        else:
            set_flavor(sink, name)
        if minor is not None:
            sink.put_class(f"{name}_{minor}", tags)


def fedora(sink: Sink, files: FileSource, path: str) -> None:
    """/etc/fedora-release: redhat, fedora and flavor fedora_<major>."""
    sink.put_class("redhat", INV)
    sink.put_class("fedora", INV)
    line = files.first_line(path)
    if line is None or not line.startswith("Fedora"):
        return
    release = _after(line, "release ")
    nums = scanf("%d", release) if release is not None else []
    if nums:
        sink.put_class("fedora", INV)
        set_flavor(sink, f"fedora_{nums[0]}")


def oracle_vm_server(sink: Sink, files: FileSource, path: str) -> None:
    """/etc/ovs-release (Oracle VM Server)."""
    sink.put_class("redhat", INV)
    sink.put_class("oraclevmserver", VIRT)
    line = files.first_line(path)
    if line is None or not line.startswith("Oracle VM server"):
        return
    release = _after(line, "release ")
    nums = scanf("%d.%d.%d", release) if release is not None else []
    if nums:
        set_flavor(sink, f"oraclevmserver_{nums[0]}")
    for count in (2, 3):
        if len(nums) >= count:
            sink.put_class("oraclevmserver_" + "_".join(map(str, nums[:count])), INV)


def oracle(sink: Sink, files: FileSource, path: str) -> None:
    """/etc/oracle-release (Oracle Linux >= 6)."""
    sink.put_class("oracle", INV)
    line = files.first_line(path)
    if line is None or not line.startswith("Oracle Linux Server"):
        return
    release = _after(line, "release ")
    nums = scanf("%d.%d", release) if release is not None else []
    if len(nums) == 2:
        set_flavor(sink, f"oracle_{nums[0]}")
        sink.put_class(f"oracle_{nums[0]}_{nums[1]}", INV)


def _mandriva_common(sink: Sink, relstring: str, vendor: str) -> None:
    release = _after(relstring, "release ")
    nums = scanf("%d.%d", release) if release is not None else []
    if len(nums) == 2:
        sink.put_class(vendor, INV)
        sink.put_class(f"{vendor}_{nums[0]}", INV)
        sink.put_class(f"{vendor}_{nums[0]}_{nums[1]}", INV)


def mandrake(sink: Sink, files: FileSource, path: str) -> None:
    """/etc/mandrake-release."""
    sink.put_class("Mandrake", INV)
    line = files.first_line(path)
    if line is not None and line.startswith(("Linux Mandrake", "Mandrake Linux", "Mandrakelinux")):
        _mandriva_common(sink, line, "mandrake")


def mandriva(sink: Sink, files: FileSource, path: str) -> None:
    """/etc/mandriva-release."""
    sink.put_class("Mandrake", INV)
    sink.put_class("Mandriva", INV)
    line = files.first_line(path)
    if line is not None and line.startswith("Mandriva Linux"):
        _mandriva_common(sink, line, "mandriva")


# ---------------------------------------------------------------------------
# SUSE, Slackware, Debian/Ubuntu, others


def suse(sink: Sink, files: FileSource, path: str) -> None:
    """/etc/SuSE-release (SLES/SLED/openSUSE before os-release)."""
    for name in ("SUSE", "suse", "SuSE"):
        sink.put_class(name, INV)
    text = files.read(path)
    if not text:
        return
    lines = text.split("\n")
    relstring = lines[0].lower()
    strversion = strpatch = ""
    major = minor = -1
    for raw in lines[1:]:
        if raw.startswith("VERSION"):
            strversion = raw
            nums = scanf("VERSION = %d", raw)
            major = nums[0] if nums else major
        if raw.startswith("PATCH"):
            strpatch = raw
            nums = scanf("PATCHLEVEL = %d", raw)
            minor = nums[0] if nums else minor
    if relstring.startswith("suse sles-8"):
        sink.put_class("SLES8", INV)
    elif relstring.startswith("sles"):
        word = scanf("%255[-_a-zA-Z0-9]", relstring)
        if word:
            sink.put_class(word[0], INV)
            for part in word[0].split("-"):
                if part:
                    sink.put_class(part, INV)
    else:
        for version in range(9, 13):
            if relstring.startswith(f"suse linux enterprise server {version} "):
                sink.put_class(f"SLES{version}", INV)
            elif relstring.startswith(f"suse linux enterprise desktop {version} "):
                sink.put_class(f"SLED{version}", INV)
    release = _after(relstring, "linux ")
    release = "linux " + release if release is not None else None
    if release is None:
        index = relstring.find("opensuse")
        release = relstring[index:] if index >= 0 else strversion
    if "." in release:
        nums = scanf("%*s %d.%d", release)
        major = nums[0] if len(nums) > 0 else major
        minor = nums[1] if len(nums) > 1 else minor
        if major != -1 and minor != -1:
            for prefix in ("SUSE", "SuSE"):
                sink.put_class(prefix, INV)
                if prefix == "SUSE":
                    set_flavor(sink, f"SUSE_{major}")
                else:
                    sink.put_class(f"SuSE_{major}", INV)
                sink.put_class(f"{prefix}_{major}_{minor}", INV)
    elif major != -1 and minor != -1:
        strmajor = (scanf("VERSION = %255s", strversion) or [""])[0]
        strminor = (scanf("PATCHLEVEL = %255s", strpatch) or [""])[0]
        sink.put_class("SLES", INV)
        sink.put_class(f"SLES_{strmajor}", INV)
        sink.put_class(f"SLES_{strmajor}_{strminor}", INV)
        set_flavor(sink, f"SUSE_{major}")
        sink.put_class(f"SuSE_{major}", "source=agent")


def slackware(sink: Sink, files: FileSource, path: str) -> None:
    """/etc/slackware-version (or the ancient /etc/slackware-release)."""
    sink.put_class("slackware", INV)
    line = files.first_line(path)
    if line is None:
        return
    nums = scanf("Slackware %d.%d.%d", line)
    for count in range(len(nums), 0, -1):
        sink.put_class("slackware_" + "_".join(str(n) for n in nums[:count]), INV)


def sanitize_issue(text: str) -> str:
    """Drop /etc/issue escapes (``\\X`` and ``@X``) and trailing blanks."""
    out: list[str] = []
    escaped = False
    for ch in text:
        if ch in "\\@" or escaped:
            escaped = not escaped
        else:
            out.append(ch)
    return "".join(out).rstrip()


def debian(sink: Sink, files: FileSource, path: str) -> None:
    """/etc/debian_version and /etc/issue (Debian and Ubuntu)."""
    version_tags = f"{INV},derived-from-file={path}"
    issue_tags = f"{INV},derived-from-file=/etc/issue"
    sink.put_class("debian", version_tags)
    line = files.first_line(path)
    if line is None:
        return
    nums = scanf("%d.%d", line)
    release = nums[1] if len(nums) == 2 else -1
    version: str | None = None
    if len(nums) == 2:
        sink.put_class(f"debian_{nums[0]}_{nums[1]}", version_tags)
        set_flavor(sink, f"debian_{nums[0]}")
    elif len(nums) == 1:
        set_flavor(sink, f"debian_{nums[0]}")
    else:
        word = scanf("%25[^/]", line)
        if word:
            version = word[0]
            sink.put_class(f"debian_{version}", version_tags)
    issue = files.first_line("/etc/issue")
    if issue is None:
        return
    osname = (scanf("%250s", issue) or [""])[0]
    if osname == "Debian":
        found = scanf("%*s %*s %255[^./]", sanitize_issue(issue))
        version = found[0] if found else version
        sink.put_class("debian", issue_tags)
        if version is not None:
            set_flavor(sink, f"debian_{version}")
    elif osname == "Ubuntu":
        found = scanf("%*s %255[^.].%255s", sanitize_issue(issue))
        version = found[0] if found else version
        if version is not None:
            set_flavor(sink, f"ubuntu_{version}")
        sink.put_class("ubuntu", issue_tags)
        if release >= 0:
            minor = found[1] if len(found) == 2 else ""
            sink.put_class(f"ubuntu_{version}_{minor}", issue_tags)


def lsb_release(sink: Sink, files: FileSource, path: str) -> None:
    """/etc/lsb-release: only Cumulus Linux is recognised."""
    osname = version = ""
    for line in (files.read(path) or "").splitlines():
        if "Cumulus" in line:
            sink.put_class("cumulus", INV)
            osname = "cumulus"
        value = _after(line, "DISTRIB_RELEASE=")
        if value is not None:
            version = canonify(value)
    if osname and version:
        set_flavor(sink, f"{osname}_{version}")


def amazon(sink: Sink, files: FileSource, path: str) -> None:
    """/etc/system-release, when it names Amazon Linux.

    3.21 reads the version from the fifth word (right for "Amazon Linux AMI
    release 2018.03", not for "Amazon Linux release 2 (Karoo)", which gives
    ``amazon_linux__Karoo_``) and always sets the flavor ``AmazonLinux``.
    """
    line = files.first_line(path)
    if line is None or "Amazon" not in line:
        return
    tags = f"{INV},derived-from-file=/etc/system-release"
    sink.put_class("amazon_linux", tags)
    word = scanf("%*s %*s %*s %*s %127s", line)
    if word:
        sink.put_class("amazon_linux_" + canonify(word[0]), tags)
    set_flavor(sink, "AmazonLinux")


def alpine(sink: Sink, files: FileSource, path: str) -> None:
    """/etc/alpine-release."""
    tags = f"{INV},derived-from-file=/etc/alpine-release"
    sink.put_class("alpine_linux", tags)
    word = scanf("%127s", files.first_line(path) or "")
    if word:
        sink.put_class("alpine_linux_" + canonify(word[0]), tags)
    set_flavor(sink, "alpinelinux")


def eos(sink: Sink, files: FileSource, path: str) -> None:
    """/etc/Eos-release (Arista EOS); the flavor is always ``Eos``."""
    line = files.first_line(path)
    if line is not None and "EOS" in line:
        sink.put_class("eos", INV)
        sink.put_class("arista", "source=agent")
        word = scanf("%*s %*s %*s %255s", line)
        sink.put_class("eos_" + canonify(word[0] if word else ""), INV)
    set_flavor(sink, "Eos")


def big_ip(sink: Sink, files: FileSource, path: str) -> None:
    """/etc/issue naming an F5 BIG-IP."""
    line = files.first_line(path)
    if line is None or "BIG-IP" not in line:
        return
    sink.put_class("big_ip", INV)
    words = scanf("%*s %255s %*s %255s", line) + ["", ""]
    version, build = canonify(words[0]), canonify(words[1])
    sink.put_class(f"big_ip_{version}", INV)
    sink.put_class(f"big_ip_{version}_{build}", INV)
    set_flavor(sink, "BIG-IP")


def vmware(sink: Sink, files: FileSource, path: str) -> None:
    """VMware ESX service console (/proc/vmware/version, /etc/vmware-release, /etc/vmware)."""
    sink.put_class("VMware", VIRT)
    line = files.first_line("/proc/vmware/version")
    if line is not None:
        nums = scanf("VMware ESX Server %d.%d.%d", line)
        if nums:
            for count in range(1, len(nums) + 1):
                sink.put_class("VMware ESX Server " + ".".join(map(str, nums[:count])), INV)
            return
        word = scanf("VMware ESX Server %255s", line)
        if word:
            sink.put_class(f"VMware ESX Server {word[0]}", INV)
            return
    line = files.first_line("/etc/vmware-release") or files.first_line("/etc/issue")
    if line:
        sink.put_class(line, INV)
        if "(" in line:
            sink.put_class(line.split("(", 1)[0].rstrip(), INV)


def xen(sink: Sink, files: FileSource, path: str) -> None:
    """/proc/xen/capabilities: dom0 or a paravirtualised domU."""
    sink.put_class("xen", VIRT)
    text = files.read(path)
    if text is None:
        return
    if "control_d" in text:
        sink.put_class("xen_dom0", VIRT)
    else:
        sink.put_class("xen_domu_pv", VIRT)


def openvz(sink: Sink, files: FileSource, path: str) -> None:
    """OpenVZ/Virtuozzo host (/proc/bc/0, /bin/vzps) or guest (/proc/vz)."""
    if files.exists("/proc/bc/0"):
        sink.put_class("virt_host_vz", VIRT)
        if files.exists("/bin/vzps"):
            sink.put_class("virt_host_vz_vzps", VIRT)
    elif files.exists("/proc/vz"):
        sink.put_class("virt_guest_vz", VIRT)


def _flavor_only(flavor: str) -> Handler:
    def handler(sink: Sink, files: FileSource, path: str) -> None:
        set_flavor(sink, flavor)

    handler.__doc__ = f"Flavor {flavor}."
    return handler


def _class_only(name: str) -> Handler:
    def handler(sink: Sink, files: FileSource, path: str) -> None:
        sink.put_class(name, INV)

    handler.__doc__ = f"Class {name}."
    return handler
