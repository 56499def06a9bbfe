"""The conformance ratchet: every test listed in expected-pass.txt must still pass.

The listed acceptance tests run through the runner against ``cf-lite-agent`` (on
PATH, or beside ``sys.executable`` in the venv), in parallel on every core.
Timed tests (which may wait minutes between passes) are left out unless
``CF_LITE_RATCHET_TIMED=1``.  Grow the list with
``python tests/conformance/runner.py --update-expected [FOLDER ...]``.
"""
from __future__ import annotations

import os
import sys

import pytest

from tests.conformance import runner


def test_expected_passes_still_pass() -> None:
    suite = runner.find_suite(None)
    if not suite.is_dir():
        pytest.skip(f"no acceptance suite at {suite}")
    with_timed = os.environ.get("CF_LITE_RATCHET_TIMED") == "1"
    tests = [runner.TestCase(path) for path in runner.read_list(runner.EXPECTED_PASS_FILE)
             if (suite / path).is_file()]
    tests = [t for t in tests if not t.unsafe and (with_timed or not t.timed)]
    if not tests:
        return  # nothing listed yet
    agent = runner.make_agent(runner.DEFAULT_AGENT, "cf-lite")
    assert agent is not None, f"{runner.DEFAULT_AGENT} is not on PATH nor beside {sys.executable}"
    results = runner.run_tests(suite, tests, [agent], runner.RunConfig(timeout=60.0))["cf-lite"]
    broken = [f"{t.path}: {results[t.path].verdict.value} {results[t.path].detail}"
              for t in tests if results[t.path].verdict is not runner.Verdict.PASS]
    assert not broken, (f"{len(broken)} tests of expected-pass.txt no longer pass:\n  "
                        + "\n  ".join(broken))
