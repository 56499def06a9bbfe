"""What the command line asks of a run: the agent's options as one table.

Kept apart from the engine so that the programs that build options (cf-lite-agent,
the failsafe, cf-lite-promises, the daemons' policy loads) name them without the
engine's machinery, and so that a new option is one row of :data:`OPTION_DEFAULTS`.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# What the command line asks of a run: option -> default (``list``: a fresh empty list).
# A new option is one row here.
OPTION_DEFAULTS: dict[str, Any] = {
    "bundlesequence": None,
    "define": list,
    "negate": list,
    "ignore_locks": False,
    "dry_run": False,               # -n, and --simulate (cf-agent's DONTDO)
    "simulate": None,               # --simulate=diff|manifest|manifest-full
    "level": "notice",
    "timestamps": False,
    "workdir": "",
    "show_classes": None,
    "show_vars": None,
    "full_check": True,             # cf-agent validates as cf-promises -c does
    "bundle_path": list,            # --bundle-path (cfpromise.agent.autoload)
}


class AgentOptions:
    """The options of a run (:data:`OPTION_DEFAULTS`).  AgentOptions, BundleRun (and
    the other records on the start path: ast nodes, Frame, Step, PromiseRun) are plain
    slotted classes, not attrs classes: creating attrs classes and importing attrs cost
    about 15 ms of a 60 ms one-report run (see cfpromise/syntax/ast.py)."""

    __slots__ = ("file",) + tuple(OPTION_DEFAULTS)

    def __init__(self, file: str, **options: Any) -> None:
        self.file = file
        for name, default in OPTION_DEFAULTS.items():
            value = options.pop(name, default)
            setattr(self, name, [] if value is list else value)
        if options:
            raise TypeError(f"AgentOptions: unknown option(s) {', '.join(sorted(options))}")

    def evolve(self, **changes: Any) -> "AgentOptions":
        """A copy with ``changes`` applied."""
        values = {name: getattr(self, name) for name in self.__slots__}
        values.update(changes)
        return AgentOptions(**values)
