"""The hub end to end: three cf-lite hosts on loopback (their own keys, work directories,
addresses and cf-lite-serverd), one with a failing promise; their agent runs, one
collection round, the queries -- on SQLite and on a real PostgreSQL."""
from __future__ import annotations

import json

import pytest

from tests.hub.fleet import Fleet, Host


def _three(fleet: Fleet) -> tuple:
    web1 = fleet.add_host("web1", "127.0.0.11")
    web2 = fleet.add_host("web2", "127.0.0.12")
    db1 = fleet.add_host("db1", "127.0.0.13")
    for host, failing, role in ((web1, False, "web"), (web2, True, "web"), (db1, False, "db")):
        run = host.run_agent(failing=failing, role=role)
        assert run.returncode == 0, run.stderr
    return web1, web2, db1


def _json(result) -> list:
    return json.loads(result.stdout)


def _uptime_minute() -> int:
    with open("/proc/uptime", encoding="ascii") as f:
        return int(float(f.read().split()[0]) // 60)


def _run_in_one_minute(host: Host) -> int | None:
    """Run the host's agent; the uptime minute it ran in (None: it ticked meanwhile)."""
    before = _uptime_minute()
    assert host.run_agent().returncode == 0
    return before if _uptime_minute() == before else None


def _check_fleet(fleet: Fleet, db: str | None) -> None:
    web1, web2, db1 = _three(fleet)
    first = json.loads(fleet.collect(db=db).stdout)
    assert first["collected"] == 3 and first["failed"] == []
    hosts = {h["hostkey"]: h for h in _json(fleet.hub("hosts", "--format", "json", db=db))}
    assert set(hosts) == {web1.key_digest, web2.key_digest, db1.key_digest}
    for host in (web1, web2, db1):
        entry = hosts[host.key_digest]
        assert entry["address"] == host.address
        assert entry["last_seen"] and entry["last_run"] and "hostname" in entry
    assert hosts[web2.key_digest]["compliance"] < 100 <= hosts[web1.key_digest]["compliance"]
    failed = _json(fleet.hub("promises", "--outcome", "failed", "--format", "json", db=db))
    assert [(p["hostkey"], p["handle"], p["promise_type"], p["promiser"]) for p in failed] == \
        [(web2.key_digest, "always_fails", "commands", "/bin/false")]
    for key in ("hostname", "bundle", "outcome", "time"):
        assert key in failed[0]
    by_handle = _json(fleet.hub("promises", "--handle", "managed_file", "--format", "json",
                                db=db))
    assert {p["hostkey"] for p in by_handle} == set(hosts)
    inventory = _json(fleet.hub("inventory", "role=db", "--format", "json", db=db))
    assert [i["hostkey"] for i in inventory] == [db1.key_digest]

    # collected twice: stored once
    again = json.loads(fleet.collect(db=db).stdout)
    assert (again["collected"], again["runs"], again["events"]) == (3, 0, 0)
    # storage grows with change: the file created in the first run is kept in the second
    # (an outcome that changed: an event; so is the hub, new in the host's lastseen
    # inventory); a converged run adds its run row only
    minute = _run_in_one_minute(web1)
    later = json.loads(fleet.collect(web1, db=db).stdout)
    assert later["runs"] == 1 and later["events"] >= 1
    # sys.uptime (minutes) is an inventory attribute: when it ticked between the two
    # runs that is an event too, so the converged run is tried again (at most twice)
    for _ in range(3):
        again_minute = _run_in_one_minute(web1)
        later = json.loads(fleet.collect(web1, db=db).stdout)
        if again_minute is not None and again_minute == minute:
            break
        minute = again_minute
    assert (later["runs"], later["events"]) == (1, 0)
    changes = _json(fleet.hub("changes", "--since", "1h", "--format", "json", db=db))
    assert {c["hostkey"] for c in changes if c["handle"] == "managed_file"} == set(hosts)


def test_three_hosts_sqlite(fleet: Fleet) -> None:
    _check_fleet(fleet, None)


def test_three_hosts_postgresql(fleet: Fleet, pg_url: str) -> None:
    _check_fleet(fleet, pg_url)


def test_two_hubs_share_one_database(fleet: Fleet, pg_url: str, tmp_path) -> None:
    """Each hub collects its part of the fleet (--shard); the queries see all of it."""
    import os
    import shutil

    web1, web2, db1 = _three(fleet)
    second = Fleet(fleet.root, os.path.join(str(tmp_path), "hub2"), fleet.hub_key, fleet.port)
    shutil.copytree(fleet.hub_workdir, second.hub_workdir)      # the same hub key
    addresses = [f"{h.address}:{h.port}" for h in fleet.hosts]
    shares = []
    for n, hub in enumerate((fleet, second)):
        args = ["collect", "--once", "--no-lastseen", "--trust-new", "--shard", f"{n}/2",
                "--hub-id", f"hub{n}"]
        for a in addresses:
            args += ["--host", a]
        shares.append(json.loads(hub.hub(*args, db=pg_url).stdout)["collected"])
    assert sum(shares) == 3
    hosts = _json(fleet.hub("hosts", "--format", "json", db=pg_url))
    assert {h["hostkey"] for h in hosts} == {web1.key_digest, web2.key_digest,
                                             db1.key_digest}


def test_refused_and_unreachable_hosts_are_skipped(fleet: Fleet) -> None:
    web1 = fleet.add_host("web1", "127.0.0.11")
    assert web1.run_agent().returncode == 0
    result = fleet.hub("collect", "--once", "--no-lastseen", "--trust-new", "--timeout", "5",
                       "--host", f"{web1.address}:{web1.port}",
                       "--host", f"127.0.0.99:{web1.port}", check=False)
    summary = json.loads(result.stdout)
    assert result.returncode == 1
    assert summary["collected"] == 1
    assert [f["address"] for f in summary["failed"]] == [f"127.0.0.99:{web1.port}"]


def test_untrusted_host_key_is_not_collected(fleet: Fleet) -> None:
    """Without --trust-new a host whose key the hub does not hold is refused."""
    web1 = fleet.add_host("web1", "127.0.0.11")
    assert web1.run_agent().returncode == 0
    result = fleet.hub("collect", "--once", "--no-lastseen", "--host",
                       f"{web1.address}:{web1.port}", check=False)
    assert result.returncode == 1
    assert "TRUST FAILED" in result.stdout + result.stderr
    assert _json(fleet.hub("hosts", "--format", "json")) == []


@pytest.mark.parametrize("fmt", ["table", "csv"])
def test_formats(fleet: Fleet, fmt: str) -> None:
    web1 = fleet.add_host("web1", "127.0.0.11")
    assert web1.run_agent(failing=True).returncode == 0
    fleet.collect()
    out = fleet.hub("promises", "--format", fmt).stdout
    assert "always_fails" in out and web1.key_digest in out


def test_a_host_cannot_report_for_another(fleet: Fleet) -> None:
    """A host that copies another's spool (epoch, runs, inventory) is stored under its own
    key: identity is the key proved in the TLS handshake, never the answer's content."""
    import shutil

    web1 = fleet.add_host("web1", "127.0.0.11")
    forger = fleet.add_host("forger", "127.0.0.12")
    assert web1.run_agent(failing=True, role="web").returncode == 0
    fleet.collect(web1)
    shutil.copytree(f"{web1.workdir}/state/hub", f"{forger.workdir}/state/hub")
    fleet.collect(forger)
    hosts = {h["hostkey"]: h for h in _json(fleet.hub("hosts", "--format", "json"))}
    assert set(hosts) == {web1.key_digest, forger.key_digest}
    assert hosts[web1.key_digest]["address"] == web1.address
    assert hosts[forger.key_digest]["address"] == forger.address
    failed = _json(fleet.hub("promises", "--outcome", "failed", "--host", web1.key_digest,
                             "--format", "json"))
    assert [p["hostkey"] for p in failed] == [web1.key_digest]


def test_report_data_select_limits_what_the_hub_gets(fleet: Fleet) -> None:
    """The host's access rule names a report_data_select body: the hub never receives the
    promises it excludes by handle nor the variables it excludes by meta tag."""
    plain = fleet.add_host("plain", "127.0.0.11")
    guarded = fleet.add_host("guarded", "127.0.0.12", select=True)
    for host in (plain, guarded):
        assert host.run_agent().returncode == 0
    fleet.collect()
    handles = {(p["hostkey"], p["handle"]) for p in
               _json(fleet.hub("promises", "--format", "json"))}
    assert (plain.key_digest, "report_run") in handles
    assert (guarded.key_digest, "managed_file") in handles
    assert (guarded.key_digest, "report_run") not in handles
    inventory = {i["hostkey"]: i["attributes"] for i in
                 _json(fleet.hub("inventory", "--format", "json"))}
    assert inventory[plain.key_digest]["main.token"] == "s3cret"
    assert "main.token" not in inventory[guarded.key_digest]
    assert inventory[guarded.key_digest]["main.role"] == "web"
