"""One promise module process: started once, spoken to line by line, terminated at the end.

Every read has a deadline (:data:`DEFAULT_TIMEOUT`, or ``CF_LITE_PROMISE_MODULE_TIMEOUT``
seconds) and a size limit (a line of at most :data:`MAX_LINE` bytes, a response of at
most :data:`MAX_RESPONSE`), so a module that hangs or floods cannot stall or exhaust
the agent.  Whatever goes wrong -- the module cannot be started, exits, sends
garbage, or says nothing in time -- becomes a :class:`ModuleError` whose text names
the module and what it sent (with the end of its stderr), and the process is killed.
The module's stderr is collected by a thread and relayed at verbose level by the agent's
thread after each exchange.
"""
from __future__ import annotations

import collections
import os
import select
import signal
import subprocess
import threading
import time
from typing import Callable

from cfpromise.promises.custom.protocol import (AGENT_HEADER, Header, ProtocolError, Request,
                                                Response, encode, parse_header, parse_response,
                                                quote)

DEFAULT_TIMEOUT = 300.0
TIMEOUT_ENV = "CF_LITE_PROMISE_MODULE_TIMEOUT"
MAX_LINE = 1 << 20          # 1 MiB
MAX_RESPONSE = 8 << 20      # 8 MiB
STDERR_TAIL = 5             # lines of stderr quoted in an error


class ModuleError(Exception):
    """The module failed; the message is complete (names the module)."""


def timeout_from_env() -> float:
    value = os.environ.get(TIMEOUT_ENV, "")
    try:
        seconds = float(value)
    except ValueError:
        return DEFAULT_TIMEOUT
    return seconds if seconds > 0 else DEFAULT_TIMEOUT


