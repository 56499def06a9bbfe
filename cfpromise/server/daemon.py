"""cf-lite-serverd on the shared daemon skeleton: listen, admit, hand each agent a thread.

``load()`` evaluates the policy (:mod:`cfpromise.server.policy`) and swaps the
access rules in one assignment, so connections already running keep the rules
they started with; it (re)binds the listening socket when ``port`` or
``bindtointerface`` change and rebuilds the TLS context (``allowciphers``,
``allowtlsversion``).  The accept callback runs in the skeleton's select loop:
``allowconnects``/``denyconnects``, one connection per address unless
``allowallconnects`` admits it, and at most ``maxconnections`` at once are
decided there (:mod:`cfpromise.server.slots`: unidentified connections give way to
newcomers, so silent sockets cannot lock agents out), before a thread is started.
Threads, not asyncio: OpenSSL and file reads release the GIL, and 50 agents copying
at once were measured at the speed of cf-serverd (bench/serverd.py).  A connection
must identify its peer within ``handshake_timeout`` seconds (5; env
``CF_LITE_SERVERD_HANDSHAKE_TIMEOUT``), then times out after ``idle_timeout``
seconds of silence (600, cf-serverd's CONNTIMEOUT * 20; env
``CF_LITE_SERVERD_IDLE_TIMEOUT`` for tests).  The descriptor limit is raised to
its hard limit at start, and running out of descriptors (EMFILE) pre-empts an
unidentified connection instead of spinning or dying.
"""
from __future__ import annotations

import errno
import os
import socket
import threading
import time
from typing import Any, Iterable

from cfpromise.daemon import Daemon, DaemonOptions, PolicyError
from cfpromise.server.policy import ServerAccess
from cfpromise.server.slots import (DEFAULT_HANDSHAKE_TIMEOUT, HELLO, SILENT, Conn,
                                    ConnectionTable)

DEFAULT_IDLE_TIMEOUT = 600.0
FD_RESERVE = 32
# a deep accept queue: when hundreds of sockets knock at once, an agent's SYN is queued
# (and served in milliseconds) instead of dropped and retried a second or three later
LISTEN_BACKLOG = 1024
BIND_ATTEMPTS, BIND_PAUSE = 5, 0.5
OUT_OF_DESCRIPTORS = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


def _seconds(variable: str, default: float) -> float:
    try:
        value = float(os.environ.get(variable, default))
    except ValueError:
        return default
    return value if value > 0 else default


