"""Differential test: blocks defined twice (:mod:`duplicates`), in one file, across the
entry and its inputs, across inputs, in namespaces, and the neighbours that are not
duplicates.  ``cf-promises -f`` and ``-c`` against ``cf-lite-promises``: the verdict
and the error lines must agree (file, line and message, in order; cf-promises puts
every such error at column 0, cf-lite at the block's name, so the column is left
out), and the agent must refuse the policy where cf-promises does."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.differential import duplicates, harness

pytestmark = harness.needs_cf_agent

CASES = duplicates.cases()
_POSITION = re.compile(r"^(\S+?:\d+):\d+: ")


def _lines(out: str, root: Path) -> tuple[list[str], list[str]]:
    """The error and warning lines naming a place (directory and column left out), then
    those that name none: cf-promises writes the first to stderr and the second to
    stdout, cf-lite both to stderr, so only the order within each is compared."""
    placed, summary = [], []
    for line in out.replace(str(root), "D").splitlines():
        if "error:" in line or "warning:" in line:
            if _POSITION.match(line):
                placed.append(_POSITION.sub(r"\1: ", line))
            else:
                summary.append(line)
    return placed, summary


def _both(root: Path, args: list[str]) -> tuple[tuple, tuple]:
    entry = root / "e.cf"
    ref = subprocess.run(["cf-promises", *args, "-f", str(entry)], capture_output=True,
                         text=True, timeout=60,
                         env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(root / "r")))
    env = {k: v for k, v in os.environ.items() if k != "CFENGINE_TEST_OVERRIDE_WORKDIR"}
    lite = subprocess.run([sys.executable, "-m", "cfpromise.cli.promises", *args, "-f",
                           str(entry), "-w", str(root / "l")], capture_output=True, text=True,
                          timeout=60, env=env)
    return ((ref.returncode, _lines(ref.stdout + ref.stderr, root)),
            (lite.returncode, _lines(lite.stdout + lite.stderr, root)))


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("check", ["plain", "full"])
def test_verdict_and_errors_as_cf_promises(tmp_path: Path, name: str, check: str) -> None:
    duplicates.write(tmp_path / "p", CASES[name])
    ref, lite = _both(tmp_path / "p", ["-c"] if check == "full" else [])
    assert lite == ref


@pytest.mark.parametrize("name", ["perms_two_inputs", "agent_entry_input", "namespace_differs"])
def test_agent_refuses_what_cf_promises_refuses(tmp_path: Path, name: str) -> None:
    """cf-agent validates before it runs: a policy cf-promises refuses goes to the
    failsafe, and the promises of the policy are never run."""
    entry = duplicates.write(tmp_path / "p", CASES[name])
    ref = harness.run_reference(entry, [], harness.reference_workdir(tmp_path))
    lite = harness.run_lite(entry, [], tmp_path / "lite-workdir")
    ran = [("R: x" in r.stdout + r.stderr) for r in (ref, lite)]
    assert ran[1] == ran[0], (ref.stdout + ref.stderr, lite.stdout + lite.stderr)
