"""Outcome merge: a pure function where any failure wins and skipped is neutral."""
from __future__ import annotations

from hypothesis import given, strategies as st

from cfpromise.agent.outcome import NOT_KEPT, Outcome, merge

outcomes = st.lists(st.sampled_from(list(Outcome)), max_size=8)


def test_examples() -> None:
    assert merge([]) is Outcome.SKIPPED
    assert merge([Outcome.KEPT, Outcome.SKIPPED]) is Outcome.KEPT
    assert merge([Outcome.KEPT, Outcome.REPAIRED]) is Outcome.REPAIRED
    assert merge([Outcome.REPAIRED, Outcome.FAILED, Outcome.KEPT]) is Outcome.FAILED
    assert merge([Outcome.TIMEOUT, Outcome.FAILED]) is Outcome.FAILED


@given(outcomes, outcomes)
def test_associative_commutative_and_failure_wins(a: list[Outcome], b: list[Outcome]) -> None:
    assert merge(a + b) is merge([merge(a), merge(b)]) is merge(b + a)
    if any(o in NOT_KEPT for o in a + b):
        assert merge(a + b).not_kept
    assert merge(a + [Outcome.SKIPPED]) is (merge(a))
