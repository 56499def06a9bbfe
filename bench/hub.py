"""Benchmark: cf-lite-hub collecting from a simulated fleet, and its queries over 30 days.

1. Keys: one RSA-2048 key and certificate per simulated host, made once (two processes)
   and cached in ``~/.cache/cf-lite/bench-hub`` (about 0.23 s a key on this machine's
   cores: the first 10,000-host run spends ~20 minutes here, later runs none).
2. The fleet (bench/hubsim.py, a process of its own): every host on its own loopback
   address (127.1.x.y), answering over the real protocol with masterfiles-sized reports.
3. The hub: ``cf-lite-hub collect --once`` as a separate process over the hosts listed in
   its lastseen (as hosts bootstrapped to it are), ``--trust-new`` for their keys.  Round 1
   is the first collection (a rebase per host: every promise's state and the inventory);
   the next rounds are steady state: one five-minute run per host, 10% of hosts with a
   repaired and a failed promise.  For each round: wall time, the hub's CPU seconds and
   peak memory, database rows and bytes added; bytes per host per day = a steady round's
   bytes / hosts x 288 runs a day.
4. History: ``--days`` (30) of runs are written into the day partitions as a collection
   stores them, at ``--history-runs-per-day`` (24; 288 would be 12 times the rows), then the
   operator's queries are timed: the fleet overview (hosts and compliance), "which hosts
   failed promise X in the last day", the changes of the last day, an inventory filter.

Usage: python bench/hub.py [--hosts 10000] [--rounds 3] [--days 30] [--db URL]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from multiprocessing import Pool

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from bench import hubsim                              # noqa: E402
from cfpromise.hub import queries, store as hubstore  # noqa: E402

CACHE = os.path.join(os.path.expanduser("~"), ".cache", "cf-lite", "bench-hub")


def _make_key(path: str) -> None:
    from cfpromise.net import keys, tls
    key = keys.generate()
    tmp = path + ".tmp"
    with open(tmp, "wb") as fh:
        fh.write(tls.make_certificate(key) + keys.private_pem(key))
    os.replace(tmp, path)


def ensure_keys(n: int) -> str:
    os.makedirs(CACHE, mode=0o700, exist_ok=True)
    missing = [os.path.join(CACHE, f"{i}.pem") for i in range(n)
               if not os.path.exists(os.path.join(CACHE, f"{i}.pem"))]
    if missing:
        print(f"making {len(missing)} host keys (cached in {CACHE}) ...", flush=True)
        started = time.time()
        with Pool(os.cpu_count() or 2) as pool:
            pool.map(_make_key, missing, chunksize=16)
        print(f"  {time.time() - started:.0f} s", flush=True)
    return CACHE


def _hub_bin() -> str:
    return os.path.join(os.path.dirname(sys.executable), "cf-lite-hub")


def run_hub(args: list[str], env: dict[str, str]) -> dict:
    started = time.time()
    proc = subprocess.Popen([_hub_bin()] + args, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    out, err = proc.stdout.read(), proc.stderr.read()
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.time() - started
    try:
        summary = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise SystemExit(f"cf-lite-hub failed ({proc.returncode}):\n{out}\n{err[-3000:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rss_mb": usage.ru_maxrss / 1024, "summary": summary}


def db_bytes(url: str) -> int:
    if url.startswith("sqlite:///"):
        import sqlite3
        path = url[len("sqlite:///"):]
        con = sqlite3.connect(path)
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.close()
        return os.path.getsize(path)
    s = hubstore.Store(url)
    try:
        return int(s.execute("SELECT pg_database_size(current_database())").fetchone()[0])
    finally:
        s.close()


def db_rows(url: str) -> int:
    s = hubstore.Store(url)
    try:
        total = 0
        for table in ["hosts", "promises", "promise_state", "inventory"] + \
                s.partitions("runs") + s.partitions("events"):
            total += int(s.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
        return total
    finally:
        s.close()


def history(url: str, hosts: int, days: int, per_day: int) -> float:
    """``days`` of runs written straight into the day partitions, a transaction a day
    (the rows a collection stores: a run row per host and run, events for the hosts that
    changed); returns seconds.  Queries are timed over it."""
    s = hubstore.Store(url)
    started = time.time()
    base = int(time.time()) - days * 86400
    step = 86400 // per_day
    try:
        keys = sorted(s.cursors())[:hosts]
        seq0 = 1_000_000
        for day in range(days):
            runs, events = [], []
            day_start = base + day * 86400
            for n, k in enumerate(keys):
                for r in range(per_day):
                    seq = seq0 + day * per_day + r
                    run = hubsim.run(n, seq, 0.1, 0)
                    when = day_start + r * step
                    runs.append((k, seq, when, run["duration"], 0, run["kept"],
                                 run["repaired"], run["notkept"]))
                    for p in run["promises"]:
                        events.append((k, seq, when, "promise", p["id"], p["outcome"],
                                       "\n".join(p["changes"])))
            rt, et = s.partition("runs", day_start), s.partition("events", day_start)
            s.executemany(f"INSERT INTO {rt} VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                          f"ON CONFLICT DO NOTHING", runs)
            s.executemany(f"INSERT INTO {et} VALUES (?, ?, ?, ?, ?, ?, ?) "
                          f"ON CONFLICT DO NOTHING", events)
            s.commit()
    finally:
        s.close()
    return time.time() - started


def timed(fn, *a, repeat: int = 5, **kw) -> tuple[float, int]:
    best = None
    n = 0
    for _ in range(repeat):
        t = time.perf_counter()
        rows = fn(*a, **kw)
        t = time.perf_counter() - t
        n = len(rows)
        best = t if best is None else min(best, t)
    return best, n


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hosts", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--history-runs-per-day", type=int, default=24)
    ap.add_argument("--workers", type=int, default=64)
    ap.add_argument("--db", help="postgresql://... (default: SQLite in the scratch dir)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    a = ap.parse_args()
    keydir = ensure_keys(a.hosts)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, a.hosts + 4096)), hard))
    scratch = tempfile.mkdtemp(prefix="cf-lite-bench-hub-")
    hubdir = os.path.join(scratch, "hub")
    from cfpromise.net import keys
    os.makedirs(os.path.join(hubdir, "ppkeys"), mode=0o700)
    os.makedirs(os.path.join(hubdir, "state"), mode=0o700)
    keys.create_key_pair(keys.private_key_path(hubdir), keys.public_key_path(hubdir))
    from tests.server.helpers import free_port
    port = free_port()
    with open(os.path.join(hubdir, "state", "cf_lite_lastseen.json"), "w") as fh:
        json.dump([{"address": hubsim.address(i), "key": "", "incoming": True,
                    "time": int(time.time())} for i in range(a.hosts)], fh)
    url = a.db or f"sqlite:///{hubdir}/state/hub.sqlite"
    env = dict(os.environ, HUBSIM_BASE=str(int(time.time()) - 3600))
    env.pop("CFENGINE_TEST_OVERRIDE_WORKDIR", None)
    sim = subprocess.Popen([sys.executable, os.path.join(HERE, "hubsim.py"), keydir,
                            str(a.hosts), str(port)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        if sim.stdout.readline().strip() != "ready":
            raise SystemExit("the simulated fleet did not start")
        print(f"hosts {a.hosts}, database {url.split('://')[0]}")
        results = []
        before_bytes = db_bytes(url) if a.db else 0
        for r in range(a.rounds):
            before_rows = db_rows(url) if r else 0
            res = run_hub(["-w", hubdir, "--db", url, "collect", "--once", "--port", str(port),
                           "--workers", str(a.workers), "--trust-new", "--timeout", "60"], env)
            after_bytes = db_bytes(url)
            res["bytes"] = after_bytes - before_bytes
            res["rows"] = db_rows(url) - before_rows
            before_bytes = after_bytes
            results.append(res)
            s = res["summary"]
            print(f"round {r + 1} ({'first: rebase' if r == 0 else 'steady: one run a host'})"
                  f": {res['wall']:.1f} s wall, hub {res['cpu']:.1f} s CPU, "
                  f"{res['rss_mb']:.0f} MB peak; collected {s['collected']}/{s['hosts']}, "
                  f"{s['runs']} runs, {s['events']} events; +{res['rows']} rows, "
                  f"+{res['bytes'] / 1e6:.1f} MB", flush=True)
        if a.rounds > 1:
            steady = results[-1]
            per_run = steady["bytes"] / a.hosts
            print(f"database per host per run (steady): {per_run:.0f} bytes, "
                  f"{steady['rows'] / a.hosts:.2f} rows; per host per day (288 runs): "
                  f"{per_run * 288 / 1024:.0f} KB")
    finally:
        sim.terminate()
        sim.wait()
    if a.days:
        seconds = history(url, a.hosts, a.days, a.history_runs_per_day)
        print(f"history: {a.days} days x {a.history_runs_per_day} runs/day x {a.hosts} hosts "
              f"stored in {seconds:.0f} s; database {db_bytes(url) / 1e6:.0f} MB")
    s = hubstore.Store(url)
    try:
        handle = "h_3"
        for label, fn, kw in (
                ("fleet overview (hosts, compliance)", queries.hosts, {}),
                (f"hosts that failed promise {handle} in the last day", queries.promises,
                 {"handle": handle, "outcome": "failed", "since": time.time() - 86400}),
                ("changes of the last day", queries.changes,
                 {"since": time.time() - 86400}),
                ("inventory os=debian_12", queries.inventory, {"filters": ["os=debian_12"]})):
            t, n = timed(fn, s, **kw)
            print(f"query: {label}: {t * 1000:.0f} ms ({n} rows)")
    finally:
        s.close()
    if not a.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    else:
        print(f"kept {scratch}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
