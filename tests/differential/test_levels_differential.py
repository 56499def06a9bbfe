"""Differential test: the classes that reflect the output level (:mod:`levels`) and the log
level body agent control sets, under cf-agent 3.21 and cf-lite-agent, case by case."""
from __future__ import annotations

import pytest

from tests.differential import harness, levels

pytestmark = harness.needs_cf_agent
CASES = levels.cases()


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, dict]]:
    root = tmp_path_factory.mktemp("levels")
    policies = {}
    jobs = []
    for name, line, control, shape in CASES:
        key = (control, shape)
        if key not in policies:
            policies[key] = harness.write_policy(root / f"levels{len(policies)}.cf",
                                                 levels.policy_text(control, shape))
            harness.check_policy(policies[key])
        jobs.append((name, policies[key], list(line)))
    runs = harness.run_many(jobs, root)
    return {name: (levels.observe(ref.stdout, ref.returncode),
                   levels.observe(lite.stdout, lite.returncode))
            for name, (ref, lite) in runs.items()}


@pytest.mark.parametrize("name,line,control,shape", CASES, ids=[c[0] for c in CASES])
def test_same_as_cf_agent(results: dict[str, tuple[dict, dict]], name: str,
                          line: tuple[str, ...], control: tuple, shape: str) -> None:
    reference, ours = results[name]
    assert reference["reports"], "cf-agent reported nothing: the case is broken"
    assert ours == reference, (line, control, shape)


def test_last_level_option_wins() -> None:
    from cfpromise.cli import gnuopts
    from cfpromise.cli.agent import OPTIONS
    from cfpromise.cli.compat import log_level
    for parse in (lambda argv: gnuopts.read(OPTIONS, argv),      # getopt's reading, argparse's
                  OPTIONS.parser().parse_args):
        assert parse(["-v", "-I"]).log_level == "info"
        assert parse(["-I", "-g", "DEB"]).log_level == "debug"
    assert log_level("w") == "warning" and log_level("Informa") == "info"


@pytest.mark.parametrize("word", ["", "bogus", "3", "emerg", "infox"])
def test_invalid_log_level_as_cf_agent(tmp_path, word: str) -> None:
    policy = harness.write_policy(tmp_path / "p.cf", levels.policy_text((), "plain"))
    ref, lite = harness.run_both(tmp_path, policy, ["-g", word])
    assert (lite.returncode, lite.stdout, lite.stderr) == (ref.returncode, ref.stdout, ref.stderr)
