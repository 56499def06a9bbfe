"""A snapshot of the process table, with the columns cf-agent 3.21 reads on Linux.

cf-agent runs ``ps -eo user:30,pid,ppid,pgid,pcpu,pmem,vsz,ni,rss:9,tname,nlwp,
stime,etime,time,args``; each row here holds the same facts, read through
psutil: the owner, pid, ppid, pgid, virtual and resident size (KiB), nice
value, terminal (``?`` for none, else ``pts/0``...), thread count, start time
(epoch seconds), accumulated CPU time (whole seconds, as ``TIME`` shows) and the
command line (``args``; ``[name]`` for a kernel thread, as ps shows it).  There
is no status column in that ps command, so ``process_select``'s ``status``
never matches on Linux, as in cf-agent.

A process that vanishes while it is read is left out.

On Linux the rows are read from ``/proc`` here, field by field as psutil 7 reads
them (the same files, the same arithmetic, the same fallbacks: psutil's
``Process.as_dict`` under ``oneshot``), without psutil: importing psutil and its
per-process machinery (a ``Process`` object, a oneshot cache, ``/proc/stat`` read
again for each process's start time) cost 80 M of the 1,250 M instructions of a
masterfiles dry run with 90 processes running; this reader costs about a tenth.
``tests/promises/test_process_table.py`` holds it to psutil's rows.  Elsewhere
(no ``/proc``) psutil reads the table.
"""
from __future__ import annotations

import os
import sys

from cfpromise.fast.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable


# A @record class (a namedtuple), not an attrs class: masterfiles' dry run loads this
# module, and attrs' import and class generation were most of what the run's
# promise-type modules cost at start.
@record
class Process:
    pid: int
    ppid: int
    pgid: int
    user: str
    vsize: int             # KiB
    rsize: int             # KiB
    priority: int          # the nice value (ps "NI")
    tty: str
    threads: int
    start: int             # epoch seconds
    ttime: int             # accumulated CPU seconds
    command: str           # ps "args"


_FIELDS = ["pid", "ppid", "username", "memory_info", "nice", "terminal", "num_threads",
           "create_time", "cpu_times", "cmdline", "name", "uids"]


def snapshot() -> list[Process]:
    """Every process now, in pid order."""
    rows = _proc_rows() if os.path.exists("/proc/self/stat") else _psutil_rows()
    out: list[Process] = []
    for info in rows:
        try:
            out.append(_row(info))
        except (TypeError, ValueError, AttributeError):
            continue
    out.sort(key=lambda p: p.pid)
    return out


def _psutil_rows() -> list[dict]:
    import psutil
    return [proc.info for proc in psutil.process_iter(_FIELDS)]


class _Gone(Exception):
    """The process ended while it was read (psutil's NoSuchProcess): left out."""


class _Denied(Exception):
    """A file of the process cannot be read (psutil's AccessDenied): its fields are None."""


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except PermissionError:
        raise _Denied() from None
    except (FileNotFoundError, ProcessLookupError):
        raise _Gone() from None


_TERMINALS: dict[int, str] | None = None


def _terminal_map() -> dict[int, str]:
    """Device number -> path of /dev/tty* and /dev/pts/*, made once per process, as
    psutil's get_terminal_map (a memoized glob of both, in directory order)."""
    global _TERMINALS
    if _TERMINALS is None:
        found: dict[int, str] = {}
        for directory, prefix in (("/dev", "tty"), ("/dev/pts", "")):
            try:
                names = os.listdir(directory)
            except OSError:
                continue
            for name in names:
                if name.startswith(prefix) and not name.startswith("."):
                    path = f"{directory}/{name}"
                    try:
                        found[os.stat(path).st_rdev] = path
                    except FileNotFoundError:
                        pass
        _TERMINALS = found
    return _TERMINALS


