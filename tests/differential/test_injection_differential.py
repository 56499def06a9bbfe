"""Differential test: variables written into another bundle's scope (:mod:`injection`),
under cf-agent 3.21 and cf-lite-agent, and checked by cf-promises and cf-lite-promises."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential import agentmisc, harness, injection

pytestmark = harness.needs_cf_agent

results, test_same_run_as_cf_agent = agentmisc.observed_tests(injection)


@pytest.mark.parametrize("name", injection.PROMISES_NAMES)
def test_same_check_as_cf_promises(tmp_path: Path, name: str) -> None:
    policy = harness.write_policy(tmp_path / "p.cf", 'body common control { bundlesequence '
                                  '=> { "main" }; }\n' + injection.SHAPES[name])
    ref, lite = harness.validate_both(policy, tmp_path)
    assert (lite.returncode, sorted(set((lite.stdout + lite.stderr).splitlines()))) == \
        (ref.returncode, sorted(set((ref.stdout + ref.stderr).splitlines())))
