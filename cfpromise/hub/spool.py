"""What a host keeps for its hub: each run's outcome, as a delta, until a hub collects it.

CFEngine's Enterprise agents keep their reports in the host's state until cf-hub asks
for them over cf-serverd (``QUERY delta`` / ``rebase``); cf-lite's agent does the same
into ``WORKDIR/state/hub/`` when the host belongs to a fleet (``policy_server.dat``
exists: it was bootstrapped to a hub) or ``CF_LITE_HUB_SPOOL=1`` asks for it:

* ``current.json`` -- the host's current state: the spool's ``epoch`` (a random id made
  when the spool is created; a hub that sees another epoch rebases), the last run's
  ``seq``, each promise's current outcome by promise id, the inventory and its digest.
* ``runs/SEQ.json`` -- one file per run: start, duration, exit code, policy release id,
  kept/repaired/not kept counts, and only what *changed* since the run before: the
  promises whose outcome differs or that were repaired (with what changed), the ids of
  promises that are gone, the inventory when its digest changed, and the monitoring
  values (``mon.*``).  A converged host's run file is a few hundred bytes.

The spool is bounded (:data:`MAX_RUNS` files, :data:`MAX_BYTES` bytes: about a week of
five-minute runs); the oldest runs go first, and a hub that asks for a delta older than
what is left gets the full state instead (:func:`answer`).  A hub's ``QUERY delta SEQ``
acknowledges the runs up to SEQ, which are then dropped: nothing is dropped before a
hub has stored it unless the bound forces it.

Files are written atomically (:mod:`cfpromise.atomic`), mode 0600 in a 0700 directory.
"""
from __future__ import annotations

import hashlib
import json
import os
import secrets
import time
from typing import Any, Iterable

from cfpromise.atomic import write_atomically
from cfpromise.hub import enabled  # noqa: F401  (the agent asks cfpromise.hub itself)

SPOOL_DIR = ("state", "hub")
MAX_RUNS = 2016                     # a week of five-minute runs
MAX_BYTES = 32 * 1024 * 1024
INVENTORY_TAGS = frozenset({"inventory", "report"})
NOT_COUNTED = frozenset({"vars", "classes", "meta", "defaults"})
FAILED = frozenset({"failed", "denied", "timeout", "interrupted", "warn"})
CHANGE_TEXT_MAX = 512               # one change's description, as stored
TAGS = "_tags"                      # inventory entry: the meta tags of each attribute
NOT_VARIABLES = frozenset({"classes", "software", "lastseen", TAGS})


def spool_dir(workdir: str) -> str:
    return os.path.join(workdir, *SPOOL_DIR)


def promise_id(bundle: str, ptype: str, promiser: str, handle: str | None, file: str,
               line: int) -> str:
    """A promise's identity across runs and hosts (same policy, same id)."""
    text = "\0".join((bundle, ptype, promiser, handle or "", file, str(line)))
    return hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()[:20]


def _rank(outcome: str) -> int:
    return 2 if outcome in FAILED else 1 if outcome == "repaired" else 0


