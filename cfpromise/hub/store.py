"""The hub's database: one schema on SQLite and PostgreSQL, versioned migrations, day partitions.

What is kept, and why it grows with change rather than with runs:

* ``hosts`` -- one row per host key: name, address, the hub that collected it, the
  spool's epoch and last sequence collected (the hub's acknowledgement: the next
  ``QUERY delta`` asks for what follows it), last seen / last run, the last run's
  counts, exit code, policy release id, and the latest monitoring values.
* ``promises`` -- each promise's identity once (bundle, type, promiser, handle, file,
  line): the same policy on ten thousand hosts is stored once.
* ``promise_state`` -- each host's current outcome per promise and since when.
* ``inventory`` -- each host's current inventory attributes.
* day partitions ``runs_YYYYMMDD`` (one small row per host per run) and
  ``events_YYYYMMDD`` (a promise whose outcome changed or that was repaired, an
  inventory attribute that changed); listed in ``partitions``.  Retention drops whole
  day tables (:meth:`Store.drop_before`), never rows one by one.

Both back ends speak the same SQL (``INSERT ... ON CONFLICT``, which SQLite has since
3.24); the SQLite one is the default (``sqlite:///PATH``), PostgreSQL is reached through
psycopg 3 (``postgresql://...``).  Migrations are a list: the database records its
version and gets the missing steps in order.  Several hubs may share one PostgreSQL
database: every write is keyed by host, and tables are created ``IF NOT EXISTS``.
"""
from __future__ import annotations

import json
import os
import time
from typing import Any, Iterable, Iterator, Sequence

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (   # 1: the first schema
        """CREATE TABLE IF NOT EXISTS hosts (
            hostkey TEXT PRIMARY KEY, hostname TEXT NOT NULL DEFAULT '',
            address TEXT NOT NULL DEFAULT '', collected_by TEXT NOT NULL DEFAULT '',
            epoch TEXT NOT NULL DEFAULT '', seq BIGINT NOT NULL DEFAULT 0,
            first_seen BIGINT NOT NULL DEFAULT 0, last_seen BIGINT NOT NULL DEFAULT 0,
            last_run BIGINT NOT NULL DEFAULT 0, kept INTEGER NOT NULL DEFAULT 0,
            repaired INTEGER NOT NULL DEFAULT 0, notkept INTEGER NOT NULL DEFAULT 0,
            exit_code INTEGER NOT NULL DEFAULT 0, release_id TEXT NOT NULL DEFAULT '',
            monitoring TEXT NOT NULL DEFAULT '{}')""",
        """CREATE TABLE IF NOT EXISTS promises (
            pid TEXT PRIMARY KEY, bundle TEXT NOT NULL, promise_type TEXT NOT NULL,
            promiser TEXT NOT NULL, handle TEXT NOT NULL, file TEXT NOT NULL,
            line INTEGER NOT NULL)""",
        "CREATE INDEX IF NOT EXISTS promises_handle ON promises (handle)",
        """CREATE TABLE IF NOT EXISTS promise_state (
            hostkey TEXT NOT NULL, pid TEXT NOT NULL, outcome TEXT NOT NULL,
            since BIGINT NOT NULL, PRIMARY KEY (hostkey, pid))""",
        "CREATE INDEX IF NOT EXISTS promise_state_outcome ON promise_state (outcome, pid)",
        """CREATE TABLE IF NOT EXISTS inventory (
            hostkey TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL,
            PRIMARY KEY (hostkey, name))""",
        "CREATE INDEX IF NOT EXISTS inventory_name ON inventory (name, value)",
        """CREATE TABLE IF NOT EXISTS partitions (
            name TEXT PRIMARY KEY, kind TEXT NOT NULL, day BIGINT NOT NULL)""",
    ),
)

PARTITIONS = {
    "runs": ("""CREATE TABLE IF NOT EXISTS {t} (
                hostkey TEXT NOT NULL, seq BIGINT NOT NULL, time BIGINT NOT NULL,
                duration REAL NOT NULL, exit_code INTEGER NOT NULL, kept INTEGER NOT NULL,
                repaired INTEGER NOT NULL, notkept INTEGER NOT NULL,
                PRIMARY KEY (hostkey, seq))""",
             "CREATE INDEX IF NOT EXISTS {t}_time ON {t} (time)"),
    "events": ("""CREATE TABLE IF NOT EXISTS {t} (
                  hostkey TEXT NOT NULL, seq BIGINT NOT NULL, time BIGINT NOT NULL,
                  kind TEXT NOT NULL, name TEXT NOT NULL, outcome TEXT NOT NULL,
                  detail TEXT NOT NULL, PRIMARY KEY (hostkey, seq, kind, name))""",
               "CREATE INDEX IF NOT EXISTS {t}_name ON {t} (name, time)",
               "CREATE INDEX IF NOT EXISTS {t}_time ON {t} (time)"),
}
DAY = 86400


