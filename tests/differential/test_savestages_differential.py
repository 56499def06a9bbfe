"""Differential test: a copy's and an edit's stages around the file they replace
(:mod:`savestages`), each case run twice under cf-agent 3.21 and cf-lite: what is said,
the outcome classes and the tree after each run must agree."""
from __future__ import annotations

from typing import Any

import pytest

from tests.differential import harness, savestages, slashpaths

# slow: hundreds of agent runs under both agents; `make test-all` runs it (CI stays under 30 min)
pytestmark = [*harness.needs_cf_agent, pytest.mark.slow]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, Any]]:
    return slashpaths.run_cases(tmp_path_factory.mktemp("savestages"), savestages.CASES,
                                savestages.make_tree)


@pytest.mark.parametrize("name", savestages.NAMES)
def test_same_runs_as_cf_agent(results: dict[str, tuple[Any, Any]], name: str) -> None:
    reference, ours = results[name]
    for run, (theirs, mine) in enumerate(zip(reference, ours), 1):
        assert mine == theirs, f"run {run}"


def test_the_cases_tell_something(results: dict[str, tuple[Any, Any]]) -> None:
    """cf-agent's own verdicts the family is about: an old backup removed, a full
    directory in the way kept, a directory rendered into and not saved."""
    old = results["copy_old_backup_file_run"][0][0][1]
    assert "    info: Removed old backup 'WORKDIR/t/g.cfsaved'" in old
    full = results["copy_onto_full_dir_nobackup_run"][0][0][1]
    assert "   error: Failed to remove directory 'WORKDIR/t/k'" in full
    rendered = results["template_onto_dir_run"][0][0]
    assert "d.cf-after-edit 0755 b'templated\\n'" in rendered[3]
