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


# -- cf-promises' promise-locking warnings (cfpromise.agent.lockwarn), from cf-promises alone
def _locking_cases() -> dict[str, dict[str, str]]:
    from tests.differential import agentmisc
    return {name: files for name, files, args in agentmisc.CASES
            if name.startswith("locking_") and not args}


@pytest.mark.parametrize("name", sorted(_locking_cases()))
@pytest.mark.parametrize("check", [[], ["-c"]], ids=["plain", "full"])
def test_locking_warnings_as_cf_promises(tmp_path: Path, name: str, check: list[str]) -> None:
    for rel, text in _locking_cases()[name].items():
        harness.write_policy(tmp_path / rel, text)
    argv = [*check, "-f", str(tmp_path / "promises.cf")]
    ref = subprocess.run(["cf-promises", *argv], capture_output=True, text=True,
                         env={**__import__("os").environ,
                              "CFENGINE_TEST_OVERRIDE_WORKDIR": str(tmp_path / "r")})
    lite = subprocess.run([sys.executable, "-m", "cfpromise.cli.promises", *argv,
                           "-w", str(tmp_path / "l")], capture_output=True, text=True)
    said = [line for line in (ref.stdout + ref.stderr).splitlines() if "promise locking" in line]
    ours = [line for line in (lite.stdout + lite.stderr).splitlines() if "promise locking" in line]
    assert ours == said
