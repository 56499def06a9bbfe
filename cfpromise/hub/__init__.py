"""cf-lite-hub: the fleet's reports, collected from each host's cf-lite-serverd into a
database (SQLite or PostgreSQL), and the queries and web page over them.

The host's side is :mod:`cfpromise.hub.spool` (what a run leaves for the hub) and the
server's ``QUERY`` request (:mod:`cfpromise.server.requests`); the hub's side is
:mod:`~cfpromise.hub.collect` (collection rounds), :mod:`~cfpromise.hub.store` (the
schema, migrations, day partitions), :mod:`~cfpromise.hub.queries` and
:mod:`~cfpromise.hub.web`.  :mod:`~cfpromise.hub.wire` is the answer's framing both
sides share.
"""
from __future__ import annotations

import os


def enabled(workdir: str) -> bool:
    """Does this host keep reports for a hub (:mod:`cfpromise.hub.spool`)?  When it was
    bootstrapped to a policy server (``policy_server.dat``), or ``CF_LITE_HUB_SPOOL`` is
    set to anything but ``0``; ``CF_LITE_HUB_SPOOL=0`` turns it off.  (Here, not in the
    spool module, so that the agent's start path asks it for the price of a stat.)"""
    flag = os.environ.get("CF_LITE_HUB_SPOOL")
    if flag is not None:
        return flag not in ("", "0")
    return os.path.exists(os.path.join(workdir, "policy_server.dat"))
