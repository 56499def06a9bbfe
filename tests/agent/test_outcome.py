"""Outcome merge: a pure function where any failure wins and skipped is neutral."""
from __future__ import annotations

from hypothesis import given, strategies as st

import copy
import pickle

from cfpromise.agent.outcome import NOT_KEPT, OUTCOMES, Outcome, merge

outcomes = st.lists(st.sampled_from(OUTCOMES), max_size=8)


def test_each_outcome_is_one_instance_with_enum_s_name_and_value() -> None:
    assert [o.name for o in OUTCOMES] == ["SKIPPED", "KEPT", "REPAIRED", "WARN", "FAILED",
                                          "DENIED", "TIMEOUT", "INTERRUPTED"]
    assert Outcome.REPAIRED.value == "repaired" and Outcome.TIMEOUT.name == "TIMEOUT"
    assert repr(Outcome.KEPT) == "<Outcome.KEPT: 'kept'>" and str(Outcome.WARN) == "Outcome.WARN"
    for o in OUTCOMES:
        assert getattr(Outcome, o.name) is o
        assert pickle.loads(pickle.dumps(o)) is o
        assert copy.copy(o) is o and copy.deepcopy([o])[0] is o
    assert len({hash(o) for o in OUTCOMES}) == len(OUTCOMES)
    assert {o for o in OUTCOMES if o.not_kept} == NOT_KEPT


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
