"""Differential test: the "Apparent bundle ... was undeclared" error of a bare word that
names no body or bundle (:mod:`apparent`), under cf-agent 3.21 and cf-lite."""
from __future__ import annotations

from tests.differential import agentmisc, apparent, harness

pytestmark = harness.needs_cf_agent


results, test_same_run_as_cf_agent = agentmisc.observed_tests(apparent)


def test_the_error_is_seen(results: dict[str, tuple]) -> None:
    """The family is not empty: cf-agent says it, at the default level."""
    reference, ours = results["errors_once_apparent_reports_nothing"]
    assert any("Apparent bundle 'nothing_named_so' was undeclared" in line
               for line in reference[3])
    assert reference[3] == ours[3]
