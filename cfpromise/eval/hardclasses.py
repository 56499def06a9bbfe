"""Host discovery: the hard classes and special variables cf-agent 3.21 defines
before it reads any policy.

:func:`discover` follows cf-agent's own sequence (``DetectEnvironment``):

1. name and kernel: ``uname()``, host/domain names (``gethostbyname`` of the
   host name; the FQDN and each of its dot-suffixes become classes), the
   kernel/architecture classes (``linux``, ``linux_<release>``, ``x86_64``,
   ``linux_x86_64``, ``long_arch``...), the work directories derived from the
   workdir, version variables, the key digest and the ``sys.cf_*`` paths of
   the CFEngine components found in the bindir;
2. interfaces (netclasses.py, as step 3): the IPv4 addresses the kernel lists (SIOCGIFCONF) give
   ``ipv4_*``, ``net_iface_*`` and ``mac_*`` classes and ``sys.ipv4[...]``
   arrays; what cf-agent reads from ``/sbin/ifconfig -a`` (IPv6 addresses, the
   MACs of interfaces without IPv4) is read here from /proc and /sys, and only
   when /sbin/ifconfig exists, like cf-agent;
3. /proc/net: ``sys.inet``, ``sys.inet6``, ``sys.interfaces_data`` and the
   ``ipv4_gw_*`` class (read below ``$CFENGINE_TEST_OVERRIDE_PROCDIR`` when set,
   cf-agent's test hook);
4. cf-monitord's environment file (``mon`` variables and classes);
5. built-in classes (``any``, ``cfengine_3_21_0`` and prefixes, features);
6. OS classes: distribution release files (see distro.py), CPUs, crontab and
   document root; then the user data, ``def.jq``, ``sys.os_name_human`` and
   ``sys.os_version_major``; last the bootstrap facts (policy hub) and the
   policy entry file.

A class keeps the tags of the first probe that defines it; a variable takes
the value of the last.  Time classes come from timeclasses.py.  Everything is
collected into a frozen :class:`HostFacts`; nothing is cached across calls.
"""
from __future__ import annotations

import os
import struct
import time

from cfpromise import CFENGINE_COMPAT_VERSION
from cfpromise.eval import distro, hostinfo
from cfpromise.eval.canon import canonify
from cfpromise.eval.hostinfo import FileSource
from cfpromise.eval.netclasses import SRC, interfaces, networking
from cfpromise.eval.timeclasses import epoch_seconds, time_classes, time_vars
from cfpromise.fast.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import tzinfo
    from typing import Mapping

    from cfpromise.eval.timeclasses import Instant

VarEntry = tuple[str, object, tuple[str, ...]]
"""(CFEngine type: 'string'|'int'|'real'|'slist'|'data', value, tags)."""

INV = distro.INV
BOOTSTRAP = "source=bootstrap"

# The CFEngine programs whose paths become sys.cf_agent, sys.cf_serverd...
COMPONENTS: tuple[str, ...] = (
    "cf-twin", "cf-agent", "cf-serverd", "cf-monitord", "cf-know", "cf-report", "cf-key",
    "cf-runagent", "cf-execd", "cf-hub", "cf-reactor", "cf-promises", "cf-upgrade", "cf-net",
    "cf-check", "cf-secret",
)
# Build features announced as feature_* classes by the reference cf-agent 3.21.
FEATURES: tuple[str, ...] = (
    "copyfrom_restrict_keys", "def_json_preparse", "host_specific_data_load",
    "tls_1_0", "tls_1_1", "tls_1_2", "tls_1_3", "xml", "yaml",
)
# Platform tables (cf-agent's CLASSATTRIBUTES and friends) for Linux.
PLATFORM_FILES: dict[str, str] = {
    "fstab": "/etc/fstab",
    "resolv": "/etc/resolv.conf",
    "maildir": "/var/spool/mail",
    "exports": "/etc/exports",
}
AUTOCONF_SYSNAME = "linux-gnu"
DEFAULT_POLICY_PORT = "5308"
CONST_VARS: tuple[tuple[str, str], ...] = (
    ("at", "@"), ("dollar", "$"), ("n", "\n"), ("r", "\r"), ("t", "\t"),
    ("endl", "\n"), ("dirsep", "/"),
)
JQ = "jq --compact-output --monochrome-output --ascii-output --unbuffered --sort-keys"


