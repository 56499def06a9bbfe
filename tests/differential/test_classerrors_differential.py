"""Differential test: classes promises and class expressions cf-agent 3.21 refuses at run
time (:mod:`classerrors`), each case run under cf-agent 3.21 and cf-lite."""
from __future__ import annotations

from tests.differential import agentmisc, classerrors, harness

pytestmark = harness.needs_cf_agent

results, test_same_run_as_cf_agent = agentmisc.observed_tests(classerrors)


def test_the_family_is_seen(results: dict[str, tuple]) -> None:
    """The family is not empty: cf-agent says each of its errors."""
    for name, line in (("irreconcilable_expression_or", "Irreconcilable constraints"),
                       ("dist_fraction", "Anomalous ending '.5'"),
                       ("dist_ref_comment", "This was a promise to"),
                       ("empty_promiser_bare", "illegal class identifier"),
                       ("unparsable_if", "Unable to parse class expression 'a..b'")):
        reference, _ours = results[name]
        assert any(line in said for said in reference[2] + reference[3]), name
