"""Differential test: ``inputs`` items cf-agent leaves out (:mod:`inputrefs`), each case
run under cf-agent 3.21 and cf-lite and compared, and validated by cf-promises and
cf-lite-promises."""
from __future__ import annotations

import pytest

from tests.differential import agentmisc, harness, inputrefs

pytestmark = harness.needs_cf_agent

results, test_same_run_as_cf_agent = agentmisc.observed_tests(inputrefs)


def _left_out(run) -> list[str]:
    return sorted(line.strip() for line in (run.stdout + run.stderr).splitlines()
                  if "in input list" in line or "Non-file object" in line)


@pytest.mark.parametrize("name", [n for n in inputrefs.NAMES if n.startswith(("entry_", "input_"))])
def test_cf_promises_says_alike(tmp_path, name: str) -> None:
    """cf-promises -f says each line once."""
    files = inputrefs.CASES[inputrefs.NAMES.index(name)][1]
    for rel, text in files.items():
        harness.write_policy(tmp_path / rel, text)
    ref, lite = harness.validate_both(tmp_path / "promises.cf", tmp_path)
    assert _left_out(ref), "not vacuous: cf-promises leaves an item out"
    assert (lite.returncode, _left_out(lite)) == (ref.returncode, _left_out(ref))
