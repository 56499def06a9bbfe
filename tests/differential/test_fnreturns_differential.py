"""Differential test: functions of the wrong return type (:mod:`fnreturns`), each policy
checked with cf-promises 3.21 -c and cf-lite-promises -c."""
from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.differential import fnreturns, harness

pytestmark = harness.needs_cf_agent


def _check(root: Path, name: str) -> tuple[tuple, tuple]:
    policy = harness.write_policy(root / f"{name}.cf", fnreturns.POLICIES[name])
    ref = subprocess.run(["cf-promises", "-c", "-f", str(policy)], capture_output=True,
                         text=True, timeout=60,
                         env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(root / f"r-{name}")))
    lite = subprocess.run([sys.executable, "-m", "cfpromise.cli.promises", "-c", "-f",
                           str(policy), "-w", str(root / f"l-{name}")], capture_output=True, text=True,
                          timeout=60)
    return tuple((run.returncode, sorted(set((run.stdout + run.stderr).splitlines())))
                 for run in (ref, lite))


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    root = tmp_path_factory.mktemp("fnreturns")
    with ThreadPoolExecutor(2) as pool:
        return dict(zip(fnreturns.NAMES, pool.map(lambda n: _check(root, n), fnreturns.NAMES)))


@pytest.mark.parametrize("name", fnreturns.NAMES)
def test_same_verdict_as_cf_promises(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    assert ours == reference