@record
class HostFacts:
    """Everything discovered about the host before policy is read (immutable; a
    NamedTuple rather than an attrs class because every run builds it at start-up).

    ``classes`` maps canonified class names to their tags (ending with
    ``hardclass``); the variable maps go from the name inside its scope
    (``"fqhost"``, ``"ipv4[eth0]"``: arrays are flattened as cf-agent lists
    them) to ``(type, value, tags)`` with strings (also for type ``int``) as
    ``str``, slists as ``list[str]`` and data as JSON-like Python objects.
    """

    classes: dict[str, tuple[str, ...]]
    sys_vars: dict[str, VarEntry]
    const_vars: dict[str, VarEntry]
    def_vars: dict[str, VarEntry]
    mon_vars: dict[str, VarEntry]
    # state files left unread because cfpromise.agent.trust does not trust them (the
    # agent warns about each)
    warnings: tuple[str, ...] = ()


class _Collector:
    """Accumulates classes (first definition wins) and variables (last wins)."""

    def __init__(self) -> None:
        self.classes: dict[str, tuple[str, ...]] = {}
        self.vars: dict[str, VarEntry] = {}
        self._tag_cache: dict[str, tuple[str, ...]] = {}
        self.warnings: list[str] = []

    def put_class(self, name: str, tags: str) -> None:
        canon = canonify(name)
        if canon and canon not in self.classes:
            cached = self._tag_cache.get(tags)
            if cached is None:
                cached = self._tag_cache[tags] = tuple(tags.split(",")) + ("hardclass",)
            self.classes[canon] = cached

    def put_var(self, name: str, type_: str, value: object, tags: str) -> None:
        self.vars[name] = (type_, value, tuple(tags.split(",")) if tags else ())

    def has_class(self, name: str) -> bool:
        return name in self.classes

    def var_value(self, name: str) -> object | None:
        entry = self.vars.get(name)
        return None if entry is None else entry[1]


@record
class _Dirs:
    workdir: str
    bindir: str

    @property
    def inputdir(self) -> str:
        return self.workdir + "/inputs"

    @property
    def statedir(self) -> str:
        return self.workdir + "/state"


def default_workdir() -> str:
    """cf-lite's default workdir: /var/lib/cf-lite as root, ~/.cf-lite otherwise."""
    if os.getuid() == 0:
        return "/var/lib/cf-lite"
    return os.path.join(os.path.expanduser("~"), ".cf-lite")


