"""``changes``: file integrity monitoring, the "tripwire" use (files_changes.c).

The state lives in ``WORKDIR/state/cf_lite_changes.json``: per file the content
hash of each algorithm used and the stat fields cf-agent compares (mode, uid,
gid, device, inode, mtime), per directory searched the names seen.  Every
change is also appended to ``WORKDIR/state/file_changes.log`` as cf-agent does
(``time,handle,file,N|R|C|S,message``).

* ``report_changes`` ``content``/``all``: the file's hash (``hash``: md5, sha1,
  sha224, sha256, sha384, sha512, or ``best`` = md5 and sha1) is compared with
  the stored one.  A file seen for the first time is stored (repaired); a
  changed hash is reported, defines ``checksum_alerts``, and is stored again
  with ``update_hashes`` (repaired) or left (not kept).
* ``stats``/``all``: permission, owner, group, device, inode and mtime changes
  are reported (and stored again with ``update_hashes``).
* with ``depth_search``, files new to a directory and files gone from it are
  reported.
* ``report_diffs`` is a CFEngine Enterprise feature: accepted, no diffs kept.
* every write to the database or the log goes through MakingInternalChanges
  (:func:`_internal`): under ``-n`` (or ``action_policy => "warn"``) it says what it
  would record instead ("Should record change of hash for file...", "Should write stat
  information for... to database", "Should record directory listing for..." -- said for
  every directory searched, as cf-agent does), a warning result, and nothing changes.
* a directory listing is written only with ``update_hashes`` (without, recording it
  fails, each run, as in cf-agent); one that is a prefix of the stored listing (its last
  names gone) counts as unchanged, as cf-agent compares only that far.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from typing import Any

from cfpromise.agent.outcome import Outcome
from cfpromise.atomic import write_atomically
from cfpromise.promises.files import bridge
from cfpromise.promises.files.context import FileRun

_DB_NAME = "cf_lite_changes.json"
_LOG_NAME = "file_changes.log"


class ChangesDB:
    """The changes database, loaded once per run and written back after each change."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.data: dict[str, dict[str, Any]] = {"H": {}, "S": {}, "D": {}}
        try:
            with open(path, encoding="utf-8") as fh:
                loaded = json.load(fh)
            for key in ("H", "S", "D"):
                if isinstance(loaded.get(key), dict):
                    self.data[key] = loaded[key]
        except (OSError, ValueError):
            pass

    def save(self) -> None:
        write_atomically(self.path, json.dumps(self.data, sort_keys=True),
                         temp=self.path + ".tmp")                        # 0600, fsynced


def _db(fr: FileRun) -> ChangesDB:
    state = bridge.run_state(fr.agent, "changes")
    db = state.get("db")
    if db is None:
        db = ChangesDB(fr.agent.state_path(_DB_NAME))
        state["db"] = db
    return db


def log_change(fr: FileRun, path: str, kind: str, message: str) -> None:
    """FileChangesLogChange (not under -n nor --simulate: the host's state, the change
    log included, stays as it was)."""
    if fr.sim is not None or fr.dry_run:
        return
    fname = fr.agent.state_path(_LOG_NAME)
    handle = fr.run.handle or ""
    try:
        with open(fname, "a", encoding="utf-8") as fh:
            fh.write(f"{int(time.time())},{handle},{path},{kind},{message}\n")
        os.chmod(fname, 0o600)
    except OSError as exc:
        fr.log("error", f"Could not write to the hash change log. (fopen: {exc.strerror})")


def _hash_file(path: str, algorithm: str) -> str | None:
    try:
        h = hashlib.new(algorithm)
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 16), b""):
                h.update(chunk)
        return h.hexdigest()
    except (OSError, ValueError):
        return None


def _internal(fr: FileRun, what: str) -> bool:
    """MakingInternalChanges: True when the change database may be written; under -n,
    --simulate or ``action_policy => "warn"`` says what would be recorded ("Should
    <what>", a warning result) and gives False."""
    if not fr.warn_only and fr.sim is None:
        return True
    fr.should(f"Should {what}")
    return False


