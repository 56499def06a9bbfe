"""The promise lock database: ``ifelapsed`` and ``expireafter`` across agent runs.

cf-agent takes a lock before it actuates a promise and yields it afterwards,
recording when the promise last completed.  Two rules follow from the record:

* ``ifelapsed`` (minutes, default 1): a promise that completed less than that
  long ago is skipped, ``Nothing promised here [last.NAME] (0/1 minutes
  elapsed)`` at verbose level.  Minutes are whole minutes, as cf-agent counts.
* ``expireafter`` (minutes, default 120): a lock still held by another agent
  makes this one skip the promise (``Couldn't obtain lock for lock.NAME
  (already running!)``) until the lock is that old; then it is broken
  (``Lock expired after 121/120 minutes: lock.NAME``) and taken over.  A lock
  whose holder process no longer exists (same pid and start time, same boot) is
  taken over at once: a crashed agent does not block a promise for two hours.

The database is one SQLite file, WORKDIR/state/cf_lock.sqlite, in WAL mode with
a busy timeout, one row per lock::

    locks(key, holder_pid, holder_start, acquired, completed)

so two overlapping agents (two cron runs) stay correct: a decision is one
``BEGIN IMMEDIATE`` transaction (read the row, decide, claim), so exactly one
of two agents racing for a lock gets it; an agent that cannot get the write
lock within the busy timeout skips the promise rather than wait long.  SQLite's
journal keeps the file consistent if an agent dies mid-transaction.

Cost is kept small for the every-5-minutes cron run: nothing is opened (or even
imported) until the first lock is asked for, a release is only queued and
written in the same transaction as the next acquire (or by :meth:`flush` /
:meth:`close`), so a promise costs one transaction, with ``synchronous=NORMAL``
(no fsync per commit in WAL mode; a power cut may lose the last few records,
never the file).  The engine bypasses locks altogether under ``-K`` and ``-n``.

The records decide what runs, so the file is used only when
:mod:`cfpromise.agent.trust` trusts it: a database file (or its WAL) that is
another user's, a link, or writable by group or others is set aside as
``cf_lock.sqlite.untrusted-TIME`` and started afresh; under a state directory
that is not trusted the locks are kept in memory for this run only.  Either
way with one warning.
"""
from __future__ import annotations

import enum
import hashlib
import os
import time
from typing import TYPE_CHECKING, Any, Callable

from cfpromise.eval.canon import canonify
from cfpromise.fast.records import record

if TYPE_CHECKING:
    import sqlite3

