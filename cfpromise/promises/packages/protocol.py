"""The package module protocol, as cf-agent 3.21 speaks it (API version 1).

A package module is an executable (or a script run by ``interpreter``) that the
agent starts once per request: the request name is its last argument, the
request data its standard input, one ``key=value`` per line, and its answer
its standard output, one ``key=value`` per line::

    supports-api-version   ->  1
    get-package-data       <-  options=..., File=NAME [Version=, Architecture=]
                           ->  PackageType=repo|file, Name=, [Version=, Architecture=]
    list-installed         <-  options=...
    list-updates[-local]   ->  Name=, Version=, Architecture= per package
    repo-install           <-  options=..., then Name=, [Version=, Architecture=] per package
    file-install           <-  options=..., File=
    remove                 <-  options=..., Name=, [Version=, Architecture=]
                           ->  nothing, or ErrorMessage= lines

A module that cannot be started, exits non-zero, times out, sends more than
:data:`MAX_OUTPUT` bytes or a line outside its request's answer raises
:class:`ModuleError` with one message naming the module, the request and what
it sent; the caller turns it into a not-kept promise.  Standard error is
collected and shown in that message (cf-agent lets it through to the
terminal).  Where the module is looked up: ``module_path`` when the body sets
it, else ``WORKDIR/modules/packages/NAME``, else cf-lite's own module of that
name shipped in ``cfpromise/modules/packages`` (run with this Python).
"""
from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time

from cfpromise.agent import trust
from cfpromise.fast.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

API_VERSION = 1
TIMEOUT_S = 4 * 3600.0           # PACKAGE_PROMISE_SCRIPT_TIMEOUT_SEC
TIMEOUT_ENV = "CF_LITE_PACKAGE_MODULE_TIMEOUT"
MAX_OUTPUT = 64 * 1024 * 1024
SHIPPED = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))), "modules", "packages")

_ERRORS = ("ErrorMessage=", "Error=")


class ModuleError(Exception):
    """One message saying which module failed, on which request, and what it sent."""


# The records are @record classes (namedtuples) and PackageModule a plain slotted class,
# not attrs classes: masterfiles' dry run loads this module (for the package inventory),
# and attrs' import and class generation were most of what the run's promise-type
# modules cost at start.

@record
class ModuleBody:
    """A ``body package_module`` (cf-agent's PackageModuleBody)."""

    name: str
    installed_ifelapsed: int | None = None
    updates_ifelapsed: int | None = None
    default_options: tuple[str, ...] = ()
    interpreter: str = ""
    module_path: str = ""

    @classmethod
    def from_attributes(cls, name: str, body: dict[str, Any]) -> ModuleBody:
        options = body.get("default_options")
        if options in (None, ""):
            options = []
        # Unset is 0 (cf-agent's PackageModuleBody is zero-filled), a value that is not an
        # integer is CF_NOINT (None): the promise fails its sanity check.
        return cls(name, _int(body.get("query_installed_ifelapsed", 0)),
                   _int(body.get("query_updates_ifelapsed", 0)),
                   tuple(options) if isinstance(options, list) else (str(options),),
                   str(body.get("interpreter") or ""), str(body.get("module_path") or ""))


@record
class PackageData:
    """The answer to get-package-data."""

    type: str                    # "repo" or "file"
    name: str
    version: str | None = None
    arch: str | None = None


Package = tuple[str, str, str]   # name, version, architecture


def _int(value: Any) -> int | None:
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def _timeout() -> float:
    value = os.environ.get(TIMEOUT_ENV, "")
    try:
        return float(value) if value else TIMEOUT_S
    except ValueError:
        return TIMEOUT_S


