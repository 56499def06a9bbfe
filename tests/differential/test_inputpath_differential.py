"""Differential test: where ``-f`` finds the policy and what is said when it is not there
(:mod:`inputpath`), each case run from its working directory under cf-agent (or
cf-promises) 3.21 and under cf-lite, and compared up to the failsafe (whose key
message names cf-key or cf-lite-key)."""
from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.differential import agentmisc, harness, inputpath

pytestmark = harness.needs_cf_agent

_SHOW = "--show-vars=^default:where\\."
_FAILSAFE = ("failsafe", "public/private key", "no_ppkeys")


def _write(base: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        harness.write_policy(base / rel, text)


def _observe(run: subprocess.CompletedProcess[str], workdir: Path, cwd: Path) -> tuple:
    rc, failed, lines, errors = agentmisc.observe(
        run.stdout.replace(str(cwd), "CWD"), run.stderr.replace(str(cwd), "CWD"),
        run.returncode, str(workdir))
    keep = [line.rstrip() for line in lines if not any(k in line for k in _FAILSAFE)]
    return rc, failed, keep, sorted(set(e for e in errors if not any(k in e for k in _FAILSAFE)))


def _run(root: Path, case: tuple) -> tuple:
    name, inputs, here, given, program, broken = case
    cwd = root / name / "cwd"
    cwd.mkdir(parents=True)
    _write(cwd, inputpath.tree(here, "CWD", broken))
    given = given.replace("CWD/", f"{cwd}/")
    named = [given[4:]] if given.startswith("ARG:") else ["-f", given]
    ref_wd = harness.reference_workdir(root, f"ref-workdir-{name}")
    lite_wd = root / f"lite-workdir-{name}"
    for wd in (ref_wd, lite_wd):
        (wd / "inputs").mkdir(parents=True, exist_ok=True)
        _write(wd / "inputs", inputpath.tree(inputs, "INPUTS", broken))
    args = ["-K"] if program == "agent" else [_SHOW]
    ref = subprocess.run([f"cf-{program}", *args, *named], cwd=cwd, capture_output=True,
                         text=True, timeout=300,
                         env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(ref_wd)))
    env = {k: v for k, v in os.environ.items() if k != "CFENGINE_TEST_OVERRIDE_WORKDIR"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    lite = subprocess.run([sys.executable, "-m", f"cfpromise.cli.{program}", *args, *named,
                           "-w", str(lite_wd)], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=env)
    return _observe(ref, ref_wd, cwd), _observe(lite, lite_wd, cwd)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    root = tmp_path_factory.mktemp("inputpath")
    with ThreadPoolExecutor(2) as pool:
        return dict(zip(inputpath.NAMES,
                        pool.map(lambda case: _run(root, case), inputpath.CASES)))


@pytest.mark.parametrize("name", inputpath.NAMES)
def test_same_file_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    if name in inputpath.EXPECTED_DIFFERENCES:
        assert ours != reference, "now agrees: drop it from EXPECTED_DIFFERENCES"
        pytest.xfail(inputpath.EXPECTED_DIFFERENCES[name])
    assert ours == reference
