"""cf-lite-agent end to end: guards, default bodies, action logs, locks, warn-only
reports, class combinators, bundle scopes.  Each expectation was read off cf-agent 3.21
running the same policy."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.agent.test_agent_run import agent, reports


def test_quoted_guard_holding_a_list_iterates(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  classes:
      "$(l)" expression => "any";
  vars:
      "l" slist => { "a", "b" };
    "$(l).any"::
      "it_$(l)" string => "class $(l)";
    "$(l).nosuch"::
      "never_$(l)" string => "no";
  reports:
      "$(it_a) $(it_b) $(never_a)";
}
""")
    assert reports(proc) == ["class a class b $(never_a)"], proc.stdout + proc.stderr


def test_bodydefault_body_applies_when_the_promise_sets_none(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
body file control { namespace => "bodydefault"; }
body action files_action { action_policy => "warn"; }
body file control { namespace => "default"; }
body action fix { action_policy => "fix"; }
bundle agent main
{
  files:
      "$(sys.workdir)/defaulted" create => "true";
      "$(sys.workdir)/explicit" create => "true", action => fix;
}
""")
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "wd" / "defaulted").exists()
    assert (tmp_path / "wd" / "explicit").exists()


def test_action_log_string_goes_to_a_private_0600_file(tmp_path: Path) -> None:
    log = tmp_path / "action.log"
    proc = agent(tmp_path, f"""
bundle agent main
{{
  commands:
      "/bin/true" action => log;
}}
body action log
{{
  log_kept => "{log}";
  log_repaired => "{log}";
  log_failed => "{log}";
  log_string => "ran $(this.promiser)";
}}
""")
    assert proc.returncode == 0, proc.stderr
    assert log.read_text() == "ran /bin/true\n"
    assert oct(log.stat().st_mode & 0o777) == "0o600"


def test_reports_and_methods_take_locks_unless_K(tmp_path: Path) -> None:
    policy = """
bundle agent main
{
  methods:
      "m" usebundle => sub("x");
      "now" usebundle => sub("y"), action => now;
  reports:
      "plain";
}
bundle agent sub(a) { reports: "in sub $(a)" action => now; }
body action now { ifelapsed => "0"; }
"""
    assert reports(agent(tmp_path, policy)) == ["in sub x", "in sub y", "plain"]
    # -K does not record locks: the first locked run still does everything
    assert reports(agent(tmp_path, policy, locks=True)) == ["in sub x", "in sub y", "plain"]
    assert reports(agent(tmp_path, policy, locks=True)) == ["in sub y"]


def test_warn_only_report_is_not_printed_and_not_kept(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  methods:
      "m" usebundle => sub;
  reports:
    r_not_kept::
      "not kept";
}
bundle agent sub
{
  reports:
      "hidden" action => warn, classes => outcome("r");
}
body action warn { action_policy => "warn"; }
body classes outcome(p) { repair_failed => { "$(p)_not_kept" }; }
""")
    assert reports(proc) == ["not kept"]
    assert " warning: Need to repair reports promise: hidden" in proc.stdout
    assert " warning: Method 'sub' invoked repairs, but only warnings promised" in proc.stdout


def test_unresolved_function_in_a_class_list_counts_as_false(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  classes:
      "c_or" or => { "any", classify("$(never)") };
      "c_or2" or => { classify("$(never)") };
      "c_and" and => { "any", classify("$(never)") };
      "c_xor" xor => { "any", classify("$(never)") };
      "c_true" expression => "true";
      "c_false" expression => "false";
  reports:
    c_or:: "c_or";
    c_or2:: "c_or2";
    c_and:: "c_and";
    c_xor:: "c_xor";
    c_true:: "c_true";
    c_false:: "c_false";
}
""")
    assert reports(proc) == ["c_or", "c_xor", "c_true"]


def test_bundle_variables_outlive_the_call_parameters_do_not(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  methods:
      "a" usebundle => b("1");
      "b" usebundle => b("2");
  reports:
      "v_1=$(b.v_1) v_2=$(b.v_2) g=$(b.g) x=$(b.x)";
}
bundle agent b(x)
{
  vars:
      "v_$(x)" string => "$(x)";
      "g" string => "$(x)", if => strcmp("$(x)", "1");
  reports:
      "in b($(x)): g=$(g)";
}
""")
    assert reports(proc) == ["in b(1): g=1", "in b(2): g=1", "v_1=1 v_2=2 g=1 x=$(b.x)"]


