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
"""
from __future__ import annotations

import os

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
    import psutil
    out: list[Process] = []
    for proc in psutil.process_iter(_FIELDS):
        info = proc.info
        try:
            out.append(_row(info))
        except (TypeError, ValueError, AttributeError):
            continue
    out.sort(key=lambda p: p.pid)
    return out


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
