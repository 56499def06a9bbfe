"""Running a ``commands`` promise's command: the child's set-up, the output, the timeout.

commands.py reads the promise into an ExecSpec and judges the result; this module
runs it, as cf-agent 3.21's ``ShellCommandReturnsZero``/``cf_popen_full`` do: the
preexec function does ``chroot``, ``chdir``, then drops privileges for good
(``exec_group``/``exec_owner``, supplementary groups included) and sets the
``umask``, reporting a failure on the child's own output as cf-agent's child does;
stdout and stderr are read together line by line until ``cfengine-die`` or the end;
``exec_timeout`` kills the command's whole process group (SIGTERM, then SIGKILL
:data:`KILL_GRACE_S` later).  A module of its own because commands.py passed 600
lines, and running a process is a job apart from reading and judging a promise.
"""
from __future__ import annotations

import enum
import os
import selectors
import signal
import subprocess
import time

from cfpromise.fast.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from cfpromise.promises.api import AgentServices
    from cfpromise.promises.commands import ExecSpec

SHELL = "/bin/sh"
KILL_GRACE_S = 1.0          # SIGTERM, then SIGKILL this much later, for a timed-out command
_ERROR_PREFIX = f"{'error':>8}: "


class ShellType(enum.Enum):
    NONE = "noshell"
    USE = "useshell"
    POWERSHELL = "powershell"


# --- running the command ---------------------------------------------------------------

@record
class ExecResult:
    returncode: int | None      # None: killed by a signal
    timed_out: bool = False
    pid: int = 0


def _child_fail(message: str) -> None:
    """In the child: say what went wrong where the output goes (as cf-agent's child does)."""
    os.write(1, f"{_ERROR_PREFIX}{message}\n".encode("utf-8", "replace"))
    os._exit(1)


def _child_setup(spec: ExecSpec) -> Callable[[], None]:
    """The preexec function: chroot, chdir, then drop privileges, in cf-agent's order."""
    def setup() -> None:
        if spec.chroot:
            try:
                os.chroot(spec.chroot)
                if not spec.chdir:
                    os.chdir("/")
            except OSError as exc:
                _child_fail(f"Couldn't chroot to '{spec.chroot}'. (chroot: {exc.strerror})")
        if spec.chdir:
            try:
                os.chdir(spec.chdir)
            except OSError as exc:
                _child_fail(f"Couldn't chdir to '{spec.chdir}'. (chdir: {exc.strerror})")
        priv = spec.privileges
        if priv is None:
            return
        if priv.run_gid is not None:
            try:
                os.setgid(priv.run_gid)
                if priv.groups is not None:
                    os.setgroups(list(priv.groups))
            except OSError as exc:
                _child_fail(f"Couldn't set gid to '{priv.run_gid}'. (setgid: {exc.strerror})")
        if priv.uid is not None:
            try:
                os.setuid(priv.uid)
            except OSError as exc:
                _child_fail(f"Couldn't set uid to '{priv.uid}'. (setuid: {exc.strerror})")
    return setup


def spawn(spec: ExecSpec, background: bool = False) -> subprocess.Popen[bytes] | str:
    """Start the command; on an exec failure, the line cf-agent's child would print."""
    argv = list(spec.argv)
    executable = SHELL if spec.shell is ShellType.USE else argv[0]
    if "/" not in executable:
        executable = "./" + executable       # execv(), never a PATH search
    out = subprocess.DEVNULL if background else subprocess.PIPE
    try:
        return subprocess.Popen(
            argv, executable=executable, stdin=subprocess.DEVNULL, stdout=out,
            stderr=subprocess.STDOUT, umask=spec.umask, close_fds=True,
            preexec_fn=_child_setup(spec) if spec.needs_setup else None,
            start_new_session=background, process_group=None if background else 0)
    except OSError as exc:
        return f"{_ERROR_PREFIX}Couldn't run '{argv[0]}'. (execv: {exc.strerror})"


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the command's process group, SIGKILL it after a grace period, reap."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        if sig == signal.SIGTERM:
            try:
                proc.wait(KILL_GRACE_S)
            except subprocess.TimeoutExpired:
                pass
    proc.wait()


def _pump(fd: int, deadline: float | None, on_line: Callable[[str], bool]) -> bool:
    """Read lines from ``fd`` until EOF, a stop from ``on_line`` or the deadline.

    Returns True if the deadline passed."""
    pending = bytearray()
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                return True
            if not selector.select(wait):
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            pending += chunk
            cut = pending.rfind(b"\n")
            if cut < 0:
                continue
            lines = bytes(pending[:cut]).split(b"\n")
            del pending[:cut + 1]
            for raw in lines:
                if not on_line(raw.decode("utf-8", "replace")):
                    return False
    if pending:
        on_line(bytes(pending).decode("utf-8", "replace"))
    return False


def execute(spec: ExecSpec, on_line: Callable[[str], bool], agent: AgentServices) -> ExecResult:
    """Run the command, feeding its output lines to ``on_line`` (False stops reading)."""
    proc = spawn(spec)
    if isinstance(proc, str):
        on_line(proc)
        return ExecResult(returncode=1)
    deadline = None if spec.timeout is None else time.monotonic() + spec.timeout
    assert proc.stdout is not None
    try:
        timed_out = _pump(proc.stdout.fileno(), deadline, on_line)
    except BaseException:
        _kill_group(proc)               # never leave the command running behind us
        raise
    finally:
        proc.stdout.close()
    if not timed_out:
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            timed_out = True
    if timed_out:
        agent.log("verbose", f"Time out of process {proc.pid}")
        _kill_group(proc)
    if timed_out or proc.returncode < 0:
        agent.log("verbose", f"Child PID {proc.pid} exited abnormally (signalled)")
        return ExecResult(returncode=None, timed_out=timed_out, pid=proc.pid)
    return ExecResult(returncode=proc.returncode, pid=proc.pid)
