"""The classes bodies at work: a small policy through the agent core.

Reports promises take a ``classes`` body, and their outcome is one of kept or
repaired, never a failure.  The policy below gives one report per classes body
of interest; the test reads which classes exist afterwards (namespace-scoped
ones from a later bundle, bundle-scoped ones inside the bundle and not outside)
and compares them with what each body promises for that outcome.

Which of kept/repaired a printed report counts as is the agent's business (the
CFEngine 3.21 agent says KEPT, see ``test_same_classes_as_cfengine``); the
expectations here are derived from the outcome the agent reports, and must be
consistent across all bodies.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.stdlib.library import STDLIB, cfengine_env, workdir_env

POLICY = """\
body common control
{
  bundlesequence => { "main", "check" };
  inputs => { "@STDLIB@" };
}

bundle agent main
{
  reports:
      "generic" classes => classes_generic("g");
      "scoped" classes => scoped_classes_generic("bundle", "sb");
      "results in bundle" classes => results("bundle", "rb");
      "results in namespace" classes => results("namespace", "rn");
      "if_repaired" classes => if_repaired("ir");
      "if_ok" classes => if_ok("iok");
      "if_else" classes => if_else("ie_yes", "ie_no");
      "if_notkept" classes => if_notkept("nk");
      "always" classes => always("alw");
      "diff_results" classes => diff_results("namespace", "dr");

    sb_reached::
      "main sees sb_reached";
    rb_reached::
      "main sees rb_reached";
    rb_kept::
      "main sees rb_kept";
    rb_repaired::
      "main sees rb_repaired";
}

bundle agent check
{
  vars:
      "found" slist => classesmatching("(promise_kept|promise_repaired|repair_[a-z]+)_g|g_.*|sb_.*|rb_.*|rn_.*|ir|iok|ie_.*|nk|alw|dr_.*");

  reports:
      "class $(found)";
    sb_reached::
      "check sees sb_reached";
    rb_reached::
      "check sees rb_reached";
}
"""

NAMESPACE_EXPECTED = {
    "kept": {"promise_kept_g", "g_kept", "g_ok", "g_reached", "rn_reached", "rn_kept",
             "iok", "ie_yes", "alw", "dr_reached", "dr_kept"},
    "repaired": {"promise_repaired_g", "g_repaired", "g_ok", "g_reached", "rn_reached",
                 "rn_repaired", "ir", "iok", "ie_yes", "alw", "dr_reached", "dr_repaired"},
}


def _write_policy(tmp_path: Path) -> Path:
    path = tmp_path / "policy.cf"
    path.write_text(POLICY.replace("@STDLIB@", str(STDLIB)))
    path.chmod(0o600)
    return path


def _outcome(lines: list[str]) -> tuple[str, set[str], set[str]]:
    classes = {m.group(1) for line in lines if (m := re.fullmatch(r"R: class (\S+)", line))}
    seen = {line[3:] for line in lines if line.startswith("R: ") and " sees " in line}
    outcome = "repaired" if "g_repaired" in classes else "kept"
    return outcome, classes, seen


def run_cf_lite(tmp_path: Path) -> list[str]:
    policy = _write_policy(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", str(policy),
                           "-w", str(tmp_path / "work")], capture_output=True, text=True,
                          env=workdir_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "error" not in proc.stderr, proc.stderr
    return proc.stdout.splitlines()


@pytest.fixture(scope="module")
def cf_lite_lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return run_cf_lite(tmp_path_factory.mktemp("agent"))


def test_reports_with_classes_bodies_are_printed(cf_lite_lines: list[str]) -> None:
    for text in ("generic", "scoped", "results in bundle", "results in namespace", "if_repaired",
                 "if_ok", "if_else", "if_notkept", "always", "diff_results"):
        assert f"R: {text}" in cf_lite_lines


def test_namespace_classes_follow_the_bodies(cf_lite_lines: list[str]) -> None:
    outcome, classes, _ = _outcome(cf_lite_lines)
    assert classes == NAMESPACE_EXPECTED[outcome]


def test_no_failure_class_for_a_printed_report(cf_lite_lines: list[str]) -> None:
    _, classes, _ = _outcome(cf_lite_lines)
    for bad in ("g_not_ok", "g_error", "g_failed", "g_not_kept", "nk", "ie_no", "rn_error",
                "rn_not_kept", "dr_error"):
        assert bad not in classes


def test_bundle_scoped_classes_stay_in_their_bundle(cf_lite_lines: list[str]) -> None:
    outcome, classes, seen = _outcome(cf_lite_lines)
    assert {"main sees sb_reached", "main sees rb_reached", f"main sees rb_{outcome}"} <= seen
    assert not any(line.startswith("check sees") for line in seen)
    assert not any(c.startswith(("sb_", "rb_")) for c in classes)


@pytest.mark.reference
@pytest.mark.skipif(shutil.which("cf-agent") is None, reason="CFEngine 3.21 not installed")
def test_same_classes_as_cfengine(tmp_path: Path, cf_lite_lines: list[str]) -> None:
    """cf-agent 3.21 with our library defines the same classes as cf-lite.

    Known difference (not in the library): cf-agent 3.21 counts a printed report as
    KEPT (``A: Promise was KEPT``), cf-lite as REPAIRED.
    """
    policy = _write_policy(tmp_path)
    env = cfengine_env(tmp_path / "work")
    proc = subprocess.run(["cf-agent", "-K", "-f", str(policy)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    ref_outcome, ref_classes, ref_seen = _outcome(proc.stdout.splitlines())
    outcome, classes, seen = _outcome(cf_lite_lines)
    assert ref_classes == NAMESPACE_EXPECTED[ref_outcome]
    assert (outcome, classes, seen) == (ref_outcome, ref_classes, ref_seen)
