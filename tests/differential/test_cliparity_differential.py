"""Differential test: command-line options as cf-promises 3.21 and cf-agent 3.21 read them
(:mod:`cliparity`), each case run under both programs and compared."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.differential import cliparity, harness

pytestmark = harness.needs_cf_agent

_STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} ")
_PROGRAM = re.compile(r'"[^"]*/cf(?:-lite)?-promises"')


def _promises(which: str, policy: Path, args: list[str], workdir: Path
              ) -> subprocess.CompletedProcess[str]:
    if which == "ref":
        return subprocess.run(["cf-promises", *args, "-f", f"./{policy.name}"],
                              capture_output=True, text=True, timeout=60, cwd=policy.parent,
                              env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(workdir)))
    env = {k: v for k, v in os.environ.items() if k != "CFENGINE_TEST_OVERRIDE_WORKDIR"}
    # (-w first: read after -I or -g info, it is said as cf-promises says it)
    return subprocess.run([sys.executable, "-m", "cfpromise.cli.promises", "-w", str(workdir),
                           *args, "-f", f"./{policy.name}"], capture_output=True,
                          text=True, timeout=60, cwd=policy.parent, env=env)


def _observe(run: subprocess.CompletedProcess[str], workdir: Path, x: bool) -> tuple:
    lines = [_PROGRAM.sub('"PROMISES"', _STAMP.sub("", line).replace(str(workdir), "WORKDIR"))
             for line in (run.stdout + run.stderr).splitlines()]
    failed = next((i for i, line in enumerate(lines) if "Policy failed validation" in line),
                  None)
    if failed is not None:
        return lines[:failed + 1]
    return run.returncode, lines[:8] if x else lines


@pytest.fixture(scope="module")
def results(tmp_path_factory: Any) -> dict[str, tuple]:
    root = tmp_path_factory.mktemp("cliparity")

    def one(case: tuple, which: str) -> tuple:
        name, program, policy_name, args = case
        tree = root / name
        tree.mkdir(exist_ok=True)
        policy = harness.write_policy(tree / "promises.cf", cliparity.POLICIES[policy_name])
        if policy_name == "augments":
            for file, text in cliparity.AUGMENTS.items():
                harness.write_policy(tree / file, text)
        if program == "promises":
            workdir = root / f"{which}-wd-{name}"
            run = _promises(which, policy, args, workdir)
        elif which == "ref":
            workdir = harness.reference_workdir(root, f"ref-wd-{name}")
            run = harness.run_reference(policy, args, workdir)
        else:
            workdir = root / f"lite-wd-{name}"
            run = harness.run_lite(policy, args, workdir)
        return _observe(run, workdir, program == "agent" and "-x" in args)

    with ThreadPoolExecutor(max_workers=2) as pool:
        refs = [pool.submit(one, c, "ref") for c in cliparity.CASES]
        lites = [pool.submit(one, c, "lite") for c in cliparity.CASES]
        return {c[0]: (r.result(), l.result()) for c, r, l in zip(cliparity.CASES, refs, lites)}


@pytest.mark.parametrize("name", cliparity.NAMES)
def test_same_as_cfengine(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    assert ours == reference
