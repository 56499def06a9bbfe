"""The ``action`` body's private logs: ``log_kept``, ``log_repaired``, ``log_failed``.

When a promise reaches an outcome and its action body names a log for that
outcome and sets ``log_string``, cf-agent writes the (already expanded)
string as one line to that destination:

* ``stdout``: an info line ``L: <string>``;
* ``udp_syslog``: the remote syslog (not supported here: a verbose note);
* otherwise a file path: created with mode 0600 if missing (never changed
  when it exists), then the line is appended.

Kept goes to ``log_kept``, repaired to ``log_repaired``, every not-kept result
(warn, failed, denied, timeout, interrupted) to ``log_failed``.
"""
from __future__ import annotations

import os

from cfpromise.agent.outcome import Outcome

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    Log = Callable[[str, str], None]

# outcome -> the action body attribute naming its log
_DESTINATION = {Outcome.KEPT: "log_kept", Outcome.REPAIRED: "log_repaired"}


def destination_for(action: dict[str, Any], outcome: Outcome) -> str | None:
    """The log ``outcome`` is written to, or None."""
    if outcome is Outcome.SKIPPED:
        return None
    lval = _DESTINATION.get(outcome, "log_failed" if outcome.not_kept else None)
    value = action.get(lval) if lval is not None else None
    return value if isinstance(value, str) and value else None


def write_action_log(action: dict[str, Any], outcome: Outcome, log: Log) -> None:
    """Write ``log_string`` where the action body sends ``outcome`` (nothing without both)."""
    text = action.get("log_string")
    where = destination_for(action, outcome)
    if where is None or not isinstance(text, str):
        return
    if where == "stdout":
        log("info", f"L: {text}")
        return
    if where == "udp_syslog":
        log("verbose", f"Not logging '{text}' to udp_syslog (not supported)")
        return
    try:
        if not os.path.lexists(where):
            os.close(os.open(where, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            log("verbose", f"Created log file '{where}' with requested permissions 600")
        with open(where, "a", encoding="utf-8") as fh:
            fh.write(text + "\n")
        log("verbose", f"Logging string '{text}' to '{where}'")
    except OSError as exc:
        log("error", f"Unable to open private log '{where}': {exc.strerror}")
