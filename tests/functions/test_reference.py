"""Differential test: the reference cf-agent 3.21 and cf-lite's built-ins give
the same results for the deterministic calls of :mod:`reference_cases`, run as
one cf-agent policy (with a scratch work directory and ``-K``)."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.functions import reference_cases as rc

pytestmark = [pytest.mark.reference,
              pytest.mark.skipif(shutil.which("cf-agent") is None,
                                 reason="the reference cf-agent is not installed")]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    root = tmp_path_factory.mktemp("reference")
    fix = root / "fix"
    fix.mkdir()
    rc.write_fixtures(fix)
    workdir = root / "work"
    (workdir / "bin").mkdir(parents=True)
    os.symlink(shutil.which("cf-promises") or "/usr/bin/cf-promises",
               workdir / "bin" / "cf-promises")
    policy = root / "reference.cf"
    policy.write_text(rc.policy_text(str(fix)))
    # never let cf-agent fall back to failsafe.cf: validate first
    check = subprocess.run(["cf-promises", "-f", str(policy)], capture_output=True,
                           timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr
    proc = subprocess.run(["cf-agent", "-K", "-w", str(workdir), "-f", str(policy)],
                          capture_output=True, timeout=120)
    reference = rc.parse_reference_output(proc.stdout.decode("utf-8", "surrogateescape"))
    return reference, rc.our_results(str(fix))


def test_every_case_was_reported(results: tuple[dict, dict]) -> None:
    reference, ours = results
    names = [name for name, _kind, _expr in rc.CASES]
    assert sorted(reference) == sorted(names)
    assert sorted(ours) == sorted(names)


@pytest.mark.parametrize("name,kind,expr", rc.CASES, ids=[c[0] for c in rc.CASES])
def test_same_result_as_cf_agent(results: tuple[dict, dict], name: str, kind: str,
                                 expr: str) -> None:
    reference, ours = results
    assert ours[name] == reference[name], expr