def test_agent_tags_masterfiles_on_a_hub(tmp_path: Path) -> None:
    wd = tmp_path / "wd"
    (wd / "inputs").mkdir(parents=True)
    (wd / "state").mkdir()
    (wd / "state" / "am_policy_hub").write_text("")
    (wd / "masterfiles").mkdir()
    (wd / "masterfiles" / "promises.cf").write_text("x" * 10)
    policy = wd / "inputs" / "promises.cf"
    policy.write_text('bundle agent main { reports: "ok"; }\n')
    policy.chmod(0o600)
    proc = subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-w", str(wd)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert reports(proc) == ["ok"], proc.stderr
    validated = json.loads((wd / "masterfiles" / "cf_promises_validated").read_text())
    assert isinstance(validated["timestamp"], int)
    release = json.loads((wd / "masterfiles" / "cf_promises_release_id").read_text())
    # cf-agent 3.21 digests one zero byte per byte of the policy files (see validated.py)
    assert release == {"releaseId": hashlib.sha1(bytes(10)).hexdigest()}
    assert not os.path.exists(wd / "inputs" / "cf_promises_validated")


def test_this_promiser_identity(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  reports:
      "$(this.promiser_uid) $(this.promiser_gid) $(this.promiser_ppid)";
      "pid $(this.promiser_pid)";
}
""")
    lines = reports(proc)
    assert lines[0] == f"{os.getuid()} {os.getgid()} {os.getpid()}"
    assert lines[1].split()[1].isdigit()


def test_each_call_starts_the_bundles_classic_arrays_afresh(tmp_path: Path) -> None:
    # cf-agent 3.21: scalars and data of an earlier call stay, array elements do not
    proc = agent(tmp_path, """
bundle agent main
{
  methods:
      "a" usebundle => b("1");
      "b" usebundle => b("2");
  vars:
      "idx" slist => getindices("b.other");
  reports:
      "fixed=$(b.fixed[k1]) other=$(idx) d=$(b.d[x])";
}
bundle agent b(x)
{
  vars:
      "fixed[k$(x)]" string => "v", if => strcmp("$(x)", "1");
      "other[k$(x)]" string => "v";
      "d" data => parsejson('{"x": "$(x)"}'), if => strcmp("$(x)", "1");
}
""")
    assert reports(proc) == ["fixed=$(b.fixed[k1]) other=k2 d=1"]


def test_preliminary_convergence_calls_every_bundles_functions(tmp_path: Path) -> None:
    """Before main runs, cf-agent 3.21 expands every promise of every bundle: a bundle
    nobody calls has its report's execresult() run, its module run (and the class it
    defines guards a later bundle's promise, expanded too), but not the call an ``if``
    that does not hold excludes (a ``with``'s is made before the ``if`` is read), nor a
    usebundle argument's.  (cf-agent 3.21 writes p q r for this policy.)"""
    modules = tmp_path / "wd" / "modules"
    modules.mkdir(parents=True)
    (modules / "m").write_text("#!/bin/sh\necho q >> $1\necho +from_module\n")
    (modules / "m").chmod(0o755)
    marks = tmp_path / "marks"
    proc = agent(tmp_path, f"""
bundle agent main
{{
  vars:
      "seen" string => readfile("{marks}");
  reports:
      "main: $(seen)";
}}
bundle agent nobody
{{
  reports:
      "x $(with)" with => execresult("echo p >> {marks}", "useshell");
      "y" comment => execresult("echo never >> {marks}", "useshell"), if => "nosuch";
  classes:
      "k" expression => usemodule("m", "{marks}");
  methods:
      "m" usebundle => b(execresult("echo never2 >> {marks}", "useshell"));
}}
bundle agent later
{{
  reports:
    from_module::
      "z $(with)" comment => execresult("echo r >> {marks}", "useshell");
}}
bundle agent b(x) {{ reports: "b $(x)"; }}
""")
    assert marks.read_text().split() == ["p", "q", "r"], proc.stdout + proc.stderr
    assert reports(proc) == ["main: p"], proc.stdout + proc.stderr     # (then q, r)
