"""The policy validation markers: ``cf_promises_validated`` and ``cf_promises_release_id``.

When cf-agent has validated its policy it "tags" a directory (cf-agent 3.21's
GenericAgentTagReleaseDirectory):

* ``cf_promises_validated`` gets ``{"timestamp": <now>}``;
* on a policy hub (``WORKDIR/state/am_policy_hub`` exists), and always for
  ``cf-promises -T DIR``, ``cf_promises_release_id`` gets ``{"releaseId": ID}``
  when it is missing (or differs from the git commit).  ID is the commit the
  directory's ``.git/HEAD`` names, else a SHA-1 over the policy files (``.cf``,
  ``.dat``, ``.txt``, ``.conf``, ``.mustache``, ``.json``, ``.yaml``) of the
  tree.  cf-agent 3.21's tree digest is fed one zero byte per byte of those
  files (its HashDirectoryTree digests a zeroed buffer, not the data read), so
  the ID only depends on their total size; it is reproduced here as it is.

The tagged directory is the masterfiles directory, or the state directory when
the policy file was given with ``-f``.  The agent validates (and tags) only
when needed: when the policy file is outside the inputs directory, or when it,
a file under the inputs directory, or ``policy_server.dat`` is newer than the
timestamp of the marker it reads.  That is ``cf_promises_validated`` of the
tagged directory, except under ``-f``: cf-agent 3.21 then reads
``state/validated_<the -f argument, canonified>`` (GetPromisesValidatedFile with
no directory given), a file it never writes, so a policy given by ``-f`` is
validated (cf-promises run) at every run, in the inputs directory or not.  Both files are written as cf-agent
writes them: mode 0600, JSON with two-space indentation, no final newline.
"""
from __future__ import annotations

import os
import time

from cfpromise.agent.observer import Observer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    Log = Callable[[str, str], None]

VALIDATED = "cf_promises_validated"
RELEASE_ID = "cf_promises_release_id"
POLICY_EXTENSIONS = (".cf", ".dat", ".txt", ".conf", ".mustache", ".json", ".yaml")


def _quiet(level: str, message: str) -> None:
    """The default log: say nothing."""


# --- release ID ------------------------------------------------------------------------

def release_id_from_git(policy_dir: str) -> str | None:
    """The commit ``.git/HEAD`` points at (through a ref or directly), or None."""
    try:
        with open(os.path.join(policy_dir, ".git", "HEAD"), encoding="utf-8") as fh:
            head = fh.read()
    except OSError:
        return None
    if head.startswith("ref: "):
        ref = head[len("ref: "):].split()[0] if head[len("ref: "):].split() else ""
        try:
            with open(os.path.join(policy_dir, ".git", ref), encoding="utf-8") as fh:
                words = fh.read().split()
        except OSError:
            return None
        return words[0][:40] if words else None
    words = head.split()
    return words[0][:40] if words else None


def release_id_from_tree(policy_dir: str) -> str | None:
    """cf-agent 3.21's tree digest (see the module docstring); None if unreadable."""
    if not os.access(policy_dir, os.R_OK):
        return None
    import hashlib
    digest = hashlib.sha1()
    zeros = bytes(65536)
    for root, dirs, files in os.walk(policy_dir):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(POLICY_EXTENSIONS):
                continue
            try:
                size = os.path.getsize(os.path.join(root, name))
            except OSError:
                continue
            while size > 0:
                chunk = min(size, len(zeros))
                digest.update(zeros[:chunk])
                size -= chunk
    return digest.hexdigest()


def release_id(policy_dir: str) -> str | None:
    return release_id_from_git(policy_dir) or release_id_from_tree(policy_dir)


# --- reading and writing the markers ----------------------------------------------------

def _read_json(path: str) -> Any:
    """The file's JSON as CFEngine reads it (a trailing comma is fine); None if not."""
    from cfpromise.syntax import cfjson
    try:
        with open(path, encoding="utf-8") as fh:
            return cfjson.loads(fh.read())
    except (OSError, ValueError):
        return None


def _write_json(path: str, key: str, value: str | int) -> None:
    # not the json package: a one-report run writes the validated marker whenever its
    # policy changed or, as with cf-agent, at every run of a policy given by -f outside
    # WORKDIR/inputs (cfpromise.fast.jsondumps)
    from cfpromise.fast.jsondumps import dumps
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write("{\n  " + dumps(key) + ": " + dumps(value) + "\n}")


