"""Differential test: file templates, most of all those whose source is missing
(:mod:`templates`), one policy holding every case, run twice under cf-agent 3.21 and
twice under cf-lite, each in its own work directory with the same files beforehand: a
case's outcome classes and file content must agree after the first run and the second."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential import harness, templates

pytestmark = harness.needs_cf_agent

_DIR = ("deliberate: a cf-agent 3.21 bug, a directory as cfengine template logs a read "
        "error yet renders as an empty template (creates or empties the file); cf-lite "
        "fails the promise instead, so a read error never wipes a file")
EXPECTED_DIFFERENCES: dict[str, str] = {f"cf_dir_{p}": _DIR for p in templates.PROMISERS}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    root = tmp_path_factory.mktemp("templates")
    sources = root / "sources"
    templates.write_sources(sources)
    policy = harness.write_policy(root / "templates.cf", templates.policy_text(sources))
    harness.check_policy(policy)

    def before(which: str) -> None:
        templates.prepare_outputs(harness.reference_workdir(root) if which == "ref"
                                  else root / "lite-workdir")

    ref, lite = harness.run_both(root, policy, before=before)
    again_ref, again_lite = harness.run_both(root, policy)     # the second run, files as left
    return ({name: (value, again) for name, value in templates.parse_reports(ref.stdout).items()
             for again in [templates.parse_reports(again_ref.stdout).get(name)]},
            {name: (value, again) for name, value in templates.parse_reports(lite.stdout).items()
             for again in [templates.parse_reports(again_lite.stdout).get(name)]})


def test_every_case_is_reported_by_both(results: tuple[dict, dict]) -> None:
    reference, ours = results
    names = sorted(name for name, _attrs, _p in templates.CASES)
    assert sorted(reference) == names
    assert sorted(ours) == names


@pytest.mark.parametrize("name,attrs,promiser", templates.CASES,
                         ids=[c[0] for c in templates.CASES])
def test_same_as_cf_agent(results: tuple[dict, dict], name: str, attrs: str,
                          promiser: str) -> None:
    reference, ours = results
    if name in EXPECTED_DIFFERENCES:
        assert ours.get(name) != reference.get(name), "now agrees: drop it from the list"
        pytest.xfail(EXPECTED_DIFFERENCES[name])
    assert ours.get(name) == reference.get(name), attrs


def test_missing_template_for_missing_file_fails_without_creating(tmp_path: Path) -> None:
    """Without cf-agent too: the promise fails and nothing is created."""
    import subprocess
    import sys
    target = tmp_path / "out"
    policy = harness.write_policy(tmp_path / "p.cf", f"""
body classes outcome {{ repair_failed => {{ "failed" }}; promise_kept => {{ "kept" }}; }}
bundle agent main {{
  files:
    "{target}" edit_template => "{tmp_path}/nosuch.mustache", template_method => "mustache",
      classes => outcome;
    "{target}.s" edit_template_string => "", template_method => "inline_mustache";
  reports:
    failed:: "failed";
    kept:: "kept";
}}
""")
    run = subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", str(policy),
                          "-w", str(tmp_path / "wd")], capture_output=True, text=True, timeout=120)
    assert "R: failed" in run.stdout and "R: kept" not in run.stdout
    assert not target.exists()
    assert (tmp_path / "out.s").read_text() == ""     # an empty inline template is a template
