"""The ``action`` body's private logs: ``log_kept``, ``log_repaired``, ``log_failed``.

When a promise reaches an outcome and its action body names a log for that
outcome and sets ``log_string``, cf-agent 3.21 (DoSummarizeTransaction) writes
the string as one line to that destination:

* ``stdout``: an info line ``L: <string>``;
* ``udp_syslog``: one RFC 3164 datagram to the syslog host
  (:mod:`cfpromise.agent.syslogclient`), at the body's ``log_priority``;
* otherwise a file path: created with mode 0600 if missing (never changed
  when it exists), then the line is appended.

Kept goes to ``log_kept``, repaired to ``log_repaired``; failed, denied,
timeout and interrupted to ``log_failed``.  A warning (dry run, ``action_policy
=> "warn"``) is never logged, nor are the promises that only support others
(``vars``, ``classes`` and edit_line's ``insert_lines``, ``delete_lines``,
``replace_patterns``, ``field_edits``: NO_LOG_TYPES).
The string is expanded once more when written, so a variable the promise itself
defined (a methods call, a module) is seen then.
"""
from __future__ import annotations

import os

from cfpromise.agent.outcome import Outcome

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    Log = Callable[[str, str], None]

# outcome -> the action body attribute naming its log (WARN and SKIPPED: none)
_DESTINATION = {Outcome.KEPT: "log_kept", Outcome.REPAIRED: "log_repaired",
                Outcome.FAILED: "log_failed", Outcome.DENIED: "log_failed",
                Outcome.TIMEOUT: "log_failed", Outcome.INTERRUPTED: "log_failed"}

# promise types whose outcomes are never logged (they exist to support others)
NO_LOG_TYPES = frozenset({"vars", "classes", "insert_lines", "delete_lines",
                          "replace_patterns", "field_edits"})


def destination_for(action: dict[str, Any], outcome: Outcome) -> str | None:
    """The log ``outcome`` is written to, or None."""
    lval = _DESTINATION.get(outcome)
    value = action.get(lval) if lval is not None else None
    return value if isinstance(value, str) and value else None


def only_log_string_waits(action: dict[str, Any]) -> bool:
    """Whether the only unresolved variables of an action body are in its log_string: the
    promise does not wait for them (they are expanded again when the log is written)."""
    return not any(isinstance(v, str) and ("$(" in v or "${" in v)
                   for k, v in action.items() if k != "log_string")


def write_action_log(action: dict[str, Any], outcome: Outcome, log: Log,
                     expand: Callable[[str], str] | None = None,
                     syslog: Callable[[Any, str], None] | None = None) -> None:
    """Write ``log_string`` where the action body sends ``outcome`` (nothing without both);
    ``expand``: the expansion at summary time, ``syslog(priority, text)``: the remote
    syslog."""
    text = action.get("log_string")
    where = destination_for(action, outcome)
    if where is None or not isinstance(text, str):
        return
    if expand is not None and "$" in text:
        text = expand(text)
    if where == "udp_syslog":
        if syslog is not None:
            syslog(action.get("log_priority"), text)
        return
    if where == "stdout":
        log("info", f"L: {text}")
        return
    if not os.path.lexists(where):
        try:
            os.close(os.open(where, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
            log("verbose", f"Created log file '{where}' with requested permissions 600")
        except OSError:
            pass
    try:
        with open(where, "a", encoding="utf-8", errors="surrogateescape") as fh:
            log("verbose", f"Logging string '{text}' to '{where}'")
            fh.write(text + "\n")
    except OSError:
        log("error", f"Unable to open private log '{where}'")
