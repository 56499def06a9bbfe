"""Differential test: ``changes`` promises (:mod:`tests.differential.changes`) over a
history of dry runs, real runs and changes to the files, cf-lite against cf-agent 3.21:
per case and run, the same messages in the same order (what is found, recorded, and,
under ``-n`` or warn, what would be recorded) and the same outcome classes."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.differential import changes as ch
from tests.differential import harness

pytestmark = harness.needs_cf_agent

CASES = ch.cases()


def _history(agent: str, base: Path) -> dict[str, dict[str, tuple]]:
    root = base / agent / "t"
    ch.prepare(CASES, root)
    policy = harness.write_policy(base / agent / "policy.cf", ch.policy_text(CASES, root))
    wd = harness.reference_workdir(base / agent, "wd") if agent == "ref" \
        else base / agent / "wd"
    seen: dict[str, dict[str, tuple]] = {c.name: {} for c in CASES}
    for step, args in ch.STEPS:
        if args is None:
            ch.mutate(CASES, root, step)
            continue
        proc = harness.run_reference(policy, ["-I", *args], wd) if agent == "ref" \
            else harness.run_lite(policy, ["-I", *args], wd)
        assert "Traceback" not in proc.stderr, proc.stderr
        for name, said in ch.split(proc.stdout + proc.stderr, root, CASES).items():
            seen[name][step] = said
    return seen


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    base = tmp_path_factory.mktemp("changes")
    harness.check_policy(harness.write_policy(base / "check.cf",
                                              ch.policy_text(CASES, base / "check")))
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {agent: pool.submit(_history, agent, base) for agent in ("ref", "lite")}
        return {agent: fut.result() for agent, fut in futures.items()}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_same_as_cf_agent(results: dict, case: ch.Case) -> None:
    theirs = results["ref"][case.name]
    ours = results["lite"][case.name]
    for step, args in ch.STEPS:
        if args is not None:
            assert ours[step] == theirs[step], f"run {step} of {case.promise}"


def test_the_cases_tell_something(results: dict) -> None:
    """cf-agent's own verdicts the family is about: a dry run on an empty database says
    what it would record and sets the failed classes (a warning result); a tree watched
    without update_hashes fails each run on its directory listing; a file whose content
    changed is reported and, with update_hashes, recorded."""
    ref = results["ref"]
    dry = ref["ch_all_yes_inf_fix_md5"]["n0"]
    assert "warning: Should record directory listing for '@T@/t'" in dry[0]
    assert "ch_all_yes_inf_fix_md5_failed" in dry[1]
    noup = ref["ch_all_no_inf_fix_md5"]["r1"]
    assert "info: Failed to record directory listing for '@T@/t'" in noup[0]
    assert "ch_all_no_inf_fix_md5_failed" in noup[1]
    changed = ref["ch_content_yes_file_fix_sha256"]["r3"][0]
    assert "info: Recorded integrity changes in '@T@/t/f1'" in changed, changed
