"""Persistent classes: classes that outlive the run for a number of minutes.

Defined by ``classes:`` promises with ``persistence => "N"``, by classes bodies
with ``persist_time``, and by the module protocol's ``^persistence``.  They are
kept in ``WORKDIR/state/persistent_classes.json`` (name -> expiry time and tags),
written atomically once at the end of the run, and defined again at the start of
every run until they expire, tagged ``source=persistent``.  Messages are
cf-agent's.  The store changes what runs, so it is read only when
:mod:`cfpromise.agent.trust` trusts it (else one warning, and it is rewritten).
"""
from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FILENAME = "persistent_classes.json"


class PersistentClasses:
    def __init__(self, workdir: str) -> None:
        self.workdir = workdir
        self.path = os.path.join(workdir, "state", FILENAME)
        self.entries: dict[str, dict[str, Any]] = {}
        self.dirty = False

    def load(self, ctx: Any, out: Any, now: float | None = None,
             skip: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        """Define every persistent class that has not expired yet (but those in ``skip``:
        the classes negated with -N)."""
        now = time.time() if now is None else now
        out.log("verbose", "Loading persistent classes")
        from cfpromise.agent.trust import untrusted
        problem = untrusted(self.path, self.workdir)
        stored: Any = {}
        if problem is not None:
            out.log("warning", f"Persistent classes ignored: {problem}")
            self.dirty = True
        else:
            try:
                with open(self.path, encoding="utf-8") as fh:
                    import json     # only when there is a store: not on every start
                    stored = json.load(fh)
            except (OSError, ValueError):
                pass
        for name, entry in stored.items() if isinstance(stored, dict) else ():
            expires = entry.get("expires", 0) if isinstance(entry, dict) else 0
            if expires <= now:
                self.dirty = True
                continue
            self.entries[name] = entry
            if name in skip:
                continue
            minutes = int((expires - now) // 60) + (1 if (expires - now) % 60 else 0)
            out.log("verbose", f"Persistent class '{name}' for {minutes} more minutes")
            tags = tuple(t for t in entry.get("tags", []) if t != "source=persistent")
            ctx.define_class(name, tags + ("source=persistent",), "namespace",
                             entry.get("namespace", "default"))

    def remember(self, name: str, minutes: int, tags: tuple[str, ...] = (),
                 namespace: str = "default", now: float | None = None) -> None:
        now = time.time() if now is None else now
        self.entries[name] = {"expires": now + minutes * 60, "tags": list(tags),
                              "namespace": namespace}
        self.dirty = True

    def forget(self, name: str) -> None:
        if self.entries.pop(name, None) is not None:
            self.dirty = True

    def save(self) -> None:
        """Write the store atomically (:mod:`cfpromise.atomic`: 0600, fsynced)."""
        if not self.dirty:
            return
        import json
        from cfpromise.atomic import write_atomically
        write_atomically(self.path, json.dumps(self.entries, sort_keys=True))  # 0600
        self.dirty = False