class ModuleProcess:
    """A running module (after :meth:`start`, its header is known)."""

    def __init__(self, path: str, interpreter: str | None, *, timeout: float | None = None,
                 log: Callable[[str, str], None] | None = None, workdir: str = "") -> None:
        self.path = path
        self.workdir = workdir         # a module inside it must pass cfpromise.agent.trust
        self.interpreter = interpreter
        self.timeout = timeout_from_env() if timeout is None else timeout
        self.header: Header | None = None
        self._log = log or (lambda level, message: None)
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL)
        self._stderr_thread: threading.Thread | None = None
        self._pending: collections.deque[str] = collections.deque(maxlen=1000)
        self._input_closed = False

    # -- life cycle -----------------------------------------------------------------
    def start(self) -> Header:
        """Check the files, spawn the module, exchange headers (cf-agent's messages)."""
        if self.interpreter is not None and not os.access(self.interpreter, os.X_OK):
            raise ModuleError(f"Promise module interpreter '{self.interpreter}' is not an "
                              "executable file")
        if self.interpreter is None and not os.access(self.path, os.X_OK):
            raise ModuleError(f"Promise module path '{self.path}' is not an executable file")
        if not os.path.isfile(self.path):
            raise ModuleError(f"Promise module '{self.path}' does not exist")
        if self.workdir:
            from cfpromise.agent.trust import inside, module_problem
            problem = module_problem(self.path, self.workdir) \
                if inside(self.path, self.workdir) else None
            if problem is not None:
                raise ModuleError(f"Promise module '{self.path}' not run: {problem}")
        argv = [self.path] if self.interpreter is None else [self.interpreter, self.path]
        self._log("verbose", f"Starting custom promise module '{self.path}' with command "
                             f"'{' '.join(argv)}'")
        try:
            self._proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, close_fds=True,
                                          start_new_session=True)
        except OSError as exc:
            raise ModuleError(f"Promise module '{self.path}' could not be started: "
                              f"{exc.strerror or exc}") from None
        self._stderr_thread = threading.Thread(target=self._drain_stderr, daemon=True,
                                               name=f"stderr of {self.path}")
        self._stderr_thread.start()
        missing = "Did not receive header from promise module"
        self._write(f"{AGENT_HEADER}\n\n".encode(), "the header")
        line = self._readline("its header", what_missing=missing)
        try:
            header = parse_header(line)
        except ProtocolError as exc:
            self.kill()
            raise ModuleError(f"Promise module '{self.path}' {exc}{self._stderr_note()}") \
                from None
        empty = self._readline("the empty line after its header")
        if empty != "":
            self.kill()
            raise ModuleError(f"Promise module '{self.path}' failed to send empty line after "
                              f"header: {quote(empty)}{self._stderr_note()}")
        if header.ambiguous:
            self._log("warning", "Ambiguous protocol specification from the custom promise "
                                 f"module '{self.path}'. Please report this as a bug in the module")
        if not header.protocol_specified:
            self._log("warning", f"Custom promise module '{self.path}' didn't fully specify "
                                 "protocol. Using 'line_based' as the default. Please report "
                                 "this as a bug in the module")
        self.header = header
        self.relay_stderr()
        return header

    def request(self, request: Request) -> Response:
        """Send one request and read its response (ModuleError on any failure)."""
        assert self.header is not None
        try:
            data = encode(request, self.header.json)
        except ValueError as exc:
            raise ModuleError(f"Cannot send {request.operation} to promise module "
                              f"'{self.path}': {exc}") from None
        self._write(data, request.operation)
        lines: list[str] = []
        total = 0
        while True:
            line = self._readline(f"its answer to {request.operation}")
            if line == "":
                break
            total += len(line)
            if total > MAX_RESPONSE:
                self.kill()
                raise ModuleError(f"Promise module '{self.path}' sent more than "
                                  f"{MAX_RESPONSE} bytes in its answer to {request.operation}")
            lines.append(line)
        self.relay_stderr()
        for line in lines:
            self._log("debug", f"Received line from module: '{line}'")
        try:
            return parse_response(lines, self.header.json)
        except ProtocolError as exc:
            self.kill()
            raise ModuleError(f"Promise module '{self.path}' {exc} (in its answer to "
                              f"{request.operation}){self._stderr_note()}") from None

    def terminate(self) -> None:
        """Ask the module to terminate, wait a moment for it, then make sure it is gone."""
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None and self.header is not None:
            try:
                self.request(Request((("operation", "terminate"),)))
            except ModuleError as exc:
                self._log("verbose", str(exc))
        if proc.stdin is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=min(self.timeout, 5.0))
        except subprocess.TimeoutExpired:
            pass
        self.kill()

    def kill(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)     # the module and what it started
            except OSError:
                proc.kill()
        try:
            proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            pass
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        if self._stderr_thread is not None:
            self._stderr_thread.join(timeout=1.0)
        self._proc = None

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    # -- I/O ----------------------------------------------------------------------------
    def _write(self, data: bytes, what: str) -> None:
        """Send ``data``.  A module that stopped reading (it may have answered already
        and exited, as upstream's custom_promise_binary does) is not an error here, as
        in cf-agent: what it did send is still read, and its absence is reported."""
        assert self._proc is not None and self._proc.stdin is not None
        if self._input_closed:
            return
        try:
            self._proc.stdin.write(data)
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self._input_closed = True
            self._log("debug", f"Promise module '{self.path}' stopped reading (at {what})")

    def _readline(self, what: str, *, what_missing: str | None = None) -> str:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        deadline = time.monotonic() + self.timeout
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_LINE:
                self.kill()
                raise ModuleError(f"Promise module '{self.path}' sent a line longer than "
                                  f"{MAX_LINE} bytes (in {what})")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise ModuleError(f"Promise module '{self.path}' did not send {what} within "
                                  f"{self.timeout:g} s (killed){self._stderr_note()}")
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                if what_missing is not None:
                    raise self._gone("", prefix=f"{what_missing} '{self.path}'")
                raise self._gone(f"before sending {what}")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace")

    def _gone(self, when: str, *, prefix: str | None = None) -> ModuleError:
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                pass
        self.kill()
        status = "" if code is None else (f" (killed by signal {-code})" if code < 0
                                          else f" (exit code {code})")
        head = prefix or f"Promise module '{self.path}' exited {when}".rstrip()
        return ModuleError(f"{head}{status}{self._stderr_note()}")

    def _drain_stderr(self) -> None:
        proc = self._proc
        if proc is None or proc.stderr is None:
            return
        for raw in proc.stderr:
            line = raw.decode("utf-8", errors="replace").rstrip("\n")
            self._stderr.append(line[:500])
            self._pending.append(line[:2000])

    def relay_stderr(self) -> None:
        """Log (at verbose level, from the agent's thread) what the module wrote to stderr."""
        while self._pending:
            self._log("verbose", f"Promise module '{self.path}' (stderr): {self._pending.popleft()}")

    def _stderr_note(self) -> str:
        if self._stderr_thread is not None:
            self._stderr_thread.join(timeout=0.2)
        tail = [line.strip() for line in self._stderr if line.strip()]
        return f"; its stderr ends: {' | '.join(tail)}" if tail else ""
