"""Differential test: references whose index brackets do not balance
(:mod:`indexbrackets`), each case run under cf-agent 3.21 and cf-lite and compared, and
validated by cf-promises and cf-lite-promises (the distinct error lines)."""
from __future__ import annotations

from tests.differential import agentmisc, harness, indexbrackets

pytestmark = harness.needs_cf_agent

results, test_same_run_as_cf_agent = agentmisc.observed_tests(indexbrackets)

import pytest  # noqa: E402


def _broken(run) -> list[str]:
    """The distinct lines of the message (cf-promises logs to standard output)."""
    return sorted({line.strip() for line in (run.stdout + run.stderr).splitlines()
                   if "index brackets do not balance" in line})


@pytest.mark.parametrize("name", indexbrackets.NAMES)
def test_cf_promises_says_alike(tmp_path, name: str) -> None:
    """cf-promises -f evaluates every bundle's vars: the same distinct lines."""
    files = indexbrackets.CASES[indexbrackets.NAMES.index(name)][1]
    files = {"promises.cf": files} if isinstance(files, str) else files
    for rel, text in files.items():
        harness.write_policy(tmp_path / rel, text)
    ref, lite = harness.validate_both(tmp_path / "promises.cf", tmp_path)
    assert (lite.returncode, _broken(lite)) == (ref.returncode, _broken(ref))
