"""Differential test: what cf-agent 3.21's preliminary convergence calls before any bundle
runs -- the error lines of failing calls, in order, and the commands execresult() runs
(:mod:`prelim`: call shapes x bundles x class guards), under cf-agent and cf-lite."""
from __future__ import annotations

import pytest

from tests.differential import harness, prelim

# slow: hundreds of agent runs under both agents; `make test-all` runs it (CI stays under 30 min)
pytestmark = [*harness.needs_cf_agent, pytest.mark.slow]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, dict]]:
    root = tmp_path_factory.mktemp("prelim")
    jobs = [(name, harness.write_policy(root / f"{name}.cf", text), [])
            for name, text in prelim.CASES]
    return {name: (prelim.observe(ref.stdout, ref.stderr, ref.returncode,
                                  str(root / f"ref-workdir-{name}"), name),
                   prelim.observe(lite.stdout, lite.stderr, lite.returncode,
                                  str(root / f"lite-workdir-{name}"), name))
            for name, (ref, lite) in harness.run_many(jobs, root).items()}


@pytest.mark.parametrize("name", prelim.NAMES)
def test_same_as_cf_agent(results: dict[str, tuple[dict, dict]], name: str) -> None:
    reference, ours = results[name]
    aborts = name in prelim.ABORTS         # (a body inheritance loop)
    assert reference["exit"] == (1 if aborts else 0), f"the case is broken {reference}"
    if name in prelim.EXPECTED_DIFFERENCES:
        assert ours != reference, "now agrees: drop it from EXPECTED_DIFFERENCES"
        pytest.xfail(prelim.EXPECTED_DIFFERENCES[name])
    assert ours["lines"] == reference["lines"]
    assert ours["marks"] == reference["marks"]
    assert ours["exit"] == reference["exit"]


def test_the_family_calls_before_the_bundles_run(results: dict[str, tuple[dict, dict]]) -> None:
    """Not empty: cf-agent calls a report's function in a bundle nobody calls, before
    main's first report, and runs the command of one."""
    reference, ours = results["reports_comment-uncalled-error"]
    error = ("   error: CfReadFile: Could not examine file '/nonexistent/prelim-p0' "
             "(stat: No such file or directory)")
    for run in (reference, ours):
        assert run["lines"].index(error) < run["lines"].index("R: main starts")
    assert results["reports_with-uncalled-exec"][0]["marks"] == ["p0"]