def validated_timestamp(path: str) -> int:
    """The timestamp of a validated marker: 0 if missing, its mtime if unreadable."""
    doc = _read_json(path)
    if isinstance(doc, dict) and isinstance(doc.get("timestamp"), int):
        return doc["timestamp"]
    try:
        return int(os.stat(path).st_mtime)
    except OSError:
        return 0


def tag_release_directory(dirname: str, *, write_validated: bool, write_release: bool,
                          validated_file: str | None = None, log: Log = _quiet) -> bool:
    """Write the markers into ``dirname`` (the validated one to ``validated_file`` if
    given); False when one could not be written."""
    try:
        if write_release:
            path = os.path.join(dirname, RELEASE_ID)
            doc = _read_json(path)
            current = doc.get("releaseId") if isinstance(doc, dict) else None
            git = release_id_from_git(dirname)
            if not isinstance(current, str) or (git is not None and current != git):
                new = git or release_id_from_tree(dirname)
                if new is None:
                    log("error", f"Cannot access policy directory '{dirname}' to generate "
                                 "release ID")
                    return False
                _write_json(path, "releaseId", new)
                log("verbose", f"Saved policy release ID file '{path}'")
        if write_validated:
            path = validated_file or os.path.join(dirname, VALIDATED)
            _write_json(path, "timestamp", int(time.time()))
            log("verbose", f"Saved policy validated marker file '{path}'")
    except OSError as exc:
        log("error", f"Could not tag directory '{dirname}': {exc.strerror}")
        return False
    return True


# --- the agent's side -----------------------------------------------------------------

def _newer_tree(path: str, reference: int) -> bool:
    """IsNewerFileTree: a directory or file under ``path`` modified after ``reference``."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if st.st_mtime > reference:
        return True
    if not os.path.isdir(path) or os.path.islink(path):
        return False
    try:
        names = os.listdir(path)
    except OSError:
        return False
    return any(_newer_tree(os.path.join(path, name), reference) for name in names)


def autotag_dir(workdir: str, explicit_file: bool) -> str:
    """Where the agent tags: the state directory under -f, else masterfiles."""
    return os.path.join(workdir, "state" if explicit_file else "masterfiles")


def needs_validation(workdir: str, policy_file: str, validated_file: str) -> bool:
    """IsPolicyPrecheckNeeded (see the module docstring)."""
    inputs = os.path.join(workdir, "inputs")
    if os.path.commonpath([os.path.abspath(policy_file), inputs]) != inputs:
        return True
    validated_at = validated_timestamp(validated_file)
    if validated_at > time.time():
        return True
    try:
        if os.stat(policy_file).st_mtime > validated_at:
            return True
    except OSError:
        return True
    if _newer_tree(inputs, validated_at):
        return True
    try:
        return os.stat(os.path.join(workdir, "policy_server.dat")).st_mtime > validated_at
    except OSError:
        return False


def read_marker(workdir: str, explicit_file: str | None) -> str:
    """The validated marker the agent reads (see the module docstring): ``explicit_file``
    is the ``-f`` argument as given, None without ``-f``."""
    if explicit_file:
        from cfpromise.eval.canon import canonify
        return os.path.join(workdir, "state", "validated_" + canonify(explicit_file))
    return os.path.join(autotag_dir(workdir, False), VALIDATED)


class ValidationTagger(Observer):
    """Tags the autotag directory once the agent's policy is loaded and validated."""

    def __init__(self, explicit_file: bool, original: str | None = None) -> None:
        self.explicit_file = explicit_file
        self.original = original if explicit_file else None     # the -f argument

    def validates(self, agent: Any) -> bool:
        """Whether this run validates its policy (IsPolicyPrecheckNeeded)."""
        workdir = agent.options.workdir
        return needs_validation(workdir, agent.options.file,
                                read_marker(workdir, self.original or
                                            (agent.options.file if self.explicit_file else None)))

    def run_started(self, agent: Any) -> None:
        workdir = agent.options.workdir
        dirname = autotag_dir(workdir, self.explicit_file)
        validated_file = os.path.join(dirname, VALIDATED)
        if not self.validates(agent):
            agent.out.log("verbose", "Policy is already validated")
            return
        hub = os.path.exists(os.path.join(workdir, "state", "am_policy_hub"))
        tag_release_directory(dirname, write_validated=True, write_release=hub,
                              validated_file=validated_file, log=agent.out.log)
