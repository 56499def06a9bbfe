"""The server's connection table: who holds a slot, and who gives one up for a newcomer.

Why (issue #27): the idle timeout (600 s) ran from accept and every connection held a
slot, so ``maxconnections`` sockets that never finished the handshake locked every agent
out for ten minutes, and an attacker could renew them for ever.  Now:

* A connection is *pending* from accept until its peer is identified (TLS: key trusted,
  ``OK WELCOME`` sent; classic: authenticated).  A pending connection has a short,
  total deadline (:data:`DEFAULT_HANDSHAKE_TIMEOUT`; the session enforces it on every
  read and write); the idle timeout applies to identified peers only.
* Pending connections are pre-emptible.  When a newcomer finds the table full, the
  oldest pending connection of the address holding the most pending ones is shut down
  to make room; an address that already holds half the table in pending connections
  (:func:`pending_cap`) gives up its own oldest one instead.  The connections that got
  least far go first (:data:`SILENT`, then :data:`HELLO`, then :data:`HANDSHAKEN`): an
  agent sends its whole ClientHello with the connect and finishes the TLS handshake in
  milliseconds, so it outlives silent sockets, even those from its own address.  A newcomer from an address
  outside ``allowallconnects`` replaces that address's pending connection (cf-serverd's
  one-connection rule still refuses it beside an identified one).
* Identified connections are never pre-empted: ``maxconnections`` identified peers, and
  only they, make the server refuse ("Too many threads"), as cf-serverd does.

So silent or slow sockets, however many and from however many addresses, cost a normal
agent nothing: it gets a slot at once, and its handshake (milliseconds) finishes long
before the attacker's own connections push it out (they push out the hoarder first).

Threads touch the table under one lock; a connection leaves it (:meth:`release`) before
its socket is closed, so :meth:`evict`'s ``shutdown(2)`` on the descriptor can never hit a
descriptor number the kernel has handed to a newer connection.
"""
from __future__ import annotations

import socket
import threading
import time
from typing import Callable

DEFAULT_HANDSHAKE_TIMEOUT = 5.0
# how far an unidentified connection got (pre-emption takes the lowest first)
SILENT, HELLO, HANDSHAKEN = 0, 1, 2      # nothing yet; a protocol's first message; TLS done


def pending_cap(maxconnections: int) -> int:
    """How many pending connections one address may hold: half the table (at least 1)."""
    return max(1, maxconnections // 2)


class Conn:
    """One accepted connection's entry."""

    __slots__ = ("ip", "fd", "since", "stage", "identified", "evicted")

    def __init__(self, ip: str, fd: int, stage: int = SILENT) -> None:
        self.ip = ip
        self.fd = fd
        self.since = time.monotonic()
        self.stage = stage
        self.identified = False
        self.evicted = False


class ConnectionTable:
    def __init__(self, log: Callable[[str, str], None],
                 handshake_timeout: float = DEFAULT_HANDSHAKE_TIMEOUT) -> None:
        self.log = log
        self.handshake_timeout = handshake_timeout
        self.lock = threading.Lock()
        self.conns: dict[Conn, None] = {}       # insertion order: oldest first

    def __len__(self) -> int:
        return len(self.conns)

    def addresses(self) -> list[str]:
        with self.lock:
            return [c.ip for c in self.conns]

    def admit(self, ip: str, fd: int, all_connects: bool, maxconnections: int,
              stage: int = SILENT) -> Conn | None:
        """A slot for a new connection from ``ip`` that got as far as ``stage`` (None:
        refused, logged)."""
        maxconnections = max(maxconnections, 1)
        with self.lock:
            self._expire(time.monotonic())
            mine = [c for c in self.conns if c.ip == ip]
            if not all_connects and mine:
                if any(c.identified for c in mine):
                    self.log("error", f"Remote host '{ip}' is not in allowallconnects, "
                                      "denying second simultaneous connection")
                    return None
                for c in mine:
                    self._evict(c, "a newer connection from the same address")
            pending = [c for c in mine if not c.identified and not c.evicted]
            if len(pending) >= pending_cap(maxconnections):
                victim = min(pending, key=lambda c: c.stage)      # the oldest of the lowest
                self._evict(victim, "its address holds too many unidentified connections")
            if len(self.conns) >= maxconnections and not self._evict_hoarder():
                self.log("error", f"Too many threads ({len(self.conns)} >= {maxconnections}), "
                                  "dropping connection! Increase server maxconnections?")
                return None
            conn = Conn(ip, fd, stage)
            self.conns[conn] = None
            return conn

    @staticmethod
    def progressed(conn: Conn, stage: int) -> None:
        """The peer got as far as ``stage``."""
        conn.stage = max(conn.stage, stage)

    def identified(self, conn: Conn) -> bool:
        """The peer is identified: from now on it keeps its slot.  False: it was
        pre-empted meanwhile (the session must end)."""
        with self.lock:
            if conn.evicted or conn not in self.conns:
                return False
            conn.identified = True
            return True

    def release(self, conn: Conn) -> None:
        """The connection ends (call before closing its socket)."""
        with self.lock:
            self.conns.pop(conn, None)

    def evict_oldest(self, why: str) -> bool:
        """Free one pending slot (no descriptors left): True if one was shut down."""
        with self.lock:
            return self._evict_hoarder(why)

    def close_all(self) -> None:
        """Shut every connection down (the daemon stops)."""
        with self.lock:
            for c in list(self.conns):
                self._shutdown(c)

    # -- under the lock ------------------------------------------------------------------------
    def _expire(self, now: float) -> None:
        """A backstop for the session's own deadline: pending connections past it (plus a
        second of grace) are shut down when the next connection arrives."""
        limit = self.handshake_timeout + 1.0
        for c in [c for c in self.conns if not c.identified and now - c.since > limit]:
            self._evict(c, "not identified in time")

    def _evict_hoarder(self, why: str = "the connection table is full") -> bool:
        pending = [c for c in self.conns if not c.identified]
        if not pending:
            return False
        lowest = min(c.stage for c in pending)
        counts: dict[str, int] = {}
        for c in pending:
            if c.stage == lowest:
                counts[c.ip] = counts.get(c.ip, 0) + 1
        most = max(counts.values())
        victim = next(c for c in pending if c.stage == lowest and counts[c.ip] == most)
        self._evict(victim, why)
        return True

    def _evict(self, conn: Conn, why: str) -> None:
        self.conns.pop(conn, None)
        conn.evicted = True
        self.log("info", f"{conn.ip}> ".ljust(17) + f"Dropping an unidentified connection "
                         f"({why})")
        self._shutdown(conn)

    @staticmethod
    def _shutdown(conn: Conn) -> None:
        # shutdown(2), not close(2): the session's thread still owns the descriptor; its
        # blocked read or handshake returns at once and it closes the socket itself.
        try:
            sock = socket.socket(fileno=conn.fd)
        except OSError:
            return
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        finally:
            sock.detach()
