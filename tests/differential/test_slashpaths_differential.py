"""Differential test: files promisers ending in "/" (:mod:`slashpaths`), each case run
twice under cf-agent 3.21 and cf-lite: what is said, the outcome classes and the tree
after each run must agree."""
from __future__ import annotations

from typing import Any

import pytest

from tests.differential import harness, slashpaths

# slow: hundreds of agent runs under both agents; `make test-all` runs it (CI stays under 30 min)
pytestmark = [*harness.needs_cf_agent, pytest.mark.slow]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, Any]]:
    return slashpaths.run_cases(tmp_path_factory.mktemp("slashpaths"), slashpaths.CASES)


@pytest.mark.parametrize("name", slashpaths.NAMES)
def test_same_runs_as_cf_agent(results: dict[str, tuple[Any, Any]], name: str) -> None:
    reference, ours = results[name]
    if name in slashpaths.EXPECTED_DIFFERENCES:
        assert ours != reference, "now agrees: drop it from EXPECTED_DIFFERENCES"
        pytest.xfail(slashpaths.EXPECTED_DIFFERENCES[name])
    for run, (theirs, mine) in enumerate(zip(reference, ours), 1):
        assert mine == theirs, f"run {run}"


def test_the_cases_tell_something(results: dict[str, tuple[Any, Any]]) -> None:
    """cf-agent's own verdicts the family is about: the promiser's slash kept in its
    messages, the directory itself changed into, content refused on a directory."""
    perms = results["perms_dir_run"][0][0][1]
    assert "    info: Object 'WORKDIR/t/d/' had permissions 0755, changed it to 0750" in perms
    missing = results["perms_missing_run"][0][0][1]
    assert "   error: Failed to chdir into 'WORKDIR/t/m'. (chdir: 'No such file or " \
           "directory')" in missing
    content = results["content_dir_run"][0][0][1]
    assert "   error: Cannot open file 'WORKDIR/t/d/' for writing" in content
