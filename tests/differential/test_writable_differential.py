"""Differential test: policy files writable by group or others (issue #26: the
third-party trees studied came out of git 0664).  cf-agent 3.21 refuses such a file,
entry or input: "File ./p.cf (owner 0) is writable by others (security exception)",
exit 1, the path as given; cf-promises reads it (its check_not_writable_by_others is
off).  Generated over modes and where the file is; each run from the tree's directory."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.differential import agentmisc, harness

pytestmark = harness.needs_cf_agent

MODES = {"0664": 0o664, "0646": 0o646, "0620": 0o620, "0602": 0o602, "0600": 0o600}
WHERE = ("entry", "input")
ROOT = str(Path(__file__).resolve().parents[2])


def _tree(tmp_path: Path, where: str, mode: int) -> Path:
    entry = harness.write_policy(tmp_path / "p.cf", (
        'body common control { bundlesequence => { "main" }; inputs => { "lib/inc.cf" }; }\n'
        'bundle agent main { reports: "main ran"; }\n'))
    (tmp_path / "lib").mkdir()
    inc = harness.write_policy(tmp_path / "lib" / "inc.cf", 'bundle agent inc { }\n')
    (entry if where == "entry" else inc).chmod(mode)
    return tmp_path


def _lite_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CFENGINE_TEST_OVERRIDE_WORKDIR"}
    env["PYTHONPATH"] = ROOT
    return env


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("where", WHERE)
def test_agent_refuses_as_cf_agent(tmp_path: Path, where: str, mode: str) -> None:
    tree = _tree(tmp_path, where, MODES[mode])
    ref_wd = harness.reference_workdir(tmp_path, "ref-wd")
    ref = subprocess.run(["cf-agent", "-K", "-f", "./p.cf"], cwd=tree, capture_output=True,
                         text=True, timeout=120,
                         env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(ref_wd)))
    lite = subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", "./p.cf",
                           "-w", str(tmp_path / "lite-wd")], cwd=tree, capture_output=True,
                          text=True, timeout=120, env=_lite_env())
    assert agentmisc.observe(lite.stdout, lite.stderr, lite.returncode, str(tmp_path / "lite-wd")) \
        == agentmisc.observe(ref.stdout, ref.stderr, ref.returncode, str(ref_wd))


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("where", WHERE)
def test_promises_reads_as_cf_promises(tmp_path: Path, where: str, mode: str) -> None:
    tree = _tree(tmp_path, where, MODES[mode])
    ref = subprocess.run(["cf-promises", "-f", "./p.cf"], cwd=tree, capture_output=True,
                         text=True, timeout=120,
                         env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(tmp_path / "r")))
    lite = subprocess.run([sys.executable, "-m", "cfpromise.cli.promises", "-f", "./p.cf",
                           "-w", str(tmp_path / "l")], cwd=tree, capture_output=True,
                          text=True, timeout=120, env=_lite_env())
    assert (lite.returncode, lite.stdout + lite.stderr) == (ref.returncode, ref.stdout + ref.stderr)
