"""Differential test: unknown attributes (:mod:`unknownattrs`) as cf-promises 3.21
reports them: exit code, message, source line and caret column."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential import agentmisc, harness, unknownattrs

pytestmark = harness.needs_cf_agent

results, test_same_run_as_cf_agent = agentmisc.observed_tests(unknownattrs)


@pytest.mark.parametrize("name", unknownattrs.VALIDATION_NAMES)
def test_same_errors_as_cf_promises(tmp_path: Path, name: str) -> None:
    policy = harness.write_policy(tmp_path / "p.cf", unknownattrs.VALIDATIONS[name])
    ref, lite = harness.validate_both(policy, tmp_path)
    assert lite.returncode == ref.returncode, lite.stdout + lite.stderr
    assert _errors(lite.stdout + lite.stderr) == _errors(ref.stdout + ref.stderr)


def _errors(output: str) -> list[str]:
    """Each ``file:line:col: error:`` with its source line and caret (none for a check
    of the parsed policy, whose column is 0)."""
    lines = output.splitlines()
    return ["\n".join(lines[i:i + (1 if line.split(": error:")[0].endswith(":0") else 3)])
            for i, line in enumerate(lines) if ": error: " in line]
