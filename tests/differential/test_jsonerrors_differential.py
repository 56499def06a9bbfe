"""Differential test: JSON parse errors and numbers with an exponent (:mod:`jsonerrors`),
each case under cf-agent 3.21 and cf-lite at -I.  For the malformed texts the distinct
lines are compared (the text each error quotes and its message); for the others every
line in order, and the exit code."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential import harness, jsonerrors

pytestmark = harness.needs_cf_agent


def _observe(name: str, output: str, returncode: int, workdir: Path) -> tuple:
    lines = [line.rstrip() for line in output.replace(str(workdir), "WORKDIR").splitlines()]
    for i, line in enumerate(lines):
        if line.startswith("   error: Policy failed validation"):
            # what the validation said, then that the failsafe ran (whose own lines name
            # the validating command, the key program: each program's own)
            return returncode, lines[:i] + ["(policy failed validation: failsafe)"]
    if name.endswith("_errors"):
        return returncode, sorted(set(lines))
    return returncode, lines


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    root = tmp_path_factory.mktemp("jsonerrors")
    jobs = []
    for name, files in jsonerrors.CASES.items():
        tree = root / name
        tree.mkdir()
        for rel, text in files.items():
            harness.write_policy(tree / rel, text)
        jobs.append((name, tree / "promises.cf", ["-I"]))
    out = {}
    for name, (ref, lite) in harness.run_many(jobs, root).items():
        out[name] = (_observe(name, ref.stdout + ref.stderr, ref.returncode,
                              root / f"ref-workdir-{name}"),
                     _observe(name, lite.stdout + lite.stderr, lite.returncode,
                              root / f"lite-workdir-{name}"))
    return out


@pytest.mark.parametrize("name", jsonerrors.NAMES)
def test_same_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    if name in jsonerrors.EXPECTED_DIFFERENCES:
        assert ours != reference, "now agrees: drop it from EXPECTED_DIFFERENCES"
        assert reference[0] != 0 and any("StringToLongExitOnError" in line
                                         for line in reference[1])
        pytest.xfail(jsonerrors.EXPECTED_DIFFERENCES[name])
    assert ours == reference


def test_the_cases_tell_something(results: dict[str, tuple]) -> None:
    """cf-agent's own answers: a bare word in an array is quoted from its last
    character, one at the top whole."""
    said = results["parsejson_errors"][0][1]
    assert "   error: Error parsing JSON expression 'c]': Unable to parse json data as " \
           "object, unrecognized token beginning entry" in said
    assert "   error: Error parsing JSON expression 'abc': Unable to parse json data as " \
           "object, unrecognized token beginning entry" in said
