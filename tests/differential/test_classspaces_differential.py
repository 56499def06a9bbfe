"""Differential test: class expressions with blanks evaluated at run time (:mod:`classspaces`),
their value and cf-agent's error, under cf-agent 3.21 and cf-lite."""
from __future__ import annotations

import pytest

from tests.differential import agentmisc, classspaces, harness

pytestmark = harness.needs_cf_agent


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    return agentmisc.run_observed(tmp_path_factory.mktemp("classspaces"), classspaces.CASES)


@pytest.mark.parametrize("name", classspaces.NAMES)
def test_same_run_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    assert ours == reference
