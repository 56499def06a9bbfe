"""cf-lite-monitord's state: one SQLite database in WORKDIR/state (cf_lite_monitor.db).

It holds what cf-monitord 3.21 keeps in its LMDB files: the weekly averages per time slot
(``Tue:Hr14:Min20_25`` -> per observable q, expect, var), the database age, the slots that
probes and weekly measurements registered, the scalar "named events" of numeric
measurements, the static values of string/slist measurements, and the file positions of
``track_growing_file`` streams.  SQLite in WAL mode gives atomic updates and readers that
never see a half-written state.  A store that cannot be opened or fails its integrity check
is renamed ``cf_lite_monitor.db.corrupt-<time>`` and a fresh one is made: the daemon never
crash-loops on its own state.
"""
from __future__ import annotations

import os
import sqlite3
import time
from typing import Callable, Iterable

SCHEMA = """
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS averages (
    timekey TEXT NOT NULL, name TEXT NOT NULL,
    q REAL NOT NULL, expect REAL NOT NULL, var REAL NOT NULL, dq REAL NOT NULL,
    PRIMARY KEY (timekey, name));
CREATE TABLE IF NOT EXISTS slots (position INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL,
    description TEXT NOT NULL, units TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (name TEXT PRIMARY KEY, t REAL NOT NULL,
    q REAL NOT NULL, expect REAL NOT NULL, var REAL NOT NULL);
CREATE TABLE IF NOT EXISTS static (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

FILENAME = "cf_lite_monitor.db"

Point = tuple[float, float, float, float]          # q, expect, var, dq


class MonitorStore:
    def __init__(self, statedir: str, log: Callable[[str, str], None] | None = None) -> None:
        self.path = os.path.join(statedir, FILENAME)
        self.log = log or (lambda level, message: None)
        os.makedirs(statedir, mode=0o700, exist_ok=True)
        self.db = self._open()

    def _open(self) -> sqlite3.Connection:
        try:
            return self._connect()
        except sqlite3.DatabaseError as err:
            aside = f"{self.path}.corrupt-{int(time.time())}"
            self.log("error", f"Monitor state '{self.path}' is unreadable ({err}): "
                              f"moved to '{aside}', starting afresh")
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(self.path + suffix):
                    os.replace(self.path + suffix, aside + suffix)
            return self._connect()

    def _connect(self) -> sqlite3.Connection:
        old = os.umask(0o077)
        try:
            db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        finally:
            os.umask(old)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            row = db.execute("PRAGMA quick_check").fetchone()
            if row is None or row[0] != "ok":
                raise sqlite3.DatabaseError(f"integrity check: {row[0] if row else 'failed'}")
            db.executescript(SCHEMA)
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def close(self) -> None:
        self.db.close()

    # -- key/value ---------------------------------------------------------------------------
    def get(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM kv WHERE key = ?", (key,)).fetchone()
        return default if row is None else row[0]

    def put(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO kv VALUES (?, ?)", (key, value))

    # -- weekly averages ---------------------------------------------------------------------
    def averages(self, timekey: str) -> dict[str, Point]:
        rows = self.db.execute("SELECT name, q, expect, var, dq FROM averages WHERE timekey = ?",
                               (timekey,))
        return {name: (q, ex, var, dq) for name, q, ex, var, dq in rows}

    def save_averages(self, timekey: str, points: dict[str, Point], age: float) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany(
                "INSERT OR REPLACE INTO averages VALUES (?, ?, ?, ?, ?, ?)",
                [(timekey, name, *point) for name, point in points.items()])
            self.db.execute("INSERT OR REPLACE INTO kv VALUES ('DATABASE_AGE', ?)", (repr(age),))

    # -- slots -------------------------------------------------------------------------------
    def slots(self) -> list[tuple[int, str, str, str]]:
        return list(self.db.execute("SELECT position, name, description, units FROM slots "
                                    "ORDER BY position"))

    def register_slot(self, position: int, name: str, description: str, units: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO slots VALUES (?, ?, ?, ?)",
                        (position, name, description, units))

    # -- named events (scalar numeric measurements) -------------------------------------------
    def event(self, name: str) -> tuple[float, float, float] | None:
        row = self.db.execute("SELECT q, expect, var FROM events WHERE name = ?",
                              (name,)).fetchone()
        return None if row is None else (row[0], row[1], row[2])

    def save_event(self, name: str, q: float, expect: float, var: float) -> None:
        self.db.execute("INSERT OR REPLACE INTO events VALUES (?, ?, ?, ?, ?)",
                        (name, time.time(), q, expect, var))

    def events(self) -> list[tuple[str, float, float, float]]:
        return list(self.db.execute("SELECT name, q, expect, var FROM events ORDER BY name"))

    # -- static values (string / slist measurements), file positions ----------------------------
    def save_static(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO static VALUES (?, ?)", (key, value))

    def statics(self) -> Iterable[tuple[str, str]]:
        return list(self.db.execute("SELECT key, value FROM static ORDER BY key"))
