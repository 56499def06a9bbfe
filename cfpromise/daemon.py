"""The one skeleton cf-lite's daemons share (cf-lite-serverd, cf-lite-monitord).

A daemon is a subclass of :class:`Daemon` with three hooks:

* ``load()``: read the policy; return the paths of the files it read.  Raise
  :class:`PolicyError` (or anything) to refuse a policy: at start-up that is fatal (exit 1),
  on a reload the old policy stays in force and the error is logged, as CFEngine's daemons do.
* ``tick(now)``: the periodic work (a monitor sample); return the seconds until the next
  tick, or ``None`` for no periodic work.
* ``shutdown()``: release what the daemon holds (sockets, stores) on a clean stop.

and the services it may use: ``self.log(level, message)``, ``self.register(fileobj,
callback)`` / ``self.unregister(fileobj)`` (the callback runs in the main loop when the
object is readable: a listening socket), ``self.request_stop()`` (thread safe) and
``self.request_reload()``.

What :meth:`Daemon.run` does, as cf-serverd / cf-monitord 3.21:

* without ``-F`` it detaches (double fork, new session, stdio on /dev/null) and logs to
  syslog (facility LOG_DAEMON unless ``facility`` is set, ident the CFEngine daemon's name);
  with ``-F`` it stays in the foreground and logs to stdout as ``cf-monitord     info: ...``
  (``-l`` adds ``2026-11-24T21:43:10+0000`` after the name).
* a pid file ``WORKDIR/<name>.pid`` (``cf-serverd.pid``, ``cf-monitord.pid``) while it runs,
  in both modes, removed on a clean stop; a pid file naming a live process of the same
  program refuses a second copy.
* SIGTERM / SIGINT: a clean stop (``shutdown()``, pid file removed, exit 0).
  SIGHUP: reload the policy now.
* every ``policy_check_interval`` seconds (5 by default; env ``CF_LITE_POLICY_CHECK_INTERVAL``)
  the files ``load()`` returned are stat'ed; one whose mtime/size changed is digested, and a
  changed digest (or a vanished file) reloads the policy.
* the loop sleeps in ``select`` on a wake-up pipe (signals and ``request_stop`` write to it)
  and the registered objects until the next tick or policy check: idle, it uses no CPU.
* an exception in ``tick`` or a callback is logged and the loop goes on: daemons do not die.

Command line: :data:`ROWS_DAEMON` are the options every CFEngine daemon has (``-F``,
``-f FILE`` / positional ``FILE``, ``-I``, ``-v``, ``-d``, ``-g``, ``-l``, ``-C``, ``-K``,
``-D``, ``-N``, ``-x``, ``-V``, ``--ignore-preferred-augments``, ``-w/--workdir``),
:func:`cfpromise.cli.entry.getopt_start` reads them as getopt_long does and
:func:`options_from_args` turns them into :class:`DaemonOptions` (workdir from
``CFENGINE_TEST_OVERRIDE_WORKDIR``, then ``--workdir``, then the default).
"""
from __future__ import annotations

import hashlib
import os
import selectors
import signal
import sys
import threading
import time
import attrs
from typing import Any, Callable, Iterable, TextIO

from cfpromise.agent.output import COLOR, LEVELS, PREFIX
from cfpromise.cli.compat import ROW_AUGMENTS, ROW_RETIRED_DIAGNOSTIC, ROWS_GETOPT_ONLY, ROWS_OUTPUT

SYSLOG_PRIORITY = {"debug": 7, "verbose": 7, "info": 6, "notice": 5, "warning": 4,
                   "error": 3, "critical": 2}
DEFAULT_POLICY_CHECK_INTERVAL = 5.0


class PolicyError(Exception):
    """The policy could not be loaded (the message says why, naming the file)."""


@attrs.define
class DaemonOptions:
    workdir: str
    file: str
    foreground: bool = False
    level: str = "notice"
    timestamps: bool = False
    no_lock: bool = False
    define: list[str] = attrs.field(factory=list)
    negate: list[str] = attrs.field(factory=list)
    policy_check_interval: float = DEFAULT_POLICY_CHECK_INTERVAL
    ignore_preferred_augments: bool = False
    color: bool = False


