"""Differential test: classes promises and class expressions cf-agent 3.21 refuses at run
time (:mod:`classerrors`), each case run under cf-agent 3.21 and cf-lite."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

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


@pytest.mark.parametrize("name", [n for n in classerrors.NAMES if n.startswith("common_count_")
                                  and not classerrors.CASE_ARGS[n]])
def test_cf_promises_says_it_as_often(tmp_path: Path, name: str) -> None:
    """cf-lite-promises evaluates a common bundle's classes promise in cf-promises'
    rounds (each file's, one more before each input written with a variable, the whole
    policy's): its errors as often as cf-promises says them."""
    for rel, text in classerrors.CASE_FILES[name].items():
        harness.write_policy(tmp_path / rel, text)
    ref, lite = harness.validate_both(tmp_path / "promises.cf", tmp_path)

    def errors(run: Any) -> list[str]:
        return sorted(line.strip() for line in (run.stdout + run.stderr).splitlines()
                      if "error:" in line)
    assert (lite.returncode, errors(lite)) == (ref.returncode, errors(ref))
    assert errors(ref)