class StoreError(Exception):
    """The database cannot be opened or used (the message says which and why)."""


def day_of(when: float) -> int:
    return int(when) // DAY * DAY


def partition_name(kind: str, when: float) -> str:
    return kind + "_" + time.strftime("%Y%m%d", time.gmtime(day_of(when)))


def default_url(workdir: str) -> str:
    return "sqlite:///" + os.path.join(workdir, "state", "hub.sqlite")


class Store:
    """A connection to the hub's database; ``?`` placeholders on both back ends."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.postgres = url.startswith(("postgresql://", "postgres://"))
        self._known_partitions: set[str] = set()
        try:
            if self.postgres:
                import psycopg
                self.db = psycopg.connect(url, autocommit=False)
            elif url.startswith("sqlite:///"):
                import sqlite3
                path = url[len("sqlite:///") - 1:] if url.startswith("sqlite:////") \
                    else url[len("sqlite:///"):]
                if path != ":memory:":
                    os.makedirs(os.path.dirname(os.path.abspath(path)), mode=0o700,
                                exist_ok=True)
                self.db = sqlite3.connect(path, timeout=30, isolation_level="DEFERRED",
                                          check_same_thread=False)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
            else:
                raise StoreError(f"unknown database URL '{url}' (sqlite:///PATH or "
                                 f"postgresql://...)")
        except ImportError as exc:
            raise StoreError(f"PostgreSQL needs psycopg 3 ({exc})") from None
        except StoreError:
            raise
        except Exception as exc:                 # sqlite3.Error, psycopg.Error
            raise StoreError(f"cannot open the database '{_safe(url)}': {exc}") from None
        self.migrate()

    # -- plumbing --------------------------------------------------------------------
    def sql(self, text: str) -> str:
        return text.replace("?", "%s") if self.postgres else text

    def execute(self, text: str, params: Sequence[Any] = ()) -> Any:
        cur = self.db.cursor()
        cur.execute(self.sql(text), tuple(params))
        return cur

    def executemany(self, text: str, rows: Iterable[Sequence[Any]]) -> None:
        rows = [tuple(r) for r in rows]
        if rows:
            self.db.cursor().executemany(self.sql(text), rows)

    def rows(self, text: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        cur = self.execute(text, params)
        names = [d[0] for d in cur.description or ()]
        return [dict(zip(names, row)) for row in cur.fetchall()]

    def commit(self) -> None:
        self.db.commit()

    def rollback(self) -> None:
        self._known_partitions.clear()       # a partition made in the transaction is gone
        try:
            self.db.rollback()
        except Exception:               # a connection that went away
            pass

    def close(self) -> None:
        try:
            self.db.close()
        except Exception:
            pass

    # -- schema ----------------------------------------------------------------------
    def version(self) -> int:
        self.execute("CREATE TABLE IF NOT EXISTS hub_schema (version INTEGER NOT NULL)")
        row = self.execute("SELECT MAX(version) FROM hub_schema").fetchone()
        return int(row[0] or 0)

    def migrate(self) -> None:
        if self.postgres:                # two hubs starting at once: one migrates
            self.execute("SELECT pg_advisory_xact_lock(4242017)")
        current = self.version()
        for number, steps in enumerate(MIGRATIONS, 1):
            if number <= current:
                continue
            for step in steps:
                self.execute(step)
            self.execute("INSERT INTO hub_schema (version) VALUES (?)", (number,))
        self.commit()

    def partition(self, kind: str, when: float) -> str:
        name = partition_name(kind, when)
        if name not in self._known_partitions:
            for step in PARTITIONS[kind]:
                self.execute(step.format(t=name))
            self.execute("INSERT INTO partitions (name, kind, day) VALUES (?, ?, ?) "
                         "ON CONFLICT (name) DO NOTHING", (name, kind, day_of(when)))
            self._known_partitions.add(name)
        return name

    def partitions(self, kind: str, since: float = 0, until: float | None = None
                   ) -> list[str]:
        rows = self.execute("SELECT name, day FROM partitions WHERE kind = ? ORDER BY day",
                            (kind,)).fetchall()
        return [name for name, day in rows
                if day + DAY > since and (until is None or day <= until)]

    def drop_before(self, when: float) -> list[str]:
        """Retention: drop every day partition wholly older than ``when``."""
        rows = self.execute("SELECT name FROM partitions WHERE day + ? <= ?",
                            (DAY, int(when))).fetchall()
        dropped = []
        for (name,) in rows:
            self.execute(f"DROP TABLE IF EXISTS {name}")
            self.execute("DELETE FROM partitions WHERE name = ?", (name,))
            self._known_partitions.discard(name)
            dropped.append(name)
        self.commit()
        return dropped

    # -- reading the hub's own bookkeeping -------------------------------------------
    def cursors(self) -> dict[str, tuple[str, int]]:
        """hostkey -> (epoch, seq) collected so far."""
        return {k: (e, int(s)) for k, e, s in
                self.execute("SELECT hostkey, epoch, seq FROM hosts").fetchall()}

    def union(self, kind: str, columns: str, where: str, since: float,
              until: float | None = None) -> tuple[str, int]:
        """A UNION ALL over the day partitions in the window; (sql, number of parts)."""
        parts = self.partitions(kind, since, until)
        return " UNION ALL ".join(f"SELECT {columns} FROM {p} WHERE {where}"
                                  for p in parts), len(parts)


def _safe(url: str) -> str:
    """The URL without its password, for messages."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        cred, host = rest.rsplit("@", 1)
        return f"{scheme}://{cred.split(':', 1)[0]}:***@{host}"
    return url


