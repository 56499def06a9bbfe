"""cf-lite-agent end to end on small policies: evaluation, ordering, passes, errors."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def agent(tmp_path: Path, policy: str, *args: str, mode: int = 0o600,
          locks: bool = False) -> subprocess.CompletedProcess[str]:
    """Run ``policy`` (with -K unless ``locks``) in a scratch workdir under tmp_path."""
    path = tmp_path / "p.cf"
    path.write_text(policy)
    path.chmod(mode)
    flags = [] if locks else ["-K"]
    return subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", *flags, "-f", str(path),
                           "-w", str(tmp_path / "wd"), *args],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60,
                          stdin=subprocess.DEVNULL)      # not interactive, as from cron


def reports(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line[3:] for line in proc.stdout.splitlines() if line.startswith("R: ")]


def test_iteration_arrays_and_nested_references(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  vars:
      "l" slist => { "a", "b" };
      "arr[$(l)]" string => "value_$(l)";
      "pick" string => "b";
  reports:
      "$(l)=$(arr[$(l)])";
      "picked $(arr[$(pick)])";
}
""")
    assert proc.returncode == 0, proc.stderr
    assert reports(proc) == ["a=value_a", "b=value_b", "picked value_b"]


def test_late_definitions_converge_and_unresolved_prints_last(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  vars:
      "early" string => "$(later)";
      "later" string => "L";
    defined_late::
      "y" string => "Y";
  classes:
      "defined_late" expression => "any";
  reports:
      "undefined=$(nosuch)";
      "early=$(early) y=$(y)";
}
""")
    assert reports(proc) == ["early=L y=Y", "undefined=$(nosuch)"]


def test_methods_arguments_useresult_and_bundle_scope(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
body common control { bundlesequence => { "main" }; }
bundle agent main
{
  methods:
      "call" usebundle => helper("arg1", @(main.list)), useresult => "r";
  vars:
      "list" slist => { "x", "y" };
  reports:
      "got $(r[answer])";
    local_class::
      "leaked";
}
bundle agent helper(s, l)
{
  classes:
      "local_class" expression => "any";
  reports:
      "helper $(s) $(l)";
      "42" bundle_return_value_index => "answer";
}
""")
    assert reports(proc) == ["helper arg1 x", "helper arg1 y", "got 42"]


def test_common_bundles_define_global_classes_and_vars(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle common g
{
  vars:
      "where" string => "common";
  classes:
      "global_one" expression => "any";
}
bundle agent main
{
  reports:
    global_one::
      "from $(g.where)";
}
""")
    assert reports(proc) == ["from common"]


def test_depends_on_orders_promises(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  reports:
      "second" depends_on => { "first" };
      "first" handle => "first";
}
""")
    assert reports(proc) == ["first", "second"]


def test_if_unless_and_define(tmp_path: Path) -> None:
    policy = """
bundle agent main
{
  classes:
      "soft" expression => "any";
  reports:
      "with_d" if => "mine";
      "without" unless => "mine";
      "soft is set" if => "soft";
}
"""
    # as in cf-agent 3.21, -N does not stop -D or promises from defining a class
    assert reports(agent(tmp_path, policy, "-D", "mine", "-N", "soft")) == ["with_d", "soft is set"]
    assert reports(agent(tmp_path, policy)) == ["without", "soft is set"]


def test_b_runs_chosen_bundles(tmp_path: Path) -> None:
    policy = 'bundle agent a { reports: "a"; }\nbundle agent b { reports: "b"; }\n'
    assert reports(agent(tmp_path, policy, "-b", "b,a")) == ["b", "a"]


def test_second_run_gives_the_same_result(tmp_path: Path) -> None:
    policy = 'bundle agent main { vars: "x" string => "1"; reports: "x=$(x)"; }\n'
    first, second = agent(tmp_path, policy), agent(tmp_path, policy)
    assert reports(first) == reports(second) == ["x=1"]


