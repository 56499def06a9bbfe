"""Promise outcomes and how they merge.

CFEngine's internal results: skipped, kept (noop), repaired (change), warn,
failed, denied, timeout, interrupted.  All but the first three count as "not
kept".  When one promise produces several results (iterations, several checks
of one file), they merge by severity: any failure wins, then warn, then
repaired, then kept; skipped is neutral.  :func:`merge` is a pure function.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import ClassVar, Iterable


class Outcome:
    """One of the eight results below, each a single instance compared by identity,
    with enum.Enum's ``name``, ``value`` and repr.  A plain class rather than an
    Enum: every run imports this module, and ``import enum`` with the class's
    creation is 5 M instructions of a cold cf-lite-promises check (3%), more than
    the rest of the module costs in a whole run."""

    __slots__ = ("name", "value")
    name: str
    value: str

    SKIPPED: ClassVar[Outcome]
    KEPT: ClassVar[Outcome]
    REPAIRED: ClassVar[Outcome]
    WARN: ClassVar[Outcome]
    FAILED: ClassVar[Outcome]
    DENIED: ClassVar[Outcome]
    TIMEOUT: ClassVar[Outcome]
    INTERRUPTED: ClassVar[Outcome]

    def __repr__(self) -> str:
        return f"<Outcome.{self.name}: {self.value!r}>"

    def __str__(self) -> str:
        return f"Outcome.{self.name}"

    def __reduce__(self) -> tuple[object, tuple[object, str]]:
        return getattr, (Outcome, self.name)      # the one instance, as an Enum pickles

    def __copy__(self) -> Outcome:
        return self

    def __deepcopy__(self, memo: object) -> Outcome:
        return self

    @property
    def not_kept(self) -> bool:
        return self in NOT_KEPT

    @property
    def rank(self) -> int:
        return _RANK[self]


def _outcome(name: str) -> Outcome:
    member = object.__new__(Outcome)
    member.name = name
    member.value = name.lower()
    setattr(Outcome, name, member)
    return member


# every outcome, in the order above
OUTCOMES = tuple(_outcome(name) for name in ("SKIPPED", "KEPT", "REPAIRED", "WARN", "FAILED",
                                             "DENIED", "TIMEOUT", "INTERRUPTED"))

NOT_KEPT = frozenset({Outcome.WARN, Outcome.FAILED, Outcome.DENIED, Outcome.TIMEOUT,
                      Outcome.INTERRUPTED})

# Higher wins in a merge.
_RANK = {Outcome.SKIPPED: 0, Outcome.KEPT: 1, Outcome.REPAIRED: 2, Outcome.WARN: 3,
         Outcome.DENIED: 4, Outcome.TIMEOUT: 5, Outcome.INTERRUPTED: 6, Outcome.FAILED: 7}


def merge2(a: Outcome, b: Outcome) -> Outcome:
    return a if _RANK[a] >= _RANK[b] else b


def merge(outcomes: Iterable[Outcome]) -> Outcome:
    """The overall outcome of several results; SKIPPED for none."""
    result = Outcome.SKIPPED          # (a loop: functools is not on the start path)
    for outcome in outcomes:
        result = merge2(result, outcome)
    return result
