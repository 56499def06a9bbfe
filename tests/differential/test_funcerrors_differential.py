"""Differential test: what cf-agent 3.21 and cf-lite-agent print when a policy function
fails at run time (:mod:`funcerrors`: many functions x failure shapes x contexts), at
the default log level.  Each distinct line, in the order it first appears, must agree;
the lines as printed (how often each repeats) are compared too, an expected difference
(:data:`funcerrors.REPETITION`) wherever cf-agent repeats a line."""
from __future__ import annotations

import pytest

from tests.differential import funcerrors, harness

pytestmark = harness.needs_cf_agent
CASES = funcerrors.cases()
NAMES = [name for name, _ in CASES]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, dict]]:
    root = tmp_path_factory.mktemp("funcerrors")
    jobs = [(name, harness.write_policy(root / f"{name}.cf",
                                        funcerrors.materialize(root, text)), [])
            for name, text in CASES]
    runs = harness.run_many(jobs, root)
    return {name: (funcerrors.observe(ref.stdout, ref.stderr, ref.returncode,
                                      str(root / f"ref-workdir-{name}")),
                   funcerrors.observe(lite.stdout, lite.stderr, lite.returncode,
                                      str(root / f"lite-workdir-{name}")))
            for name, (ref, lite) in runs.items()}


@pytest.mark.parametrize("name", NAMES)
def test_same_lines_as_cf_agent(results: dict[str, tuple[dict, dict]], name: str) -> None:
    reference, ours = results[name]
    assert reference["exit"] == 0, f"cf-agent's run failed: the case is broken {reference}"
    same = (ours["distinct"], ours["exit"]) == (reference["distinct"], reference["exit"])
    if name in funcerrors.EXPECTED_DIFFERENCES:
        assert not same, "now agrees: drop it from EXPECTED_DIFFERENCES"
        pytest.xfail(funcerrors.EXPECTED_DIFFERENCES[name])
    assert ours["distinct"] == reference["distinct"]
    assert ours["exit"] == reference["exit"]


@pytest.mark.parametrize("name", NAMES)
def test_same_repetitions_as_cf_agent(results: dict[str, tuple[dict, dict]],
                                      name: str) -> None:
    reference, ours = results[name]
    if ours["lines"] != reference["lines"] and \
            reference["lines"] != reference["distinct"] and \
            name not in funcerrors.EXPECTED_DIFFERENCES:
        pytest.xfail(funcerrors.REPETITION)
    if name in funcerrors.EXPECTED_DIFFERENCES:
        pytest.xfail(funcerrors.EXPECTED_DIFFERENCES[name])
    assert ours["lines"] == reference["lines"]


def test_some_case_prints_an_error_by_default(results: dict[str, tuple[dict, dict]]) -> None:
    """The family is not empty: cf-agent shows these errors at its default level."""
    reference, ours = results["readfile_missing-vars"]
    line = ("   error: CfReadFile: Could not examine file '/nonexistent/funcerr' "
            "(stat: No such file or directory)")
    assert line in reference["lines"] and line in ours["lines"]
    assert "   error: Could not examine file '/nonexistent/funcerr'" in ours["lines"]


# -- cf-promises alone: what it says of the functions its rounds call ------------------
PROMISES_CASES = [(name, text) for name, text in CASES
                  if name.endswith(("-vars", "-common", "-nested", "-other_bundle"))]


@pytest.fixture(scope="module")
def promises_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, dict]]:
    import os
    import subprocess
    import sys
    from concurrent.futures import ThreadPoolExecutor
    root = tmp_path_factory.mktemp("funcerrors-promises")

    # each policy (and the files it reads) written once, before either program runs: the
    # two run side by side, each in a work directory of its own
    policies = {name: harness.write_policy(root / f"{name}.cf",
                                           funcerrors.materialize(root, text))
                for name, text in PROMISES_CASES}

    def one(case: tuple[str, str], command: list[str], side: str) -> dict:
        name, _ = case
        workdir = str(root / f"wd-{side}-{name}")
        env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=workdir)
        run = subprocess.run([*command, "-f", str(policies[name])], capture_output=True,
                             text=True, timeout=120, env=env)
        return funcerrors.observe(run.stdout, run.stderr, run.returncode, workdir)

    with ThreadPoolExecutor(max_workers=2) as pool:
        refs = [pool.submit(one, c, ["cf-promises"], "ref") for c in PROMISES_CASES]
        lites = [pool.submit(one, c, [sys.executable, "-m", "cfpromise.cli.promises"], "lite")
                 for c in PROMISES_CASES]
        return {c[0]: (r.result(), l.result()) for c, r, l in zip(PROMISES_CASES, refs, lites)}


@pytest.mark.parametrize("name", [name for name, _ in PROMISES_CASES])
def test_cf_promises_says_the_same(promises_results: dict[str, tuple[dict, dict]],
                                   name: str) -> None:
    """cf-lite-promises prints cf-promises' own text (CfReadFile says "Could not examine
    file" when the agent type is common), each distinct line once."""
    reference, ours = promises_results[name]
    assert (ours["distinct"], ours["exit"]) == (reference["distinct"], reference["exit"])
