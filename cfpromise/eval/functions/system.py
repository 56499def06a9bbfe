"""Built-ins that ask the host: commands, environment, users and groups,
processes, packages, sysctl.

``execresult``/``execresult_as_data``/``returnszero`` run their command once per
run and argument list (``ctx.cache``).  Like cf-agent 3.21 they run even under
``--dry-run`` (``-n``): cf-agent evaluates these functions in dry runs too
(checked: ``execresult("/bin/echo hi; touch f", "useshell")`` creates ``f``
under ``cf-agent -n``), because policy relies on their output to decide what
would change.  ``noshell`` commands are split like CFEngine's ArgSplitCommand
(quotes group words) and must be absolute and executable; ``useshell`` runs
``/bin/sh -c``; ``powershell`` is Windows only.  Under ``--simulate`` cf-agent
does not call them at all ("Not calling unsafe function"), and neither do we
(see :attr:`FunctionContext.simulate`).  The output is stdout and
stderr (or one of them), lines joined by newlines, trailing whitespace removed.

``processexists``/``findprocesses`` match the regex (unanchored, like process
promises) against each process's command line; ``findprocesses`` gives
``[{"line": command line, "pid": n}]``.  ``packagesmatching`` reads the package
modules' caches of the modules ``body common control`` names in
``package_inventory`` (see cfpromise.promises.packages.inventory), or without
it the legacy inventory cache ``WORKDIR/state/software_packages.csv`` (and
``software_patches_avail.csv`` for updates): "name,version,arch,method" lines.
"""
from __future__ import annotations

import os

from cfpromise.eval.functions import pcre
from cfpromise.eval.functions.api import FunctionError, builtin
from cfpromise.eval.functions.common import (
    argv, cached, int_arg, refuse_in_simulation, to_bytes, to_text)
from cfpromise.eval.functions.files import is_executable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Sequence

    from cfpromise.eval.functions.api import FunctionContext, Value

# ---------------------------------------------------------------------------
# Commands


def split_command(command: str) -> list[str]:
    """CFEngine's ArgSplitCommand: whitespace separated, quotes (" ' `) group."""
    args: list[str] = []
    i, n = 0, len(command)
    while i < n:
        ch = command[i]
        if ch.isspace():
            i += 1
            continue
        if ch in "\"'`":
            end = command.find(ch, i + 1)
            if end < 0:
                args.append(command[i + 1:])
                break
            args.append(command[i + 1:end])
            i = end + 1
            continue
        j = i
        while j < n and command[j] not in " \f\n\r\t\v":
            j += 1
        args.append(command[i:j])
        i = j
    return args


def command_arg0(command: str) -> str:
    """CommandArg0: the first word, or the quoted first part."""
    if command.startswith('"'):
        end = command.find('"', 1)
        return command[1:] if end < 0 else command[1:end]
    return command.split(" ", 1)[0]


def _check_command(fn: str, command: str, shell: str) -> None:
    """The command cf-agent refuses to run (a FunctionError saying why: messages.py's
    ``exec.refused``, IsExecutable's ``exec.missing`` before it)."""
    from cfpromise.eval.functions import messages
    if shell == "powershell":
        raise FunctionError(f"{fn}: Powershell is only supported on Windows")
    if command.startswith("/") or command.startswith('"/'):
        arg0 = command_arg0(command)
        if not is_executable(arg0):
            exc = messages.fail("exec.refused", message=f"{fn} '{command}' is assumed to be "
                                                        "executable but isn't")
            if not os.path.exists(arg0):      # IsExecutable's own error comes first
                exc.said.insert(0, ("exec.missing", {"arg0": arg0}))  # type: ignore
            raise exc
    elif shell == "noshell":
        raise messages.fail("exec.refused",
                            message=f"{fn} '{command}' does not have an absolute path")


def _executable(argv_: list[str]) -> str | None:
    """cf-agent runs a shell command as execl("/bin/sh", "sh", "-c", ...): the shell's own
    messages start "sh: "."""
    return "/bin/sh" if argv_[:2] == ["sh", "-c"] else None


