"""A collection round: ask every host's cf-lite-serverd for what changed, store it.

As cf-hub does: the hub connects to each host over the TLS protocol with its own key
(WORKDIR/ppkeys), and sends ``QUERY delta EPOCH SEQ`` -- the spool epoch and the last
run it stored for that host key -- or ``QUERY rebase`` for a host it has nothing of.
The host's access rules (``resource_type => "query"``) decide whether it answers.

* A host is identified by the key it proved in the TLS handshake, never by anything in
  its answer: no host can report for another.
* Network work runs in a pool of threads (``workers``), at most twice that many answers
  ahead of the store (memory stays bounded however large the fleet); the answers are
  stored by the calling thread one host at a time, each in its own transaction, so a
  host's data is acknowledged (its sequence number recorded, and asked past in the next
  round) only once it is stored.
* A host that cannot be reached, is not trusted, refuses, answers garbage, too much or
  too slowly is logged and skipped; the round goes on.  A database error stops the
  round (nothing is acknowledged that was not stored; the next round catches up).

Which hosts: those that bootstrapped to this hub (incoming entries of WORKDIR's
lastseen, where cf-lite-serverd records them), plus the ``--host`` ones; with
``shard=(i, n)`` only the host keys/addresses that hash to ``i`` of ``n``, so that
several hubs can share one database, each collecting its part of the fleet.
"""
from __future__ import annotations

import concurrent.futures
import hashlib
import socket
import time
import attrs
from typing import Any, Callable, Iterable

from cfpromise.hub import store as hubstore
from cfpromise.hub import wire

DEFAULT_WORKERS = 32
DEFAULT_TIMEOUT = 30.0


@attrs.define
class RoundResult:
    hosts: int = 0
    collected: int = 0
    called: int = 0                     # answers of hosts that called (call-collect)
    failed: list[tuple[str, str]] = attrs.field(factory=list)   # (address, why)
    runs: int = 0
    events: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"hosts": self.hosts, "collected": self.collected, "called": self.called,
                "runs": self.runs,
                "events": self.events, "seconds": round(self.seconds, 3),
                "failed": [{"address": a, "error": e} for a, e in self.failed]}


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``--shard I/N`` as (I, N); None without one (SystemExit, cf-lite-hub's message,
    when it is not I/N with I < N)."""
    if not text:
        return None
    i, _, n = text.partition("/")
    if not (i.isdigit() and n.isdigit()) or int(i) >= int(n):
        raise SystemExit(f"cf-lite-hub: error: --shard '{text}' is not I/N with I < N")
    return int(i), int(n)


def in_shard(address: str, shard: tuple[int, int] | None) -> bool:
    if not shard or shard[1] <= 1:
        return True
    digest = hashlib.sha1(address.encode()).digest()
    return int.from_bytes(digest[:4], "big") % shard[1] == shard[0]


def targets(workdir: str, listed: Iterable[str], shard: tuple[int, int] | None = None,
            from_lastseen: bool = True) -> list[str]:
    """The addresses (``host`` or ``host:port``) to collect from, each once."""
    out: dict[str, None] = {}
    if from_lastseen:
        from cfpromise.net import lastseen
        for entry in lastseen.load(workdir):
            if entry.get("incoming"):
                out[str(entry["address"])] = None
    for host in listed:
        out[host] = None
    return [a for a in out if in_shard(a, shard)]


def fetch(workdir: str, address: str, cursors: dict[str, tuple[str, int]], *,
          port: int | str, timeout: float, trust_new: bool, limit: int = wire.MAX_ANSWER,
          context: Any = None) -> tuple[str, str, dict[str, Any]]:
    """Connect, identify the host by its key, ask, read the answer: (hostkey, address,
    answer).  Raises NetError, PermissionError or wire.AnswerError."""
    from cfpromise.net.client import ConnectOptions, connect
    opts = ConnectOptions(workdir=workdir, port=port, timeout=timeout, trust=trust_new,
                          tls_context=context)
    deadline = time.monotonic() + timeout
    with connect(address, opts) as conn:
        hostkey = conn.key_digest
        epoch, seq = cursors.get(hostkey, ("", 0))
        conn.send(wire.request_text("delta" if epoch else "rebase", epoch, seq).encode())

        def recv() -> tuple[bytes, bool]:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise wire.AnswerError(f"no whole answer within {timeout:g} s")
            conn.sock.settimeout(remaining)
            return conn.recv()
        return hostkey, conn.address or address, wire.read_answer(recv, limit)


def collect_round(store: hubstore.Store, workdir: str, addresses: list[str], *,
                  hub_id: str = "", port: int | str = 5308, workers: int = DEFAULT_WORKERS,
                  timeout: float = DEFAULT_TIMEOUT, trust_new: bool = False,
                  log: Callable[[str, str], None] | None = None) -> RoundResult:
    from cfpromise.net.client import NetError
    log = log or (lambda level, message: None)
    hub_id = hub_id or socket.gethostname()
    started = time.monotonic()
    result = RoundResult(hosts=len(addresses))
    from cfpromise.hub import callcollect
    for hostkey, peer_address, answer, done in callcollect.take_pending(workdir):
        added = hubstore.ingest(store, hostkey, peer_address, hub_id, answer)
        done()
        result.called += 1
        result.runs += added["runs"]
        result.events += added["events"]
    cursors = store.cursors()
    from cfpromise.net.client import ConnectOptions, SetupError, client_context
    try:
        context = client_context(ConnectOptions(workdir=workdir))
    except SetupError as exc:
        log("error", f"Cannot collect: {exc}")
        result.failed = [(a, str(exc)) for a in addresses]
        return result
    window = max(1, workers) * 2          # answers fetched ahead of the store, at most
    pending = iter(addresses)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        running: dict[concurrent.futures.Future, str] = {}
        while True:
            while len(running) < window:
                address = next(pending, None)
                if address is None:
                    break
                running[pool.submit(fetch, workdir, address, cursors, port=port,
                                    timeout=timeout, trust_new=trust_new,
                                    context=context)] = address
            if not running:
                break
            done, _ = concurrent.futures.wait(running, return_when="FIRST_COMPLETED")
            for future in done:
                address = running.pop(future)
                try:
                    hostkey, peer_address, answer = future.result()
                except (NetError, PermissionError, wire.AnswerError, OSError) as exc:
                    log("error", f"Collecting from '{address}' failed: {exc}")
                    result.failed.append((address, str(exc)))
                    continue
                added = hubstore.ingest(store, hostkey, peer_address, hub_id, answer)
                del answer
                result.collected += 1
                result.runs += added["runs"]
                result.events += added["events"]
                log("verbose", f"Collected from '{address}' ({hostkey}): {added['runs']} "
                               f"runs, {added['events']} events")
    result.seconds = time.monotonic() - started
    return result
