"""cf-lite-hub as a daemon: a collection round every ``--interval`` seconds, on the
daemon skeleton every cf-lite daemon shares (:mod:`cfpromise.daemon`: pid file
``WORKDIR/cf-lite-hub.pid``, SIGTERM, logging).  A round that fails (the database went
away) is logged and retried at the next tick; nothing uncollected is lost, since the
hosts keep their spools until a later round stores them.  Old day partitions are
dropped after each round (``--retention-days``)."""
from __future__ import annotations

import time
from typing import Any, Iterable

from cfpromise.daemon import Daemon, DaemonOptions


class HubD(Daemon):
    name = "cf-lite-hub"
    facility = "LOG_DAEMON"

    def __init__(self, options: DaemonOptions, url: str, args: Any) -> None:
        super().__init__(options)
        self.url = url
        self.args = args
        self.store: Any = None
        self.retry_after = min(60.0, float(args.interval))

    def load(self) -> Iterable[str]:
        from cfpromise.hub.store import Store
        if self.store is None:
            self.store = Store(self.url)
        return []

    def tick(self, now: float) -> float | None:
        from cfpromise.hub.collect import collect_round, parse_shard, targets
        from cfpromise.hub.store import Store
        a = self.args
        if self.store is None:
            self.store = Store(self.url)
        addresses = targets(self.options.workdir, a.host, parse_shard(a.shard),
                            from_lastseen=not a.no_lastseen)
        try:
            result = collect_round(self.store, self.options.workdir, addresses,
                                   hub_id=a.hub_id, port=a.port, workers=a.workers,
                                   timeout=a.timeout, trust_new=a.trust_new, log=self.log)
            self.store.drop_before(time.time() - a.retention_days * 86400)
        except Exception:
            self.store.close()          # reconnect at the next tick
            self.store = None
            raise
        self.log("info", f"Collection round: {result.collected} of {result.hosts} hosts, "
                         f"{result.runs} runs, {result.events} events in "
                         f"{result.seconds:.1f} s")
        return float(a.interval)

    def shutdown(self) -> None:
        if self.store is not None:
            self.store.close()
