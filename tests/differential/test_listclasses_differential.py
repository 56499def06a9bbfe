"""Differential test: class selection from list-valued arguments (:mod:`listclasses`),
one policy holding every case, run once under cf-agent 3.21 and once under cf-lite."""
from __future__ import annotations

import pytest

from tests.differential import harness, listclasses

pytestmark = harness.needs_cf_agent

# Known differences, each with its reason (the test fails if one starts agreeing, so
# the list shrinks as they are fixed).  select_class over members still holding a
# reference agrees since #26: cf-agent picks among the members as written.
EXPECTED_DIFFERENCES: dict[str, str] = {}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    root = tmp_path_factory.mktemp("listclasses")
    policy = harness.write_policy(root / "listclasses.cf", listclasses.policy_text())
    harness.check_policy(policy)
    ref, lite = harness.run_both(root, policy)
    return listclasses.parse_reports(ref.stdout), listclasses.parse_reports(lite.stdout)


def test_every_case_is_reported_by_both(results: tuple[dict, dict]) -> None:
    reference, ours = results
    names = sorted(name for name, _kind, _body in listclasses.CASES)
    assert sorted(reference) == names
    assert sorted(ours) == names


@pytest.mark.parametrize("name,kind,body", listclasses.CASES,
                         ids=[c[0] for c in listclasses.CASES])
def test_same_result_as_cf_agent(results: tuple[dict, dict], name: str, kind: str,
                                 body: str) -> None:
    reference, ours = results
    if name in EXPECTED_DIFFERENCES:
        assert ours.get(name) != reference.get(name), f"now agrees: drop it from the list"
        pytest.xfail(EXPECTED_DIFFERENCES[name])
    assert ours.get(name) == reference.get(name), body


def test_select_class_uses_cfengines_host_hash() -> None:
    from cfpromise.eval.functions.lists import string_hash
    # the choice is StringHash("FQHOST+IPV4+UID") modulo the number of members
    assert string_hash("vm+192.0.2.2+0") % 5 == 2


@pytest.fixture(scope="module")
def fatal_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, dict]]:
    root = tmp_path_factory.mktemp("listclasses-fatal")
    jobs = []
    for name, promise in listclasses.FATAL:
        policy = harness.write_policy(root / f"{name}.cf", listclasses.fatal_policy(promise))
        jobs.append((name, policy, []))
    runs = harness.run_many(jobs, root)
    return {name: (listclasses.fatal_observe(ref.stdout + ref.stderr, ref.returncode),
                   listclasses.fatal_observe(lite.stdout + lite.stderr, lite.returncode))
            for name, (ref, lite) in runs.items()}


@pytest.mark.parametrize("name,promise", listclasses.FATAL, ids=[c[0] for c in listclasses.FATAL])
def test_fatal_class_values_as_cf_agent(fatal_results: dict[str, tuple[dict, dict]], name: str,
                                        promise: str) -> None:
    reference, ours = fatal_results[name]
    assert ours == reference, promise