# -- ingesting a host's answer ---------------------------------------------------------
def ingest(store: Store, hostkey: str, address: str, hub: str, answer: dict[str, Any],
           now: float | None = None) -> dict[str, int]:
    """Store one host's answer in one transaction; idempotent (a run collected twice is
    stored once).  Returns what was added: ``runs``, ``events``."""
    now = time.time() if now is None else now
    added = {"runs": 0, "events": 0}
    epoch = str(answer.get("epoch", ""))[:64]
    try:
        cursors = store.execute("SELECT epoch, seq FROM hosts WHERE hostkey = ?",
                                (hostkey,)).fetchone()
        seq = int(cursors[1]) if cursors and cursors[0] == epoch else 0
        store.execute(
            "INSERT INTO hosts (hostkey, address, collected_by, epoch, first_seen, last_seen) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (hostkey) DO UPDATE SET "
            "address = excluded.address, collected_by = excluded.collected_by, "
            "last_seen = excluded.last_seen",
            (hostkey, address, hub, epoch, int(now), int(now)))
        if answer.get("kind") == "rebase":
            _rebase(store, hostkey, answer.get("current") or {}, now)
            seq = 0
        for run in answer.get("runs") or ():
            if isinstance(run, dict) and int(run.get("seq", 0)) > seq:
                _apply_run(store, hostkey, run, added, rebased=answer.get("kind") == "rebase")
                seq = max(seq, int(run["seq"]))
        current = answer.get("current") or {}
        seq = max(seq, int(current.get("seq") or 0))
        store.execute("UPDATE hosts SET epoch = ?, seq = ? WHERE hostkey = ?",
                      (epoch, seq, hostkey))
        store.commit()
    except BaseException:
        store.rollback()
        raise
    return added


def _promise_rows(promises: dict[str, dict[str, Any]]) -> Iterator[tuple[Any, ...]]:
    for pid, p in promises.items():
        yield (str(pid)[:40], str(p.get("bundle", ""))[:512],
               str(p.get("promise_type", ""))[:64], str(p.get("promiser", ""))[:4096],
               str(p.get("handle") or "")[:512], str(p.get("file", ""))[:1024],
               int(p.get("line") or 0))


_PROMISE_INSERT = ("INSERT INTO promises (pid, bundle, promise_type, promiser, handle, file, "
                   "line) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (pid) DO NOTHING")


def _rebase(store: Store, hostkey: str, current: dict[str, Any], now: float) -> None:
    promises = current.get("promises") or {}
    store.executemany(_PROMISE_INSERT, _promise_rows(promises))
    old = {pid: (outcome, since) for pid, outcome, since in store.execute(
        "SELECT pid, outcome, since FROM promise_state WHERE hostkey = ?",
        (hostkey,)).fetchall()}
    store.execute("DELETE FROM promise_state WHERE hostkey = ?", (hostkey,))
    store.executemany(
        "INSERT INTO promise_state (hostkey, pid, outcome, since) VALUES (?, ?, ?, ?)",
        ((hostkey, str(pid)[:40], str(p.get("outcome", ""))[:16],
          old[pid][1] if pid in old and old[pid][0] == p.get("outcome") else int(now))
         for pid, p in promises.items()))
    _set_inventory(store, hostkey, current.get("inventory") or {})
    _host_run(store, hostkey, current.get("last_run") or {}, current.get("monitoring"))


