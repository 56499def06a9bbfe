"""Differential test: the policy file named as it was given (:mod:`givenpath`), each
case run from its directory under cf-agent 3.21 and cf-lite and compared."""
from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.differential import agentmisc, givenpath, harness

pytestmark = harness.needs_cf_agent


def _run(root: Path, case: tuple) -> tuple:
    name, files, cwd, given = case
    tree = root / name
    for rel, text in files.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        harness.write_policy(tree / rel, text)
    where = (tree / cwd).resolve()
    path = given or str(tree / "promises.cf")
    ref_wd = harness.reference_workdir(root, f"ref-workdir-{name}")
    lite_wd = root / f"lite-workdir-{name}"
    ref = subprocess.run(["cf-agent", "-K", "-f", path], cwd=where, capture_output=True,
                         text=True, timeout=300,
                         env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(ref_wd)))
    env = {k: v for k, v in os.environ.items() if k != "CFENGINE_TEST_OVERRIDE_WORKDIR"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    lite = subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", path,
                           "-w", str(lite_wd)], cwd=where, capture_output=True, text=True,
                          timeout=300, env=env)
    return (agentmisc.observe(ref.stdout, ref.stderr, ref.returncode, str(ref_wd), name),
            agentmisc.observe(lite.stdout, lite.stderr, lite.returncode, str(lite_wd), name))


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    root = tmp_path_factory.mktemp("givenpath")
    with ThreadPoolExecutor(2) as pool:
        return dict(zip(givenpath.NAMES,
                        pool.map(lambda case: _run(root, case), givenpath.CASES)))


@pytest.mark.parametrize("name", givenpath.NAMES)
def test_same_run_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    # (each distinct line: how often cf-agent repeats an error is not the matter here)
    assert _once(ours) == _once(reference)


def _once(observed: tuple) -> tuple:
    rc, failed, lines, errors = observed
    return rc, failed, list(dict.fromkeys(lines)), sorted(set(errors))
