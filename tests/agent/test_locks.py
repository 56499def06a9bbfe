"""The lock database: ifelapsed, expireafter, other agents, crashes, concurrency."""
from __future__ import annotations

import multiprocessing
import os
import sqlite3
import stat
import time
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

from cfpromise.agent.locks import (
    DB_NAME,
    LockDB,
    LockDecision,
    LockGrant,
    decide,
    lock_key,
    process_start,
)

ACQUIRED, TOO_SOON, HELD = (LockDecision.ACQUIRED, LockDecision.TOO_SOON,
                            LockDecision.HELD_BY_OTHER)
T0 = 1_700_000_000.0
MIN = 60.0
FORK = multiprocessing.get_context("fork")


@pytest.fixture
def db(tmp_path: Path) -> LockDB:
    with LockDB.open(str(tmp_path)) as lockdb:
        yield lockdb


# --- keys and the pure decision ------------------------------------------------------------

def test_lock_key_is_readable_stable_and_distinct() -> None:
    key = lock_key("commands", "/bin/echo hi", "main", None, "d1")
    assert key.startswith("main.commands._bin_echo_hi_")
    assert key == lock_key("commands", "/bin/echo hi", "main", None, "d1")
    others = {lock_key("commands", "/bin/echo hi", "main", None, "d2"),
              lock_key("commands", "/bin/echo hi", "other", None, "d1"),
              lock_key("files", "/bin/echo hi", "main", None, "d1"),
              lock_key("commands", "/bin/echo hi", "main", "h1", "d1")}
    assert key not in others and len(others) == 4
    assert lock_key("commands", "x", "main", "my-handle", "d").startswith("main.commands.my_handle_")
    long_a = lock_key("commands", "a" * 500 + "1", "main", None, "d")
    long_b = lock_key("commands", "a" * 500 + "2", "main", None, "d")
    assert long_a != long_b and len(long_a) < 200


ME = (100, "boot:1")


@pytest.mark.parametrize("row, now, alive, decision, elapsed, broken", [
    (None, T0, True, ACQUIRED, 0, ""),
    ((None, None, None, T0), T0 + 59, True, TOO_SOON, 0, ""),
    ((None, None, None, T0), T0 + 60, True, ACQUIRED, 0, ""),
    ((None, None, None, T0), T0 - 3600, True, ACQUIRED, 0, ""),     # clock went back
    ((200, "boot:2", T0, None), T0 + 60, True, HELD, 1, ""),
    ((200, "boot:2", T0, None), T0 + 120 * MIN, True, ACQUIRED, 120, "expired"),
    ((200, "boot:2", T0, None), T0 + 60, False, ACQUIRED, 1, "gone"),
    ((100, "boot:1", T0, None), T0 + 60, False, HELD, 1, ""),         # ourselves
    ((200, "boot:2", T0, T0 - 30), T0, True, TOO_SOON, 0, ""),         # ifelapsed first
])
def test_decide(row: tuple[object, ...] | None, now: float, alive: bool,
                decision: LockDecision, elapsed: int, broken: str) -> None:
    grant = decide(row, "k", ME, 1, 120, now, lambda pid, start: alive)
    assert (grant.decision, grant.elapsed_minutes, grant.broken) == (decision, elapsed, broken)


@pytest.mark.parametrize("grant, message", [
    (LockGrant(TOO_SOON, "main.commands._bin_echo_locked_0123456789abcdef", 0, 1),
     ("verbose", "Nothing promised here [last.main.commands._bin_echo_locked_0123] "
                 "(0/1 minutes elapsed)")),
    (LockGrant(TOO_SOON, "k", 4, 5), ("verbose", "Nothing promised here [last.k] "
                                                 "(4/5 minutes elapsed)")),
    (LockGrant(HELD, "k", 3, holder_pid=9),
     ("verbose", "Couldn't obtain lock for lock.k (already running!)")),
    (LockGrant(ACQUIRED, "k", 121, 1, 120, holder_pid=9, broken="expired"),
     ("info", "Lock expired after 121/120 minutes: lock.k")),
    (LockGrant(ACQUIRED, "k"), None),
])
def test_messages(grant: LockGrant, message: tuple[str, str] | None) -> None:
    assert grant.message() == message


# --- one agent -------------------------------------------------------------------------------

def test_open_is_lazy(tmp_path: Path) -> None:
    lockdb = LockDB.open(str(tmp_path))
    lockdb.close()
    assert not (tmp_path / "state").exists()