ROWS_DAEMON = (
    (("-F", "--no-fork"), dict(action="store_true",
                               help="run in the foreground, logging to stdout (also -v, -d)")),
    (("-f", "--file"), dict(help="policy file (one not starting with / or . is in "
                                 "WORKDIR/inputs)")),
    (("policy",), dict(nargs="?", help="policy file, as with -f")),
    *ROWS_OUTPUT,
    (("-K", "--no-lock"), dict(action="store_true", help="ignore locks")),
    (("-D", "--define"), dict(action="append", default=[], help="classes to define")),
    (("-N", "--negate"), dict(action="append", default=[], help="classes to negate")),
    ROW_RETIRED_DIAGNOSTIC,
    ROW_AUGMENTS,
    *ROWS_GETOPT_ONLY,
    (("-w", "--workdir"), dict(help="the work directory")),
    (("-V", "--version"), dict(action="store_true")),
)
"""The options every cf-lite daemon takes (-D and -N: cf-serverd's, extra in cf-lite-monitord;
-w: cf-lite's), read by :mod:`cfpromise.cli.gnuopts` as getopt_long reads them."""

STOPS = ("version", "diagnostic", "manpage", "unhandled")
"""What the daemons act on as soon as it is read (cfpromise.cli.entry.getopt_start)."""


def options_from_args(args: Any) -> DaemonOptions:
    from cfpromise.cli.agent import default_workdir, resolve_file
    from cfpromise.cli.compat import colored
    workdir = os.environ.get("CFENGINE_TEST_OVERRIDE_WORKDIR") or args.workdir or default_workdir()
    level = args.log_level or "notice"
    interval = DEFAULT_POLICY_CHECK_INTERVAL
    try:
        interval = float(os.environ.get("CF_LITE_POLICY_CHECK_INTERVAL", interval))
    except ValueError:
        pass
    return DaemonOptions(
        workdir=workdir, file=resolve_file(args.policy or args.file, workdir, args.policy is None),
        # -v and -d keep cf-serverd and cf-monitord in the foreground too
        foreground=args.no_fork or bool({"-v", "-d"} & set(args.given)), level=level,
        timestamps=args.timestamp, no_lock=args.no_lock,
        define=[c for item in args.define for c in item.split(",") if c],
        negate=[c for item in args.negate for c in item.split(",") if c],
        policy_check_interval=max(interval, 0.05),
        ignore_preferred_augments=args.ignore_preferred_augments,
        color=colored(args, sys.stdout))


class DaemonLog:
    """cf-<daemon>'s log lines: stdout in the foreground, syslog once detached."""

    def __init__(self, name: str, level: str, timestamps: bool,
                 stream: TextIO | None = None, color: bool = False) -> None:
        self.name = name
        self.color = color          # -C: the line in the level's colour, as cf-serverd
        self.threshold = LEVELS[level]
        self.timestamps = timestamps
        self.stream = stream or sys.stdout
        self.syslog: Any = None
        self.lock = threading.Lock()

    def enabled(self, level: str) -> bool:
        return LEVELS[level] >= self.threshold

    def to_syslog(self, facility: str = "LOG_DAEMON") -> None:
        import syslog
        syslog.openlog(self.name, syslog.LOG_PID,
                       getattr(syslog, facility.upper(), syslog.LOG_DAEMON))
        self.syslog = syslog

    def log(self, level: str, message: str) -> None:
        if LEVELS[level] < self.threshold:
            return
        # a peer's undecodable bytes (surrogateescape) are logged as \xNN, never dropped
        message = message.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        with self.lock:
            if self.syslog is not None:
                self.syslog.syslog(SYSLOG_PRIORITY[level], message)
                return
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z ") if self.timestamps else ""
            try:
                line = f"{self.name} {stamp}{PREFIX[level]}{message}\n"
                if self.color and level in COLOR:
                    line = COLOR[level] + line + "\x1b[0m"
                self.stream.write(line)
                self.stream.flush()
            except (OSError, ValueError):
                pass


