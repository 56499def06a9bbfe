"""Differential test: policy files others may write (:mod:`insecure`), each case run under
cf-agent 3.21 and cf-lite, compared up to the failsafe (whose key message names cf-key or
cf-lite-key)."""
from __future__ import annotations


import pytest

from tests.differential import agentmisc, harness, insecure

pytestmark = harness.needs_cf_agent


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    root = tmp_path_factory.mktemp("insecure")
    jobs = []
    for name, files in insecure.CASES:
        tree = root / "cases" / name
        tree.mkdir(parents=True)
        for rel, (text, mode) in files.items():
            (tree / rel).write_text(text)
            (tree / rel).chmod(mode)
        for workdir in (f"ref-workdir-{name}", f"lite-workdir-{name}"):
            lib = root / workdir / "inputs" / "lib"     # (an installed CFEngine's library)
            lib.mkdir(parents=True)
            (lib / "stdlib.cf").write_text('bundle agent stdlib_here { reports: "lib"; }\n')
        jobs.append((name, tree / "promises.cf", insecure.ARGS.get(name, [])))
    runs = harness.run_many(jobs, root)
    return {name: (agentmisc.observe(ref.stdout, ref.stderr, ref.returncode,
                                     str(root / f"ref-workdir-{name}")),
                   agentmisc.observe(lite.stdout, lite.stderr, lite.returncode,
                                     str(root / f"lite-workdir-{name}")))
            for name, (ref, lite) in runs.items()}


def test_the_cases_reach_each_verdict(results: dict[str, tuple]) -> None:
    """Not vacuous: some cases stop at the security exception, some go to the failsafe."""
    verdicts = {(ref[0], ref[1]) for ref, _ in results.values()}
    assert (1, False) in verdicts and any(failed for _, failed in verdicts)


@pytest.mark.parametrize("name", insecure.NAMES)
def test_same_verdict_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    if name in insecure.EXPECTED_DIFFERENCES:
        assert ours != reference, "now agrees: drop it from EXPECTED_DIFFERENCES"
        pytest.xfail(insecure.EXPECTED_DIFFERENCES[name])
    assert ours == reference
