"""Differential test: making a files promise's missing parent directories, what stands in
their way and what is said of it (:mod:`parentdirs`), under cf-agent 3.21 and cf-lite."""
from __future__ import annotations

import pytest

from tests.differential import agentmisc, harness, parentdirs

pytestmark = harness.needs_cf_agent


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    return agentmisc.run_observed(tmp_path_factory.mktemp("parentdirs"), parentdirs.CASES)


@pytest.mark.parametrize("name", parentdirs.NAMES)
def test_same_run_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    assert ours == reference