def test_acquire_release_ifelapsed(db: LockDB, tmp_path: Path) -> None:
    assert db.acquire("k", 1, 120, T0) is ACQUIRED
    db.release("k", T0 + 5)
    assert db.acquire("k", 1, 120, T0 + 30) is TOO_SOON
    assert db.acquire("k", 1, 120, T0 + 64) is TOO_SOON          # 59 s after completion
    assert db.acquire("k", 1, 120, T0 + 65) is ACQUIRED
    db.release("k", T0 + 65)
    grant = db.try_acquire("k", 5, 120, T0 + 65 + 4 * MIN + 30)
    assert (grant.decision, grant.elapsed_minutes) == (TOO_SOON, 4)
    assert db.acquire("k", 5, 120, T0 + 65 + 5 * MIN) is ACQUIRED
    path = tmp_path / "state" / DB_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_ifelapsed_zero_always_runs(db: LockDB) -> None:
    for i in range(3):
        assert db.acquire("k", 0, 120, T0 + i) is ACQUIRED
        db.release("k", T0 + i)


def test_keys_are_independent(db: LockDB) -> None:
    assert db.acquire("a", 1, 120, T0) is ACQUIRED
    assert db.acquire("b", 1, 120, T0) is ACQUIRED
    db.release("a", T0)
    assert db.acquire("a", 1, 120, T0 + 1) is TOO_SOON
    assert db.acquire("b", 1, 120, T0 + 1) is HELD               # still ours, not released


def test_records_survive_reopening(tmp_path: Path) -> None:
    with LockDB.open(str(tmp_path)) as first:
        assert first.acquire("k", 1, 120, T0) is ACQUIRED
        first.release("k", T0)
    with LockDB.open(str(tmp_path)) as second:
        assert second.acquire("k", 1, 120, T0 + 10) is TOO_SOON
        assert second.acquire("k", 1, 120, T0 + MIN) is ACQUIRED


def test_corrupt_database_is_set_aside(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / DB_NAME).write_bytes(b"this is not a database" * 100)
    with LockDB.open(str(tmp_path)) as lockdb:
        assert lockdb.acquire("k", 1, 120, T0) is ACQUIRED
    assert (state / (DB_NAME + ".corrupt")).exists()


