"""Differential test: the lines after a promise's error (:mod:`promiseref`), each case
run under cf-agent 3.21 and cf-lite (agentmisc.run_observed) and compared."""
from __future__ import annotations

import pytest

from tests.differential import agentmisc, harness, promiseref

pytestmark = harness.needs_cf_agent


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    return agentmisc.run_observed(tmp_path_factory.mktemp("promiseref"), promiseref.CASES)


@pytest.mark.parametrize("name", promiseref.NAMES)
def test_same_run_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    if not name.startswith("select_region"):     # (cf-agent says no PromiseRef there)
        assert any("Promise belongs to bundle" in line for line in reference[3]), reference
    assert ours == reference
