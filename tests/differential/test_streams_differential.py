"""Differential test: each line on the stream cf-agent 3.21 and cf-promises 3.21 print it
on, and in their order when both streams go to one file (:mod:`streams`)."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.differential import harness, streams

pytestmark = harness.needs_cf_agent


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    root = tmp_path_factory.mktemp("streams")
    jobs = []
    for name, files, args in streams.CASES:
        tree = root / "cases" / name
        tree.mkdir(parents=True)
        for rel, text in files.items():
            harness.write_policy(tree / rel, text)
        jobs.append((name, tree / "promises.cf", list(args)))
    apart = harness.run_many(jobs, root / "apart")
    merged = harness.run_many(jobs, root / "merged", merge=True)
    with ThreadPoolExecutor(max_workers=2) as pool:
        checked = dict(zip([j[0] for j in jobs], pool.map(
            lambda job: harness.validate_both(job[1], root / "validate" / job[0]), jobs)))
    out: dict[str, dict[str, object]] = {}
    for name, _, _ in jobs:
        ref_wd = str(root / "apart" / f"ref-workdir-{name}")
        lite_wd = str(root / "apart" / f"lite-workdir-{name}")
        ref, lite = apart[name]
        ref_lines = (streams.lines(ref.stdout, ref_wd), streams.lines(ref.stderr, ref_wd))
        lite_lines = (streams.lines(lite.stdout, lite_wd), streams.lines(lite.stderr, lite_wd))
        agent = (streams.streams(ref.stdout, ref.stderr, lite_lines, ref_wd),
                 streams.streams(lite.stdout, lite.stderr, ref_lines, lite_wd))
        common = set(agent[0])
        ref_m, lite_m = merged[name]
        order = (streams.merged_order(ref_m.stdout, common,
                                      str(root / "merged" / f"ref-workdir-{name}")),
                 streams.merged_order(lite_m.stdout, common,
                                      str(root / "merged" / f"lite-workdir-{name}")))
        vref, vlite = checked[name]
        v_wd = root / "validate" / name
        vref_lines = (streams.lines(vref.stdout, str(v_wd / "r")),
                      streams.lines(vref.stderr, str(v_wd / "r")))
        vlite_lines = (streams.lines(vlite.stdout, str(v_wd / "l")),
                       streams.lines(vlite.stderr, str(v_wd / "l")))
        validation = (streams.streams(vref.stdout, vref.stderr, vlite_lines, str(v_wd / "r")),
                      streams.streams(vlite.stdout, vlite.stderr, vref_lines, str(v_wd / "l")))
        out[name] = {"agent": agent, "order": order, "validation": validation}
    return out


def test_the_cases_print_on_both_streams(results: dict[str, dict[str, object]]) -> None:
    """Not vacuous: the cases print lines both agents print, on each stream."""
    seen = {kind for r in results.values() for kind in r["agent"][0].values()}   # type: ignore[index]
    assert {"out", "err"} <= seen


@pytest.mark.parametrize("name", streams.NAMES)
def test_same_streams_as_cf_agent(results: dict[str, dict[str, object]], name: str) -> None:
    reference, ours = results[name]["agent"]            # type: ignore[misc]
    assert ours == reference


@pytest.mark.parametrize("name", streams.NAMES)
def test_same_order_in_one_file(results: dict[str, dict[str, object]], name: str) -> None:
    reference, ours = results[name]["order"]            # type: ignore[misc]
    assert ours == reference


@pytest.mark.parametrize("name", streams.NAMES)
def test_same_streams_as_cf_promises(results: dict[str, dict[str, object]], name: str) -> None:
    reference, ours = results[name]["validation"]       # type: ignore[misc]
    assert ours == reference
