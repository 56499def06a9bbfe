"""Call-collect, the calling host's side: connect to the hub and serve its queries.

When ``body server control`` sets ``call_collect_interval``, cf-lite-serverd calls
its policy server (``policy_server.dat``) every that many minutes with its own key,
sends ``CALL_ME_BACK collect_calls`` and then serves the hub's ``QUERY`` requests on
that connection through the server's own request dispatch (the access rules decide
as for any peer), for at most ``collect_window`` seconds.  The hub's side, and the
whole story, is cfpromise/hub/callcollect.py; this side lives with the server whose
dispatch it uses.
"""
from __future__ import annotations

import os
import time
from typing import Any, Callable

from cfpromise.net import protocol as P
from cfpromise.server.requests import Peer, Request, dispatch

DEFAULT_WINDOW = 10.0


def policy_server(workdir: str) -> str | None:
    try:
        with open(os.path.join(workdir, "policy_server.dat"), encoding="utf-8") as fh:
            text = fh.read().strip()
    except OSError:
        return None
    return text or None


def call_hub(workdir: str, access: Any, log: Callable[[str, str], None],
             window: float = DEFAULT_WINDOW) -> bool:
    """One call: connect to the hub, ``CALL_ME_BACK collect_calls``, then serve its
    requests under ``access`` until it closes or ``window`` seconds pass."""
    from cfpromise.net.client import ConnectOptions, NetError, connect
    hub = policy_server(workdir)
    if hub is None:
        log("verbose", "call_collect_interval is set, but no policy_server.dat names a hub")
        return False
    try:
        conn = connect(hub, ConnectOptions(workdir=workdir, timeout=min(window, 30.0)))
    except NetError as exc:
        log("info", f"Call-collect: cannot connect to '{hub}': {exc}")
        return False
    deadline = time.monotonic() + window
    try:
        conn.send(b"CALL_ME_BACK collect_calls")
        peer = Peer(ip=conn.address.split(":")[0] if conn.address.count(":") == 1
                    else conn.address, key=conn.key_digest, username="root")

        def receive() -> bytes:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("collect window over")
            conn.sock.settimeout(remaining)
            payload, _ = conn.recv()
            return payload
        req = Request(access, peer, conn.sock.sendall, receive, log, workdir)
        while True:
            try:
                payload = receive()
            except (NetError, TimeoutError, OSError):
                return True
            text = P.cstring(payload)
            if not text.startswith("QUERY "):
                log("info", f"Call-collect: the hub sent '{text[:40]}', only QUERY is served")
                return True
            if not dispatch(req, payload):
                return True
    finally:
        conn.close()