def discover(
    workdir: str | None = None,
    *,
    policy_file: str | None = None,
    now: Instant | None = None,
    root: str = "/",
    bindir: str | None = None,
    component: str = "agent",
    component_paths: Mapping[str, str] | None = None,
    tz: tzinfo | None = None,
) -> HostFacts:
    """Discover the host as cf-agent 3.21 does on Linux.

    ``workdir`` (default :func:`default_workdir`) gives sys.workdir,
    sys.inputdir, sys.statedir...; ``bindir`` defaults to ``<workdir>/bin``.
    ``policy_file`` sets sys.policy_entry_*.  ``now`` fixes the instant of the
    time classes and of sys.date/cdate/systime/sysday.  ``root`` prefixes the
    files read (release files, /proc, /sys); system calls (uname, ioctl, the
    resolver, getpwuid, sysconf) always describe the live host, and interface
    ioctls are skipped when ``root`` is not ``/``.  ``component`` is the class
    of the running program (``agent``; ``common`` for cf-promises).
    ``component_paths`` overrides the files looked up for sys.cf_agent etc.
    """
    workdir = workdir or default_workdir()
    dirs = _Dirs(workdir, bindir or workdir + "/bin")
    seconds = epoch_seconds(now)
    files = FileSource(root)
    live = files if files.is_live else FileSource("/")
    sink = _Collector()
    sink.put_class(component, "cfe_internal,source=agent")
    for name, tags in time_classes(seconds, tz=tz).items():
        sink.classes.setdefault(name, tags)
    fqhost = _name_info(sink, live, dirs, seconds, tz, component_paths)
    interfaces(sink, files, live, dirs.inputdir, fqhost)
    procdir = hostinfo.procdir_root()
    networking(sink, files if procdir == "/" else FileSource(procdir))
    mon_vars = _environment(sink, dirs, seconds)
    mon_vars.update(_observations(sink, dirs))
    sink.put_class("any", SRC)
    _prefix_classes(sink, "cfengine_" + canonify(CFENGINE_COMPAT_VERSION), INV)
    for feature in FEATURES:
        _prefix_classes(sink, "feature_" + canonify(feature), SRC)
    distro.distribution_classes(sink, files)
    _cpus(sink)
    user = _user_data(sink)
    _crontab_and_doc_root(sink, user)
    distro.os_name_human(sink)
    distro.os_version_major(sink)
    _bootstrap(sink, dirs)
    if policy_file is not None:
        path = os.path.abspath(policy_file)
        sink.put_var("policy_entry_filename", "string", path, SRC)
        sink.put_var("policy_entry_dirname", "string", os.path.dirname(path), SRC)
        sink.put_var("policy_entry_basename", "string", os.path.basename(path), SRC)
    const = {name: ("string", value, (SRC,)) for name, value in CONST_VARS}
    def_vars = {"jq": ("string", JQ, ("invocation", "source=agent", "command_name=jq"))}
    return HostFacts(
        classes=sink.classes,
        sys_vars=sink.vars,
        const_vars=const,
        def_vars=def_vars,
        mon_vars=mon_vars,
        warnings=tuple(sink.warnings),
    )


def _prefix_classes(sink: _Collector, name: str, tags: str) -> None:
    """``a_b_c``, ``a_b``, ``a`` (CreateHardClassesFromCanonification)."""
    sink.put_class(name, tags)
    while "_" in name:
        name = name.rsplit("_", 1)[0]
        sink.put_class(name, tags)


# ---------------------------------------------------------------------------
# Names, kernel, directories, versions


def split_host_name(nodename: str, dnsname: str) -> tuple[str, str, str]:
    """(fqhost, uqhost, domain) from the node name and the resolver's name.

    The resolver's name is the FQDN when it contains a dot; the domain is what
    follows ``<nodename>.`` in it, else what follows the first dot of the
    node name.
    """
    fqname = dnsname if "." in dnsname else nodename
    if fqname.startswith(nodename + ".") and nodename:
        return fqname, nodename, fqname[len(nodename) + 1:]
    head, dot, tail = nodename.partition(".")
    return fqname, head, tail if dot else ""


def _uptime_minutes() -> int | None:
    """Uptime in minutes as sysinfo() gives it (seconds rounded up)."""
    try:
        boot = time.clock_gettime(time.CLOCK_BOOTTIME)
    except (AttributeError, OSError):
        return None
    seconds = int(boot) + (1 if boot % 1 else 0)
    return seconds // 60


