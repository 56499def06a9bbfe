"""Differential test: edit_xml bundles (:mod:`xmledits`) -- each case's policy run twice
by cf-agent 3.21 and twice by cf-lite on the same start document, each agent in its own
work directory: the same exit code, output, standard error and file after each run."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential import harness, xmledits

pytestmark = harness.needs_cf_agent


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    root = tmp_path_factory.mktemp("xmledits")
    jobs = []
    for name in xmledits.NAMES:
        doc, _body, _files, args = xmledits.CASES[name]
        tree = root / name
        tree.mkdir()
        policy = harness.write_policy(tree / "promises.cf", xmledits.policy(name))
        ref_wd = harness.reference_workdir(root, f"ref-workdir-{name}")
        lite_wd = root / f"lite-workdir-{name}"
        lite_wd.mkdir()
        if doc is not None:
            for wd in (ref_wd, lite_wd):
                (wd / "t.xml").write_bytes(xmledits.start_bytes(doc))
        jobs.append((name, policy, ["-I", *args]))
    seen: dict[str, tuple] = {name: ((), ()) for name in xmledits.NAMES}
    for _ in (1, 2):
        for name, (ref, lite) in harness.run_many(jobs, root).items():
            assert "Traceback" not in lite.stderr, lite.stderr
            ref_wd, lite_wd = root / f"ref-workdir-{name}", root / f"lite-workdir-{name}"
            theirs = xmledits.observe(ref, ref_wd, ref_wd / "t.xml")
            ours = xmledits.observe(lite, lite_wd, lite_wd / "t.xml")
            seen[name] = (seen[name][0] + (theirs,), seen[name][1] + (ours,))
    return seen


@pytest.mark.parametrize("name", xmledits.NAMES)
def test_same_runs_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    theirs, ours = results[name]
    if name in xmledits.EXPECTED_DIFFERENCES:
        assert ours != theirs, "now agrees: drop it from EXPECTED_DIFFERENCES"
        pytest.xfail(xmledits.EXPECTED_DIFFERENCES[name])
    for run, (a, b) in enumerate(zip(theirs, ours), 1):
        assert b == a, f"run {run}"


def test_the_cases_tell_something(results: dict[str, tuple]) -> None:
    """cf-agent's own verdicts: a position is refused, a selected connector is edited,
    and the second run of a set_attribute changes nothing."""
    edited = results["tomcat_0_set_attribute"][0]
    assert b'port="9090"' in edited[0][3]
    assert edited[1][3] == edited[0][3]
    assert not any("repaired" in line for line in edited[1][1])
    refused = [r for n, r in results.items() if "_3_" in n and n.startswith("plain_")]
    assert refused and all(any("breaks its own promises" in line or "inconsistent" in line
                               for line in r[0][0][1]) for r in refused)