def _key(fr: FileRun, path: str) -> str:
    """The database key of ``path``: under --simulate the host path the chroot's copy
    stands for."""
    return fr.sim.to_normal(path) if fr.sim is not None else path


def _label(algorithm: str) -> str:
    return "MD5" if algorithm == "md5" else "SHA"


def check_hash(fr: FileRun, path: str, algorithm: str) -> bool:
    """FileChangesCheckAndUpdateHash: True when the content changed (or, not written,
    is not known)."""
    digest = _hash_file(path, algorithm)
    if digest is None:
        return False
    db = _db(fr)
    key = f"{algorithm}\0{_key(fr, path)}"
    stored = db.data["H"].get(key)
    update = fr.a.changes is not None and fr.a.changes.update
    if stored == digest:
        fr.kept(f"File hash for {path} is correct")
        return False
    if stored is not None:
        fr.log("info", f"Hash '{algorithm}' for '{path}' changed!")
        if fr.run.attributes.get("comment"):
            fr.log("verbose", f"Preceding promise '{fr.run.attributes.get('comment')}'")
    if not _internal(fr, f"record change of hash for file '{path}'"):
        return True
    if stored is None or update:
        action = "Updated" if stored is not None else "Stored"
        db.data["H"][key] = digest
        db.save()
        fr.change(f"{action} {algorithm} hash for '{path}' ({_label(algorithm)}={digest})")
        return stored is not None
    fr.fail(f"Hash for file '{path}' changed, but not updating the records")
    return True


def verify_integrity(fr: FileRun, path: str) -> None:
    """VerifyFileIntegrity: content hashes (report_changes content/all)."""
    changes = fr.a.changes
    assert changes is not None
    if changes.report_changes not in ("content", "all"):
        return
    if fr.sim is not None:          # --simulate: the chroot's copy is not the host's file
        return
    algorithms = ["md5", "sha1"] if changes.hash == "best" else [changes.hash]
    # as cf-agent's ``changed || Check...``: a changed md5 leaves sha1 unchecked
    changed = any(check_hash(fr, path, algorithm) for algorithm in algorithms)
    if changed and _internal(fr, f"record integrity changes in '{path}'"):
        fr.agent.define_class("checksum_alerts", namespace="default")
        log_change(fr, path, "C", "Content changed")
        fr.change(f"Recorded integrity changes in '{path}'")


def _stat_record(st: os.stat_result) -> list[int]:
    return [st.st_mode, st.st_uid, st.st_gid, st.st_dev, st.st_ino, int(st.st_mtime)]


# (index in the stat record, name in messages, log prefix, what is recorded): the fields
# whose change FileChangesCheckAndUpdateStats records, in its order
_RECORDED = ((1, "Owner", "Owner", "ownership"), (2, "Group", "Group", "group"),
             (3, "Device", "Device", "device"))


def _record(fr: FileRun, path: str, what: str, message: str) -> None:
    if _internal(fr, f"record {what} changes in '{path}'"):
        log_change(fr, path, "S", message)
        fr.change(f"Recorded {what} changes in '{path}'")


