"""Call-collect: a host the hub cannot reach (behind NAT) calls the hub instead.

As CFEngine's Enterprise does it: the host's cf-lite-serverd, when its ``body server
control`` sets ``call_collect_interval`` (minutes), connects every that many minutes
to its policy server (``policy_server.dat``) with its own key, sends
``CALL_ME_BACK collect_calls``, and then *serves* the hub's requests on that same
connection -- the hub asks ``QUERY delta``/``rebase`` as it would over a connection of
its own, and the host's access rules decide as for any peer (the peer being the hub's
key and address).  ``collect_window`` (seconds, default 10) bounds how long it serves.

On the hub, cf-lite-serverd's ``CALL_ME_BACK`` handler admits the caller only when
an ``access`` promise ``"collect_calls" resource_type => "query"`` admits it; it
asks the query itself (the cursor is the last run it holds or the hub stored for that
key) and writes the answer, atomically, into ``WORKDIR/state/hub_calls/``:
``KEY.SEQ.json`` (identified by the key the caller proved, never by its answer).
cf-lite-hub's next collection round stores those files (:func:`take_pending`) and
records the cursor (``KEY.cursor``); a file is removed only once it is stored.

This module is the hub's side.  The calling host's side (connect, ``CALL_ME_BACK``,
serve the hub's queries) is cfpromise/server/callhub.py: it serves through the
server's request dispatch, which itself hands ``CALL_ME_BACK`` to this module, so
the two sides in one module were an import cycle.
"""
from __future__ import annotations

import json
import os
import re
import time
from typing import Any, Callable, Iterator

from cfpromise.hub import wire

CALLS_DIR = ("state", "hub_calls")
_KEY = re.compile(r"^(MD5|SHA)=[0-9a-f]{32,64}$")
MAX_PENDING = 64                   # answers kept per host until the hub stores them


def calls_dir(workdir: str) -> str:
    return os.path.join(workdir, *CALLS_DIR)


def _safe_key(key: str) -> str | None:
    return key if _KEY.match(key) else None


# -- the hub's side: cf-lite-serverd's CALL_ME_BACK -----------------------------------------
def cursor(workdir: str, key: str) -> tuple[str, int]:
    """(epoch, seq) to ask from: the newest pending answer's, else what the hub stored."""
    waiting = pending(workdir, key)
    if waiting:
        seq, epoch, _ = waiting[-1]
        return epoch, seq
    try:
        with open(os.path.join(calls_dir(workdir), key + ".cursor"), encoding="utf-8") as fh:
            epoch, _, seq = fh.read().strip().partition(" ")
            return epoch, int(seq)
    except (OSError, ValueError):
        return "", 0


def pending(workdir: str, key: str | None = None) -> list[tuple[int, str, str]]:
    """(seq, epoch, path) of the answers waiting for the hub, oldest first (as written:
    a rebase under a new epoch may carry a lower sequence than what came before)."""
    try:
        names = os.listdir(calls_dir(workdir))
    except OSError:
        return []
    out = []
    for name in names:
        parts = name.split(".")
        if len(parts) != 4 or parts[3] != "json" or not parts[2].isdigit():
            continue
        if key is not None and parts[0] != key:
            continue
        path = os.path.join(calls_dir(workdir), name)
        try:
            out.append((os.stat(path).st_mtime_ns, int(parts[2]), parts[1], path))
        except OSError:
            continue
    return [entry[1:] for entry in sorted(out)]           # in the order they were written


def collect_call(req: Any, receive: Callable[[], bytes]) -> bool:
    """Ask the calling host (``req.peer``) for its reports on its own connection and
    leave the answer for cf-lite-hub.  Returns whether the connection stays open."""
    from cfpromise.atomic import write_atomically
    key = _safe_key(req.peer.key)
    if key is None or not req.workdir:
        return False
    if len(pending(req.workdir, key)) >= MAX_PENDING:
        req.log("info", f"Call-collect from {key}: {MAX_PENDING} answers wait for the hub "
                        f"already, not asking for more")
        return False
    epoch, seq = cursor(req.workdir, key)
    req.send(_frame(wire.request_text("delta" if epoch else "rebase", epoch, seq)))
    try:
        answer = wire.read_answer(lambda: (receive(), False))
    except (PermissionError, wire.AnswerError) as exc:
        req.log("info", f"Call-collect from {key}: {exc}")
        return False
    runs = [r for r in answer.get("runs") or () if isinstance(r, dict)]
    last = max([int(r.get("seq", 0)) for r in runs] + [int((answer.get("current") or {})
                                                            .get("seq") or 0), seq])
    new_epoch = str(answer.get("epoch", ""))[:64]
    if not new_epoch.isalnum():
        req.log("info", f"Call-collect from {key}: bad epoch")
        return False
    record = {"address": req.peer.ip, "time": int(time.time()), "answer": answer}
    write_atomically(os.path.join(calls_dir(req.workdir), f"{key}.{new_epoch}.{last}.json"),
                     json.dumps(record, separators=(",", ":")), dir_mode=0o700)
    req.log("verbose", f"Call-collect from {key}: {answer['kind']}, {len(runs)} runs")
    return False


def _frame(text: str) -> bytes:
    from cfpromise.net import protocol as P
    return P.encode(text)


def take_pending(workdir: str) -> Iterator[tuple[str, str, dict[str, Any], Callable[[], None]]]:
    """(key, address, answer, done) for each waiting answer, oldest first; ``done()``
    (called once the answer is stored) records the cursor and removes the file."""
    for seq, epoch, path in pending(workdir):
        key = os.path.basename(path).split(".")[0]
        try:
            with open(path, encoding="utf-8") as fh:
                record = json.load(fh)
            answer = record["answer"]
        except (OSError, ValueError, KeyError, TypeError):
            os.replace(path, path + ".bad")
            continue

        def done(key: str = key, epoch: str = epoch, seq: int = seq, path: str = path) -> None:
            from cfpromise.atomic import write_atomically
            write_atomically(os.path.join(calls_dir(workdir), key + ".cursor"),
                             f"{epoch} {seq}\n", dir_mode=0o700)
            os.unlink(path)
        yield key, str(record.get("address", "")), answer, done


# -- the host's side: cf-lite-serverd calls its hub -------------------------------------------
