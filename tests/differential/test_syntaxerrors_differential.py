"""Differential test: syntax errors (:mod:`syntaxerrors`) as cf-promises 3.21 says them --
bison's "syntax error", its grammar's error rules' words, its recovery's further errors,
"Too many errors" -- each at its line:column with the source line and caret, in order,
with the verdict and the exit code: everything both print, compared whole."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential import harness, syntaxerrors

pytestmark = harness.needs_cf_agent


@pytest.mark.parametrize("name", list(syntaxerrors.CASES))
def test_same_syntax_errors_as_cf_promises(tmp_path: Path, name: str) -> None:
    policy = harness.write_policy(tmp_path / "p.cf", syntaxerrors.CASES[name])
    ref, lite = harness.validate_both(policy, tmp_path)
    same = (lite.returncode, lite.stdout, lite.stderr) == (ref.returncode, ref.stdout, ref.stderr)
    if name in syntaxerrors.EXPECTED_DIFFERENCES:
        assert not same, f"{name} agrees now: drop it from EXPECTED_DIFFERENCES"
        return
    assert (lite.returncode, lite.stderr, lite.stdout) \
        == (ref.returncode, ref.stderr, ref.stdout)


@pytest.mark.parametrize("name", ["promisee_ins07", "body_ins13", "vars_del05",
                                  "guardlit_several_0", "guardlit_many_14"])
def test_agent_shows_the_same_errors(tmp_path: Path, name: str) -> None:
    """cf-agent shows what the cf-promises it validates with says (past twelve errors:
    "Too many errors", and no "There are syntax errors" verdict), then goes to its
    failsafe: cf-lite-agent the same."""
    policy = harness.write_policy(tmp_path / "p.cf", syntaxerrors.CASES[name])
    ref, lite = harness.run_both(tmp_path, policy, ["-K"])
    verdict = "There are syntax errors in policy files"
    assert (lite.returncode, lite.stderr, verdict in lite.stdout) \
        == (ref.returncode, ref.stderr, verdict in ref.stdout)