def file_digest(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


class InputWatch:
    """The loaded policy files: (mtime, size) to notice a change cheaply, a digest to be sure."""

    def __init__(self, paths: Iterable[str] = ()) -> None:
        self.files: dict[str, tuple[int, int, str | None]] = {}
        for path in paths:
            self.files[path] = (*_stat(path), file_digest(path))

    def changed(self) -> list[str]:
        out = []
        for path, (mtime, size, digest) in list(self.files.items()):
            now = _stat(path)
            if now == (mtime, size):
                continue
            new = file_digest(path)
            if new != digest or new is None:
                out.append(path)
            else:   # touched, same content: remember the new stat
                self.files[path] = (*now, digest)
        return out


def _stat(path: str) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (-1, -1)
    return (st.st_mtime_ns, st.st_size)


class Daemon:
    """Subclass and give ``name``; override ``load``, ``tick``, ``shutdown``."""

    name = "cf-daemon"
    facility = "LOG_DAEMON"
    # Refuse to start while another copy's pid file names a live process (cf-monitord);
    # cf-serverd 3.21 runs beside another one on the same WORKDIR (another port) and only
    # overwrites the pid file, so the server sets this False.
    single_instance = True
    retry_after = 60.0          # seconds to the next tick when a tick raised

    def __init__(self, options: DaemonOptions, stream: TextIO | None = None) -> None:
        self.options = options
        self.out = DaemonLog(self.name, options.level, options.timestamps, stream,
                             options.color)
        self.selector = selectors.DefaultSelector()
        self.watch = InputWatch()
        self._stop = False
        self._reload = False
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self.selector.register(self._wake_r, selectors.EVENT_READ, None)

    # -- hooks -----------------------------------------------------------------------------
    def load(self) -> Iterable[str]:
        """Load the policy; return the files read."""
        return [self.options.file]

    def tick(self, now: float) -> float | None:
        return None

    def shutdown(self) -> None:
        pass

    # -- services --------------------------------------------------------------------------
    def log(self, level: str, message: str) -> None:
        self.out.log(level, message)

    def register(self, fileobj: Any, callback: Callable[[Any], None]) -> None:
        self.selector.register(fileobj, selectors.EVENT_READ, callback)

    def unregister(self, fileobj: Any) -> None:
        try:
            self.selector.unregister(fileobj)
        except (KeyError, ValueError):
            pass

    def request_stop(self) -> None:
        self._stop = True
        self._wake()

    def request_reload(self) -> None:
        self._reload = True
        self._wake()

    @property
    def pid_path(self) -> str:
        return os.path.join(self.options.workdir, f"{self.name}.pid")

    # -- the loop --------------------------------------------------------------------------
    def run(self) -> int:
        """Start (detaching unless -F), loop until SIGTERM/SIGINT; the exit status."""
        other = running_pid(self.pid_path, self.name) if self.single_instance else None
        if other is not None:
            self.log("error", f"{self.name} is already running (pid {other}, "
                              f"pid file '{self.pid_path}')")
            return 1
        if not self._reload_policy(first=True):
            return 1
        if not self.options.foreground:
            self.log("info", f"{self.name}: starting")
            if _detach():
                return 0                                  # the parent's exit
            self.out.to_syslog(self.facility)
        try:
            write_pid(self.pid_path)
        except OSError as err:
            self.log("error", f"Could not write pid file '{self.pid_path}' ({err.strerror})")
            return 1
        old = self._install_signals()
        try:
            self._loop()
        finally:
            self._restore_signals(old)
            try:
                self.shutdown()
            except Exception as err:   # noqa: BLE001 - a stop must finish
                self.log("error", f"Error while stopping: {err}")
            remove_pid(self.pid_path)
            self.log("info", f"{self.name} stopped")
        return 0

    def _loop(self) -> None:
        now = time.monotonic()
        next_tick: float | None = now
        next_check = now + self.options.policy_check_interval
        while not self._stop:
            now = time.monotonic()
            due = next_check if next_tick is None else min(next_tick, next_check)
            for key, _ in self.selector.select(max(0.0, due - now)):
                if key.data is None:
                    self._drain()
                else:
                    self._guard(key.data, key.fileobj)
            if self._stop:
                break
            now = time.monotonic()
            if self._reload:
                self._reload = False
                self.log("info", "SIGHUP: reloading the policy")
                self._reload_policy()
            if now >= next_check:
                changed = self.watch.changed()
                if changed:
                    self.log("info", f"Policy file '{changed[0]}' changed: reloading the policy")
                    self._reload_policy()
                next_check = now + self.options.policy_check_interval
            if next_tick is not None and now >= next_tick:
                delay = self._guard(self.tick, time.time())
                next_tick = None if delay is None else time.monotonic() + max(float(delay), 0.0)

    def _guard(self, function: Callable[..., Any], *args: Any) -> Any:
        try:
            return function(*args)
        except Exception as err:   # noqa: BLE001 - daemons never die of one step
            self.log("error", f"{getattr(function, '__name__', 'step')} failed: "
                              f"{type(err).__name__}: {err}")
            return self.retry_after if function == self.tick else None

    def _reload_policy(self, first: bool = False) -> bool:
        try:
            paths = list(self.load())
        except Exception as err:   # noqa: BLE001 - a bad policy must not kill the daemon
            if first:
                self.log("error", f"Policy failed to load: {err}")
            else:
                self.log("error", f"New policy failed to load, keeping the old one: {err}")
                self.watch = InputWatch(self.watch.files)   # do not retry until it changes
            return False
        self.watch = InputWatch(paths)
        return True

    # -- signals ---------------------------------------------------------------------------
    def _install_signals(self) -> dict[int, Any]:
        old: dict[int, Any] = {}
        handlers = {signal.SIGTERM: self._on_stop, signal.SIGINT: self._on_stop,
                    signal.SIGHUP: self._on_hup}
        for sig, handler in handlers.items():
            old[sig] = signal.signal(sig, handler)
        old[-1] = signal.set_wakeup_fd(self._wake_w, warn_on_full_buffer=False)
        return old

    def _restore_signals(self, old: dict[int, Any]) -> None:
        signal.set_wakeup_fd(old.pop(-1))
        for sig, handler in old.items():
            signal.signal(sig, handler)

    def _on_stop(self, signum: int, frame: Any) -> None:
        self._stop = True

    def _on_hup(self, signum: int, frame: Any) -> None:
        self._reload = True

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"\0")
        except OSError:
            pass

    def _drain(self) -> None:
        try:
            while os.read(self._wake_r, 512):
                pass
        except OSError:
            pass


