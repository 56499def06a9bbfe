"""Differential test: promise identity (:mod:`identity`) -- pairs of promises with the same
promiser differing in one attribute, its order, a body, a guard, a bundle or a call's
arguments -- each policy under cf-agent 3.21 and cf-lite: the same output, line by line
(which promises were actuated and in which order), and the same exit code."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential import harness, identity

pytestmark = harness.needs_cf_agent


def _lines(output: str, workdir: Path) -> list[str]:
    return [line.rstrip() for line in output.replace(str(workdir), "WORKDIR").splitlines()]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    root = tmp_path_factory.mktemp("identity")
    jobs = []
    for name, text in identity.CASES.items():
        policy = harness.write_policy(root / f"{name}.cf", text)
        harness.check_policy(policy)
        jobs.append((name, policy, []))
    out = {}
    for name, (ref, lite) in harness.run_many(jobs, root).items():
        out[name] = ((ref.returncode, _lines(ref.stdout + ref.stderr,
                                             root / f"ref-workdir-{name}")),
                     (lite.returncode, _lines(lite.stdout + lite.stderr,
                                              root / f"lite-workdir-{name}")))
    return out


@pytest.mark.parametrize("name", identity.NAMES)
def test_same_promises_actuated_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    assert ours == reference


def test_the_cases_tell_something(results: dict[str, tuple]) -> None:
    """cf-agent's own answers: a different ``with`` makes another promise, the same one
    again does not, and ``{"a", "b"}`` is ``{"ab"}`` to its digest."""
    said = results["pairs_reports"][0][1]
    assert said.count("R: with printed") == 2
    assert said.count("R: with_same printed") == 1
    assert said.count("R: meta_joined printed") == 1
    assert said.count("R: order printed") == 2
