"""Differential test over generated edge cases of the function families where cf-lite
agreed least with cf-agent 3.21 (:mod:`tests.functions.families`): both agents run the
same policy once, every case's reported result must be the same."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.functions import families

pytestmark = [pytest.mark.reference,
              pytest.mark.skipif(shutil.which("cf-agent") is None,
                                 reason="the reference cf-agent 3.21 is not installed")]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    root = tmp_path_factory.mktemp("families")
    policy = root / "families.cf"
    policy.write_text(families.policy_text())
    policy.chmod(0o600)
    check = subprocess.run(["cf-promises", "-f", str(policy)], capture_output=True, text=True,
                           timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr   # never cf-agent's failsafe
    ref_wd = root / "ref"
    (ref_wd / "bin").mkdir(parents=True)
    os.symlink(shutil.which("cf-promises") or "/usr/bin/cf-promises", ref_wd / "bin" / "cf-promises")
    ref = subprocess.run(["cf-agent", "-K", "-f", str(policy)], capture_output=True, text=True,
                         errors="surrogateescape", timeout=300,
                         env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(ref_wd)))
    lite = subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", str(policy),
                           "-w", str(root / "lite")], capture_output=True, text=True,
                          errors="surrogateescape", timeout=300)
    return families.parse_reports(ref.stdout), families.parse_reports(lite.stdout)


def test_every_case_is_reported_by_both(results: tuple[dict, dict]) -> None:
    reference, ours = results
    names = sorted(name for name, _kind, _expr in families.CASES)
    assert sorted(reference) == names
    assert sorted(ours) == names


@pytest.mark.parametrize("name,kind,expr", families.CASES, ids=[c[0] for c in families.CASES])
def test_same_result_as_cf_agent(results: tuple[dict, dict], name: str, kind: str,
                                 expr: str) -> None:
    reference, ours = results
    assert ours.get(name) == reference.get(name), expr


def test_mustache_object_sections_iterate_only_for_keys() -> None:
    from cfpromise.eval.functions import mustache
    data = {"o": {"p": "q", "i": 1}}
    assert mustache.render("{{#o}}[{{p}}]{{/o}}", data) == "[q]"          # once, as context
    assert mustache.render("{{#o}}[{{@}}]{{/o}}", data) == "[p][i]"       # per member
    assert mustache.render("{{#o}}{{=<% %>=}}<%p%><%={{ }}=%>{{/o}}x{{p}}", data) == "qx"
