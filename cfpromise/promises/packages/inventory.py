"""The package modules' caches: what is installed, what updates are available.

cf-agent 3.21 keeps, per module, ``packages_installed_<module>.lmdb`` and
``packages_updates_<module>.lmdb`` in its state directory; cf-lite keeps the
same data as ``WORKDIR/state/packages_installed_<module>.json`` and
``packages_updates_<module>.json``::

    {"module": "apt_get", "refreshed": 1700000000.0,
     "packages": [["bash", "5.2.15-2+b2", "amd64"], ...]}

written to a temporary file beside it, fsynced and renamed over (never half
written), mode 0600.  A cache that :mod:`cfpromise.agent.trust` does not trust
(another owner, writable by group or others, in such a directory) is ignored
with one warning and rebuilt, as if it were missing.  A cache is refreshed (UpdateSinglePackageModuleCache)
when it is missing (then ``list-updates-local`` is upgraded to the online
``list-updates``), when its ``query_*_ifelapsed`` minutes have passed since its
last refresh, or after the agent changed a package (forced).  Within one run a
cache refreshed by this run is reused while no promise has been repaired
since: with the usual ``query_installed_ifelapsed => "0"`` cf-agent lists the
installed packages again for every promise, although nothing could have
changed them in between.

At the end of a run, the modules named in ``body common control``'s
``package_inventory`` get their caches refreshed (as cf-agent's
UpdatePackagesCache does), so that ``packagesmatching()`` and
``packageupdatesmatching()`` (which read these files) see them.
"""
from __future__ import annotations

import json
import os
import time

from cfpromise.agent import trust
from cfpromise.promises.packages.cachefile import (  # noqa: F401  (read_inventory: API)
    INSTALLED, UPDATES, cache_path, load_cache, read_inventory)
from cfpromise.promises.packages.protocol import ModuleBody, ModuleError, Package, PackageModule

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

REQUESTS = {INSTALLED: "list-installed", UPDATES: "list-updates"}


# Inventory and Inventories are plain slotted classes, not attrs classes: masterfiles'
# dry run loads this module (for its package inventory), and attrs' import and class
# generation were most of what the run's promise-type modules cost at start.

class Inventory:
    __slots__ = ("packages", "refreshed")

    def __init__(self, packages: list[Package], refreshed: float = 0.0) -> None:
        self.packages = packages
        self.refreshed = refreshed

    def has(self, name: str, version: str | None = None, arch: str | None = None) -> bool:
        """IsPackageInCache: the name, and the version and architecture when given."""
        return any(n == name and (version is None or v == version) and (arch is None or a == arch)
                   for n, v, a in self.packages)

    def of(self, name: str) -> list[Package]:
        return [p for p in self.packages if p[0] == name]


def load(path: str) -> Inventory | None:
    """The cache at ``path``; None when missing or unreadable (then it is rebuilt)."""
    found = load_cache(path)
    return None if found is None else Inventory(*found)


def store(path: str, module: str, inventory: Inventory) -> None:
    """Write the cache atomically (temporary file, fsync, rename), mode 0600."""
    from cfpromise.atomic import write_atomically
    write_atomically(path, json.dumps({"module": module, "refreshed": inventory.refreshed,
                                       "packages": [list(p) for p in inventory.packages]}),
                     dir_mode=0o700)


