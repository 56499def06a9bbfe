"""Differential test: packages promises and their package_module bodies (:mod:`pkgmodules`),
each case run under cf-agent 3.21 and cf-lite."""
from __future__ import annotations

import pytest

from tests.differential import agentmisc, harness, pkgmodules

pytestmark = harness.needs_cf_agent


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    return agentmisc.run_observed(tmp_path_factory.mktemp("pkgmodules"), pkgmodules.CASES)


@pytest.mark.parametrize("name", pkgmodules.NAMES)
def test_same_run_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    if name in pkgmodules.EXPECTED_DIFFERENCES:
        assert ours != reference, "now agrees: drop it from EXPECTED_DIFFERENCES"
        pytest.xfail(pkgmodules.EXPECTED_DIFFERENCES[name])
    assert ours == reference