def locate(body: ModuleBody, workdir: str) -> PackageModule:
    """The module process to start for ``body`` (cf-agent's GetPackageModuleExecInfo),
    checked as cf-agent checks it; ModuleError when it cannot run."""
    path = body.module_path or os.path.join(workdir, "modules", "packages", body.name)
    interpreter = body.interpreter
    if not body.module_path and not os.path.exists(path):
        shipped = os.path.join(SHIPPED, body.name)
        if os.path.isfile(shipped):
            return PackageModule(body.name, [sys.executable, "-I", "-S", shipped])
    if os.path.exists(path) and trust.inside(path, workdir):
        problem = trust.module_problem(path, workdir)
        if problem is not None:
            raise ModuleError(f"Package module '{path}' not run: {problem} "
                              f"(package module '{body.name}')")
    if interpreter:
        from cfpromise.eval.functions.system import split_command
        words = split_command(interpreter)
        if not words or not os.access(words[0], os.X_OK):
            raise ModuleError(f"Cannot find package module interpreter at location "
                              f"'{words[0] if words else interpreter}' or access to the file "
                              f"is restricted (package module '{body.name}')")
        if not os.access(path, os.R_OK):
            raise ModuleError(f"Cannot find package module script at location '{path}' or "
                              f"access to the file is restricted (package module '{body.name}')")
        return PackageModule(body.name, words + [path])
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise ModuleError(f"Cannot find package module at location '{path}' or access to file "
                          f"is restricted (package module '{body.name}')")
    return PackageModule(body.name, [path])


def options_lines(options: tuple[str, ...] | list[str]) -> list[str]:
    return [f"options={o}" for o in options]


class PackageModule:
    """One package module: each request starts it once."""

    __slots__ = ("name", "argv", "calls")

    def __init__(self, name: str, argv: list[str]) -> None:
        self.name = name
        self.argv = argv
        self.calls: list[str] = []      # requests made (for messages and tests)

    # -- requests ---------------------------------------------------------------
    def api_version(self) -> int:
        lines = self.call("supports-api-version", [])
        if len(lines) != 1 or not lines[0].strip().lstrip("-").isdigit():
            raise ModuleError(self._said("supports-api-version", "an answer that is not an API "
                                         "version", lines))
        version = int(lines[0])
        if version != API_VERSION:
            raise ModuleError(f"Unsupported package module wrapper API version: {version} "
                              f"(package module '{self.name}')")
        return version

    def package_data(self, name: str, version: str | None, arch: str | None,
                     options: tuple[str, ...]) -> PackageData:
        request = options_lines(options) + [f"File={name}"]
        request += [f"Version={version}"] if version is not None else []
        request += [f"Architecture={arch}"] if arch is not None else []
        lines = self.call("get-package-data", request)
        found: dict[str, str] = {}
        for line in lines:
            key, sep, value = line.partition("=")
            if not sep or key not in ("PackageType", "Name", "Version", "Architecture"):
                raise ModuleError(self._said("get-package-data", "a line outside the protocol",
                                             [line]))
            if key in found:
                raise ModuleError(self._said("get-package-data", f"a second {key} line", [line]))
            found[key] = value
        kind = found.get("PackageType")
        if kind not in ("repo", "file") or not found.get("Name"):
            raise ModuleError(self._said("get-package-data", "no package name or type (repo or "
                                         "file)", lines))
        return PackageData(kind, found["Name"], found.get("Version"), found.get("Architecture"))

    def listing(self, request: str, options: tuple[str, ...]) -> list[Package]:
        """list-installed, list-updates or list-updates-local: (name, version, arch)."""
        lines = self.call(request, options_lines(options))
        packages: list[Package] = []
        current: dict[str, str] = {}

        def flush() -> None:
            if {"Name", "Version", "Architecture"} <= current.keys():
                packages.append((current["Name"], current["Version"], current["Architecture"]))
            current.clear()

        for line in lines:
            key, sep, value = line.partition("=")
            if not sep or key not in ("Name", "Version", "Architecture"):
                raise ModuleError(self._said(request, "a line outside the protocol", [line]))
            if key == "Name":
                flush()
            current[key] = value
        flush()
        return packages

    def change(self, request: str, entries: list[str], options: tuple[str, ...]) -> None:
        """repo-install, file-install or remove: success is an empty answer."""
        lines = self.call(request, options_lines(options) + entries)
        if lines:
            errors = [ln for ln in lines if ln.startswith(_ERRORS)]
            raise ModuleError(self._said(request, "an error" if errors else
                                         "a line outside the protocol", errors or lines))

    # -- the process ---------------------------------------------------------------
    def call(self, request: str, lines: list[str]) -> list[str]:
        """Run the module for ``request`` with ``lines`` on its input; the lines it
        answered (blank ones dropped).  ModuleError unless it exits 0 in time."""
        self.calls.append(request)
        data = "".join(line + "\n" for line in lines).encode()
        try:
            proc = subprocess.Popen(self.argv + [request], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    close_fds=True, start_new_session=True)
        except OSError as exc:
            raise ModuleError(f"package module '{self.name}' cannot be started for '{request}': "
                              f"{exc.strerror or exc}") from None
        out, err, timed_out = _exchange(proc, data, _timeout())
        if timed_out:
            raise ModuleError(f"package module '{self.name}' did not answer '{request}' within "
                              f"{_timeout():g} s and was killed{_tail(out, err)}")
        if len(out) > MAX_OUTPUT:
            raise ModuleError(f"package module '{self.name}' sent more than {MAX_OUTPUT} bytes "
                              f"for '{request}'")
        answer = [ln for ln in out.decode("utf-8", "replace").splitlines() if ln.strip()]
        code = proc.returncode
        if code != 0:
            errors = [ln for ln in answer if ln.startswith(_ERRORS)]
            how = (f"was killed by signal {-code}" if code < 0 else f"exited with code {code}")
            raise ModuleError(f"package module '{self.name}' {how} on '{request}'"
                              f"{_tail(out if not errors else chr(10).join(errors).encode(), err)}")
        return answer

    def _said(self, request: str, what: str, lines: list[str]) -> str:
        shown = "; ".join(repr(ln) for ln in lines[:3]) or "nothing"
        return f"package module '{self.name}' answered '{request}' with {what}: {shown}"


