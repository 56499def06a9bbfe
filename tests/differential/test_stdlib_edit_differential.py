"""Differential test: the standard library's key/value editing bundles (:mod:`stdlibedit`)
on generated config files, cf-agent 3.21 with masterfiles' ``lib/`` against cf-lite with
the same ``lib/`` and with its own ``bundles/stdlib.cf``: the same file and the same
outcome classes of the files promise, on a first run and on a second run over what the
first left (which must be kept, not repaired again)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential import batch, harness, stdlibedit

pytestmark = [*harness.needs_cf_agent,
              pytest.mark.skipif(not Path(batch.STDLIB_MASTERFILES).is_file(),
                                 reason=f"needs masterfiles 3.21's lib ({batch.STDLIB_MASTERFILES})")]

LIBRARIES = {"masterfiles": batch.STDLIB_MASTERFILES, "cf-lite": batch.STDLIB_CF_LITE}
RUNS = [(lib, again) for lib in LIBRARIES for again in (False, True)]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, bool], tuple]:
    out = {}
    for lib, again in RUNS:
        root = tmp_path_factory.mktemp(f"stdlib-{lib}-{again}")
        ref, lite, _r, lite_run = batch.run_cases(root, "stdlib", stdlibedit.CASES,
                                                  (batch.STDLIB_MASTERFILES,),
                                                  (LIBRARIES[lib],), again=again)
        assert lite_run.returncode == 0, lite_run.stdout + lite_run.stderr
        out[(lib, again)] = (ref, lite)
    return out


@pytest.mark.parametrize("lib,again", RUNS, ids=[f"{lib}-{'second' if a else 'first'}"
                                                 for lib, a in RUNS])
@pytest.mark.parametrize("case", stdlibedit.CASES, ids=[c.name for c in stdlibedit.CASES])
def test_same_as_cf_agent(results: dict, lib: str, again: bool, case: batch.Case) -> None:
    theirs, ours = results[(lib, again)]
    assert ours[case.name] == theirs[case.name], case.note


def test_the_cases_tell_something(results: dict) -> None:
    """cf-agent's own results: a missing key is added (repaired), and kept on the next run."""
    first, _ = results[("masterfiles", False)]
    second, _ = results[("masterfiles", True)]
    name = "s_set_variable_values_missing_0"
    assert first[name]["files"]["conf"] == "Other=1\nKey1=no\n"
    assert f"{name}_F_repaired" in first[name]["classes"]
    assert f"{name}_F_kept" in second[name]["classes"]
    assert f"{name}_F_repaired" not in second[name]["classes"]