def _first_stage(sock: socket.socket) -> int:
    """HELLO when the peer's first message is already waiting (an agent sends its
    ClientHello with the connect), else SILENT: a cheap peek, without blocking."""
    from cfpromise.server.session import PEEK_SIZE
    try:
        head = sock.recv(PEEK_SIZE, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except OSError:
        return SILENT
    return HELLO if len(head) >= PEEK_SIZE else SILENT


def raise_descriptor_limit() -> int:
    """Soft RLIMIT_NOFILE up to the hard limit (as many servers do); the new soft limit."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            return target
        except (ValueError, OSError):
            pass
    return soft


def _normal_ip(address: str) -> str:
    return address[7:] if address.startswith("::ffff:") and "." in address else address


class ServerD(Daemon):
    name = "cf-serverd"
    single_instance = False       # cf-serverd 3.21 runs beside another one (other port)

    def __init__(self, options: DaemonOptions, stream: Any = None,
                 port: int | None = None) -> None:
        super().__init__(options, stream)
        self.access = ServerAccess()
        self.port_override = port
        self.listener: socket.socket | None = None
        self.bound: tuple[str, int] | None = None
        self.tls_context: Any = None
        self.host_key: Any = None
        self.lock = threading.Lock()
        self.threads: set[threading.Thread] = set()
        self.stopping = False
        self.idle_timeout = _seconds("CF_LITE_SERVERD_IDLE_TIMEOUT", DEFAULT_IDLE_TIMEOUT)
        self.handshake_timeout = _seconds("CF_LITE_SERVERD_HANDSHAKE_TIMEOUT",
                                          DEFAULT_HANDSHAKE_TIMEOUT)
        self.table = ConnectionTable(self.log, self.handshake_timeout)
        self._names: dict[str, str] = {}
        self._emfile_logged = 0.0
        # each connection holds a socket and, while it serves a file, one more descriptor;
        # FD_RESERVE more are kept for the policy, keys and logs
        self.max_by_descriptors = max(1, (raise_descriptor_limit() - FD_RESERVE) // 2)

    def tick(self, now: float) -> float | None:
        """Call-collect (``call_collect_interval``, cfpromise.server.callhub): call the
        hub in a thread of its own; look again in a minute when it is not set."""
        minutes = self.access.call_collect_interval
        if minutes <= 0:
            return 60.0
        from cfpromise.server.callhub import call_hub
        threading.Thread(target=call_hub, name="call-collect", daemon=True,
                         args=(self.options.workdir, self.access, self.log,
                               self.access.collect_window)).start()
        return minutes * 60.0

    # -- policy -------------------------------------------------------------------------------
    def load(self) -> Iterable[str]:
        from cfpromise.agent.loading import LoadError
        from cfpromise.net import keys
        from cfpromise.net.tls import TLSSetupError, server_context
        from cfpromise.server.policy import load_server_policy
        from cfpromise.syntax.errors import PolicyError as SyntaxError_
        opts = self.options
        try:
            access = load_server_policy(opts.file, opts.workdir, define=opts.define,
                                        negate=list(opts.negate),
                                        ignore_preferred_augments=opts.ignore_preferred_augments)
        except LoadError as err:
            raise PolicyError("; ".join(d.message for d in err.diagnostics[:3])) from None
        except SyntaxError_ as err:
            raise PolicyError("; ".join(d.render() for d in err.diagnostics[:3])) from None
        for message in access.errors:
            self.log("error", message)
        if self.host_key is None:
            try:
                self.host_key = keys.load_host_key(opts.workdir)
            except keys.KeyError_ as err:
                raise PolicyError(f"{err}") from None
        context = self._tls_context(access)
        port = self.port_override or access.port
        where = (access.bindtointerface, port)
        if where != self.bound:
            listener = self._listen(*where, patient=self.listener is None)
            if self.listener is not None:
                self.unregister(self.listener)
                self.listener.close()
            self.listener, self.bound = listener, where
            self.register(listener, self._accept)
            self.log("info", f"Listening for connections on port {port}")
        self.tls_context = context
        if not self.access.files:
            self.log("notice", "Server is starting...")
        self.access = access
        self.log("verbose", f"Loaded server policy: {len(access.paths)} path rules")
        if access.maxconnections > self.max_by_descriptors:
            self.log("warning", f"maxconnections {access.maxconnections} is more than the "
                                f"file descriptor limit allows: {self.max_by_descriptors} "
                                "connections at most")
        return access.files

    def _tls_context(self, access: ServerAccess) -> Any:
        """The TLS context for ``allowciphers``/``allowtlsversion``.  As 3.21's
        TLSSetCipherList, names starting "TLS_" are TLS 1.3 suites and a list without
        any disables TLS 1.3; when the context cannot take the 1.3 suites themselves
        (the ssl module has no call for them), the 1.2 part is applied and TLS 1.3
        keeps OpenSSL's suites."""
        import ssl
        from cfpromise.net.tls import TLSSetupError, server_context
        ciphers = access.allowciphers
        key = self.host_key.private
        parts = [c for c in (ciphers or "").split(":") if c]
        suites = [c for c in parts if c.startswith("TLS_")]
        older = ":".join(c for c in parts if not c.startswith("TLS_")) or None
        try:
            try:
                context = server_context(key, ciphers, access.allowtlsversion)
            except TLSSetupError:
                if not suites or not ciphers:
                    raise
                self.log("verbose", f"TLS 1.3 cipher suites '{':'.join(suites)}' cannot be "
                                    "restricted here: TLS 1.3 keeps OpenSSL's suites")
                context = server_context(key, older, access.allowtlsversion)
        except TLSSetupError as err:
            raise PolicyError(str(err)) from None
        if ciphers and not suites:
            self.log("warning", "Disabling TLS 1.3 because no TLS 1.3 ciphersuites specified "
                                f"in allowed ciphers: '{ciphers}'")
            context.options |= ssl.OP_NO_TLSv1_3
        return context

    def _listen(self, interface: str, port: int, patient: bool = False) -> socket.socket:
        """Bind and listen.  At start (``patient``) a port still held is tried again
        BIND_ATTEMPTS times, BIND_PAUSE seconds apart, as nginx does: a server restarted
        by a term-then-kill finds its predecessor's socket gone a moment later, where
        cf-serverd 3.21 gives up at once.  A reload never waits: the old port serves on."""
        attempts = BIND_ATTEMPTS if patient else 1
        for attempt in range(1, attempts + 1):
            try:
                sock = _bound(interface, port)
                break
            except OSError as err:
                if err.errno != errno.EADDRINUSE or attempt == attempts:
                    raise PolicyError(f"Could not bind to port {port}"
                                      f"{' on ' + interface if interface else ''}: "
                                      f"{err.strerror}") from None
                self.log("notice", f"Port {port} is in use ({err.strerror}), trying again in "
                                   f"{BIND_PAUSE} seconds")
                time.sleep(BIND_PAUSE)
        sock.setblocking(False)
        return sock

    # -- connections ----------------------------------------------------------------------------
    def _accept(self, listener: socket.socket) -> None:
        try:
            sock, address = listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        except OSError as err:
            if err.errno in OUT_OF_DESCRIPTORS:
                self._out_of_descriptors(err)
            else:
                self.log("error", f"accept failed: {err.strerror}")
            return
        ip = _normal_ip(address[0])
        conn = self._admit(ip, sock.fileno(), _first_stage(sock))
        sock.setblocking(True)
        if conn is None:
            sock.close()
            return
        thread: threading.Thread | None = None
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            thread = threading.Thread(target=self._serve, args=(sock, ip, conn), daemon=True,
                                      name=f"serverd-{ip}")
            with self.lock:
                self.threads.add(thread)
            thread.start()
        except (OSError, RuntimeError) as err:   # no thread to be had: refuse, keep serving
            self.log("error", f"Unable to serve '{ip}': {err}")
            if thread is not None:
                with self.lock:
                    self.threads.discard(thread)
            self.table.release(conn)
            sock.close()

    def _out_of_descriptors(self, err: OSError) -> None:
        """accept() failed for want of descriptors: the connection stays in the backlog and
        the listener readable, so free a pending slot (or pause) rather than spin."""
        now = time.monotonic()
        if now - self._emfile_logged > 10:
            self._emfile_logged = now
            self.log("error", f"accept failed: {err.strerror}; dropping an unidentified "
                              "connection to make room")
        if not self.table.evict_oldest("no file descriptors left"):
            time.sleep(0.05)

    def _admit(self, ip: str, fd: int, stage: int = SILENT) -> Conn | None:
        from cfpromise.server.session import listed
        access = self.access
        if access.allowconnects and not listed(access.allowconnects, ip):
            self.log("error", f"Remote host '{ip}' not in allowconnects, denying connection")
            return None
        if listed(access.denyconnects, ip):
            self.log("error", f"Remote host '{ip}' is in denyconnects, denying connection")
            return None
        return self.table.admit(ip, fd, listed(access.allowallconnects, ip),
                                min(access.maxconnections, self.max_by_descriptors), stage)

    def _serve(self, sock: socket.socket, ip: str, conn: Conn) -> None:
        from cfpromise.server.session import Session
        me = threading.current_thread()
        try:
            self.log("info", f"{ip}> ".ljust(17) + "Accepting connection")
            Session(self, sock, ip, conn).run()
        finally:
            self.table.release(conn)          # (Session.run released it before closing)
            with self.lock:
                self.threads.discard(me)

    def reverse_lookup(self, ip: str) -> str:
        """The peer's name for hostname rules (only looked up when some rule names one)."""
        access = self.access
        if not any(e.admit.hostnames or e.deny.hostnames
                   for table in (access.paths, access.classes, access.literals,
                                 access.queries, access.variables)
                   for e in table.entries.values()):
            return ""
        if ip not in self._names:
            if len(self._names) >= 4096:          # bounded: forget the oldest answers
                self._names.pop(next(iter(self._names)))
            try:
                self._names[ip] = socket.gethostbyaddr(ip)[0]
            except OSError:
                self._names[ip] = ""
        return self._names[ip]

    def shutdown(self) -> None:
        self.log("notice", "Cleaning up and exiting...")
        self.stopping = True
        if self.listener is not None:
            self.unregister(self.listener)
            self.listener.close()
            self.listener = None
        self.table.close_all()
        with self.lock:
            threads = list(self.threads)
        deadline = time.monotonic() + 2.0        # one bound for all: SIGTERM stops in seconds
        for thread in threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))


def _bound(interface: str, port: int) -> socket.socket:
    """A listening socket on ``interface`` (every address, both families, when empty)."""
    if interface:
        infos = socket.getaddrinfo(interface, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
        family, _, _, _, address = infos[0]
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
            sock.listen(LISTEN_BACKLOG)
        except OSError:
            sock.close()
            raise
        return sock
    if socket.has_dualstack_ipv6():
        return socket.create_server(("::", port), family=socket.AF_INET6,
                                    dualstack_ipv6=True, backlog=LISTEN_BACKLOG)
    return socket.create_server(("", port), backlog=LISTEN_BACKLOG)
