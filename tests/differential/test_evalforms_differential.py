"""Differential tests: function argument forms, the iteration order of cf-agent's maps,
undefined values (:mod:`evalforms`), each family's policies run once under cf-agent 3.21
and once under cf-lite, every case compared."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.differential import evalforms, harness

pytestmark = harness.needs_cf_agent

ORDER_SEEDS = tuple(range(8))
# the programs cf-lite names in sys.cf_agent & co.: cf-agent defines those variables only
# for programs present in WORKDIR/bin, and the variable table's size decides its order
_COMPONENTS = ("cf-agent", "cf-key", "cf-monitord", "cf-net", "cf-secret", "cf-serverd")


def _reference_workdir(root: Path, name: str) -> None:
    wd = harness.reference_workdir(root, f"ref-workdir-{name}")
    for program in _COMPONENTS:
        found = shutil.which(program)
        if found and not (wd / "bin" / program).exists():
            os.symlink(found, wd / "bin" / program)


def _run(root: Path, policies: dict[str, str]) -> dict[str, tuple[dict, dict]]:
    jobs = []
    for name, text in policies.items():
        policy = harness.write_policy(root / f"{name}.cf", text)
        harness.check_policy(policy)
        _reference_workdir(root, name)
        jobs.append((name, policy, []))
    runs = harness.run_many(jobs, root)
    return {name: (evalforms.parse_reports(ref.stdout), evalforms.parse_reports(lite.stdout))
            for name, (ref, lite) in runs.items()}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, dict]]:
    root = tmp_path_factory.mktemp("evalforms")
    policies = {"forms": evalforms.form_policy(), "undef": evalforms.undef_policy()}
    for seed in ORDER_SEEDS:
        policies[f"order{seed}"] = evalforms.order_policy(seed)[0]
    return _run(root, policies)


# Known differences, each with its reason (the test fails if one starts agreeing, so
# the list shrinks as they are fixed).
EXPECTED_DIFFERENCES: dict[str, str] = {}


def _compare(results: dict, policy: str, name: str, written: str) -> None:
    reference, ours = results[policy]
    assert name in reference, f"cf-agent reported nothing for {name}"
    if name in EXPECTED_DIFFERENCES:
        assert ours.get(name) != reference[name], "now agrees: drop it from the list"
        pytest.xfail(EXPECTED_DIFFERENCES[name])
    assert ours.get(name) == reference[name], written


@pytest.mark.parametrize("name,kind,promise", evalforms.FORM_CASES,
                         ids=[c[0] for c in evalforms.FORM_CASES])
def test_function_argument_forms(results: dict, name: str, kind: str, promise: str) -> None:
    _compare(results, "forms", name, promise)


@pytest.mark.parametrize("name,kind,promise", evalforms.UNDEF_CASES,
                         ids=[c[0] for c in evalforms.UNDEF_CASES])
def test_undefined_values(results: dict, name: str, kind: str, promise: str) -> None:
    _compare(results, "undef", name, promise)


@pytest.mark.parametrize("index", range(len(evalforms.UNDEF_CLASSES)),
                         ids=[c[1] for c in evalforms.UNDEF_CLASSES])
def test_classes_from_undefined_values(results: dict, index: int) -> None:
    reference, ours = results["undef"]
    name = f"cls_{index}"
    assert ours.get(name) == reference.get(name), evalforms.UNDEF_CLASSES[index]


_ORDER_CASES = [(seed, name) for seed in ORDER_SEEDS
                for name in evalforms.order_policy(seed)[1]]


@pytest.mark.parametrize("seed,name", _ORDER_CASES, ids=[f"{s}-{n}" for s, n in _ORDER_CASES])
def test_iteration_order(results: dict, seed: int, name: str) -> None:
    _compare(results, f"order{seed}", name, f"seed {seed}")


def test_every_case_is_reported_once_by_both(results: dict) -> None:
    for policy, (reference, ours) in results.items():
        assert reference, f"cf-agent printed no case of {policy}"
        for name, lines in reference.items():
            assert len(lines) == 1, (policy, name, lines)
        if policy == "undef":       # (the class probes print only when it is defined)
            assert any(name.startswith("cls_") for name in reference), "no class probe"
        assert sorted(ours) == sorted(reference), policy
