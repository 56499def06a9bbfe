"""The questions an operator asks of the fleet, as queries over the hub's database.

Each returns a list of plain dicts (the JSON objects ``cf-lite-hub ... --format json``
prints, the rows of the table and CSV formats, and what the web page shows):

* :func:`hosts` -- every host with ``hostkey``, ``hostname``, ``address``, ``last_seen``,
  ``last_run``, ``compliance`` (kept and repaired over all promises of its last run, in
  percent), the last run's counts, and ``stale`` (not seen for ``stale_after`` seconds).
* :func:`promises` -- promise results across the fleet: each host's current outcome per
  promise, and with ``since`` also the outcomes recorded in that window (a promise that
  failed an hour ago and is kept now is listed both ways), newest first.
* :func:`changes` -- what changed where in a time window: repairs (with what the
  promise changed) and inventory attributes that changed.
* :func:`inventory` -- attributes per host, with ``NAME=VALUE`` filters (``os=debian_12``).
* :func:`compliance_history` -- the fleet's compliance per hour, for the chart.

Every filter is a bound parameter, never SQL text; times are Unix seconds.
"""
from __future__ import annotations

import fnmatch
import json
import time
from typing import Any

from cfpromise.hub.store import Store

DEFAULT_STALE = 3600
OUTCOMES_FAILED = ("failed", "denied", "timeout", "interrupted", "warn")
# friendly names for inventory filters -> the variable names inventory bundles define
ALIASES = {"os": "sys.flavor", "flavor": "sys.flavor", "kernel": "sys.release",
           "arch": "sys.arch", "hostname": "sys.fqhost", "ostype": "sys.ostype",
           "cpus": "sys.cpus", "ip": "sys.ipv4", "uptime": "sys.uptime"}


def _compliance(kept: int, repaired: int, notkept: int) -> float | None:
    total = kept + repaired + notkept
    return round(100.0 * (kept + repaired) / total, 1) if total else None


def _host_filter(host: str | None) -> tuple[str, list[Any]]:
    if not host:
        return "", []
    return (" AND (h.hostkey = ? OR h.hostname = ? OR h.address = ? OR h.hostname LIKE ?)",
            [host, host, host, host + ".%"])


def hosts(store: Store, *, host: str | None = None, since: float | None = None,
          stale_after: float = DEFAULT_STALE, now: float | None = None) -> list[dict[str, Any]]:
    now = time.time() if now is None else now
    where, params = _host_filter(host)
    if since is not None:
        where += " AND h.last_seen >= ?"
        params.append(int(since))
    rows = store.rows(
        "SELECT h.hostkey, h.hostname, h.address, h.collected_by, h.first_seen, h.last_seen, "
        "h.last_run, h.kept, h.repaired, h.notkept, h.exit_code, h.release_id "
        f"FROM hosts h WHERE 1 = 1{where} ORDER BY h.hostname, h.hostkey", params)
    for r in rows:
        r["compliance"] = _compliance(r["kept"], r["repaired"], r["notkept"])
        r["stale"] = r["last_seen"] < now - stale_after
    return rows


def promises(store: Store, *, outcome: str | None = None, handle: str | None = None,
             host: str | None = None, bundle: str | None = None, file: str | None = None,
             promise: str | None = None, since: float | None = None,
             limit: int = 10000) -> list[dict[str, Any]]:
    cond, params = _host_filter(host)
    for column, value in (("p.handle", handle), ("p.bundle", bundle), ("p.file", file),
                          ("p.pid", promise)):
        if value:
            cond += f" AND {column} = ?"
            params.append(value)
    outcomes = _outcomes(outcome)
    state_cond = cond
    state_params = list(params)
    if outcomes:
        state_cond += " AND s.outcome IN (" + ",".join("?" * len(outcomes)) + ")"
        state_params += outcomes
    columns = ("h.hostkey, h.hostname, h.address, p.pid, p.bundle, p.promise_type, "
               "p.promiser, p.handle, p.file, p.line")
    rows = store.rows(
        f"SELECT {columns}, s.outcome, s.since AS time FROM promise_state s "
        "JOIN hosts h ON h.hostkey = s.hostkey JOIN promises p ON p.pid = s.pid "
        f"WHERE 1 = 1{state_cond} ORDER BY s.since DESC LIMIT {int(limit)}", state_params)
    for r in rows:
        r["current"] = True
    if since is not None:
        event_cond = "e.kind = 'promise' AND e.time >= ?" + cond.replace("s.", "e.")
        event_params = [int(since)] + params
        if outcomes:
            event_cond += " AND e.outcome IN (" + ",".join("?" * len(outcomes)) + ")"
            event_params += outcomes
        for part in store.partitions("events", since):
            for r in store.rows(
                    f"SELECT {columns}, e.outcome, e.time FROM {part} e "
                    "JOIN hosts h ON h.hostkey = e.hostkey JOIN promises p ON p.pid = e.name "
                    f"WHERE {event_cond}", event_params):
                r["current"] = False
                rows.append(r)
        newest: dict[tuple[str, str, str], dict[str, Any]] = {}
        for r in rows:
            key = (r["hostkey"], r["pid"], r["outcome"])
            if key not in newest or r["time"] > newest[key]["time"] or r["current"]:
                newest[key] = r
        rows = list(newest.values())
        rows.sort(key=lambda r: -r["time"])
    return rows[:limit]


