"""CF_LITE_PLAIN=1 runs the plain path (cfpromise.fast): standard imports, re, the JSON
tables, namedtuple records, the normal collector, no policy cache; and the same result.
Each fallback of a mechanism is a -v line, never silent."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

POLICY = 'bundle agent main\n{\n  vars:\n    "x" string => "y";\n  reports:\n    "hello $(x)";\n}\n'

# the agent's entry point in this interpreter, then what the run used
PROBE = """
import gc, sys
frozen = gc.get_freeze_count()          # 3.12 starts with some
from cfpromise.cli.agent import program
sys.argv = ["cf-lite-agent", *sys.argv[1:]]
code = program()
from cfpromise.fast import fastimport
from cfpromise.schema import schema
print("RESULT", code, "re" in sys.modules, "json" in sys.modules,
      fastimport.Finder in sys.meta_path, type(schema().raw["functions"]).__name__,
      gc.get_freeze_count() > frozen)
"""


def _run(tmp_path: Path, plain: bool, *options: str) -> tuple[str, list[str], Path]:
    policy = tmp_path / "p.cf"
    policy.write_text(POLICY)
    policy.chmod(0o600)
    workdir = tmp_path / ("plain" if plain else "fast")
    env = {k: v for k, v in os.environ.items() if k != "CF_LITE_PLAIN"}
    if plain:
        env["CF_LITE_PLAIN"] = "1"
    proc = subprocess.run([sys.executable, "-c", PROBE, "-K", "-f", str(policy), "-w",
                           str(workdir), *options], capture_output=True, text=True, env=env,
                          timeout=120)
    out = proc.stdout.splitlines()
    result = next(line for line in out if line.startswith("RESULT")).split()[1:]
    reports = [line for line in out if "R: " in line]
    return "\n".join(reports), result, workdir


def test_the_plain_path_gives_the_same_run_by_the_standard_ways(tmp_path: Path) -> None:
    fast_reports, fast, fast_wd = _run(tmp_path, plain=False)
    plain_reports, plain, plain_wd = _run(tmp_path, plain=True)
    assert fast_reports == plain_reports == "R: hello y"
    # exit code, re, json, byte-code finder, tables from the generated module, frozen objects
    assert fast == ["0", "False", "False", "True", "Lazy", "True"]
    assert plain == ["0", "True", "True", "False", "dict", "False"]
    assert (fast_wd / "state" / "policy_cache").is_dir()
    assert not (plain_wd / "state" / "policy_cache").exists()


def test_the_switch_and_each_fallback_are_verbose_lines(tmp_path: Path) -> None:
    _reports, _result, _wd = _run(tmp_path, True)
    policy = tmp_path / "p.cf"
    env = {**os.environ, "CF_LITE_PLAIN": "1"}
    proc = subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-v", "-f",
                           str(policy), "-w", str(tmp_path / "v")], capture_output=True,
                          text=True, env=env, timeout=120)
    assert "CF_LITE_PLAIN is set" in proc.stdout + proc.stderr


def test_a_fallback_noted_while_loading_is_printed_under_v(monkeypatch) -> None:
    from cfpromise import fast
    monkeypatch.setattr(fast, "FALLBACKS", [])
    fast.fallback("Precompiled regexes not used: test")
    fast.fallback("Precompiled regexes not used: test")         # once each
    lines: list[tuple[str, str]] = []
    fast.report(lambda level, message: lines.append((level, message)))
    assert ("verbose", "Precompiled regexes not used: test") in lines
    assert sum(m == "Precompiled regexes not used: test" for _l, m in lines) == 1
