"""The speed machinery, in one place, with one switch that turns it all off.

cf-lite is started by cron every few minutes and most of a short run is start-up,
so a one-shot start avoids what the standard way costs: the import system's
generic path (:mod:`.fastimport`), compiling regexes (:mod:`.precompiled` with
its generated ``_sretab``), importing ``re``/``json``/``enum``/``functools`` (:mod:`.precompiled`,
:mod:`.jsondumps`, :mod:`.memo`), decoding the language tables' JSON (:mod:`.syntaxtab` with
its generated ``_syntaxtab``), building namedtuple classes (:mod:`.records`),
cyclic collections over the loaded policy (:mod:`.oneshot`) and parsing an
unchanged policy again (:mod:`.policycache`, the tree encoded by :mod:`.astcodec`).
The README's section "The speed machinery" lists each with its guard and its
fallback.

Every mechanism has a plain fallback that gives the same result (the standard
import, ``re.compile``, ``json``, ``syntax.json``, ``namedtuple``, the normal
collector, parsing), and each falls back on its own when its guard fails (a stale
table, byte code or an interpreter it was not made for).  A fallback is never
silent: it is noted in :data:`FALLBACKS`, which the agent and cf-lite-promises
print as ``-v`` lines once the policy is loaded.

``CF_LITE_PLAIN=1`` in the environment (:data:`PLAIN`) runs the plain path
throughout, as a check that the machinery changes nothing but the time: standard
imports, ``re``, the JSON tables, namedtuple records, the normal collector, no
policy cache.  This module imports nothing: it is read on every start.
"""
from __future__ import annotations

import os

# The switch (any value but "" and "0"): the plain path everywhere.
PLAIN: bool = os.environ.get("CF_LITE_PLAIN", "") not in ("", "0")

# Why a mechanism was not used in this process, one line each (printed under -v).
FALLBACKS: list[str] = []

# Functions giving more such lines when asked (a mechanism that learns its fallbacks
# as the process runs: fastimport registers its own).  Registered rather than
# imported here, so that this package imports none of its modules (no import cycle).
LATE_FALLBACKS: list[object] = []


def fallback(message: str) -> None:
    """Note that a mechanism fell back to the plain way (``message`` says which and why)."""
    if message not in FALLBACKS:
        FALLBACKS.append(message)


def report(log: object) -> None:
    """Give each noted fallback (and the plain switch) to ``log(level, message)`` as a
    verbose line; called once the policy is loaded, when they are all known."""
    lines = ["Speed machinery off: CF_LITE_PLAIN is set (plain path)"] if PLAIN else []
    lines += FALLBACKS
    for more in LATE_FALLBACKS:
        lines += more()                                     # type: ignore[operator]
    for line in lines:
        log("verbose", line)                                # type: ignore[operator]