def _proc_rows() -> list[dict]:
    """psutil.process_iter(_FIELDS)'s ``info`` dicts, read from /proc directly."""
    import pwd
    import re
    ticks = os.sysconf("SC_CLK_TCK")
    pagesize = os.sysconf("SC_PAGE_SIZE")
    boot = None
    names: dict[int, str] = {}
    threads_re = re.compile(rb"Threads:\t(\d+)")
    uids_re = re.compile(rb"Uid:\t(\d+)\t(\d+)\t(\d+)")
    encoding, errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
    rows = []
    for pid in sorted(int(x) for x in os.listdir(b"/proc") if x.isdigit()):
        base = f"/proc/{pid}/"
        info: dict = {"pid": pid}
        try:
            try:
                stat = _read(base + "stat")
            except _Denied:
                info.update(ppid=None, terminal=None, create_time=None, cpu_times=None,
                            name=None)
            else:
                rpar = stat.rfind(b")")
                fields = stat[rpar + 2:].split()
                info["ppid"] = int(fields[1])
                info["terminal"] = _terminal_map().get(int(fields[4]))
                if boot is None:
                    boot = _boot_time()
                info["create_time"] = float(fields[19]) / ticks + boot
                info["cpu_times"] = _CpuTimes(float(fields[11]) / ticks,
                                              float(fields[12]) / ticks)
                info["name"] = stat[stat.find(b"(") + 1:rpar].decode(encoding, errors)
            try:
                status = _read(base + "status")
            except _Denied:
                info.update(uids=None, username=None, num_threads=None)
            else:
                uid = int(uids_re.findall(status)[0][0])       # the real uid, as psutil
                info["uids"] = _Uids(uid)
                user = names.get(uid)
                if user is None:
                    try:
                        user = pwd.getpwuid(uid).pw_name
                    except KeyError:
                        user = str(uid)
                    names[uid] = user
                info["username"] = user
                info["num_threads"] = int(threads_re.findall(status)[0])
            try:
                statm = _read(base + "statm").split()
            except _Denied:
                info["memory_info"] = None
            else:
                info["memory_info"] = _Memory(int(statm[1]) * pagesize,
                                              int(statm[0]) * pagesize)
            try:
                info["nice"] = os.getpriority(os.PRIO_PROCESS, pid)
            except PermissionError:
                info["nice"] = None
            except ProcessLookupError:
                raise _Gone() from None
            try:
                info["cmdline"] = _cmdline(_read(base + "cmdline").decode(encoding, errors))
            except _Denied:
                info["cmdline"] = None
        except _Gone:
            continue
        rows.append(info)
    return rows


class _CpuTimes:
    __slots__ = ("user", "system")

    def __init__(self, user: float, system: float) -> None:
        self.user, self.system = user, system


class _Uids:
    __slots__ = ("real",)

    def __init__(self, real: int) -> None:
        self.real = real


class _Memory:
    __slots__ = ("rss", "vms")

    def __init__(self, rss: int, vms: int) -> None:
        self.rss, self.vms = rss, vms


def _boot_time() -> float:
    """/proc/stat's btime, as psutil.boot_time() reads it."""
    for line in _read("/proc/stat").splitlines():
        if line.startswith(b"btime"):
            return float(line.strip().split()[1])
    raise _Gone()


def _cmdline(data: str) -> list[str]:
    """psutil's Process.cmdline() on Linux: arguments separated by NULs, or by spaces
    when a process rewrote its command line (setproctitle); read in text mode, so with
    universal newlines, as psutil's open_text reads it."""
    data = data.replace("\r\n", "\n").replace("\r", "\n")
    if not data:
        return []
    sep = "\x00" if data.endswith("\x00") else " "
    if data.endswith(sep):
        data = data[:-1]
    cmdline = data.split(sep)
    if sep == "\x00" and len(cmdline) == 1 and " " in data:
        cmdline = data.split(" ")
    return cmdline


def _row(info: dict) -> Process:
    pid = int(info["pid"])
    try:
        pgid = os.getpgid(pid)
    except OSError:
        pgid = -1
    cmdline = info.get("cmdline") or []
    command = " ".join(cmdline) if cmdline else f"[{info.get('name') or ''}]"
    memory = info.get("memory_info")
    cpu = info.get("cpu_times")
    terminal = info.get("terminal")
    user = info.get("username")
    if not user:
        uids = info.get("uids")
        user = str(uids.real) if uids is not None else "?"
    return Process(
        pid=pid, ppid=int(info.get("ppid") or 0), pgid=pgid, user=str(user),
        vsize=int(memory.vms // 1024) if memory is not None else 0,
        rsize=int(memory.rss // 1024) if memory is not None else 0,
        priority=int(info.get("nice") or 0),
        tty=terminal[len("/dev/"):] if terminal and terminal.startswith("/dev/") else
        (terminal or "?"),
        threads=int(info.get("num_threads") or 0),
        start=int(info.get("create_time") or 0),
        ttime=int(cpu.user + cpu.system) if cpu is not None else 0,
        command=command)


def legend() -> str:
    """The header cf-agent prints in process alerts."""
    return ("USER PID PPID PGID %CPU %MEM VSZ NI RSS TTY NLWP STIME ELAPSED TIME COMMAND")


def describe(process: Process) -> str:
    """One row as a (shortened) ps line, for messages."""
    return (f"{process.user} {process.pid} {process.ppid} {process.pgid} {process.vsize} "
            f"{process.priority} {process.rsize} {process.tty} {process.threads} "
            f"{process.command}")


def by_pid(processes: Iterable[Process]) -> dict[int, Process]:
    return {p.pid: p for p in processes}
