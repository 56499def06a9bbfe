"""Promise outcomes and how they merge.

CFEngine's internal results: skipped, kept (noop), repaired (change), warn,
failed, denied, timeout, interrupted.  All but the first three count as "not
kept".  When one promise produces several results (iterations, several checks
of one file), they merge by severity: any failure wins, then warn, then
repaired, then kept; skipped is neutral.  :func:`merge` is a pure function.
"""
from __future__ import annotations

import enum
from functools import reduce

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable


class Outcome(enum.Enum):
    SKIPPED = "skipped"
    KEPT = "kept"
    REPAIRED = "repaired"
    WARN = "warn"
    FAILED = "failed"
    DENIED = "denied"
    TIMEOUT = "timeout"
    INTERRUPTED = "interrupted"

    @property
    def not_kept(self) -> bool:
        return self in NOT_KEPT

    @property
    def rank(self) -> int:
        return _RANK[self]


NOT_KEPT = frozenset({Outcome.WARN, Outcome.FAILED, Outcome.DENIED, Outcome.TIMEOUT,
                      Outcome.INTERRUPTED})

# Higher wins in a merge.
_RANK = {Outcome.SKIPPED: 0, Outcome.KEPT: 1, Outcome.REPAIRED: 2, Outcome.WARN: 3,
         Outcome.DENIED: 4, Outcome.TIMEOUT: 5, Outcome.INTERRUPTED: 6, Outcome.FAILED: 7}


def merge2(a: Outcome, b: Outcome) -> Outcome:
    return a if _RANK[a] >= _RANK[b] else b


def merge(outcomes: Iterable[Outcome]) -> Outcome:
    """The overall outcome of several results; SKIPPED for none."""
    return reduce(merge2, outcomes, Outcome.SKIPPED)