# -- pid file and detaching -------------------------------------------------------------------
def write_pid(path: str) -> None:
    """Write our pid to ``path`` (mode 0666 less the umask, as open() would make it)."""
    from cfpromise.atomic import UMASK, write_atomically
    write_atomically(path, f"{os.getpid()}\n", mode=UMASK, temp=f"{path}.{os.getpid()}.tmp",
                     fsync=False, make_dirs=False)


def remove_pid(path: str) -> None:
    """Remove the pid file if it is ours."""
    try:
        with open(path, encoding="ascii") as handle:
            if int(handle.read().strip() or 0) != os.getpid():
                return
        os.unlink(path)
    except (OSError, ValueError):
        pass


def running_pid(path: str, name: str) -> int | None:
    """The pid in ``path`` if it is a live process other than us running ``name``'s program."""
    try:
        with open(path, encoding="ascii") as handle:
            pid = int(handle.read().strip())
    except (OSError, ValueError):
        return None
    if pid == os.getpid() or pid <= 0:
        return None
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            cmdline = handle.read().decode(errors="replace")
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[-1].split()[0]
    except (OSError, IndexError):
        return None
    if state == b"Z":
        return None
    short = name.removeprefix("cf-")
    return pid if short in cmdline else None


def _detach() -> bool:
    """Double fork into a new session; True in the original process (which should exit)."""
    sys.stdout.flush()
    sys.stderr.flush()
    if os.fork() > 0:
        return True
    os.setsid()
    if os.fork() > 0:
        os._exit(0)
    os.chdir("/")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    if null > 2:
        os.close(null)
    return False