def _name_info(
    sink: _Collector,
    live: FileSource,
    dirs: _Dirs,
    seconds: float,
    tz: tzinfo | None,
    component_paths: Mapping[str, str] | None,
) -> str:
    """GetNameInfo3: names, kernel classes, dirs, versions, key, components."""
    uname = os.uname()
    sysname, machine = uname.sysname.lower(), uname.machine.lower()
    release, version = uname.release, uname.version
    nodename = uname.nodename.lower()
    resolved = hostinfo.resolve_host(uname.nodename, live)
    dnsname = resolved[0].lower() if resolved else ""
    fqhost, uqhost, domain = split_host_name(nodename, dnsname)
    suffix = fqhost
    while True:
        sink.put_class(suffix, f"{INV},derived-from=sys.fqhost")
        if "." not in suffix:
            break
        suffix = suffix.split(".", 1)[1]
    sink.put_class(uqhost, "source=agent,derived-from=sys.uqhost")
    sink.put_class(domain, "source=agent,derived-from=sys.domain")
    sink.put_var("host", "string", nodename, "inventory,source=agent,attribute_name=none")
    sink.put_var("uqhost", "string", uqhost, "inventory,source=agent,attribute_name=none")
    sink.put_var("fqhost", "string", fqhost, "inventory,source=agent,attribute_name=Host name")
    sink.put_var("domain", "string", domain, SRC)

    times = time_vars(seconds, tz=tz)
    sink.vars["systime"] = times["systime"]
    sink.vars["sysday"] = times["sysday"]
    uptime = _uptime_minutes()
    if uptime is not None:
        sink.put_var("uptime", "int", str(uptime),
                     "inventory,time_based,source=agent,attribute_name=Uptime minutes")
    platform = sysname if sysname == "linux" else None
    if platform:
        sink.put_class(platform, f"{INV},derived-from=sys.class")
        sink.put_var("class", "string", platform, "inventory,source=agent,attribute_name=Kernel")
    sink.vars["date"] = times["date"]
    sink.vars["cdate"] = times["cdate"]
    sink.put_var("os", "string", sysname, SRC)
    sink.put_var("release", "string", release,
                 "inventory,source=agent,attribute_name=Kernel Release")
    sink.put_var("version", "string", version, SRC)
    sink.put_var("arch", "string", machine, "inventory,source=agent,attribute_name=Architecture")
    workdir, inputdir = dirs.workdir, dirs.inputdir
    sink.put_var("workdir", "string", workdir, SRC)
    for name in ("fstab", "resolv", "maildir", "exports"):
        sink.put_var(name, "string", PLATFORM_FILES[name], SRC)
    for name, value in (
        ("logdir", workdir), ("piddir", workdir), ("statedir", dirs.statedir),
        ("masterdir", workdir + "/masterfiles"), ("inputdir", inputdir),
        ("bindir", dirs.bindir), ("default_policy_path", inputdir + "/promises.cf"),
        ("failsafe_policy_path", inputdir + "/failsafe.cf"),
        ("update_policy_path", inputdir + "/update.cf"),
    ):
        sink.put_var(name, "string", value, SRC)
    sink.put_var("cf_version", "string", CFENGINE_COMPAT_VERSION,
                 "inventory,source=agent,attribute_name=CFEngine version")
    parts = CFENGINE_COMPAT_VERSION.split(".")
    for name, value in zip(("cf_version_major", "cf_version_minor", "cf_version_patch"), parts):
        sink.put_var(name, "string", value, SRC)
    sink.put_var("cf_version_release", "string", "1", SRC)
    sink.put_var("local_libdir", "string", "lib", SRC)
    from cfpromise.resources import libdir
    sink.put_var("libdir", "string", libdir(inputdir), SRC)
    _key_digest(sink, workdir)
    _components(sink, dirs.bindir, component_paths)
    sink.put_class("community_edition", INV)
    sink.put_class(f"{struct.calcsize('P') * 8}_bit", SRC)
    sink.put_class(f"{sysname}_{release}",
                   f"{INV},derived-from=sys.sysname,derived-from=sys.release")
    sink.put_class(machine, "source=agent,derived-from=sys.machine")
    sink.put_class(f"{sysname}_{machine}",
                   "source=agent,derived-from=sys.sysname,derived-from=sys.machine")
    sink.put_class(
        f"{sysname}_{machine}_{release}",
        "source=agent,derived-from=sys.sysname,derived-from=sys.machine,derived-from=sys.release",
    )
    long_arch = canonify(f"{sysname}_{machine}_{release}_{version}")
    sink.put_var("long_arch", "string", long_arch, SRC)
    sink.put_class(long_arch, "source=agent,derived-from=sys.long_arch")
    ostype = canonify(f"{sysname}_{machine}")
    sink.put_var("ostype", "string", ostype, SRC)
    sink.put_class(ostype, f"{INV},derived-from=sys.ostype")
    sink.put_class("compiled_on_" + canonify(AUTOCONF_SYSNAME), SRC)
    if fqhost != uname.nodename:  # cf-agent resolves the FQDN again for its aliases
        resolved = hostinfo.resolve_host(fqhost, live)
    if resolved is not None:
        for alias in resolved[1]:
            sink.put_class(alias, f"{INV},based-on=sys.fqhost")
    return fqhost


