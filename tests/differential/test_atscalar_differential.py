"""Differential test: ``@(scalar)`` in a list (:mod:`atscalar`), each case run under
cf-agent 3.21 and cf-lite (agentmisc.run_observed) and compared, repeated warnings
counted once."""
from __future__ import annotations

import pytest

from tests.differential import agentmisc, atscalar, harness

pytestmark = harness.needs_cf_agent


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    return agentmisc.run_observed(tmp_path_factory.mktemp("atscalar"), atscalar.CASES)


@pytest.mark.parametrize("name", atscalar.NAMES)
def test_same_run_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    assert any("failed - variable is not list" in line for line in reference[2]) \
        or "undefined" in name
    assert atscalar.once(ours) == atscalar.once(reference)
