"""Differential test: an edit under -n (:mod:`dryedit`), each case run under cf-agent
3.21 and cf-lite (agentmisc.run_observed) and compared."""
from __future__ import annotations

import pytest

from tests.differential import agentmisc, dryedit, harness

pytestmark = harness.needs_cf_agent


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    return agentmisc.run_observed(tmp_path_factory.mktemp("dryedit"), dryedit.CASES)


@pytest.mark.parametrize("name", dryedit.NAMES)
def test_same_run_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    assert ours == reference