def _key_digest(sink: _Collector, workdir: str) -> None:
    try:
        with open(workdir + "/ppkeys/localhost.pub", encoding="ascii", errors="replace") as handle:
            pem = handle.read()
    except OSError:
        return
    digest = hostinfo.pubkey_digest(pem)
    if digest is None:
        return
    sink.put_var("key_digest", "string", digest,
                 "inventory,source=agent,attribute_name=CFEngine ID")
    sink.put_class("PK_" + canonify(digest), f"{INV},derived-from=sys.key_digest")


def _components(sink: _Collector, bindir: str, overrides: Mapping[str, str] | None) -> None:
    """sys.cf_agent, sys.cf_promises...: quoted paths of the programs present in bindir."""
    found: dict[str, str] = {}
    for program in COMPONENTS:
        path = (overrides or {}).get(program, f"{bindir}/{program}")
        if os.path.exists(path):
            found[program] = path
            sink.put_var(canonify(program), "string", f'"{path}"', "cfe_internal,source=agent")
    if "cf-twin" not in found and "cf-agent" in found:
        sink.put_var("cf_twin", "string", f'"{found["cf-agent"]}"', "cfe_internal,source=agent")


# ---------------------------------------------------------------------------
# Monitor environment, CPUs, user, bootstrap


def _parse_shown_list(text: str) -> list[str]:
    """``{ "a", "b" }`` (RlistParseShown) -> ["a", "b"]."""
    body = text.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
        if not body.strip():
            return [""]             # cf-agent reads "{}" as a list of one empty string
    items = []
    for item in body.split(","):
        item = item.strip()
        if len(item) >= 2 and item[0] == item[-1] and item[0] in "'\"":
            item = item[1:-1]
        if item:
            items.append(item)
    return items


def _environment(sink: _Collector, dirs: _Dirs, seconds: float) -> dict[str, VarEntry]:
    """cf-monitord's state/env_data (if under an hour old): its classes, and the mon vars."""
    path = dirs.statedir + "/env_data"
    if not _trusted(sink, path, dirs, "Monitor data"):
        return {}
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            mtime = os.fstat(handle.fileno()).st_mtime
            text = handle.read()
    except OSError:
        return {}
    if mtime < seconds - 3600:
        return {}
    mon: dict[str, VarEntry] = {
        "env_time": ("string", time.ctime(mtime), ("time_based", "source=agent")),
    }
    tags = ("monitoring", "source=environment")
    for line in text.splitlines():
        if line.startswith("@") and "=" in line:
            name, _, value = line[1:].partition("=")
            mon[name] = ("slist", _parse_shown_list(value), tags)
        elif "=" in line:
            name, _, value = line.partition("=")
            mon[name] = ("string", value, tags)
        elif line.strip():
            sink.put_class(line.strip(), "monitoring,source=environment")
    return mon


# CFEngine's DataType numbers in the monitor's static store keys ("handle:type")
_OBSERVATION_TYPES = {"0": "string", "1": "int", "2": "real", "3": "slist", "14": "string"}


