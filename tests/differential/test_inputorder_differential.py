"""Differential test: the order a policy's files are read in (:mod:`inputorder`): the
agent's ``bundlesmatching()`` and ``cf-promises -p json-full`` (its bundles and bodies in
order, then the whole text), each case under CFEngine 3.21 and cf-lite."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from tests.differential import harness, inputorder

pytestmark = harness.needs_cf_agent


def _full(which: str, policy: Any, workdir: Any) -> tuple[list[tuple[str, str]], str]:
    if which == "ref":
        run = subprocess.run(["cf-promises", "-p", "json-full", "-f", str(policy)],
                             capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(workdir)))
    else:
        run = subprocess.run([sys.executable, "-m", "cfpromise.cli.promises", "-p",
                              "json-full", "-w", str(workdir), "-f", str(policy)],
                             capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    data = json.loads(run.stdout)
    return [(kind, b["name"]) for kind in ("bundles", "bodies") for b in data[kind]], run.stdout


@pytest.fixture(scope="module")
def results(tmp_path_factory: Any) -> dict[str, tuple]:
    root = tmp_path_factory.mktemp("inputorder")
    jobs = []
    for name, files in inputorder.CASES:
        tree = root / name
        tree.mkdir()
        for rel, text in files.items():
            harness.write_policy(tree / rel, text)
        jobs.append((name, tree / "promises.cf", []))
    runs = harness.run_many(jobs, root)
    return {name: ((runs[name][0].returncode, runs[name][0].stdout,
                    _full("ref", policy, root / f"r-{name}")),
                   (runs[name][1].returncode, runs[name][1].stdout,
                    _full("lite", policy, root / f"l-{name}")))
            for name, policy, _args in jobs}


@pytest.mark.parametrize("name", inputorder.NAMES)
def test_same_order_as_cfengine(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    assert ours == reference
