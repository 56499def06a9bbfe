"""Differential test: a message's line breaks and timestamps in the output
(:mod:`logtext`), each shape of text reported under cf-agent 3.21 and cf-lite."""
from __future__ import annotations

import pytest

from tests.differential import harness, logtext

pytestmark = harness.needs_cf_agent


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    root = tmp_path_factory.mktemp("logtext")
    jobs = []
    for name, files, args in logtext.CASES:
        tree = root / name
        tree.mkdir()
        for rel, text in files.items():
            harness.write_policy(tree / rel, text)
        jobs.append((name, tree / "promises.cf", list(args)))
    return {name: (logtext.segments(ref.stdout), logtext.segments(lite.stdout))
            for name, (ref, lite) in harness.run_many(jobs, root).items()}


@pytest.mark.parametrize("name", logtext.NAMES)
def test_same_lines_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    run, shape = name.split("-")
    reference, ours = results[run]
    assert shape in reference, reference
    assert ours.get(shape) == reference[shape]
