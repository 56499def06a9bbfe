"""The work directory at start, as cf-agent 3.21 makes and checks it (issue #26).

Every run (cf-agent's CheckWorkingDirectories, and the daemons' through
:func:`prepare_workdir`) makes what is missing, each private (0700): WORKDIR itself,
then bin, inputs, outputs, modules, ppkeys, lastseen, reports, state and state's diff,
previous_state and untracked -- nothing more (no WORKDIR/tmp, no WORKDIR/data: cf-agent
makes neither; data/host_specific.json is read when an operator put it there).
A WORKDIR that others may write loses those write bits (0777 becomes 0755; cf-lite leaves
a sticky one alone: ``-w /tmp`` must not take /tmp from its other users); the other
directories keep their modes, but a run says what it does not trust (:func:`check_workdir`):

* state writable by group or others: "UNTRUSTED: State directory PATH (mode MODE) was not
  private, world and/or group writeable!";
* modules writable by group or others: "UNTRUSTED: Module directory PATH (mode MODE) was
  not private!";
* ppkeys open to group or others at all: a fatal error, "UNTRUSTED: Private key directory
  PATH (mode MODE) was not private!" (exit 1).
"""
from __future__ import annotations

import os
import stat

from cfpromise.agent.abort import FatalError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

WORKDIR_DIRS = ("bin", "inputs", "outputs", "modules", "ppkeys", "lastseen", "reports",
                "state", "state/diff", "state/previous_state", "state/untracked")


class Untrusted(FatalError):
    """The private key directory is not private: cf-agent stops (exit 1)."""
    messages = ()

    def __init__(self, final: str) -> None:
        super().__init__(final)
        self.final = final


def prepare_workdir(workdir: str) -> None:
    """Make what is missing of the work directory's layout (cheap when it is there)."""
    try:
        mode = os.stat(workdir).st_mode
    except FileNotFoundError:
        os.makedirs(workdir, mode=0o700)
        mode = stat.S_IFDIR | 0o700
    if mode & 0o022 and not mode & stat.S_ISVTX:    # (a shared sticky one, /tmp, is left)
        os.chmod(workdir, stat.S_IMODE(mode) & ~0o022)
    if os.path.isdir(os.path.join(workdir, WORKDIR_DIRS[-1])) and \
            os.path.isdir(os.path.join(workdir, "reports")):
        return
    for sub in WORKDIR_DIRS:
        os.makedirs(os.path.join(workdir, sub), mode=0o700, exist_ok=True)


def check_workdir(workdir: str, log: Callable[[str, str], None]) -> None:
    """What a run says of directories others may change (see the module docstring)."""
    for sub, mask, words in (("state", 0o022, "State directory {} (mode {:o}) was not private, "
                                              "world and/or group writeable!"),
                             ("modules", 0o022, "Module directory {} (mode {:o}) was not "
                                                "private!")):
        path = os.path.join(workdir, sub)
        mode = _mode(path)
        if mode is not None and mode & mask:
            log("error", "UNTRUSTED: " + words.format(path, mode))
    path = os.path.join(workdir, "ppkeys")
    mode = _mode(path)
    if mode is not None and mode & 0o077:
        raise Untrusted(f"UNTRUSTED: Private key directory {path} (mode {mode:o}) was not "
                        "private!")


def _mode(path: str) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None
