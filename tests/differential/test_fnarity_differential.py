"""Differential test: a built-in called with another number of arguments than it takes
(:mod:`fnarity`), under cf-promises and cf-agent 3.21 and cf-lite."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential import agentmisc, fnarity, harness

pytestmark = harness.needs_cf_agent


results, test_same_run_as_cf_agent = agentmisc.observed_tests(fnarity)


@pytest.mark.parametrize("name", fnarity.NAMES)
def test_same_verdict_as_cf_promises(tmp_path: Path, name: str) -> None:
    files = {c[0]: c[1] for c in fnarity.CASES}[name]
    policy = harness.write_policy(tmp_path / "promises.cf", files["promises.cf"])
    ref, lite = harness.validate_both(policy, tmp_path)
    assert (lite.returncode, _lines(lite)) == (ref.returncode, _lines(ref))


def _lines(run: object) -> list[str]:
    import re
    out = getattr(run, "stdout") + getattr(run, "stderr")
    return [re.sub(r"^\d{4}-\d\d-\d\dT\S+ +", "", line) for line in out.splitlines()]


def test_the_error_is_seen(results: dict[str, tuple]) -> None:
    """The family is not empty: cf-agent stops on it."""
    reference, ours = results["canonify_2_classes"]
    assert reference[0] == 1 and ours == reference
