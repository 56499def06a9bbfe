"""Differential test: values holding variable references (:mod:`valueexpand`), each case
run under cf-agent 3.21 and cf-lite (agentmisc.run_observed) and compared."""
from __future__ import annotations

import pytest

from tests.differential import agentmisc, harness, valueexpand

pytestmark = harness.needs_cf_agent


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    return agentmisc.run_observed(tmp_path_factory.mktemp("valueexpand"), valueexpand.CASES)


@pytest.mark.parametrize("name", valueexpand.NAMES)
def test_same_run_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    if name in valueexpand.EXPECTED_DIFFERENCES:
        assert ours != reference, "now agrees: drop it from EXPECTED_DIFFERENCES"
        assert sorted(ours[2]) == sorted(reference[2]), "more than the order differs"
        pytest.xfail(valueexpand.EXPECTED_DIFFERENCES[name])
    assert ours == reference
