"""Files promises under ``--simulate``: the same work, done in the changes chroot.

cf-agent 3.21 makes a files promise's changes on a copy of the file under
``WORKDIR/state/<pid>.changes`` (see :mod:`cfpromise.agent.simulate`).  Here a
files promise for ``/a/b`` is handled as a promise for ``<chroot>/a/b`` after
the host's file has been mirrored there; the paths its attributes name are
moved into the chroot the way cf-agent moves them:

* ``copy_from`` a local source reads the chroot's copy when there is one (a
  file an earlier promise created or changed in this run), else the host's;
* ``link_from`` links to the source's chroot copy (mirrored first), so the
  manifest shows the host path as the target;
* ``rename`` to an absolute ``newname`` renames inside the chroot;
* ``transformer`` runs with the promiser's path replaced by the chroot's.

Messages name the host paths (the agent's output translates them back).
"""
from __future__ import annotations

import os
from typing import Any

from cfpromise.promises.api import PromiseRun


def translated_run(run: PromiseRun, sim: Any, path: str) -> PromiseRun:
    """``run`` for the file ``path`` (a host path) with its promiser and the host paths
    of its attributes moved into the chroot."""
    chrooted = sim.to_chroot(path)
    attributes = dict(run.attributes)
    copy = attributes.get("copy_from")
    if isinstance(copy, dict) and isinstance(copy.get("source"), str) and _local(copy):
        source = copy["source"]
        if os.path.lexists(sim.to_chroot(source)):
            attributes["copy_from"] = dict(copy, source=sim.to_chroot(source))
    link = attributes.get("link_from")
    if isinstance(link, dict) and isinstance(link.get("source"), str) \
            and link["source"].startswith("/"):
        sim.prepare(link["source"])
        attributes["link_from"] = dict(link, source=sim.to_chroot(link["source"]))
    rename = attributes.get("rename")
    if isinstance(rename, dict) and isinstance(rename.get("newname"), str) \
            and rename["newname"].startswith("/"):
        attributes["rename"] = dict(rename, newname=sim.to_chroot(rename["newname"]))
    transformer = attributes.get("transformer")
    if isinstance(transformer, str) and path in transformer:
        attributes["transformer"] = transformer.replace(path, chrooted)
    promiser = chrooted if run.promiser == path else run.promiser
    return PromiseRun(run.promise, run.promise_type, promiser, attributes, run.namespace,
                      run.bundle, run.agent, run.promisee)


def _local(copy: dict[str, Any]) -> bool:
    servers = copy.get("servers")
    if not servers:
        return True
    names = servers if isinstance(servers, list) else [servers]
    return all(s in ("localhost", "") for s in names)


def final_path(path: str, has_depth: bool) -> str:
    """The path a files promise reports for ``path`` (``/d/.`` is ``/d`` without depth_search)."""
    if not has_depth and os.path.basename(path) == ".":
        path = os.path.dirname(path)
    if not has_depth and path.endswith("/") and len(path) > 1:
        path = path.rstrip("/")
    return path