class Inventories:
    """The caches as one run sees them (kept in the run's state, see Services.run_state)."""

    __slots__ = ("workdir", "log", "fresh", "warned", "taken")

    def __init__(self, workdir: str, log: Callable[[str, str], None]) -> None:
        self.workdir = workdir
        self.log = log
        # (module, kind) -> (inventory, number of repairs in the run when it was refreshed)
        self.fresh: dict[tuple[str, str], tuple[Inventory, int]] = {}
        self.warned: set[str] = set()       # untrusted caches already warned about
        # (module, kind) whose once-per-run refresh (update_packages_cache) this run has had
        self.taken: set[tuple[str, str]] = set()

    def get(self, module: PackageModule, body: ModuleBody, kind: str, *, repairs: int,
            local: bool = False) -> Inventory:
        """The cache of ``kind``, refreshed first when due (ModuleError if that fails)."""
        path = cache_path(self.workdir, kind, module.name)
        memo = self.fresh.get((module.name, kind))
        if memo is not None and memo[1] == repairs:
            return memo[0]
        cached = None if trust.ignored(path, self.workdir, self.log, "Package module cache",
                                       self.warned) else load(path)
        ifelapsed = body.installed_ifelapsed if kind == INSTALLED else body.updates_ifelapsed
        if cached is None:
            self.log("verbose", "Forcing package list update due to missing database")
            return self.refresh(module, body.default_options, kind, repairs=repairs)
        if time.time() - cached.refreshed >= (ifelapsed or 0) * 60:
            return self.refresh(module, body.default_options, kind, repairs=repairs, local=local)
        what = "installed packages" if kind == INSTALLED else "available updates"
        self.log("verbose", f"Skipping {what} package cache update.")
        return cached

    def refresh(self, module: PackageModule, options: tuple[str, ...], kind: str, *,
                repairs: int, local: bool = False) -> Inventory:
        request = REQUESTS[kind] + ("-local" if local and kind == UPDATES else "")
        inventory = Inventory(module.listing(request, options), time.time())
        try:
            store(cache_path(self.workdir, kind, module.name), module.name, inventory)
        except OSError as exc:
            raise ModuleError(f"cannot write the {kind} packages cache of package module "
                              f"'{module.name}': {exc.strerror or exc}") from None
        self.fresh[(module.name, kind)] = (inventory, repairs)
        return inventory


def inventories(services: Any) -> Inventories:
    """The run's Inventories (one per agent run)."""
    state = services.run_state("packages")
    found = state.get("inventories")
    if found is None:
        found = state["inventories"] = Inventories(services.workdir, services.log)
        if hasattr(services, "run_cache"):
            found.warned = trust.warned_set(services.run_cache)
    return found


def end_of_run(services: Any) -> None:
    """Refresh the caches of the ``package_inventory`` modules (cf-agent's
    UpdatePackagesCache at the end of a run): installed, and local updates."""
    update_packages_cache(services)


def update_packages_cache(services: Any) -> None:
    """UpdatePackagesCache(ctx, false) of cf-agent 3.21 for the ``package_inventory``
    modules: their installed and local-updates caches, each refreshed when due by its
    ``query_*_ifelapsed``, and at most once per run this way (3.21 takes a lock per
    cache for it, which one run acquires once).  Called at the end of the run and,
    as 3.21 does, right after a legacy ``package_method`` promise scheduled a change
    or failed -- that is before the scheduled command runs at the end of the section,
    so the refresh sees the packages as they were, and the end-of-run refresh is then
    skipped: ``packagesmatching()`` shows a legacy change only once a later run
    refreshes the cache (3.21 does the same)."""
    names = services.common_control("package_inventory")
    if not names:
        return
    from cfpromise.promises.packages.protocol import locate
    caches = inventories(services)
    for name in names if isinstance(names, list) else [names]:
        attributes = services.resolve_body("package_module", name)
        if attributes is None:
            services.log("error", f"Can not find body for package module: {name}")
            continue
        body = ModuleBody.from_attributes(name, attributes)
        try:
            module = locate(body, services.workdir)
        except ModuleError as exc:
            _no_wrapper(services, name, str(exc))
            continue
        try:
            module.api_version()
            for kind in (INSTALLED, UPDATES):
                if (module.name, kind) in caches.taken:
                    what = "installed packages" if kind == INSTALLED else "available updates"
                    services.log("verbose", f"Skipping {what} package cache update.")
                    continue
                caches.taken.add((module.name, kind))
                caches.get(module, body, kind, repairs=services.repairs, local=kind == UPDATES)
        except ModuleError as exc:
            services.log("error", f"Can not update the packages inventory: {exc}")


def _no_wrapper(services: Any, name: str, problem: str) -> None:
    """NewPackageModuleWrapper's failure, in cf-agent 3.21's words: the module's path
    and errno, then "Can not set up wrapper for module"."""
    import re
    found = re.match(r"Cannot find package module at location '(.*)' or access to file is "
                     r"restricted", problem)
    if found:
        path = found.group(1)
        errno_text = "No such file or directory" if not os.path.exists(path) else \
            "Permission denied"
        services.log("error", f"Cannot find package module at location '{path}' or access to "
                              f"file is restricted: {errno_text}")
    else:
        services.log("error", problem)
    services.log("error", f"Can not set up wrapper for module: {name}")
