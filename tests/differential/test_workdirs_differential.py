"""Differential test: the work directory made and checked at start (:mod:`workdirs`), one
run under cf-agent 3.21 and one under cf-lite-agent per case."""
from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cfpromise.agent.programs import OWN_PROGRAMS
from tests.differential import agentmisc, harness, workdirs

pytestmark = harness.needs_cf_agent


def _prepare(wd: Path, setup: dict[str, int], programs: bool) -> None:
    for sub in sorted(setup, key=lambda s: s.count("/") + (s != ".")):
        (wd / sub).mkdir(parents=True, exist_ok=True)
    if programs:
        for program in OWN_PROGRAMS:
            if os.path.exists(f"/usr/bin/{program}"):
                os.symlink(f"/usr/bin/{program}", wd / "bin" / program)
    for sub, mode in setup.items():
        os.chmod(wd / sub, mode)


def _listing(wd: Path) -> list[str]:
    out = []
    for here, dirs, _files in os.walk(wd):
        rel = os.path.relpath(here, wd)
        dirs[:] = [d for d in dirs if os.path.join(rel, d) not in ("./bin", "./state/policy_cache",
                                                                  "bin", "state/policy_cache")]
        out.append(f"{rel} {os.stat(here).st_mode & 0o7777:o}")
    return sorted(out)


def _run(root: Path, name: str) -> tuple:
    setup, programs = workdirs.CASES[name]
    policy = harness.write_policy(root / f"{name}.cf", workdirs.POLICY)
    runs = []
    for which in ("ref", "lite"):
        wd = root / f"{which}-{name}"
        if setup or programs:
            _prepare(wd, setup, programs)
        if which == "ref":
            run = subprocess.run(["cf-agent", "-K", "-f", str(policy)], capture_output=True,
                                 text=True, timeout=300,
                                 env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(wd)))
        else:
            env = {k: v for k, v in os.environ.items() if k != "CFENGINE_TEST_OVERRIDE_WORKDIR"}
            run = subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f",
                                  str(policy), "-w", str(wd)], capture_output=True, text=True,
                                 timeout=300, env=env)
        rc, _failed, lines, errors = agentmisc.observe(run.stdout, run.stderr, run.returncode,
                                                       str(wd))
        if not programs:        # (cf-agent's validation needs WORKDIR/bin: its failsafe runs)
            lines, errors = [], []
        runs.append((rc if programs else None, list(dict.fromkeys(lines)), sorted(set(errors)),
                     _listing(wd)))
    return tuple(runs)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    root = tmp_path_factory.mktemp("workdirs")
    with ThreadPoolExecutor(2) as pool:
        return dict(zip(workdirs.NAMES, pool.map(lambda n: _run(root, n), workdirs.NAMES)))


@pytest.mark.parametrize("name", workdirs.NAMES)
def test_same_workdir_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    if name in workdirs.EXPECTED_DIFFERENCES:
        assert ours != reference, "now agrees: drop it from EXPECTED_DIFFERENCES"
        pytest.xfail(workdirs.EXPECTED_DIFFERENCES[name])
    assert ours == reference
