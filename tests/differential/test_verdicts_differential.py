"""Differential test: validation verdicts (:mod:`verdicts`): reserved bundle names, value
errors at the value's end, a vars promise typed twice, a class guard before any promise
type, as cf-promises 3.21 reports them: exit code, and each error with its
file:line:col, source line and caret, in order."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential import harness, verdicts

pytestmark = harness.needs_cf_agent


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(reason=verdicts.KNOWN[n], strict=True))
    if n in verdicts.KNOWN else n for n in verdicts.VALIDATION_NAMES])
def test_same_verdict_as_cf_promises(tmp_path: Path, name: str) -> None:
    policy = harness.write_policy(tmp_path / "p.cf", verdicts.VALIDATIONS[name])
    ref, lite = harness.validate_both(policy, tmp_path)
    assert (lite.returncode, errors(lite.stdout + lite.stderr, policy)) \
        == (ref.returncode, errors(ref.stdout + ref.stderr, policy))


def errors(output: str, policy: Path) -> list[str]:
    """Each ``FILE:L:C: error:`` of the policy file, with its source line and caret when
    it has them (cf-promises prints its plain log lines to stdout, cf-lite to stderr:
    those are left out)."""
    lines = output.splitlines()
    out = []
    for i, line in enumerate(lines):
        if line.startswith(f"{policy}:") and ": error: " in line:
            caret = i + 2 < len(lines) and lines[i + 2].strip() == "^"
            out.append("\n".join(lines[i:i + 3] if caret else lines[i:i + 1]))
    return out