def test_busy_database_skips_instead_of_failing(tmp_path: Path) -> None:
    with LockDB.open(str(tmp_path), busy_timeout=0.1) as lockdb:
        assert lockdb.acquire("warm", 0, 120, T0) is ACQUIRED   # creates the file
        blocker = sqlite3.connect(tmp_path / "state" / DB_NAME, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        try:
            grant = lockdb.try_acquire("k", 1, 120, T0)
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        assert grant.decision is HELD and "locked" in grant.error
        assert grant.message()[0] == "error"
        assert lockdb.acquire("k", 1, 120, T0) is ACQUIRED


def test_process_start_identifies_processes() -> None:
    if process_start(os.getpid()) is None:
        pytest.skip("no /proc")
    assert process_start(os.getpid(), "b") == process_start(os.getpid(), "b")
    assert process_start(1, "b") != process_start(os.getpid(), "b")
    assert process_start(2 ** 22 + 7) is None                        # no such process


# --- two agents ------------------------------------------------------------------------------

def _holder(workdir: str, key: str, conn: Connection, crash: bool) -> None:
    """A second agent: take ``key``, say so, then crash or wait and release."""
    lockdb = LockDB.open(workdir)
    conn.send(lockdb.acquire(key, 1, 120, T0).value)
    if crash:
        os._exit(3)                     # no release, no close: a crashed agent
    conn.recv()
    lockdb.release(key, T0 + 1)
    lockdb.close()
    conn.send("released")


def _start_holder(tmp_path: Path, crash: bool) -> tuple[multiprocessing.Process, Connection]:
    ours, theirs = FORK.Pipe()
    proc = FORK.Process(target=_holder, args=(str(tmp_path), "k", theirs, crash))
    proc.start()
    assert ours.recv() == "acquired"
    return proc, ours


def test_held_by_another_agent_until_it_expires(tmp_path: Path, db: LockDB) -> None:
    proc, conn = _start_holder(tmp_path, crash=False)
    try:
        grant = db.try_acquire("k", 1, 120, T0 + 10 * MIN)
        assert (grant.decision, grant.holder_pid, grant.elapsed_minutes) == (HELD, proc.pid, 10)
        grant = db.try_acquire("k", 1, 120, T0 + 121 * MIN)      # a live, stuck holder
        assert (grant.decision, grant.broken) == (ACQUIRED, "expired")
        assert grant.message() == ("info", "Lock expired after 121/120 minutes: lock.k")
    finally:
        conn.send("go")
        assert conn.recv() == "released"
        proc.join(5)
    db.release("k", T0 + 121 * MIN)
    assert db.acquire("k", 1, 120, T0 + 121 * MIN + 10) is TOO_SOON


def test_released_by_the_other_agent(tmp_path: Path, db: LockDB) -> None:
    proc, conn = _start_holder(tmp_path, crash=False)
    assert db.acquire("k", 1, 120, T0 + 5) is HELD
    conn.send("go")
    assert conn.recv() == "released"
    proc.join(5)
    assert db.acquire("k", 1, 120, T0 + 30) is TOO_SOON           # completed at T0 + 1
    assert db.acquire("k", 1, 120, T0 + 61) is ACQUIRED


def test_crashed_agent_does_not_block(tmp_path: Path, db: LockDB) -> None:
    proc, _ = _start_holder(tmp_path, crash=True)
    proc.join(5)
    assert proc.exitcode == 3
    grant = db.try_acquire("k", 1, 120, T0 + 5)
    assert (grant.decision, grant.broken, grant.holder_pid) == (ACQUIRED, "gone", proc.pid)


def test_release_is_visible_after_flush(tmp_path: Path, db: LockDB) -> None:
    other = LockDB.open(str(tmp_path))
    try:
        assert db.acquire("k", 0, 120, T0) is ACQUIRED
        db.release("k", T0)
        assert other.acquire("k", 0, 120, T0) is HELD             # release still queued
        db.flush()
        assert other.acquire("k", 0, 120, T0) is ACQUIRED
    finally:
        other.close()


def _hammer(workdir: str, markers: str, rounds: int, out: Connection) -> None:
    """Acquire/release random keys as fast as possible; an O_EXCL marker file per key
    proves nobody else holds it at the same time."""
    lockdb = LockDB.open(workdir, busy_timeout=5.0)
    got = violations = errors = 0
    try:
        for i in range(rounds):
            key = f"k{i % 2}"
            try:
                grant = lockdb.try_acquire(key, 0, 120, time.time())
            except Exception:  # noqa: BLE001 - counted, the test fails on any
                errors += 1
                continue
            errors += bool(grant.error)         # busy beyond the timeout, or worse
            if grant.decision is not ACQUIRED:
                continue
            got += 1
            marker = os.path.join(markers, key)
            try:
                fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                violations += 1
            else:
                os.close(fd)
                time.sleep(0.0005)      # hold it a moment: overlaps would show
                os.unlink(marker)
            lockdb.release(key, time.time())
            if i % 3 == 0:
                lockdb.flush()
        lockdb.close()
    except Exception:  # noqa: BLE001
        errors += 1
    out.send((got, violations, errors))


def test_concurrent_agents_never_share_a_lock(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    pipes, procs = [], []
    for _ in range(4):
        ours, theirs = FORK.Pipe()
        proc = FORK.Process(target=_hammer, args=(str(tmp_path), str(markers), 300, theirs))
        proc.start()
        pipes.append(ours)
        procs.append(proc)
    results = [pipe.recv() for pipe in pipes]
    for proc in procs:
        proc.join(10)
        assert proc.exitcode == 0
    assert all(errors == 0 for _, _, errors in results), results
    assert all(violations == 0 for _, violations, _ in results), results
    assert sum(got for got, _, _ in results) > 0
    with LockDB.open(str(tmp_path)) as lockdb:                   # all released at the end
        assert lockdb.acquire("k0", 0, 120, time.time()) is ACQUIRED
        assert lockdb.acquire("k1", 0, 120, time.time()) is ACQUIRED


def test_unusable_state_directory_skips_with_an_error(tmp_path: Path) -> None:
    (tmp_path / "state").write_text("a file where the directory should be")
    with LockDB.open(str(tmp_path)) as lockdb:
        grant = lockdb.try_acquire("k", 1, 120, T0)
        assert grant.decision is HELD and grant.error
        lockdb.release("k", T0)
        lockdb.flush()                                           # no exception either
