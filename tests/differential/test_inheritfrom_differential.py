"""Differential test: a body's ``inherit_from`` parent as cf-agent 3.21 names it
(:mod:`inheritfrom`), under cf-promises and cf-agent 3.21 and cf-lite."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential import agentmisc, harness, inheritfrom

pytestmark = harness.needs_cf_agent


results, test_same_run_as_cf_agent = agentmisc.observed_tests(inheritfrom)


@pytest.mark.parametrize("name", [n for n in inheritfrom.NAMES if n.startswith("child_")])
def test_same_verdict_as_cf_promises(tmp_path: Path, name: str) -> None:
    files = {c[0]: c[1] for c in inheritfrom.CASES}[name]
    policy = harness.write_policy(tmp_path / "promises.cf", files["promises.cf"])
    ref, lite = harness.validate_both(policy, tmp_path)
    assert (lite.returncode, lite.stdout + lite.stderr) == (ref.returncode,
                                                            ref.stdout + ref.stderr)


def test_a_quoted_parent_is_inherited(results: dict[str, tuple]) -> None:
    reference, ours = results["child_quoted"]
    assert any("R: " in line and "s" != line[3:] for line in reference[2]) and ours == reference
