"""Differential test: cf-lite-promises accepts cf-promises 3.21's ``--eval-functions``
switch in every form (masterfiles' tests/acceptance/promises/promises.cf runs
``cf-promises -c --eval-functions -f promises.cf``), with the same verdict as cf-promises
on a good and a bad policy."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.differential import harness

pytestmark = harness.needs_cf_agent

POLICIES = {
    "good": 'bundle agent __main__ { vars: "x" string => concat("a", "b"); }\n',
    "bad": 'bundle agent __main__ { vars: "x" string => concat("a", "b") }\n',
}
# (cf-promises takes the value only after '=': getopt's optional argument)
FORMS = (["--eval-functions"], ["--eval-functions=yes"], ["--eval-functions=no"])


@pytest.mark.parametrize("policy", list(POLICIES))
@pytest.mark.parametrize("form", FORMS, ids=" ".join)
def test_eval_functions_as_cf_promises(tmp_path: Path, policy: str, form: list[str]) -> None:
    path = harness.write_policy(tmp_path / "p.cf", POLICIES[policy])
    argv = ["-c", *form, "-f", str(path)]
    ref = subprocess.run(["cf-promises", *argv], capture_output=True, text=True)
    lite = subprocess.run([sys.executable, "-m", "cfpromise.cli.promises", *argv],
                          capture_output=True, text=True)
    assert (lite.returncode == 0) == (ref.returncode == 0), (ref.stderr, lite.stderr)
    assert "unrecognized" not in lite.stderr
