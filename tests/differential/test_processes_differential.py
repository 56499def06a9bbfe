"""Differential test: the shapes of the processes promise (:mod:`processes`), each case
with sleepers of its own, run twice under cf-agent 3.21 and under cf-lite, normally and
with ``-n``: the same outcome classes, the same processes left running, the same warnings
and errors, run after run."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.differential import harness, processes

pytestmark = harness.needs_cf_agent

MODES = {"run": (), "dry": ("-n",), "inform": ("-I",)}

# case -> why cf-lite differs from cf-agent (the test fails when one starts agreeing)
EXPECTED_DIFFERENCES: dict[str, str] = {}


def _runs(agent: str, mode: str, root: Path) -> list[dict]:
    root.mkdir(parents=True)
    policy = harness.write_policy(root / "p.cf", processes.policy_text(root))
    procs = processes.start(root)
    seen = []
    try:
        for _ in range(2):
            if agent == "ref":
                proc = harness.run_reference(policy, MODES[mode],
                                             harness.reference_workdir(root, "wd"))
            else:
                proc = harness.run_lite(policy, MODES[mode], root / "wd")
            seen.append({"classes": processes.classes_of(proc.stdout),
                         "alive": processes.alive(procs),
                         "log": processes.log_lines(proc.stdout + proc.stderr, root),
                         "exit": proc.returncode})
    finally:
        processes.stop(procs)
    return seen


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], list[dict]]:
    base = tmp_path_factory.mktemp("procs")
    jobs = [(agent, mode) for mode in MODES for agent in ("ref", "lite")]
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {job: pool.submit(_runs, job[0], job[1], base / f"{job[0]}-{job[1]}")
                   for job in jobs}
        return {job: fut.result() for job, fut in futures.items()}


def _view(runs: list[dict], name: str) -> list[tuple]:
    return [(run["classes"][name], run["alive"][name]) for run in runs]


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("name", processes.NAMES)
def test_same_outcome_as_cf_agent(results: dict, name: str, mode: str) -> None:
    ours = _view(results[("lite", mode)], name)
    reference = _view(results[("ref", mode)], name)
    case = next(c for c in processes.CASES if c.name == name)
    if (name, mode) in EXPECTED_DIFFERENCES:
        assert ours != reference, "now agrees: drop it from EXPECTED_DIFFERENCES"
        pytest.xfail(EXPECTED_DIFFERENCES[(name, mode)])
    assert ours == reference, case


@pytest.mark.parametrize("mode", sorted(MODES))
def test_same_warnings_and_errors(results: dict, mode: str) -> None:
    for run in range(2):
        ours, reference = results[("lite", mode)][run], results[("ref", mode)][run]
        assert (ours["exit"], ours["log"]) == (reference["exit"], reference["log"]), \
            f"run {run + 1}"


def test_the_cases_reach_every_result(results: dict) -> None:
    """The generator is worth its cost: its cases reach kept, repaired and failed, both
    at once, kill sleepers and leave them."""
    first = results[("ref", "run")][0]
    every = {c for classes in first["classes"].values() for c in classes}
    for suffix in ("_kept", "_repaired", "_failed", "_restart", "_in", "_out"):
        assert any(c.endswith(suffix) for c in every), suffix
    both = [n for n, cl in first["classes"].items()
            if f"pc_{n}_kept" in cl and f"pc_{n}_repaired" in cl]
    assert both
    assert any(first["alive"][c.name] < c.sleepers for c in processes.CASES)
    assert any(first["alive"][c.name] == c.sleepers > 0 for c in processes.CASES)
