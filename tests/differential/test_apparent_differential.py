"""Differential test: the "Apparent bundle ... was undeclared" error of a bare word that
names no body or bundle (:mod:`apparent`), under cf-agent 3.21 and cf-lite."""
from __future__ import annotations

import pytest

from tests.differential import agentmisc, apparent, harness

pytestmark = harness.needs_cf_agent


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    return agentmisc.run_observed(tmp_path_factory.mktemp("apparent"), apparent.CASES)


@pytest.mark.parametrize("name", apparent.NAMES)
def test_same_run_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    assert ours == reference


def test_the_error_is_seen(results: dict[str, tuple]) -> None:
    """The family is not empty: cf-agent says it, at the default level."""
    reference, ours = results["errors_once_apparent_reports_nothing"]
    assert any("Apparent bundle 'nothing_named_so' was undeclared" in line
               for line in reference[3])
    assert reference[3] == ours[3]