def verify_stats(fr: FileRun, path: str, st: os.stat_result) -> None:
    """FileChangesCheckAndUpdateStats (report_changes stats/all)."""
    changes = fr.a.changes
    assert changes is not None
    if changes.report_changes not in ("stats", "all"):
        return
    if fr.sim is not None:          # --simulate: the chroot's copy has stats of its own
        return
    db = _db(fr)
    new = _stat_record(st)
    old = db.data["S"].get(_key(fr, path))
    if old is None:
        if _internal(fr, f"write stat information for '{path}' to database"):
            db.data["S"][_key(fr, path)] = new
            db.save()
            fr.change(f"Wrote stat information for '{path}' to database")
        return
    if list(old) == new:
        fr.kept(f"No stat information change for '{path}'")
        return
    if old[0] != new[0]:
        fr.log("notice", f"Permissions for '{path}' changed {old[0]:04o} -> {new[0]:04o}")
        _record(fr, path, "permissions", f"Permission: {old[0]:04o} -> {new[0]:04o}")
    for index, name, prefix, what in _RECORDED:
        if old[index] != new[index]:
            fr.log("notice", f"{name} for '{path}' changed {old[index]} -> {new[index]}")
            _record(fr, path, what, f"{prefix}: {old[index]} -> {new[index]}")
    if old[4] != new[4]:
        fr.log("notice", f"inode for '{path}' changed {old[4]} -> {new[4]}")
    if old[5] != new[5]:
        before = time.ctime(old[5])
        after = time.ctime(new[5])
        fr.log("notice", f"Last modified time for '{path}' changed '{before}' -> '{after}'")
        _record(fr, path, "mtime", f"Modified time: {before} -> {after}")
    if fr.run.attributes.get("comment"):
        fr.log("verbose", f"Preceding promise '{fr.run.attributes.get('comment')}'")
    if changes.update and _internal(fr, f"write stat information for '{path}' to database"):
        db.data["S"][_key(fr, path)] = new
        db.save()
        fr.change(f"Wrote stat information changes for '{path}' to database")


def verify_file_changes(fr: FileRun, path: str, st: os.stat_result) -> None:
    """The changes checks of VerifyFileAttributes for one file."""
    if stat.S_ISREG(st.st_mode):
        verify_integrity(fr, path)
    verify_stats(fr, path, st)


def directory_list(fr: FileRun, directory: str) -> list[str]:
    return list(_db(fr).data["D"].get(_key(fr, directory), []))


def log_new_file(fr: FileRun, path: str) -> None:
    fr.log("notice", f"New file '{path}' found")
    log_change(fr, path, "N", "New file found")


def check_directory(fr: FileRun, directory: str, seen: list[str], known: list[str]) -> None:
    """FileChangesCheckAndUpdateDirectory: report files gone from ``directory`` and
    record its listing (each time: without ``update_hashes`` that fails, as in
    cf-agent; under -n it says it should)."""
    db = _db(fr)
    current = sorted(set(seen))
    key = _key(fr, directory)
    dirty = False
    for name in sorted(set(known) - set(current)):
        path = f"{directory.rstrip('/')}/{name}"
        fr.log("notice", f"File '{path}' no longer exists")
        if _internal(fr, f"record removal of '{path}'"):
            log_change(fr, path, "R", "File removed")
            fr.change(f"Removal of '{path}' recorded")
        if not fr.dry_run and fr.sim is None:
            # cf-agent forgets the file's hashes and stats even under -n; cf-lite's dry
            # run changes nothing
            for hkey in [k for k in db.data["H"] if k.split("\0", 1)[-1] == path]:
                del db.data["H"][hkey]
            db.data["S"].pop(path, None)
            dirty = True
    if set(current) - set(known):
        fr.results.append(Outcome.REPAIRED)     # the result only: no classes, no message
    update = fr.a.changes is not None and fr.a.changes.update
    if _internal(fr, f"record directory listing for '{directory}'"):
        if update:
            # FileChangesSetDirectoryList compares the stored listing's bytes only as
            # far as the new one's: a listing that is a prefix of the stored one (the
            # last names gone) is "no change", and those names are reported gone again
            # on every run (cf-agent 3.21 and later)
            if current and known[:len(current)] == current:
                changed = False
            else:
                changed = bool(current) or key in db.data["D"]
            if changed:
                if current:
                    db.data["D"][key] = current
                else:
                    db.data["D"].pop(key, None)
                db.save()
                dirty = False
                fr.change(f"Recorded directory listing for '{directory}'")
            else:
                fr.log("verbose", "No changes in directory list")
        else:
            fr.change(f"Failed to record directory listing for '{directory}'")
            fr.results.append(Outcome.FAILED)
    if dirty:
        db.save()