def _tail(out: bytes, err: bytes) -> str:
    """What the module sent, shortened for a message."""
    parts = []
    for label, data in (("stdout", out), ("stderr", err)):
        lines = [ln for ln in data.decode("utf-8", "replace").splitlines() if ln.strip()]
        if lines:
            text = " | ".join(lines[-3:])
            parts.append(f"{label}: {text[:400]}")
    return ("; it sent " + "; ".join(parts)) if parts else "; it sent nothing"


def _exchange(proc: subprocess.Popen[bytes], data: bytes,
              timeout: float) -> tuple[bytes, bytes, bool]:
    """Write ``data``, read stdout and stderr until both close or the time is up
    (then the module's process group is killed).  Output past MAX_OUTPUT is dropped
    after one extra byte, so an endless module cannot exhaust memory."""
    assert proc.stdin and proc.stdout and proc.stderr
    deadline = time.monotonic() + timeout
    out, err = bytearray(), bytearray()
    sel = selectors.DefaultSelector()
    pending = memoryview(data)
    if pending:
        os.set_blocking(proc.stdin.fileno(), False)
        sel.register(proc.stdin, selectors.EVENT_WRITE)
    else:
        proc.stdin.close()
    sel.register(proc.stdout, selectors.EVENT_READ, out)
    sel.register(proc.stderr, selectors.EVENT_READ, err)
    timed_out = overflow = False
    try:
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in sel.select(min(left, 1.0)):
                if key.fileobj is proc.stdin:
                    try:
                        n = os.write(proc.stdin.fileno(), pending[:65536])
                    except (BrokenPipeError, BlockingIOError) as exc:
                        n = 0 if isinstance(exc, BlockingIOError) else len(pending)
                    pending = pending[n:]
                    if not pending:
                        sel.unregister(proc.stdin)
                        proc.stdin.close()
                    continue
                chunk = os.read(key.fileobj.fileno(), 65536)  # type: ignore[union-attr]
                buf = key.data
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                buf += chunk
                if len(buf) > MAX_OUTPUT:
                    overflow = True
            if overflow:
                break
    finally:
        sel.close()
    if timed_out or overflow:
        _kill(proc)
    else:
        left = max(deadline - time.monotonic(), 0.1)
        try:
            proc.wait(timeout=left)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill(proc)
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        try:
            stream.close()
        except OSError:
            pass
    return bytes(out), bytes(err), timed_out


def _kill(proc: subprocess.Popen[bytes]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except OSError:
            pass
        try:
            proc.wait(timeout=1.0)
            return
        except subprocess.TimeoutExpired:
            continue
