"""The hub's store and queries without the network: idempotent ingest, rollback, day
partitions and retention, migrations, and the query filters."""
from __future__ import annotations

import time

import pytest

from cfpromise.hub.queries import parse_since
from cfpromise.hub import queries
from cfpromise.hub.store import DAY, MIGRATIONS, Store, StoreError, ingest, partition_name

NOW = 1_795_000_000


def _promise(n: int, outcome: str = "kept", **extra) -> dict:
    return {"bundle": "default:main", "promise_type": "files", "promiser": f"/f{n}",
            "handle": f"h{n}", "file": "/p.cf", "line": n, "outcome": outcome, **extra}


def _rebase(seq: int = 1, when: int = NOW, flavor: str = "debian_12") -> dict:
    promises = {f"p{n}": _promise(n) for n in range(5)}
    inv = {"sys.fqhost": "a.example", "sys.flavor": flavor, "classes": ["debian", "x86_64"]}
    return {"kind": "rebase", "epoch": "e1",
            "current": {"seq": seq, "promises": promises, "inventory": inv,
                        "last_run": {"seq": seq, "time": when, "kept": 5, "repaired": 0,
                                     "notkept": 0}},
            "runs": [{"seq": seq, "time": when, "duration": 1, "kept": 5, "repaired": 0,
                      "notkept": 0, "promises": [], "gone": [], "inventory": inv}]}


def _delta(seq: int, when: int, promises=(), gone=(), inventory=None) -> dict:
    run = {"seq": seq, "time": when, "duration": 1, "kept": 4, "repaired": 0, "notkept": 1,
           "promises": [{"id": pid, **p} for pid, p in promises], "gone": list(gone)}
    if inventory is not None:
        run["inventory"] = inventory
    return {"kind": "delta", "epoch": "e1", "runs": [run]}


@pytest.fixture
def store(tmp_path) -> Store:
    s = Store(f"sqlite:///{tmp_path}/hub.sqlite")
    yield s
    s.close()


def test_ingest_is_idempotent_and_tracks_state(store: Store) -> None:
    assert ingest(store, "SHA=a", "10.0.0.1", "hub", _rebase(), now=NOW)["runs"] == 1
    assert ingest(store, "SHA=a", "10.0.0.1", "hub", _rebase(), now=NOW)["runs"] == 0
    delta = _delta(2, NOW + 300, [("p1", _promise(1, "failed"))], gone=["p4"])
    assert ingest(store, "SHA=a", "10.0.0.1", "hub", delta, now=NOW + 300) == \
        {"runs": 1, "events": 1}
    assert ingest(store, "SHA=a", "10.0.0.1", "hub", delta, now=NOW + 300) == \
        {"runs": 0, "events": 0}
    assert store.cursors() == {"SHA=a": ("e1", 2)}
    state = {p["promiser"]: p["outcome"] for p in queries.promises(store)}
    assert state == {"/f0": "kept", "/f1": "failed", "/f2": "kept", "/f3": "kept"}
    failed = queries.promises(store, outcome="failed")
    assert [(p["hostkey"], p["handle"], p["time"]) for p in failed] == [("SHA=a", "h1",
                                                                         NOW + 300)]


def test_a_failed_ingest_stores_and_acknowledges_nothing(store: Store, monkeypatch) -> None:
    ingest(store, "SHA=a", "10.0.0.1", "hub", _rebase(), now=NOW)
    delta = _delta(2, NOW + 300, [("p1", _promise(1, "repaired", changes=["content"]))])
    real = store.executemany
    calls = {"n": 0}

    def failing(sql, rows):
        calls["n"] += 1
        if "promise_state" in sql:
            raise RuntimeError("the database went away")
        return real(sql, rows)
    monkeypatch.setattr(store, "executemany", failing)
    with pytest.raises(RuntimeError):
        ingest(store, "SHA=a", "10.0.0.1", "hub", delta, now=NOW + 300)
    monkeypatch.setattr(store, "executemany", real)
    assert store.cursors() == {"SHA=a": ("e1", 1)}          # not acknowledged
    assert queries.changes(store, since=NOW) == []
    assert ingest(store, "SHA=a", "10.0.0.1", "hub", delta, now=NOW + 300) == \
        {"runs": 1, "events": 1}                               # the next round catches up


