"""Differential test: --show-evaluated-vars / --show-evaluated-classes byte for byte
(:mod:`showeval`), one policy holding every case run once under each agent, then the
patterns (good and bad) run each under both."""
from __future__ import annotations

import pytest

from tests.differential import harness, showeval

pytestmark = harness.needs_cf_agent

ARGS = [f"--show-evaluated-vars={showeval.VAR_PATTERN}",
        f"--show-evaluated-classes={showeval.CLASS_PATTERN}"]


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    root = tmp_path_factory.mktemp("showeval")
    policy = harness.write_policy(root / "showeval.cf", showeval.policy_text())
    harness.check_policy(policy)
    ref, lite = harness.run_both(root, policy, ARGS)
    out = {}
    for which, run in (("ref", ref), ("lite", lite)):
        assert run.returncode == 0, run.stdout + run.stderr
        out[which] = (showeval.table_rows(run.stdout, "Class name"),
                      showeval.table_rows(run.stdout, "Variable name"))
    return out


def test_both_tables_are_printed_with_the_same_headers(tables: dict[str, tuple]) -> None:
    ref_classes, ref_vars = tables["ref"]
    lite_classes, lite_vars = tables["lite"]
    assert ref_classes is not None and ref_vars is not None
    assert lite_classes is not None and lite_vars is not None
    assert lite_classes[0] == ref_classes[0] and lite_vars[0] == ref_vars[0]


def test_class_table_is_identical(tables: dict[str, tuple]) -> None:
    assert tables["lite"][0] == tables["ref"][0]


def test_rows_come_in_the_same_order(tables: dict[str, tuple]) -> None:
    ref_names = [row.split(" ", 1)[0] for row in tables["ref"][1][1:]]
    lite_names = [row.split(" ", 1)[0] for row in tables["lite"][1][1:]]
    assert lite_names == ref_names


@pytest.mark.parametrize("name,line", showeval.cases(), ids=[c[0] for c in showeval.cases()])
def test_variable_rows_as_cf_agent(tables: dict[str, tuple], name: str, line: str) -> None:
    reference = showeval.rows_by_case(tables["ref"][1])[name]
    ours = showeval.rows_by_case(tables["lite"][1])[name]
    assert reference, f"cf-agent defines nothing for {line}"
    assert ours == reference, line


@pytest.fixture(scope="module")
def pattern_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    root = tmp_path_factory.mktemp("showeval-patterns")
    policy = harness.write_policy(root / "showeval.cf", showeval.policy_text())
    jobs = [(name, policy, [f"--show-evaluated-vars={pattern}",
                            f"--show-evaluated-classes={pattern}"])
            for name, pattern in showeval.PATTERNS]
    return harness.run_many(jobs, root)


def _observe(run: harness.Run[str], pattern: str) -> tuple[int, list[str]]:
    """Exit code and every line that is not host-specific (sys./const. rows and hard
    classes depend on the work directory and the clock)."""
    lines = []
    for line in (run.stdout + run.stderr).splitlines():
        name = line.split(" ", 1)[0]
        if ":" in name and not name.startswith("default:main."):
            continue            # another scope's variable (sys.workdir differs per agent)
        if name and ":" not in name and not name.startswith(("cls_", "Class", "Variable")) \
                and "error" not in line:
            continue            # a hard class
        lines.append(line)
    return run.returncode, lines


@pytest.mark.parametrize("name,pattern", showeval.PATTERNS, ids=[p[0] for p in showeval.PATTERNS])
def test_patterns_as_cf_agent(pattern_runs: dict[str, tuple], name: str, pattern: str) -> None:
    ref, lite = pattern_runs[name]
    assert _observe(lite, pattern) == _observe(ref, pattern)