def run_command(command: str, shell: str, select: str = "both",
                timeout: float | None = None) -> tuple[int, str]:
    """Run ``command`` (``useshell``: through /bin/sh) and return (exit code,
    output) with CFEngine's GetExecOutput shaping."""
    import subprocess
    argv_ = ["sh", "-c", command] if shell == "useshell" else split_command(command)
    stdout = subprocess.PIPE if select in ("both", "stdout") else subprocess.DEVNULL
    if select == "both":
        stderr: Any = subprocess.STDOUT
    elif select == "stderr":
        stderr = subprocess.PIPE
    else:
        stderr = subprocess.DEVNULL
    try:
        proc = subprocess.run(argv_, executable=_executable(argv_), stdin=subprocess.DEVNULL,
                              stdout=stdout, stderr=stderr, timeout=timeout, check=False)
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        raise FunctionError(f"Couldn't open pipe to command '{command}'. ({exc})") from None
    raw = proc.stderr if select == "stderr" else proc.stdout
    lines = to_text(raw or b"").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    output = "\n".join(lines).rstrip(" \t\n\r\f\v") if lines else ""
    return proc.returncode, output


def _execresult(fn: str, ctx: FunctionContext, args: Sequence[Value]) -> tuple[int, str]:
    values = argv(fn, args, 2, 3)
    refuse_in_simulation(ctx, fn)
    command, shell = values[0], values[1]
    select = values[2] if len(values) > 2 else "both"
    _check_command(fn, command, shell)

    def compute() -> Any:
        code, output = run_command(command, shell, select)
        return [code, output]

    code, output = cached(ctx, (fn, command, shell, select), compute)
    return code, output