def test_inventory_changes_are_events_and_filters(store: Store) -> None:
    ingest(store, "SHA=a", "10.0.0.1", "hub", _rebase(), now=NOW)
    ingest(store, "SHA=b", "10.0.0.2", "hub", _rebase(flavor="ubuntu_24"), now=NOW)
    new_inv = {"sys.fqhost": "a.example", "sys.flavor": "debian_13", "classes": ["debian"]}
    ingest(store, "SHA=a", "10.0.0.1", "hub", _delta(2, NOW + 60, inventory=new_inv),
           now=NOW + 60)
    changes = queries.changes(store, since=NOW)
    assert [(c["hostkey"], c["kind"], c["name"]) for c in changes] == [
        ("SHA=a", "inventory", "classes"), ("SHA=a", "inventory", "sys.flavor")]
    assert [h["hostkey"] for h in queries.inventory(store, filters=["os=debian_13"])] == \
        ["SHA=a"]
    assert [h["hostkey"] for h in queries.inventory(store, filters=["flavor=ubuntu*"])] == \
        ["SHA=b"]
    assert [h["hostkey"] for h in queries.inventory(store, filters=["class=x86_64"])] == \
        ["SHA=b"]
    with pytest.raises(ValueError):
        queries.inventory(store, filters=["nonsense"])


def test_day_partitions_and_retention(store: Store) -> None:
    ingest(store, "SHA=a", "", "hub", _rebase(when=NOW - 40 * DAY), now=NOW - 40 * DAY)
    ingest(store, "SHA=a", "", "hub", _delta(2, NOW, [("p1", _promise(1, "failed"))]),
           now=NOW)
    runs = store.partitions("runs")
    assert runs == [partition_name("runs", NOW - 40 * DAY), partition_name("runs", NOW)]
    dropped = store.drop_before(NOW - 30 * DAY)
    assert dropped == [partition_name("runs", NOW - 40 * DAY)]
    assert store.partitions("runs") == [partition_name("runs", NOW)]
    assert queries.promises(store, outcome="failed", since=NOW - DAY)


def test_hosts_compliance_and_stale(store: Store) -> None:
    ingest(store, "SHA=a", "10.0.0.1", "hub", _rebase(), now=NOW)
    ingest(store, "SHA=a", "10.0.0.1", "hub", _delta(2, NOW + 1, [("p1", _promise(1,
                                                                               "failed"))]),
           now=NOW + 1)
    [host] = queries.hosts(store, now=NOW + 2)
    assert host["compliance"] == 80.0 and host["stale"] is False
    [host] = queries.hosts(store, now=NOW + 7200)
    assert host["stale"] is True
    assert queries.hosts(store, host="a.example")[0]["hostkey"] == "SHA=a"
    assert queries.hosts(store, host="b") == []


def test_migrations_are_recorded_once(tmp_path) -> None:
    url = f"sqlite:///{tmp_path}/m.sqlite"
    Store(url).close()
    s = Store(url)
    assert s.version() == len(MIGRATIONS)
    assert s.execute("SELECT COUNT(*) FROM hub_schema").fetchone()[0] == len(MIGRATIONS)
    s.close()


def test_bad_urls_are_clear_errors(tmp_path) -> None:
    with pytest.raises(StoreError, match="unknown database URL"):
        Store("mysql://x")
    with pytest.raises(StoreError) as err:
        Store("postgresql://user:hunter2@127.0.0.1:1/db?connect_timeout=2")
    assert "hunter2" not in str(err.value)


@pytest.mark.parametrize("text, expected", [
    ("90s", NOW - 90), ("30m", NOW - 1800), ("2h", NOW - 7200), ("1d", NOW - 86400),
    ("1w", NOW - 604800), ("1795000000", 1795000000),
    ("2026-11-18T00:00:00", 1794960000), ("2026-11-18", 1794960000)])
def test_parse_since(text, expected) -> None:
    assert parse_since(text, now=NOW) == expected


def test_parse_since_refuses_nonsense() -> None:
    import argparse
    with pytest.raises(argparse.ArgumentTypeError):
        parse_since("yesterday-ish", now=time.time())
