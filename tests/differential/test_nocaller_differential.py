"""Differential test: built-in functions called with no calling promise (:mod:`nocaller`),
under cf-agent 3.21 and cf-lite."""
from __future__ import annotations

from tests.differential import agentmisc, harness, nocaller

pytestmark = harness.needs_cf_agent


results, test_same_run_as_cf_agent = agentmisc.observed_tests(nocaller)


def test_the_family_is_seen(results: dict[str, tuple]) -> None:
    """The family is not empty: cf-agent says its warning and its error."""
    for name, line in (("nocaller_join_l_body_arg", "not called from a promise"),
                       ("nocaller_mapdata_l_body_arg", "must be called from a promise")):
        reference, ours = results[name]
        assert any(line in said for said in reference[2] + reference[3]) and ours == reference