DB_NAME = "cf_lock.sqlite"
DEFAULT_IFELAPSED = 1
DEFAULT_EXPIREAFTER = 120
DEFAULT_BUSY_TIMEOUT_S = 2.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS locks (
    key          TEXT PRIMARY KEY NOT NULL,
    holder_pid   INTEGER,   -- NULL when nobody holds the lock
    holder_start TEXT,      -- which process that pid was (boot id and start time)
    acquired     REAL,      -- when the holder took it
    completed    REAL       -- when the promise last completed
) WITHOUT ROWID
"""


class LockDecision(enum.Enum):
    ACQUIRED = "acquired"            # go ahead; release() when done
    TOO_SOON = "too_soon"            # completed less than ifelapsed minutes ago
    HELD_BY_OTHER = "held_by_other"  # another (live) agent holds it, or the DB is busy


@record
class LockGrant:
    """A decision with what cf-agent would say about it (:meth:`message`).

    A NamedTuple rather than an attrs class: a lock is taken on every run that
    is not ``-K``, and this record was what imported attrs (about 15 ms) and
    generated a class on a one-report run's start path; a NamedTuple is as frozen,
    compares the same and costs nothing to create (``_replace`` is attrs' evolve)."""

    decision: LockDecision
    key: str
    elapsed_minutes: int = 0         # since completion (TOO_SOON), since taken (held/broken)
    ifelapsed: int = DEFAULT_IFELAPSED
    expireafter: int = DEFAULT_EXPIREAFTER
    holder_pid: int | None = None    # the other holder; for ACQUIRED, the one whose lock was broken
    broken: str = ""                 # ACQUIRED over a lock that had "expired" or whose holder was "gone"
    error: str = ""                  # HELD_BY_OTHER because the database could not be used

    def message(self) -> tuple[str, str] | None:
        """``(level, text)`` of cf-agent's log line for this decision, if any."""
        if self.decision is LockDecision.TOO_SOON:
            return ("verbose", f"Nothing promised here [{('last.' + self.key)[:40]}] "
                               f"({self.elapsed_minutes}/{self.ifelapsed} minutes elapsed)")
        if self.error:
            return ("error", f"Couldn't use the lock database for lock.{self.key}: {self.error}")
        if self.decision is LockDecision.HELD_BY_OTHER:
            return ("verbose", f"Couldn't obtain lock for lock.{self.key} (already running!)")
        if self.broken == "expired":
            return ("info", f"Lock expired after {self.elapsed_minutes}/{self.expireafter} "
                            f"minutes: lock.{self.key}")
        if self.broken == "gone":
            return ("verbose", f"Lock lock.{self.key} was held by process {self.holder_pid}, "
                               "which is gone; taking it over")
        return None


def lock_key(promise_type: str, promiser: str, bundle: str, handle: str | None,
             attributes_digest: str) -> str:
    """The name of a promise's lock: readable prefix, digest of everything that identifies it.

    ``bundle.type.promiser-or-handle_digest``; the digest covers all five
    arguments, so long promisers cut in the readable part never collide.
    """
    ident = canonify(handle or promiser)[:100]
    digest = hashlib.sha256("\0".join((bundle, promise_type, promiser, handle or "",
                                       attributes_digest)).encode("utf-8", "surrogateescape"))
    return f"{bundle[:100]}.{promise_type}.{ident}_{digest.hexdigest()[:32]}"


# --- process identity --------------------------------------------------------------------

def _boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def process_start(pid: int, boot_id: str = "") -> str | None:
    """``boot_id:starttime`` of a live process (Linux /proc), None if unknown or gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2:].split()
    if len(fields) < 20:
        return None
    return f"{boot_id}:{fields[19].decode('ascii')}"


def holder_alive(pid: int, start: str | None, boot_id: str) -> bool:
    """Is the process that took a lock (pid and start marker) still running?"""
    current = process_start(pid, boot_id)
    if current is not None:
        return start is None or current == start
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return start is None or not os.path.isdir("/proc/self")


def decide(row: tuple[Any, ...] | None, key: str, me: tuple[int, str | None],
           ifelapsed: int, expireafter: int, now: float,
           alive: Callable[[int, str | None], bool]) -> LockGrant:
    """The lock decision for ``key`` given its row (pure; cf-agent's AcquireLock order).

    ``row`` is ``(holder_pid, holder_start, acquired, completed)`` or None;
    ``me`` is this process's ``(pid, start)``.
    """
    grant = LockGrant(LockDecision.ACQUIRED, key, ifelapsed=ifelapsed, expireafter=expireafter)
    if row is None:
        return grant
    holder_pid, holder_start, acquired, completed = row
    if completed is not None and ifelapsed > 0 and now >= completed:
        elapsed = int((now - completed) // 60)
        if elapsed < ifelapsed:
            return grant._replace(decision=LockDecision.TOO_SOON, elapsed_minutes=elapsed)
    if holder_pid is None:
        return grant
    held = int(max(0.0, now - (acquired or now)) // 60)
    if (holder_pid, holder_start) != me and not alive(holder_pid, holder_start):
        return grant._replace(holder_pid=holder_pid, elapsed_minutes=held, broken="gone")
    if held >= expireafter:
        return grant._replace(holder_pid=holder_pid, elapsed_minutes=held, broken="expired")
    return grant._replace(decision=LockDecision.HELD_BY_OTHER, holder_pid=holder_pid,
                        elapsed_minutes=held)


# --- the database ------------------------------------------------------------------------

class LockDB:
    """WORKDIR/state/cf_lock.sqlite, opened on first use.  Not shared across processes:
    each agent (and each forked child that wants locks) opens its own."""

    def __init__(self, path: str, busy_timeout: float = DEFAULT_BUSY_TIMEOUT_S,
                 log: Callable[[str, str], None] | None = None) -> None:
        self.path = path
        self.busy_timeout = busy_timeout
        self.log = log or (lambda level, message: None)
        self._conn: sqlite3.Connection | None = None
        self._pending: dict[str, float] = {}
        self._boot_id = ""
        self._me: tuple[int, str | None] = (0, None)

    @classmethod
    def open(cls, workdir: str, busy_timeout: float = DEFAULT_BUSY_TIMEOUT_S,
             log: Callable[[str, str], None] | None = None) -> LockDB:
        """The lock database of ``workdir`` (nothing is touched until it is needed)."""
        return cls(os.path.join(workdir, "state", DB_NAME), busy_timeout, log)

    def __enter__(self) -> LockDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the API

    def acquire(self, key: str, ifelapsed_min: int = DEFAULT_IFELAPSED,
                expireafter_min: int = DEFAULT_EXPIREAFTER, now: float = 0.0) -> LockDecision:
        """Take the lock ``key`` if the promise may run now; see :meth:`try_acquire`."""
        return self.try_acquire(key, ifelapsed_min, expireafter_min, now).decision

    def try_acquire(self, key: str, ifelapsed_min: int = DEFAULT_IFELAPSED,
                    expireafter_min: int = DEFAULT_EXPIREAFTER, now: float = 0.0) -> LockGrant:
        """Decide and, if ACQUIRED, claim ``key`` for this process, in one transaction.

        Queued releases are written in the same transaction.  A database that is
        busy beyond the timeout, or broken, gives HELD_BY_OTHER with ``error`` set.
        """
        import sqlite3
        try:
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
        except (sqlite3.Error, OSError) as exc:
            return LockGrant(LockDecision.HELD_BY_OTHER, key, ifelapsed=ifelapsed_min,
                             expireafter=expireafter_min, error=str(exc))
        try:
            self._write_releases(conn)
            row = conn.execute("SELECT holder_pid, holder_start, acquired, completed "
                               "FROM locks WHERE key = ?", (key,)).fetchone()
            grant = decide(row, key, self._me, ifelapsed_min, expireafter_min, now,
                           lambda pid, start: holder_alive(pid, start, self._boot_id))
            if grant.decision is LockDecision.ACQUIRED:
                conn.execute(
                    "INSERT INTO locks (key, holder_pid, holder_start, acquired) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET "
                    "holder_pid = excluded.holder_pid, holder_start = excluded.holder_start, "
                    "acquired = excluded.acquired", (key, *self._me, now))
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback(conn)
            return LockGrant(LockDecision.HELD_BY_OTHER, key, ifelapsed=ifelapsed_min,
                             expireafter=expireafter_min, error=str(exc))
        except BaseException:
            self._rollback(conn)
            raise
        self._pending.clear()
        return grant

    def release(self, key: str, now: float) -> None:
        """The promise of ``key`` completed at ``now``: free the lock (written lazily)."""
        self._pending[key] = now

    def flush(self) -> None:
        """Write queued releases now (best effort: they stay queued if the DB is busy)."""
        if not self._pending:
            return
        import sqlite3
        try:
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
        except (sqlite3.Error, OSError):
            return
        try:
            self._write_releases(conn)
            conn.execute("COMMIT")
        except sqlite3.Error:
            self._rollback(conn)
            return
        self._pending.clear()

    def purge(self, now: float, older_than_s: float = 28 * 24 * 3600) -> int:
        """Forget free locks whose promise last completed more than ``older_than_s`` ago."""
        conn = self._connection()
        cursor = conn.execute("DELETE FROM locks WHERE holder_pid IS NULL AND completed < ?",
                              (now - older_than_s,))
        return cursor.rowcount

    def close(self) -> None:
        """Write queued releases and close the database."""
        if self._conn is None:
            return
        self.flush()
        self._conn.close()
        self._conn = None

    # -- internals

    def _write_releases(self, conn: sqlite3.Connection) -> None:
        if not self._pending:
            return
        items = list(self._pending.items())
        conn.executemany(
            "INSERT INTO locks (key, completed) VALUES (?, ?) ON CONFLICT (key) DO UPDATE "
            "SET completed = excluded.completed", items)
        conn.executemany(
            "UPDATE locks SET holder_pid = NULL, holder_start = NULL, acquired = NULL "
            "WHERE key = ? AND holder_pid = ? AND holder_start IS ?",
            [(key, *self._me) for key, _ in items])

    @staticmethod
    def _rollback(conn: sqlite3.Connection) -> None:
        if conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except Exception:  # noqa: BLE001 - the original error is what matters
                pass

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            self._boot_id = _boot_id()
            pid = os.getpid()
            self._me = (pid, process_start(pid, self._boot_id))
            self._conn = self._connect()
        return self._conn

    def _connect(self) -> sqlite3.Connection:
        # Imported here: a run under -K or -n never pays for sqlite3.
        import sqlite3
        os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
        if not self._trusted():
            conn = sqlite3.connect(":memory:", isolation_level=None)
            conn.execute(_SCHEMA)
            return conn
        try:
            return self._setup(sqlite3)
        except sqlite3.DatabaseError:
            # Not a database (or damaged beyond use): keep it aside, start afresh.
            os.replace(self.path, self.path + ".corrupt")
            for suffix in ("-wal", "-shm"):
                try:
                    os.unlink(self.path + suffix)
                except FileNotFoundError:
                    pass
            return self._setup(sqlite3)

    def _trusted(self) -> bool:
        """False when the locks must live in memory (the state directory is not
        trusted); a loose database file is set aside first (see the module docstring)."""
        from cfpromise.agent.trust import untrusted
        state = os.path.dirname(self.path)
        workdir = os.path.dirname(state)
        problem = untrusted(state, workdir)
        if problem is not None:
            self.log("warning", f"Lock database kept in memory for this run: {problem}")
            return False
        for suffix in ("", "-wal", "-shm"):
            problem = untrusted(self.path + suffix, workdir)
            if problem is None:
                continue
            aside = f"{self.path}.untrusted-{int(time.time())}"
            for part in ("", "-wal", "-shm"):
                try:
                    os.replace(self.path + part, aside + part)
                except FileNotFoundError:
                    pass
                except OSError:
                    self.log("warning", f"Lock database kept in memory for this run: {problem}")
                    return False
            self.log("warning", f"Lock database ignored: {problem}; set aside as '{aside}' and "
                                "started afresh")
            break
        return True

    def _setup(self, sqlite3: Any) -> sqlite3.Connection:
        os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None)
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(_SCHEMA)
        except BaseException:
            conn.close()
            raise
        return conn
