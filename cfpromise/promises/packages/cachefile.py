"""The package modules' cache files, read without the package machinery.

``packagesmatching()`` and ``packageupdatesmatching()`` read these caches in every
run (masterfiles' inventory bundle calls them), also in ``cf-lite-promises``;
:mod:`.inventory` (refreshing caches through the module protocol, attrs records)
costs more to import than the whole read.  The file format is described there.
"""
from __future__ import annotations

import json
import os

from cfpromise.agent import trust

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

INSTALLED, UPDATES = "installed", "updates"
Package = tuple[str, str, str]


def cache_path(workdir: str, kind: str, module: str) -> str:
    return os.path.join(workdir, "state", f"packages_{kind}_{module}.json")


def load_cache(path: str) -> tuple[list[Package], float] | None:
    """The packages and refresh time of the cache at ``path``; None when missing or
    unreadable (then it is rebuilt)."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        packages = [tuple(p) for p in data["packages"]]
        if not all(len(p) == 3 and all(isinstance(x, str) for x in p) for p in packages):
            return None
        return packages, float(data["refreshed"])  # type: ignore[return-value]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def read_inventory(workdir: str, kind: str, module: str,
                   log: Callable[[str, str], None] | None = None,
                   warned: set[str] | None = None) -> list[Package] | None:
    """The cached packages of ``module`` (for packagesmatching()); None when absent or
    not trusted (then one warning through ``log``, once per path in ``warned``)."""
    path = cache_path(workdir, kind, module)
    if trust.ignored(path, workdir, log or (lambda level, message: None),
                     "Package module cache", warned):
        return None
    found = load_cache(path)
    return None if found is None else found[0]