def _outcomes(outcome: str | None) -> list[str]:
    if not outcome:
        return []
    if outcome in ("notkept", "not_kept"):
        return list(OUTCOMES_FAILED)
    return [o for o in outcome.split(",") if o]


def changes(store: Store, *, host: str | None = None, since: float | None = None,
            until: float | None = None, handle: str | None = None,
            limit: int = 10000) -> list[dict[str, Any]]:
    since = since if since is not None else time.time() - 86400
    cond, params = _host_filter(host)
    cond = "e.time >= ?" + cond
    params = [int(since)] + params
    if until is not None:
        cond += " AND e.time <= ?"
        params.append(int(until))
    out: list[dict[str, Any]] = []
    for part in store.partitions("events", since, until):
        out += store.rows(
            "SELECT h.hostkey, h.hostname, h.address, e.time, e.seq, e.kind, e.name, e.outcome, "
            "e.detail, p.bundle, p.promise_type, p.promiser, p.handle, p.file, p.line "
            f"FROM {part} e JOIN hosts h ON h.hostkey = e.hostkey "
            "LEFT JOIN promises p ON e.kind = 'promise' AND p.pid = e.name "
            f"WHERE {cond} AND (e.kind = 'inventory' OR e.outcome = 'repaired' "
            "OR e.detail <> '')", params)
    if handle:
        out = [r for r in out if r.get("handle") == handle]
    out.sort(key=lambda r: (-r["time"], r["hostname"], r["name"]))
    return out[:limit]


def _matches(value: Any, wanted: str) -> bool:
    if isinstance(value, list):
        return any(_matches(v, wanted) for v in value)
    return fnmatch.fnmatchcase(str(value), wanted)


def inventory(store: Store, *, host: str | None = None, filters: list[str] = (),
              names: list[str] = (), since: float | None = None) -> list[dict[str, Any]]:
    """One object per host: ``hostkey``, ``hostname``, ``address`` and its attributes.
    A filter ``NAME=VALUE`` (VALUE may hold ``*``/``?``; NAME a variable, its last part
    or an alias such as ``os``) keeps hosts whose attribute matches; ``class=X`` keeps
    hosts whose inventory classes hold X.  ``names`` limits the attributes shown."""
    wanted = []
    for f in filters:
        name, eq, value = f.partition("=")
        if not eq:
            raise ValueError(f"inventory filter '{f}' is not NAME=VALUE")
        wanted.append((ALIASES.get(name, name), value))
    by_host: dict[str, dict[str, Any]] = {}
    for h in hosts(store, host=host, since=since):
        by_host[h["hostkey"]] = {"hostkey": h["hostkey"], "hostname": h["hostname"],
                                 "address": h["address"], "last_seen": h["last_seen"],
                                 "attributes": {}}
    if not by_host:
        return []
    for key, name, value in store.execute("SELECT hostkey, name, value FROM inventory"
                                          ).fetchall():
        entry = by_host.get(key)
        if entry is not None:
            try:
                entry["attributes"][name] = json.loads(value)
            except ValueError:
                entry["attributes"][name] = value
    out = []
    for entry in by_host.values():
        attrs = entry["attributes"]
        if all(_attr_matches(attrs, name, value) for name, value in wanted):
            if names:
                entry["attributes"] = {k: v for k, v in attrs.items()
                                       if k in names or k.rpartition(".")[2] in names}
            out.append(entry)
    return out


def _attr_matches(attrs: dict[str, Any], name: str, value: str) -> bool:
    if name == "class":
        return _matches(attrs.get("classes", []), value)
    for key, got in attrs.items():
        if key == name or key.rpartition(".")[2] == name:
            if _matches(got, value):
                return True
    return False


def compliance_history(store: Store, *, since: float, bucket: int = 3600,
                       host: str | None = None) -> list[dict[str, Any]]:
    """Per ``bucket`` seconds: the runs' kept+repaired over all, fleet-wide (or one host)."""
    cond, params = _host_filter(host)
    totals: dict[int, list[int]] = {}
    for part in store.partitions("runs", since):
        for t, kept, repaired, notkept in store.execute(
                f"SELECT (r.time / {int(bucket)}) * {int(bucket)}, SUM(r.kept), "
                f"SUM(r.repaired), SUM(r.notkept) FROM {part} r JOIN hosts h "
                f"ON h.hostkey = r.hostkey WHERE r.time >= ?{cond} "
                f"GROUP BY (r.time / {int(bucket)}) * {int(bucket)}",
                [int(since)] + params).fetchall():
            acc = totals.setdefault(int(t), [0, 0, 0])
            acc[0] += int(kept or 0)
            acc[1] += int(repaired or 0)
            acc[2] += int(notkept or 0)
    return [{"time": t, "compliance": _compliance(*totals[t])} for t in sorted(totals)]


def parse_since(text: str | None, now: float | None = None) -> float | None:
    """``1h``, ``30m``, ``2d``, ``90s``, ``1w``, Unix seconds, or an ISO date/time (UTC)."""
    if text is None:
        return None
    now = time.time() if now is None else now
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
    t = text.strip()
    if t[:-1].isdigit() and t[-1:] in units:
        return now - int(t[:-1]) * units[t[-1]]
    if t.isdigit():
        return float(t)
    from datetime import datetime, timezone
    try:
        moment = datetime.fromisoformat(t)
    except ValueError:
        import argparse             # (its error type, as when argparse read the option)
        raise argparse.ArgumentTypeError(
            f"--since '{text}' is not a duration (30m, 1h, 2d), Unix time or ISO date") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()