@pytest.mark.parametrize("policy, message", [
    ('bundle agent main { reports: "x" nosuch => "y"; }', "Unknown attribute 'nosuch'"),
    ('bundle agent main { reports: "x" }', "p.cf:1:35: error: Expected ';', got '}'"),
])
def test_bad_policy_reports_the_position_then_fails_safe(tmp_path: Path, policy: str,
                                                         message: str) -> None:
    """As cf-agent: the errors, then the built-in failsafe, whose exit code is the run's
    (6 here: the failsafe aborts without a key pair; tests/agent/test_failsafe.py)."""
    proc = agent(tmp_path, policy)
    assert proc.returncode == 6
    assert message in proc.stderr
    assert "so going to failsafe" in proc.stdout
    assert "Traceback" not in proc.stderr + proc.stdout


def test_group_writable_policy_is_refused(tmp_path: Path) -> None:
    proc = agent(tmp_path, 'bundle agent main { reports: "x"; }', mode=0o664)
    assert proc.returncode == 1
    assert "is writable by others (security exception)" in proc.stdout     # a log line


def test_missing_bundle_in_sequence_fails_validation(tmp_path: Path) -> None:
    proc = agent(tmp_path, 'body common control { bundlesequence => { "nope" }; }\n'
                           'bundle agent main { reports: "x"; }')
    assert proc.returncode == 6 and "so going to failsafe" in proc.stdout     # as cf-agent
    assert "Bundle 'nope' listed in the bundlesequence is not a defined bundle" in proc.stdout


def test_persistent_classes_outlive_the_run(tmp_path: Path) -> None:
    define = """
bundle agent main
{
  classes:
      "kept_for_a_while" expression => "any", persistence => "10";
  commands:
      "/bin/true" classes => later;
}
body classes later { promise_repaired => { "from_body" }; persist_time => "5"; }
"""
    assert agent(tmp_path, define).returncode == 0
    check = """
bundle agent main
{
  reports:
    kept_for_a_while.from_body::
      "both persisted";
}
"""
    assert reports(agent(tmp_path, check)) == ["both persisted"]
    assert reports(agent(tmp_path, check, "-v")) == ["both persisted"]
    assert reports(agent(tmp_path, check, "-N", "from_body")) == []     # -N: not loaded
    store = tmp_path / "wd" / "state" / "persistent_classes.json"
    store.chmod(0o666)                              # anyone could have planted classes here
    proc = agent(tmp_path, check)
    assert reports(proc) == [] and "Persistent classes ignored" in proc.stdout + proc.stderr
    assert store.stat().st_mode & 0o022 == 0        # rewritten by the agent, safe again


def test_run_report_records_file_changes(tmp_path: Path) -> None:
    import json
    target = tmp_path / "f.txt"
    target.write_text("")
    target.chmod(0o644)
    proc = agent(tmp_path, f"""
bundle agent main
{{
  files:
      "{target}" perms => m("600"), edit_line => add;
}}
bundle edit_line add {{ insert_lines: "hello"; }}
body perms m(x) {{ mode => "$(x)"; rxdirs => "false"; }}
""", "--report", f"json={tmp_path / 'r.json'}")
    assert proc.returncode == 0, proc.stderr
    record = next(p for p in json.loads((tmp_path / "r.json").read_text())["promises"]
                  if p["promise_type"] == "files")
    kinds = {c["kind"]: c for c in record["changes"]}
    assert (kinds["perms"]["old_mode"], kinds["perms"]["new_mode"]) == ("0644", "0600")
    assert kinds["content"]["diff"].endswith("+hello")
    assert target.read_text() == "hello\n"


def test_a_relative_work_directory_is_taken_from_where_the_agent_starts(tmp_path: Path) -> None:
    """-w relative/dir: the work directory is made absolute at start (files promises change
    the agent's working directory, as cf-agent's do); before, the validation stamp's
    commonpath() of an absolute policy path and a relative workdir raised ValueError."""
    policy = tmp_path / "p.cf"
    policy.write_text('bundle agent main\n{\n  files:\n    "$(sys.workdir)/sub/f" create => "true";\n'
                      '  reports:\n    "wd=$(sys.workdir)";\n}\n')
    policy.chmod(0o600)
    proc = subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", str(policy),
                           "-w", "relwd"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert reports(proc) == [f"wd={tmp_path / 'relwd'}"]
    assert (tmp_path / "relwd" / "sub" / "f").is_file()
