"""Differential test: the outcome of each edit_line promise type (:mod:`editoutcomes`),
above all when it finds nothing to do -- one policy per case under cf-agent 3.21 and under
cf-lite: the same file, the same outcome classes (of the edit promise and of its files
promise) and the same error and warning lines."""
from __future__ import annotations

import pytest

from tests.differential import batch, editoutcomes, harness

pytestmark = harness.needs_cf_agent


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, dict]]:
    root = tmp_path_factory.mktemp("editoutcomes")
    jobs = []
    for case in editoutcomes.CASES:
        policy = batch.write(root, case.name, [case], preamble=editoutcomes.BODIES)
        harness.check_policy(policy)
        jobs.append((case.name, policy, []))
    runs = harness.run_many(jobs, root)
    out = {}
    for case in editoutcomes.CASES:
        ref, lite = runs[case.name]
        assert "Traceback" not in lite.stderr, lite.stderr
        seen = []
        for run, wd in ((ref, root / f"ref-workdir-{case.name}"),
                        (lite, root / f"lite-workdir-{case.name}")):
            found = batch.observe([case], run, wd)[case.name]
            found["messages"] = batch.messages(run, wd)
            found["exit"] = run.returncode
            seen.append(found)
        out[case.name] = (seen[0], seen[1])
    return out


@pytest.mark.parametrize("case", editoutcomes.CASES, ids=[c.name for c in editoutcomes.CASES])
def test_same_as_cf_agent(results: dict[str, tuple[dict, dict]], case: batch.Case) -> None:
    theirs, ours = results[case.name]
    assert ours == theirs, case.note


def test_the_cases_tell_something(results: dict[str, tuple[dict, dict]]) -> None:
    """cf-agent's own verdicts: field_edits matching no line fails with its error; the
    other types finding nothing to do are kept."""
    theirs, _ = results["o_field_edits_no_line_fix"]
    assert "o_field_edits_no_line_fix_P_failed" in theirs["classes"]
    assert any("No matched line to edit fields of for pattern 'nosuch=.*'" in m
               for m in theirs["messages"])
    for name in ("o_insert_lines_present_fix", "o_delete_lines_no_match_fix",
                 "o_replace_patterns_no_match_fix"):
        assert f"{name}_P_kept" in results[name][0]["classes"], name