def _set_inventory(store: Store, hostkey: str, inventory: dict[str, Any]) -> None:
    store.execute("DELETE FROM inventory WHERE hostkey = ?", (hostkey,))
    store.executemany("INSERT INTO inventory (hostkey, name, value) VALUES (?, ?, ?)",
                      ((hostkey, str(k)[:256], json.dumps(v, default=str)[:65536])
                       for k, v in inventory.items()))
    name = inventory.get("sys.fqhost") or inventory.get("sys.uqhost")
    if isinstance(name, str) and name:
        store.execute("UPDATE hosts SET hostname = ? WHERE hostkey = ?", (name[:256], hostkey))


def _host_run(store: Store, hostkey: str, run: dict[str, Any], monitoring: Any) -> None:
    if not run:
        return
    store.execute(
        "UPDATE hosts SET last_run = ?, kept = ?, repaired = ?, notkept = ?, exit_code = ?, "
        "release_id = ?, monitoring = ? WHERE hostkey = ? AND last_run <= ?",
        (int(run.get("time") or 0), int(run.get("kept") or 0), int(run.get("repaired") or 0),
         int(run.get("notkept") or 0), int(run.get("exit_code") or 0),
         str(run.get("release_id") or "")[:128],
         json.dumps(monitoring if isinstance(monitoring, dict) else {}, default=str)[:65536],
         hostkey, int(run.get("time") or 0)))


def _apply_run(store: Store, hostkey: str, run: dict[str, Any], added: dict[str, int],
               rebased: bool) -> None:
    when = int(run.get("time") or 0)
    seq = int(run["seq"])
    runs = store.partition("runs", when)
    cur = store.execute(
        f"INSERT INTO {runs} (hostkey, seq, time, duration, exit_code, kept, repaired, notkept)"
        f" VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (hostkey, seq) DO NOTHING",
        (hostkey, seq, when, float(run.get("duration") or 0), int(run.get("exit_code") or 0),
         int(run.get("kept") or 0), int(run.get("repaired") or 0),
         int(run.get("notkept") or 0)))
    if cur.rowcount == 0:
        return                            # collected before
    added["runs"] += 1
    promises = {p["id"]: p for p in run.get("promises") or () if isinstance(p, dict)
                and "id" in p}
    events = []
    for pid, p in promises.items():
        detail = "\n".join(str(c) for c in p.get("changes") or ())[:8192]
        events.append((hostkey, seq, when, "promise", str(pid)[:40],
                       str(p.get("outcome", ""))[:16], detail))
    if "inventory" in run and isinstance(run["inventory"], dict) and not rebased:
        old = {name: value for name, value in store.execute(
            "SELECT name, value FROM inventory WHERE hostkey = ?", (hostkey,)).fetchall()}
        new = {str(k)[:256]: json.dumps(v, default=str)[:65536]
               for k, v in run["inventory"].items()}
        for name in sorted(set(old) | set(new)):
            if old.get(name) != new.get(name) and old:
                events.append((hostkey, seq, when, "inventory", name,
                               "changed" if name in new else "removed",
                               (new.get(name) or "")[:8192]))
        _set_inventory(store, hostkey, run["inventory"])
    if events:
        table = store.partition("events", when)
        store.executemany(
            f"INSERT INTO {table} (hostkey, seq, time, kind, name, outcome, detail) "
            f"VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (hostkey, seq, kind, name) DO NOTHING",
            events)
        added["events"] += len(events)
    if rebased:
        return                            # the current state came whole
    store.executemany(_PROMISE_INSERT, _promise_rows(promises))
    store.executemany(
        "INSERT INTO promise_state (hostkey, pid, outcome, since) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (hostkey, pid) DO UPDATE SET since = CASE WHEN "
        "promise_state.outcome = excluded.outcome THEN promise_state.since "
        "ELSE excluded.since END, outcome = excluded.outcome",
        ((hostkey, str(pid)[:40], str(p.get("outcome", ""))[:16], when)
         for pid, p in promises.items()))
    gone = [str(g)[:40] for g in run.get("gone") or ()]
    if gone:
        store.executemany("DELETE FROM promise_state WHERE hostkey = ? AND pid = ?",
                          ((hostkey, g) for g in gone))
    _host_run(store, hostkey, run, run.get("monitoring"))
