"""Differential test: bad values in the common promise attributes (:mod:`commonattrs`):
``cf-promises -f``'s exit code and errors, and the ``cf-agent -K`` run."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential import agentmisc, commonattrs, harness
from tests.differential.test_unknownattrs_differential import _errors

pytestmark = harness.needs_cf_agent

# cf-lite's own lint of depends_on (cfpromise.schema.depends: a handle no promise
# defines, a promise that never ran for it) is no part of the comparison
_OWN = ("depends_on names handle", "never ran: it depends on")


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    return agentmisc.run_observed(tmp_path_factory.mktemp("commonattrs"), commonattrs.CASES)


@pytest.mark.parametrize("name", commonattrs.NAMES)
def test_same_run_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    rc, failed, lines, errors = ours
    ours = (rc, failed, [line for line in lines if not any(own in line for own in _OWN)],
            errors)
    if name in commonattrs.EXPECTED_DIFFERENCES:
        assert ours != reference, "now agrees: drop it from EXPECTED_DIFFERENCES"
        pytest.xfail(commonattrs.EXPECTED_DIFFERENCES[name])
    assert ours == reference


def _said(output: str) -> list[str]:
    """The errors with their places (file:line:col ones with source line and caret),
    then the plain error lines, each once (cf-promises evaluates a vars promise twice)."""
    plain = [line.strip() for line in output.splitlines()
             if line.lstrip().startswith("error:") or "Programming Error" in line]
    return _errors(output) + sorted(set(plain))


@pytest.mark.parametrize("name", commonattrs.VALIDATION_NAMES)
def test_same_errors_as_cf_promises(tmp_path: Path, name: str) -> None:
    policy = harness.write_policy(tmp_path / "p.cf", commonattrs.VALIDATIONS[name])
    ref, lite = harness.validate_both(policy, tmp_path)
    reference = (ref.returncode, _said(ref.stdout + ref.stderr))
    ours = (lite.returncode, _said(lite.stdout + lite.stderr))
    if name in commonattrs.VALIDATION_DIFFERENCES:
        assert ours != reference, "now agrees: drop it from VALIDATION_DIFFERENCES"
        pytest.xfail(commonattrs.VALIDATION_DIFFERENCES[name])
    assert ours == reference
