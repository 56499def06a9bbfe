"""Differential test: broken and open references in values and literals
(:mod:`brokenrefs`), each case run under cf-agent 3.21 and cf-lite and compared."""
from __future__ import annotations

from tests.differential import agentmisc, brokenrefs, harness

pytestmark = harness.needs_cf_agent

results, test_same_run_as_cf_agent = agentmisc.observed_tests(brokenrefs)

import pytest  # noqa: E402


def _parser_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines()
            if line == "Too many errors" or ":1:1: error: Broken " in line]


@pytest.mark.parametrize("name", [n for n in brokenrefs.NAMES if "_count_" in n])
def test_cf_promises_counts_alike(tmp_path, name: str) -> None:
    """cf-promises' own count (its loading's checks, then its last PolicyResolve's): the
    same parser lines, as many, and the same exit code ("Too many errors": 1)."""
    files = dict(brokenrefs.CASES[brokenrefs.NAMES.index(name)][1])
    for rel, text in files.items():
        harness.write_policy(tmp_path / rel, text)
    ref, lite = harness.validate_both(tmp_path / "promises.cf", tmp_path)
    assert (lite.returncode, _parser_lines(lite.stderr)) == \
        (ref.returncode, _parser_lines(ref.stderr))