def _trusted(sink: _Collector, path: str, dirs: _Dirs, what: str) -> bool:
    """State another user could have planted (it defines classes) is not read."""
    from cfpromise.agent.trust import untrusted
    problem = untrusted(path, dirs.workdir)
    if problem is not None:
        sink.warnings.append(f"{what} '{path}' ignored: {problem}")
    return problem is None


def _observations(sink: _Collector, dirs: _Dirs) -> dict[str, VarEntry]:
    """string/slist measurements of cf-lite-monitord (state/static_data, ``handle:type:value``
    lines): ``mon.handle``, as cf-agent reads cf-monitord's static store."""
    path = dirs.statedir + "/static_data"
    if not _trusted(sink, path, dirs, "Monitor data"):
        return {}
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return {}
    tags = ("monitoring", "source=observation")
    out: dict[str, VarEntry] = {}
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        number, _, value = rest.partition(":")
        type_ = _OBSERVATION_TYPES.get(number)
        if not name or type_ is None:
            continue
        out[name] = (type_, value.split(",") if type_ == "slist" else value, tags)
    return out


def _cpus(sink: _Collector) -> None:
    try:
        count = os.sysconf("SC_NPROCESSORS_ONLN")
    except (ValueError, OSError):
        return
    if count < 1:
        return
    sink.put_class("1_cpu" if count == 1 else f"{count}_cpus", "source=agent,derived-from=sys.cpus")
    sink.put_var("cpus", "string", str(count),
                 "inventory,source=agent,attribute_name=CPU logical cores")


def _user_data(sink: _Collector) -> str | None:
    import pwd

    try:
        entry = pwd.getpwuid(os.getuid())
    except KeyError:
        return None
    sink.put_var("user_data", "data", {
        "description": entry.pw_gecos,
        "gid": entry.pw_gid,
        "home_dir": entry.pw_dir,
        "shell": entry.pw_shell,
        "uid": entry.pw_uid,
        "username": entry.pw_name,
    }, "source=agent,user_info")
    return entry.pw_name


def _crontab_and_doc_root(sink: _Collector, user: str | None) -> None:
    if user is not None:
        directory = next(
            (d for cls, d in distro.CRONTAB_DIRS if sink.has_class(cls)), distro.DEFAULT_CRONTAB_DIR
        )
        sink.put_var("crontab", "string", f"{directory}/{user}", SRC)
    for cls, doc_root in distro.DOC_ROOTS:
        if sink.has_class(cls):
            sink.put_var("doc_root", "string", doc_root, SRC)


def parse_policy_server(text: str) -> tuple[str, str]:
    """``host``, ``host:port``, ``[v6]:port`` or a bare IPv6 address -> (host, port)."""
    text = text.strip()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
    else:
        host, port = text, ""
    return host, port or DEFAULT_POLICY_PORT


def _bootstrap(sink: _Collector, dirs: _Dirs) -> None:
    """sys.policy_hub(_port) from policy_server.dat, sys.last_policy_update from
    masterfiles/cf_promises_validated, am_policy_hub from the state dir."""
    try:
        path = dirs.workdir + "/policy_server.dat"
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        text = ""
    if text.strip():
        host, port = parse_policy_server(text)
        address = hostinfo.resolve_address(host)
        if address is not None:
            sink.put_var("policy_hub", "string", address, BOOTSTRAP)
        sink.put_var("policy_hub_port", "string", port, BOOTSTRAP)
    try:
        validated = os.stat(dirs.workdir + "/masterfiles/cf_promises_validated").st_mtime
    except OSError:
        pass
    else:
        sink.put_var("last_policy_update", "string", time.ctime(validated), SRC)
    if os.path.exists(dirs.statedir + "/am_policy_hub"):
        sink.put_class("am_policy_hub", "source=bootstrap,deprecated,alias=policy_server")
        sink.put_class("policy_server", "inventory,attribute_name=CFEngine roles,source=bootstrap")
