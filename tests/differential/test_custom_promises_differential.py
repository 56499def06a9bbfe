"""Differential test: what reaches a custom promise module, and what the agent prints of
it, under cf-agent 3.21 and cf-lite-agent (:mod:`custom_promises` has the shapes): body
attributes as objects (expanded, ``inherit_from`` applied), the promise's ``log_level``
filtering the module's messages, and ``comment``/``handle``/promisee in the ``-v``
trace's ``Additional promise info`` line."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential import custom_promises, harness

pytestmark = harness.needs_cf_agent
CASES = custom_promises.cases()
RUNS = {"inform": ["-I"], "verbose": ["-v"], "default": []}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, dict]]:
    root = tmp_path_factory.mktemp("custom")
    module = root / "dump.py"
    module.write_text(custom_promises.MODULE)
    module.chmod(0o755)
    observed = {}
    for run, args in RUNS.items():
        pair = []
        for which in ("ref", "lite"):
            out_dir = root / f"out-{run}-{which}"
            out_dir.mkdir()
            policy = harness.write_policy(
                root / f"policy-{run}-{which}.cf",
                custom_promises.policy_text(module, out_dir, version=run == "verbose"))
            if which == "ref":
                harness.check_policy(policy)
                proc = harness.run_reference(policy, args, harness.reference_workdir(root))
            else:
                proc = harness.run_lite(policy, args, root / "lite-workdir")
            text = (proc.stdout + proc.stderr).replace(str(out_dir), "OUT")
            pair.append(custom_promises.observe(out_dir, text.replace(str(policy), "POLICY"),
                                                {str(out_dir): "OUT"}))
        observed[run] = tuple(pair)
    return observed


@pytest.mark.parametrize("run", list(RUNS))
def test_module_messages_as_cf_agent(results: dict[str, tuple[dict, dict]], run: str) -> None:
    reference, ours = results[run]
    assert reference["messages"], "cf-agent printed no module message: the case is broken"
    assert ours["messages"] == reference["messages"]


def test_promise_info_in_verbose_trace_as_cf_agent(results: dict[str, tuple[dict, dict]]
                                                   ) -> None:
    reference, ours = results["verbose"]
    assert any("comment 'why'" in line for line in reference["infos"])
    assert ours["infos"] == reference["infos"]


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_attributes_sent_as_cf_agent(results: dict[str, tuple[dict, dict]], name: str) -> None:
    reference, ours = results["inform"]
    assert any(v is not None for v in reference["sent"].values())
    assert ours["sent"][name] == reference["sent"][name]


HANDLE_SHAPES = {
    "custom-custom": ('dump:\n    "a" handle => "hh";\n    "b" handle => "hh";\n', ""),
    "custom-builtin": ('dump:\n    "a" handle => "hh";\n', 'reports:\n    "b" handle => "hh";\n'),
    "builtin-custom": ('reports:\n    "a" handle => "hh";\n', 'dump:\n    "b" handle => "hh";\n'),
    "builtin-builtin": ('reports:\n    "a" handle => "hh";\n    "b" handle => "hh";\n', ""),
    "custom-guarded": ('dump:\n  linux::\n    "a" handle => "hh";\n  any::\n'
                       '    "b" handle => "hh";\n', ""),
}


@pytest.mark.parametrize("shape", list(HANDLE_SHAPES))
def test_duplicate_handles_validated_as_cf_promises(tmp_path: Path, shape: str) -> None:
    """cf-promises 3.21 checks handles of built-in promise types only: custom promise
    sections are kept apart and never take part in the duplicate-handle check."""
    import subprocess
    import sys
    first, second = HANDLE_SHAPES[shape]
    policy = harness.write_policy(tmp_path / "p.cf", (
        'promise agent dump { interpreter => "/usr/bin/python3"; path => "/bin/true"; }\n'
        f"bundle agent __main__\n{{\n  {first}  {second}}}\n"))
    ref = subprocess.run(["cf-promises", "-f", str(policy)], capture_output=True, text=True)
    lite = subprocess.run([sys.executable, "-m", "cfpromise.cli.promises", "-f", str(policy)],
                          capture_output=True, text=True)
    assert (lite.returncode == 0) == (ref.returncode == 0), (ref.stderr, lite.stdout, lite.stderr)