@builtin("execresult", cached=True)
def execresult(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _execresult("execresult", ctx, args)[1]


@builtin("execresult_as_data", cached=True)
def execresult_as_data(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    code, output = _execresult("execresult_as_data", ctx, args)
    return {"exit_code": code, "output": output}


@builtin("returnszero", cached=True)
def returnszero(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    command, shell = argv("returnszero", args, 2)
    refuse_in_simulation(ctx, "returnszero")
    try:
        _check_command("returnszero", command, shell)
    except FunctionError as exc:
        from cfpromise.eval.functions import messages
        for key, fields in getattr(exc, "said", ()):
            messages.emit(ctx, key, fields)
        if not hasattr(exc, "said"):
            ctx.log("error", str(exc))
        return False

    def compute() -> Any:
        import subprocess
        argv_ = ["sh", "-c", command] if shell == "useshell" else split_command(command)
        try:
            # the command's own output shows only at inform level and above (as cf-agent)
            out = None if getattr(ctx, "inform", False) else subprocess.DEVNULL
            return subprocess.run(argv_, executable=_executable(argv_), stdin=subprocess.DEVNULL,
                                  stdout=out, stderr=out, check=False).returncode == 0
        except (OSError, ValueError, subprocess.SubprocessError):
            return False

    return bool(cached(ctx, ("returnszero", command, shell), compute))


# ---------------------------------------------------------------------------
# Environment, users and groups


@builtin("getenv")
def getenv(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    name, limit = argv("getenv", args, 2)
    value = os.environb.get(to_bytes(name))
    if value is None:
        return ""
    n = int_arg(limit)
    return to_text(value[:max(n, 0)])


def _user(name: str) -> Any:
    import pwd
    try:
        return pwd.getpwnam(name)
    except KeyError:
        return None


@builtin("getuid")
def getuid(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (name,) = argv("getuid", args, 1)
    pw = _user(name)
    if pw is None:
        from cfpromise.eval.functions import messages
        raise messages.fail("user.unknown", name=name)
    return str(pw.pw_uid)


@builtin("getgid")
def getgid(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (name,) = argv("getgid", args, 1)
    import grp
    try:
        return str(grp.getgrnam(name).gr_gid)
    except KeyError:
        from cfpromise.eval.functions import messages
        raise messages.fail("group.unknown", name=name) from None


def user_info(pw: Any) -> dict[str, Any]:
    """The data sys.user_data and getuserinfo() give for a passwd entry."""
    return {"username": pw.pw_name, "description": pw.pw_gecos, "home_dir": pw.pw_dir,
            "shell": pw.pw_shell, "uid": pw.pw_uid, "gid": pw.pw_gid}


@builtin("getuserinfo")
def getuserinfo(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    import pwd
    values = argv("getuserinfo", args, 0, 1)
    try:
        if not values:
            pw = pwd.getpwuid(os.getuid())
        elif values[0].isdigit():
            pw = pwd.getpwuid(int(values[0]))
        else:
            pw = pwd.getpwnam(values[0])
    except (KeyError, OverflowError):
        raise FunctionError(f"getuserinfo: no such user '{values[0] if values else ''}'") \
            from None
    return user_info(pw)


@builtin("getusers")
def getusers(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    import pwd
    names, uids = argv("getusers", args, 2)
    skip_names = set(names.split(",")) if names else set()
    skip_uids = set(uids.split(",")) if uids else set()
    out: list[str] = []
    for pw in pwd.getpwall():
        if pw.pw_name in skip_names or str(pw.pw_uid) in skip_uids:
            continue
        if pw.pw_name not in out:
            out.append(pw.pw_name)
    return out


@builtin("userexists")
def userexists(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    import pwd
    (name,) = argv("userexists", args, 1)
    if name.isdigit():
        try:
            pwd.getpwuid(int(name))
            return True
        except (KeyError, OverflowError):
            return False
    return _user(name) is not None


@builtin("groupexists")
def groupexists(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    import grp
    (name,) = argv("groupexists", args, 1)
    try:
        if name.isdigit():
            grp.getgrgid(int(name))
        else:
            grp.getgrnam(name)
        return True
    except (KeyError, OverflowError):
        return False


@builtin("hostinnetgroup")
def hostinnetgroup(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """True if this host (fully qualified or short name) is in the netgroup."""
    (netgroup,) = argv("hostinnetgroup", args, 1)
    names = set()
    for var in ("sys.fqhost", "sys.uqhost"):
        v = ctx.lookup(var)
        if v is not None:
            names.add(str(v.value))
    try:
        import ctypes
        import ctypes.util
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return False
    host, user, domain = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_char_p()
    found = False
    libc.setnetgrent(to_bytes(netgroup))
    try:
        while libc.getnetgrent(ctypes.byref(host), ctypes.byref(user), ctypes.byref(domain)):
            if host.value is None or to_text(host.value) in names:
                found = True
                break
    finally:
        libc.endnetgrent()
    return found


# ---------------------------------------------------------------------------
# Processes


def _process_lines() -> list[tuple[int, str]]:
    import psutil
    out: list[tuple[int, str]] = []
    for proc in psutil.process_iter(["pid", "name", "cmdline"]):
        cmdline = proc.info.get("cmdline") or []
        line = " ".join(cmdline) if cmdline else f"[{proc.info.get('name') or ''}]"
        out.append((proc.info["pid"], line))
    return out


def _matching_processes(ctx: FunctionContext, regex: str) -> list[tuple[int, str]]:
    rx = pcre.compile_regex(regex)
    return [(pid, line) for pid, line in _process_lines()
            if rx.search(to_bytes(line)) is not None]


@builtin("processexists", cached=True)
def processexists(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (regex,) = argv("processexists", args, 1)
    return bool(cached(ctx, ("processexists", regex),
                       lambda: bool(_matching_processes(ctx, regex))))


@builtin("findprocesses", cached=True)
def findprocesses(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (regex,) = argv("findprocesses", args, 1)
    return cached(ctx, ("findprocesses", regex),
                  lambda: [{"line": line, "pid": pid}
                           for pid, line in _matching_processes(ctx, regex)])


# ---------------------------------------------------------------------------
# Packages


def _packages(ctx: FunctionContext, fn: str, args: Sequence[Value], filename: str) -> Any:
    name, version, arch, method = argv(fn, args, 4)
    rx = pcre.compile_regex(f"^{name},{version},{arch},{method}$")
    inventory = (getattr(ctx, "common_control", None) or {}).get("package_inventory")
    if inventory:
        return _module_packages(ctx, fn, rx, inventory, filename == "software_packages.csv")
    path = os.path.join(ctx.workdir, "state", filename)
    from cfpromise.agent.trust import ignored
    if ignored(path, ctx.workdir, ctx.log, "Packages inventory", _trust_warned(ctx)):
        return []
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8", "surrogateescape")
    except OSError:
        ctx.log("verbose", f"Cannot open the packages inventory '{path}' - This is not "
                           f"necessarily an error.")
        return []
    from cfpromise.eval.functions.readers import csv_records, parse_csv_line
    out: list[dict[str, str]] = []
    pos = 0
    for record in csv_records(text):
        # GetCsvLineNext: a record ends at CRLF outside quotes (a lone LF is data) and
        # keeps its CRLF, which the regex sees ("apt$" misses "apt\r\n") and the
        # field parser drops
        pos += len(record)
        line = record
        if text.startswith("\r\n", pos):
            line, pos = record + "\r\n", pos + 2
        if not pcre.full_match(rx, line):
            continue
        fields = parse_csv_line(record)
        if fields is None or len(fields) != 4:
            from cfpromise.eval.functions import messages
            messages.say(ctx, "packages.inventory_line", line=line)
            continue
        out.append(dict(zip(("name", "version", "arch", "method"), fields)))
    return out


def _module_packages(ctx: FunctionContext, fn: str, rx: Any, inventory: Any,
                     installed: bool) -> Any:
    """The package modules' caches (body common control package_inventory), each
    line "name,version,arch" extended with the module's name, as cf-agent 3.21 does."""
    from cfpromise.promises.packages.cachefile import INSTALLED, UPDATES, read_inventory
    # every name is a module's database, an unexpanded "$(x)" one too (cf-agent opens
    # packages_installed_$(x), empty): the variable is defined, maybe as []
    names = [n for n in (inventory if isinstance(inventory, list) else [inventory])
             if isinstance(n, str)]
    out: list[dict[str, str]] = []
    for module in names:
        # a module without a cache yet has no packages (cf-agent opens an empty database)
        packages = read_inventory(ctx.workdir, INSTALLED if installed else UPDATES, module,
                                  ctx.log, _trust_warned(ctx)) or []
        for pname, pversion, parch in packages:
            if pcre.full_match(rx, f"{pname},{pversion},{parch},{module}"):
                out.append({"name": pname, "version": pversion, "arch": parch,
                            "method": module})
    return out


def _trust_warned(ctx: FunctionContext) -> set[str]:
    """The run's untrusted state files already warned about (one warning each)."""
    from cfpromise.agent.trust import warned_set
    return warned_set(ctx.cache)


@builtin("packagesmatching")
def packagesmatching(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _packages(ctx, "packagesmatching", args, "software_packages.csv")


@builtin("packageupdatesmatching")
def packageupdatesmatching(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _packages(ctx, "packageupdatesmatching", args, "software_patches_avail.csv")


# ---------------------------------------------------------------------------
# sysctl and the registry

def _proc_sys() -> str:
    """/proc/sys, under $CFENGINE_TEST_OVERRIDE_PROCDIR when set (GetRelocatedProcdirRoot)."""
    from cfpromise.eval.hostinfo import PROCDIR_OVERRIDE
    return os.environ.get(PROCDIR_OVERRIDE, "").rstrip("/") + "/proc/sys"


@builtin("sysctlvalue")
def sysctlvalue(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (key,) = argv("sysctlvalue", args, 1)
    path = _proc_sys() + "/" + key.replace(".", "/")
    if os.path.isdir(path):
        raise FunctionError(f"Error while reading file '{path}' because it's a directory")
    try:
        with open(path, "rb") as handle:
            data = handle.read(16 * 1024)
    except OSError as exc:
        raise FunctionError(f"Error while reading file '{path}' ({exc.strerror})") from None
    return to_text(data[:-1] if data.endswith(b"\n") else data)


@builtin("data_sysctlvalues")
def data_sysctlvalues(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    argv("data_sysctlvalues", args, 0)
    out: dict[str, str] = {}
    proc_sys = _proc_sys()
    for root, _dirs, files in os.walk(proc_sys):
        depth = root[len(proc_sys):].count("/")
        if depth > 6:
            continue
        for name in sorted(files):
            path = os.path.join(root, name)
            try:
                with open(path, "rb") as handle:
                    data = handle.read(16 * 1024)
            except OSError:
                continue
            key = path[len(proc_sys) + 1:].replace("/", ".")
            out[key] = to_text(data[:-1] if data.endswith(b"\n") else data)
    return dict(sorted(out.items()))


@builtin("registryvalue")
def registryvalue(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    argv("registryvalue", args, 2)
    raise FunctionError("registryvalue() reads the Windows registry: not available on this "
                        "platform")
