"""Differential test: deprecated and removed language (:mod:`deprecations`): the
parser's warnings as cf-promises 3.21 prints them, and the agent bundles cf-agent's
parser leaves out after a removed body."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential import agentmisc, deprecations, harness

pytestmark = harness.needs_cf_agent


results, test_same_run_as_cf_agent = agentmisc.observed_tests(deprecations)


@pytest.mark.parametrize("name", sorted(deprecations.VALIDATIONS))
def test_same_validation_as_cf_promises(tmp_path: Path, name: str) -> None:
    policy = harness.write_policy(tmp_path / "p.cf", deprecations.VALIDATIONS[name])
    ref, lite = harness.validate_both(policy, tmp_path)
    assert lite.returncode == ref.returncode, lite.stdout + lite.stderr
    assert _warnings(lite.stderr) == _warnings(ref.stderr)


def _warnings(output: str) -> list[str]:
    """Each warning with its source line and caret (errors have their own tests)."""
    lines = output.splitlines()
    return ["\n".join(lines[i:i + 3]) for i, line in enumerate(lines) if ": warning: " in line]


@pytest.mark.parametrize("name", sorted(deprecations.FULL_VALIDATIONS))
def test_same_output_as_cf_promises(tmp_path: Path, name: str) -> None:
    """The removed language's cases: cf-promises' whole output, line by line."""
    policy = harness.write_policy(tmp_path / "p.cf", deprecations.FULL_VALIDATIONS[name])
    ref, lite = harness.validate_both(policy, tmp_path)
    assert (lite.returncode, lite.stdout.splitlines(), lite.stderr.splitlines()) == \
        (ref.returncode, ref.stdout.splitlines(), ref.stderr.splitlines())


@pytest.mark.parametrize("output", ["json", "json-full"])
@pytest.mark.parametrize("name", sorted(deprecations.POLICY_OUTPUTS))
def test_same_policy_output_as_cf_promises(tmp_path: Path, name: str, output: str) -> None:
    """``-p json`` shows the policy the parser installed: no removed attribute, no
    section from a removed promise type's guard on."""
    import os
    import subprocess
    import sys
    policy = harness.write_policy(tmp_path / "p.cf", deprecations.POLICY_OUTPUTS[name])
    ref = subprocess.run(["cf-promises", "-p", output, "-f", str(policy)], capture_output=True,
                         text=True, timeout=60,
                         env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(tmp_path / "r")))
    lite = subprocess.run([sys.executable, "-m", "cfpromise.cli.promises", "-p", output, "-f",
                           str(policy), "-w", str(tmp_path / "l")], capture_output=True,
                          text=True, timeout=60)
    assert ref.returncode == 0, ref.stderr
    assert (lite.returncode, lite.stdout) == (ref.returncode, ref.stdout)


def test_same_syntax_description_as_cf_promises(tmp_path: Path) -> None:
    """``-s json`` lists no removed attribute or promise type (syntax.json keeps them for
    the parser's warnings), byte for byte as cf-promises prints it."""
    import os
    import subprocess
    import sys
    ref = subprocess.run(["cf-promises", "-s", "json"], capture_output=True, text=True,
                         timeout=60,
                         env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(tmp_path / "r")))
    lite = subprocess.run([sys.executable, "-m", "cfpromise.cli.promises", "-s", "json"],
                          capture_output=True, text=True, timeout=60)
    assert (lite.returncode, lite.stdout) == (ref.returncode, ref.stdout)
