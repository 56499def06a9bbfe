"""Which peers (address, key digest) this host has talked to and when -- the
lastseen database cf-key -s shows and cf-key -r cleans.  cf-lite keeps it as a
small JSON file, WORKDIR/state/cf_lite_lastseen.json, written atomically; a
damaged file is treated as empty (it is only bookkeeping)."""
from __future__ import annotations

import json
import os
import time

FILE = "cf_lite_lastseen.json"


def _path(workdir: str) -> str:
    return os.path.join(workdir, "state", FILE)


def load(workdir: str) -> list[dict[str, object]]:
    try:
        with open(_path(workdir), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return []
    if not isinstance(data, list):
        return []
    return [e for e in data if isinstance(e, dict) and {"address", "key", "incoming", "time"}
            <= set(e)]


def _save(workdir: str, entries: list[dict[str, object]]) -> None:
    from cfpromise.net.keys import write_private_file
    write_private_file(_path(workdir), json.dumps(entries, indent=1).encode())


def record(workdir: str, address: str, key_digest: str, incoming: bool,
           when: float | None = None) -> None:
    """LastSaw1: note a connection (failures to write are ignored)."""
    entries = [e for e in load(workdir)
               if not (e["address"] == address and e["incoming"] == incoming)]
    entries.append({"address": address, "key": key_digest, "incoming": incoming,
                    "time": int(when if when is not None else time.time())})
    try:
        _save(workdir, entries)
    except OSError:
        pass


def remove(workdir: str, what: str) -> tuple[list[dict[str, object]], set[str]]:
    """Drop the entries whose key or address is ``what``: (removed, their key digests)."""
    entries = load(workdir)
    gone = [e for e in entries if what in (e["key"], e["address"])]
    if gone:
        _save(workdir, [e for e in entries if e not in gone])
    return gone, {str(e["key"]) for e in gone}