# -- recording (the agent's side) -------------------------------------------------------
def promise_states(records: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """The run's promises by id (from the run recorder's records): the merged outcome of
    a promise's iterations and what changed; vars, classes and skipped ones left out."""
    out: dict[str, dict[str, Any]] = {}
    for r in records:
        outcome = r.outcome.value
        if r.ptype in NOT_COUNTED or outcome == "skipped":
            continue
        pid = promise_id(r.bundle, r.ptype, r.promiser, r.handle, r.file, r.line)
        entry = out.get(pid)
        changes = [_change_text(c) for c in r.changes]
        if entry is None:
            out[pid] = {"bundle": r.bundle, "promise_type": r.ptype, "promiser": r.promiser,
                        "handle": r.handle or "", "file": r.file, "line": r.line,
                        "outcome": outcome, "changes": changes}
        else:
            if _rank(outcome) > _rank(entry["outcome"]):
                entry["outcome"] = outcome
            entry["changes"] += changes
    return out


def _change_text(change: dict[str, Any]) -> str:
    kind = str(change.get("kind", "change"))
    rest = ", ".join(f"{k}={v}" for k, v in change.items() if k != "kind")
    text = f"{kind}: {rest}" if rest else kind
    return text[:CHANGE_TEXT_MAX]


def inventory_of(ctx: Any) -> dict[str, Any]:
    """Variables and classes tagged ``inventory`` or ``report`` (masterfiles' inventory
    bundles tag them), plus ``classes`` (the sorted list of such classes), ``software``
    (the package inventory) and ``lastseen`` (the peers this host talked to); the meta
    tags of each variable and class under ``TAGS`` (what report_data_select's
    ``metatags_include``/``_exclude`` decide by)."""
    out: dict[str, Any] = {}
    tags: dict[str, list[str]] = {}
    for key, var in ctx.variables():
        if INVENTORY_TAGS.intersection(var.tags):
            name = key[8:] if key.startswith("default:") else key
            out[name] = var.value
            tags[name] = sorted(var.tags)
    classes = []
    for name, ctags in ctx.classes_items():
        if INVENTORY_TAGS & set(ctags):
            classes.append(name)
            tags["class:" + name] = sorted(ctags)
    if classes:
        out["classes"] = sorted(classes)
    software = _software(ctx.workdir)
    if software:
        out["software"] = software
    seen = _lastseen(ctx.workdir)
    if seen:
        out["lastseen"] = seen
    if tags:
        out[TAGS] = tags
    return out


def _lastseen(workdir: str) -> list[str]:
    """The peers this host talked to (``in|out ADDRESS KEY``), without the times: the
    inventory changes when a peer does, not at every connection."""
    from cfpromise.net import lastseen
    return sorted({f"{'in' if e['incoming'] else 'out'} {e['address']} {e['key']}"
                   for e in lastseen.load(workdir)})[:1000]


def _software(workdir: str) -> list[str]:
    """The software inventory (state/software_packages.csv: name,version,arch,method)."""
    try:
        with open(os.path.join(workdir, "state", "software_packages.csv"),
                  encoding="utf-8", errors="replace") as fh:
            return sorted(line.strip() for line in fh if line.strip())[:20000]
    except OSError:
        return []


def monitoring_of(ctx: Any) -> dict[str, Any]:
    """The mon.* values cf-lite-monitord left for the agent (scalars only)."""
    out = {}
    for key, var in ctx.variables():
        if key.startswith("default:mon.") and var.type in ("string", "int", "real"):
            out[key[12:]] = var.value
    return out


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def _load_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def load_current(workdir: str) -> dict[str, Any]:
    data = _load_json(os.path.join(spool_dir(workdir), "current.json"))
    if not isinstance(data, dict) or not isinstance(data.get("promises"), dict):
        return {"epoch": secrets.token_hex(8), "seq": 0, "promises": {}, "inventory": {},
                "inventory_digest": ""}
    return data


def record_run(workdir: str, *, started: float, seconds: float, exit_code: int,
               release_id: str | None, promises: dict[str, dict[str, Any]],
               inventory: dict[str, Any], monitoring: dict[str, Any],
               now: float | None = None) -> int:
    """Add one run to the spool; return its sequence number."""
    directory = spool_dir(workdir)
    os.makedirs(os.path.join(directory, "runs"), mode=0o700, exist_ok=True)
    current = load_current(workdir)
    seq = int(current.get("seq", 0)) + 1
    before: dict[str, Any] = current["promises"]
    changed = []
    for pid, p in promises.items():
        old = before.get(pid)
        if old is None or old["outcome"] != p["outcome"] or p["changes"] \
                or p["outcome"] == "repaired":
            changed.append({"id": pid, **p})
    gone = sorted(set(before) - set(promises))
    counts = {"kept": 0, "repaired": 0, "notkept": 0}
    for p in promises.values():
        rank = _rank(p["outcome"])
        counts["notkept" if rank == 2 else "repaired" if rank == 1 else "kept"] += 1
    digest = _digest(inventory)
    run: dict[str, Any] = {
        "seq": seq, "epoch": current["epoch"], "start": int(started),
        "time": int(now if now is not None else time.time()),
        "duration": round(seconds, 3), "exit_code": exit_code, "release_id": release_id or "",
        **counts, "promises": changed, "gone": gone, "monitoring": monitoring}
    if digest != current.get("inventory_digest"):
        run["inventory"] = inventory
    write_atomically(os.path.join(directory, "runs", f"{seq}.json"),
                     json.dumps(run, separators=(",", ":"), default=str), dir_mode=0o700)
    current.update(seq=seq, inventory=inventory, inventory_digest=digest,
                   promises={pid: {k: v for k, v in p.items() if k != "changes"}
                             for pid, p in promises.items()},
                   last_run={k: run[k] for k in ("seq", "start", "time", "duration",
                                                  "exit_code", "release_id", "kept",
                                                  "repaired", "notkept")},
                   monitoring=monitoring)
    write_atomically(os.path.join(directory, "current.json"),
                     json.dumps(current, separators=(",", ":"), default=str), dir_mode=0o700)
    prune(workdir)
    return seq


def run_files(workdir: str) -> list[tuple[int, str]]:
    """(seq, path) of the spooled runs, oldest first."""
    runs = os.path.join(spool_dir(workdir), "runs")
    try:
        names = os.listdir(runs)
    except OSError:
        return []
    out = []
    for name in names:
        stem, dot, ext = name.partition(".")
        if dot and ext == "json" and stem.isdigit():
            out.append((int(stem), os.path.join(runs, name)))
    return sorted(out)


def prune(workdir: str, acknowledged: int = 0) -> None:
    """Drop runs a hub has stored (seq <= acknowledged), then the oldest beyond the bound."""
    files = run_files(workdir)
    keep = []
    for seq, path in files:
        if seq <= acknowledged:
            _unlink(path)
        else:
            keep.append((seq, path))
    sizes = []
    for seq, path in keep:
        try:
            sizes.append(os.path.getsize(path))
        except OSError:
            sizes.append(0)
    total = sum(sizes)
    while keep and (len(keep) > MAX_RUNS or total > MAX_BYTES):
        _unlink(keep.pop(0)[1])
        total -= sizes.pop(0)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


# -- answering a hub (the server's side) ------------------------------------------------
class Selection:
    """What a ``report_data_select`` body lets a hub see (all of it without one):

    * ``metatags_include``/``_exclude``: variables and classes whose meta tags match;
    * ``variables_include``/``_exclude``, ``classes_include``/``_exclude``: by name;
    * ``promise_handle_include``/``_exclude``: promise results by handle;
    * ``monitoring_include``/``_exclude``: ``mon.*`` values by name.

    Each list holds anchored regular expressions (the host's own policy's, not a peer's);
    an include list, when given, admits only what matches it, and an exclude list then
    takes away what matches it."""

    def __init__(self, select: dict[str, Any] | None) -> None:
        self.lists = {}
        for key in ("metatags", "variables", "classes", "promise_handle", "monitoring"):
            self.lists[key] = (self._patterns(select, key + "_include"),
                               self._patterns(select, key + "_exclude"))

    @staticmethod
    def _patterns(select: dict[str, Any] | None, key: str) -> list[Any] | None:
        import re
        value = (select or {}).get(key)
        if value is None:
            return None
        out = []
        for p in [value] if isinstance(value, str) else value:
            try:
                out.append(re.compile(str(p)))
            except re.error:
                pass
        return out

    def admits(self, kind: str, *values: str) -> bool:
        include, exclude = self.lists[kind]
        if include is not None and not any(p.fullmatch(v) for p in include for v in values):
            return False
        return not (exclude and any(p.fullmatch(v) for p in exclude for v in values))

    def _tagged(self, tags: list[str] | None) -> bool:
        include, exclude = self.lists["metatags"]
        if include is None and not exclude:
            return True
        return self.admits("metatags", *(tags or [""]))

    def inventory(self, inventory: dict[str, Any]) -> dict[str, Any]:
        tags = inventory.get(TAGS) or {}
        out: dict[str, Any] = {}
        for name, value in inventory.items():
            if name == "classes":
                kept = [c for c in value if self.admits("classes", c)
                        and self._tagged(tags.get("class:" + c))]
                if kept:
                    out[name] = kept
            elif name in NOT_VARIABLES:
                if name != TAGS:
                    out[name] = value
            elif self.admits("variables", name) and self._tagged(tags.get(name)):
                out[name] = value
        return out

    def promises(self, promises: Any) -> Any:
        if isinstance(promises, dict):
            return {k: p for k, p in promises.items()
                    if self.admits("promise_handle", p.get("handle") or "")}
        return [p for p in promises if self.admits("promise_handle", p.get("handle") or "")]

    def monitoring(self, values: Any) -> Any:
        if not isinstance(values, dict):
            return values
        return {k: v for k, v in values.items() if self.admits("monitoring", k)}


def answer(workdir: str, kind: str, since_epoch: str = "", since_seq: int = 0,
           select: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a hub's ``QUERY`` gets: ``{"kind": "delta", "epoch", "runs": [...]}`` with the
    runs after ``since_seq`` of spool ``since_epoch``, or ``{"kind": "rebase", "epoch",
    "current": ..., "runs": [...]}`` -- the full current state and every spooled run --
    when the hub asks for it or its delta cannot be served (another epoch, runs pruned)."""
    current = load_current(workdir)
    selection = Selection(select)
    files = run_files(workdir)
    if kind == "delta" and since_epoch == current["epoch"]:
        prune(workdir, since_seq)
        files = [f for f in files if f[0] > since_seq]
        if since_seq >= current["seq"]:
            return {"kind": "delta", "epoch": current["epoch"], "runs": []}
        if files and files[0][0] == since_seq + 1:
            return {"kind": "delta", "epoch": current["epoch"],
                    "runs": _runs(files, selection)}
    state = {"seq": current.get("seq", 0),
             "promises": selection.promises(current["promises"]),
             "inventory": selection.inventory(current.get("inventory") or {}),
             "last_run": current.get("last_run"),
             "monitoring": selection.monitoring(current.get("monitoring"))}
    return {"kind": "rebase", "epoch": current["epoch"], "current": state,
            "runs": _runs(files, selection)}


def _runs(files: list[tuple[int, str]], selection: Selection) -> list[dict[str, Any]]:
    out = []
    for _, path in files:
        run = _load_json(path)
        if isinstance(run, dict):
            if "inventory" in run:
                run["inventory"] = selection.inventory(run["inventory"])
            run["promises"] = selection.promises(run.get("promises") or [])
            run["monitoring"] = selection.monitoring(run.get("monitoring"))
            out.append(run)
    return out
