"""cf-lite-hub: collect the fleet's reports into a database; query them; serve a web page.

    cf-lite-hub [--db URL] collect --once [--host ADDR[:PORT]]... [--shard I/N]
    cf-lite-hub [--db URL] collect            (the daemon: a round every --interval s)
    cf-lite-hub [--db URL] hosts|promises|changes|inventory [--since T] [--host H]
                [--format table|json|csv] [filters]
    cf-lite-hub [--db URL] web [--listen ADDR:PORT]
    cf-lite-hub [--db URL] prune --retention-days N

``--db`` is ``sqlite:///PATH`` (default WORKDIR/state/hub.sqlite) or ``postgresql://...``
(``CF_LITE_HUB_DB`` too).  The work is in :mod:`cfpromise.hub`.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from typing import Any

FORMATS = ("table", "json", "csv")


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="cf-lite-hub", description="cf-lite's fleet hub")
    ap.add_argument("-F", "--no-fork", action="store_true",
                    help="collect: run in the foreground, logging to stdout")
    ap.add_argument("-I", "--inform", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("-d", "--debug", action="store_true")
    ap.add_argument("-l", "--timestamp", action="store_true", help="timestamps on log lines")
    ap.add_argument("-w", "--workdir", help="the work directory")
    ap.add_argument("-V", "--version", action="store_true")
    ap.add_argument("--db", help="sqlite:///PATH or postgresql://... (default "
                                 "WORKDIR/state/hub.sqlite)")
    sub = ap.add_subparsers(dest="command")
    c = sub.add_parser("collect", help="collect reports from the hosts")
    c.add_argument("--once", action="store_true", help="one round, then exit")
    c.add_argument("--host", action="append", default=[], help="ADDR[:PORT] to collect from")
    c.add_argument("--no-lastseen", action="store_true",
                   help="only the --host ones, not the hosts bootstrapped to this hub")
    c.add_argument("--shard", help="I/N: only this hub's share of the hosts")
    c.add_argument("--port", type=int, default=5308, help="the hosts' port (5308)")
    c.add_argument("--workers", type=int, default=32)
    c.add_argument("--timeout", type=float, default=30.0)
    c.add_argument("--trust-new", action="store_true",
                   help="trust a host key seen for the first time (otherwise it must be "
                        "in WORKDIR/ppkeys already)")
    c.add_argument("--interval", type=float, default=300.0, help="seconds between rounds")
    c.add_argument("--retention-days", type=int, default=30)
    c.add_argument("--hub-id", default="", help="this hub's name in the database")
    for name in ("hosts", "promises", "changes", "inventory"):
        q = sub.add_parser(name, help=f"query {name}")
        q.add_argument("--since", help="30m, 1h, 2d, Unix time or ISO date")
        q.add_argument("--host", help="host key, name or address")
        q.add_argument("--format", choices=FORMATS, default="table")
        if name == "hosts":
            q.add_argument("--stale-after", type=float, default=3600.0)
        if name == "promises":
            q.add_argument("--outcome", help="kept, repaired, failed, notkept, ...")
            q.add_argument("--handle")
            q.add_argument("--bundle")
            q.add_argument("--file")
        if name == "changes":
            q.add_argument("--until")
            q.add_argument("--handle")
        if name == "inventory":
            q.add_argument("filters", nargs="*", help="NAME=VALUE (os=debian_12, class=X)")
            q.add_argument("--attribute", action="append", default=[],
                           help="show only these attributes")
    w = sub.add_parser("web", help="serve the dashboard")
    w.add_argument("--listen", default="127.0.0.1:8080")
    u = sub.add_parser("web-user", help="add or change a web login (password on stdin)")
    u.add_argument("name")
    p = sub.add_parser("prune", help="drop history older than the retention")
    p.add_argument("--retention-days", type=int, default=30)
    return ap


def _workdir(args: Any) -> str:
    from cfpromise.cli.agent import default_workdir
    return os.environ.get("CFENGINE_TEST_OVERRIDE_WORKDIR") or args.workdir or default_workdir()


def main(argv: list[str] | None = None) -> int:
    from cfpromise.cli.entry import argparse_start
    ap = _parser()
    args = argparse_start(ap, argv, "cf-lite-hub")
    if isinstance(args, int):
        return args
    if not args.command:
        ap.print_usage(sys.stderr)
        print("cf-lite-hub: error: a command is needed (collect, hosts, promises, changes, "
              "inventory, web, web-user, prune)", file=sys.stderr)
        return 2
    workdir = _workdir(args)
    if args.command == "web-user":
        return _web_user(workdir, args.name)
    from cfpromise.hub.store import Store, StoreError, default_url
    url = args.db or os.environ.get("CF_LITE_HUB_DB") or default_url(workdir)
    if args.command == "collect" and not args.once:
        from cfpromise.daemon import DaemonOptions
        from cfpromise.hub.daemon import HubD
        level = "debug" if args.debug else "verbose" if args.verbose else \
            "info" if args.inform else "notice"
        return HubD(DaemonOptions(workdir=workdir, file="", foreground=args.no_fork,
                                  level=level, timestamps=args.timestamp), url, args).run()
    try:
        store = Store(url)
    except StoreError as exc:
        print(f"cf-lite-hub: error: {exc}", file=sys.stderr)
        return 1
    try:
        if args.command == "collect":
            return _collect(store, workdir, args)
        if args.command == "web":
            from cfpromise.hub.web import serve
            return serve(store, workdir, args.listen, args)
        if args.command == "prune":
            dropped = store.drop_before(time.time() - args.retention_days * 86400)
            print(f"dropped {len(dropped)} day partitions")
            return 0
        return _query(store, args)
    finally:
        store.close()


def _web_user(workdir: str, name: str) -> int:
    from cfpromise.hub.web import WebConfigError, set_user
    if sys.stdin.isatty():
        import getpass
        password = getpass.getpass(f"Password for {name}: ")
    else:
        password = sys.stdin.readline().rstrip("\n")
    if len(password) < 8:
        print("cf-lite-hub: error: the password needs at least 8 characters", file=sys.stderr)
        return 1
    try:
        set_user(workdir, name, password)
    except (WebConfigError, OSError) as exc:
        print(f"cf-lite-hub: error: {exc}", file=sys.stderr)
        return 1
    return 0


def _log(args: Any) -> Any:
    level = 2 if args.verbose or args.debug else 1 if args.inform else 0

    def log(kind: str, message: str) -> None:
        if kind == "error" or (kind in ("info", "notice") and level >= 1) or level >= 2:
            print(f"cf-lite-hub {kind:>8}: {message}", file=sys.stderr)
    return log


def _collect(store: Any, workdir: str, args: Any) -> int:
    from cfpromise.hub.collect import collect_round, parse_shard, targets
    addresses = targets(workdir, args.host, parse_shard(args.shard),
                        from_lastseen=not args.no_lastseen)
    result = collect_round(store, workdir, addresses, hub_id=args.hub_id, port=args.port,
                           workers=args.workers, timeout=args.timeout,
                           trust_new=args.trust_new, log=_log(args))
    print(json.dumps(result.to_json()))
    return 0 if not result.failed else 1


def _query(store: Any, args: Any) -> int:
    from cfpromise.hub import queries
    since = queries.parse_since(args.since)
    if args.command == "hosts":
        rows = queries.hosts(store, host=args.host, since=since, stale_after=args.stale_after)
        columns = ["hostname", "address", "last_seen", "last_run", "compliance", "kept",
                   "repaired", "notkept", "stale", "hostkey"]
    elif args.command == "promises":
        rows = queries.promises(store, outcome=args.outcome, handle=args.handle,
                                host=args.host, bundle=args.bundle, file=args.file,
                                since=since)
        columns = ["hostname", "outcome", "time", "bundle", "promise_type", "promiser",
                   "handle", "file", "line", "hostkey"]
    elif args.command == "changes":
        rows = queries.changes(store, host=args.host, since=since,
                               until=queries.parse_since(args.until), handle=args.handle)
        columns = ["time", "hostname", "kind", "name", "outcome", "promise_type", "promiser",
                   "handle", "detail"]
    else:
        try:
            rows = queries.inventory(store, host=args.host, filters=args.filters,
                                     names=args.attribute, since=since)
        except ValueError as exc:
            print(f"cf-lite-hub: error: {exc}", file=sys.stderr)
            return 2
        columns = ["hostname", "address", "attributes", "hostkey"]
    write(rows, columns, args.format, sys.stdout)
    return 0


def write(rows: list[dict[str, Any]], columns: list[str], fmt: str, out: Any) -> None:
    if fmt == "json":
        json.dump(rows, out, indent=1, default=str)
        out.write("\n")
        return
    def cell(value: Any) -> str:
        if isinstance(value, (dict, list)):
            return json.dumps(value, sort_keys=True, default=str)
        if value is None:
            return ""
        return str(value).replace("\n", " | ")
    if fmt == "csv":
        w = csv.writer(out)
        w.writerow(columns)
        for r in rows:
            w.writerow([cell(r.get(c)) for c in columns])
        return
    table = [columns] + [[_when(c, r.get(c)) if c in ("time", "last_seen", "last_run")
                          else cell(r.get(c))[:60] for c in columns] for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(columns))]
    for row in table:
        out.write("  ".join(v.ljust(widths[i]) for i, v in enumerate(row)).rstrip() + "\n")


def _when(column: str, value: Any) -> str:
    if not value:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(int(value)))


if __name__ == "__main__":
    sys.exit(main())
