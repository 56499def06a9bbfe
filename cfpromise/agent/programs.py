"""cf-lite's own programs: where they are, and the command that shows why a policy
failed validation.

cf-agent names its sibling programs in ``sys.cf_agent``, ``sys.cf_promises``... and, when
the cf-promises it validates a policy with refuses it, says "Policy failed validation
with command '"WORKDIR/bin/cf-promises" -c "FILE"'".  cf-lite validates in-process: the
command it names is cf-lite-promises', the one that shows the same errors.
"""
from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


OWN_PROGRAMS = {"cf-agent": "cf-lite-agent", "cf-promises": "cf-lite-promises",
                "cf-serverd": "cf-lite-serverd", "cf-monitord": "cf-lite-monitord",
                "cf-key": "cf-lite-key", "cf-net": "cf-lite-net", "cf-secret": "cf-lite-secret"}


def own_program(ours: str) -> str | None:
    """Where cf-lite's program ``ours`` is: beside the running one, else beside the
    interpreter (a virtual environment's bin)."""
    here = os.path.dirname(os.path.abspath(sys.argv[0])) if sys.argv and sys.argv[0] else ""
    for directory in (here, os.path.dirname(sys.executable)):
        candidate = os.path.join(directory, ours)
        if directory and os.path.exists(candidate):
            return candidate
    return None


def own_programs(workdir: str) -> dict[str, str]:
    """sys.cf_agent & co. name cf-lite's programs unless WORKDIR/bin holds the CFEngine ones."""
    out: dict[str, str] = {}
    for program, ours in OWN_PROGRAMS.items():
        if not os.path.exists(os.path.join(workdir, "bin", program)):
            found = own_program(ours)
            if found is not None:
                out[program] = found
    return out


def validation_failed(options: Any) -> None:
    """cf-agent's verdict on the cf-promises it validates with, naming the command that
    shows the errors: cf-lite validates in-process, so the command is cf-lite-promises',
    the file as the command line named it (``-c``; with ``-b``: the sequence instead)."""
    from cfpromise.agent.output import say
    from cfpromise.promises.api import shown_path
    program = own_program("cf-lite-promises") or "cf-lite-promises"
    shown = shown_path(options.file, options.start_dir) if options.file else ""
    sequence = options.bundlesequence
    command = f'"{program}" ' + (f'"{shown}" -b "{",".join(sequence)}"' if sequence
                                 else f'-c "{shown}"')
    if options.ignore_preferred_augments:
        command += " --ignore-preferred-augments"
    say("error", f"Policy failed validation with command '{command}'")
