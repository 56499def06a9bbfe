"""The run report (--report json), the summary line, timing, skipped and waiting promises."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from cfpromise.agent.outcome import Outcome
from cfpromise.agent.output import Output
from cfpromise.agent.runreport import ReportOptions, RunRecorder, Summary
from cfpromise.syntax import ast
from cfpromise.syntax.errors import Coord
from tests.ordering.support import agent, write_policy

FAILED_DEPENDENCY = """
bundle agent main
{
  commands:
      "/bin/false" handle => "broken";
      "/bin/true";
  reports:
      "after broken" depends_on => { "broken" };
      "independent";
}
"""


def report_of(tmp_path: Path) -> dict[str, Any]:
    return json.loads((tmp_path / "wd" / "outputs" / "report.json").read_text())


def by_promiser(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["promiser"]: r for r in report["promises"]}


def test_failed_dependency_is_skipped_counted_and_reported(tmp_path: Path) -> None:
    proc = agent(tmp_path, FAILED_DEPENDENCY, "--report", "json", "--summary")
    assert proc.returncode == 0, proc.stderr
    assert "R: independent" in proc.stdout and "R: after broken" not in proc.stdout
    assert "Skipping promise 'after broken'" not in proc.stdout     # as cf-agent: silent
    records = by_promiser(report_of(tmp_path))
    assert records["/bin/false"]["outcome"] == "failed"
    skipped = records["after broken"]
    assert skipped["outcome"] == "skipped"
    assert skipped["reason"] == "it depends on 'broken', which was not kept (failed)"
    summary = report_of(tmp_path)["summary"]
    assert (summary["skipped"], summary["not_kept"]) == (1, 1)
    assert ", 1 not kept, 1 skipped;" in proc.stdout.splitlines()[-1]


def test_json_report_content(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  vars:
      "v" string => "x";
  commands:
      "/bin/true" handle => "t";
      "/bin/false";
}
""", "--report", f"json={tmp_path / 'r.json'}")
    assert proc.returncode == 0, proc.stderr
    assert "{" not in proc.stdout                 # never mixed with the run's output
    report = json.loads((tmp_path / "r.json").read_text())
    assert not (tmp_path / "wd" / "outputs" / "report.json").exists()
    assert report["format"] == "cf-lite-run-report" and report["exit_code"] == 0
    assert report["policy"] == str(tmp_path / "p.cf") and report["dry_run"] is False
    records = by_promiser(report)
    true = records["/bin/true"]
    assert {k: true[k] for k in ("bundle", "promise_type", "handle", "file", "line", "pass",
                                 "outcome", "changes", "counted")} == {
        "bundle": "default:main", "promise_type": "commands", "handle": "t",
        "file": str(tmp_path / "p.cf"), "line": 7, "pass": 1, "outcome": "repaired",
        "changes": [{"kind": "command", "command": "/bin/true", "exit_code": 0,
                     "timed_out": False}], "counted": True}
    assert records["/bin/false"]["changes"][0]["exit_code"] == 1
    assert isinstance(true["seconds"], float) and true["seconds"] >= 0
    assert records["v"]["counted"] is False and records["v"]["promise_type"] == "vars"
    assert report["summary"] == {**report["summary"], "kept": 0, "repaired": 1, "not_kept": 1,
                                 "skipped": 0, "actuated": 2, "compliance": 50.0}
    assert report["bundles"][-1]["bundle"] == "default:main"


def test_summary_only_when_asked_or_on_a_terminal(tmp_path: Path) -> None:
    policy = 'bundle agent main { commands: "/bin/true"; }'
    quiet = agent(tmp_path, policy)
    assert "Summary" not in quiet.stdout                  # cron: as quiet as cf-agent
    line = agent(tmp_path, policy, "--summary").stdout.splitlines()[-1]
    assert line.startswith("Summary: 0 kept, 1 repaired, 0 not kept, 0 skipped; "
                           "compliance 100.00% of 1 promises; run time ")
    master, slave = os.openpty()
    path = write_policy(tmp_path, policy)
    proc = subprocess.Popen([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", str(path),
                             "-w", str(tmp_path / "wd")], stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    assert b"Summary: 0 kept, 1 repaired" in b"".join(chunks)


def test_timing(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  commands:
      "/bin/true";
      "/bin/sleep 0.2";
  methods:
      "m" usebundle => sub;
}
bundle agent sub
{
  commands:
      "/bin/true";
}
""", "--timing")
    lines = [line for line in proc.stdout.splitlines() if line.startswith("T: ")]
    assert lines[0] == "T: Slowest promises (top 10):"
    assert "commands '/bin/sleep 0.2' in default:main" in lines[1]
    assert lines[1].endswith(f"({tmp_path / 'p.cf'}:6)")
    assert float(lines[1].split()[1]) >= 0.2
    start = lines.index("T: Slowest bundles (top 10, including the bundles they call):")
    assert lines[start + 1].split()[3] == "default:main"
    assert lines[start + 2].split()[3] == "default:sub"
    assert lines[-1].startswith("T: This execution measured ") and lines[-1].endswith(" seconds")


def test_timing_keeps_the_top_ten() -> None:
    recorder = RunRecorder()
    for i in range(12):
        recorder.records.append(_record(f"p{i}", seconds=i / 100))
    lines = recorder.timing_lines(1.0)
    promises = lines[1:lines.index("T: Slowest bundles (top 10, including the bundles they "
                                   "call):")]
    assert len(promises) == 10 and "'p11'" in promises[0] and "'p2'" in promises[-1]


def test_cf_agent_timing_output_in_verbose_mode(tmp_path: Path) -> None:
    policy = 'bundle agent main { commands: "/bin/true"; }'
    verbose = agent(tmp_path, policy, "-t", "-v").stdout
    assert "verbose: T: Promise timing summary for /bin/true" in verbose
    assert "(use measurement_class to track)" in verbose
    assert "verbose: T: This measurement event, alias 'default:main'" in verbose
    assert "T:" not in agent(tmp_path, policy, "-t").stdout


def test_promise_waiting_for_a_handle_without_outcome_is_told(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  classes:
      "local" expression => "any";
  reports:
      "never" depends_on => { "nosuch" };
    local::
      "local never" depends_on => { "nosuch" };
    nothere::
      "guarded" depends_on => { "nosuch" };
}
""", "--report", "json")
    assert proc.returncode == 0, proc.stderr
    p = tmp_path / "p.cf"
    assert (f"notice: Promise 'never' ({p}:7) never ran: it depends on 'nosuch', which got no "
            "outcome by the end of bundle 'main'") in proc.stdout
    assert f"Promise 'local never' ({p}:9) never ran" in proc.stdout
    assert "Promise 'guarded'" not in proc.stdout     # its guard is false: it never waits
    records = by_promiser(report_of(tmp_path))
    assert records["never"]["waiting"] is True and records["never"]["outcome"] == "skipped"
    assert report_of(tmp_path)["summary"]["skipped"] == 2


def test_waiting_promise_is_told_without_any_report(tmp_path: Path) -> None:
    # no --report/--summary: the run has only the small WaitingTracker, which still tells
    proc = agent(tmp_path, """
bundle agent main
{
  reports:
      "never" depends_on => { "nosuch" };
}
""")
    assert proc.returncode == 0, proc.stderr
    assert f"Promise 'never' ({tmp_path / 'p.cf'}:5) never ran" in proc.stdout
    assert not (tmp_path / "wd" / "outputs" / "report.json").exists()


def test_content_diff_is_worked_out_only_for_a_report(tmp_path: Path,
                                                      monkeypatch: Any) -> None:
    from cfpromise.promises.files import diff
    from tests.files.agentrun import run_agent
    calls: list[str] = []
    real = diff.unified
    monkeypatch.setattr(diff, "unified", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    target = tmp_path / "f.txt"
    target.write_text("old\n")
    policy = f"""
bundle agent main
{{
  files:
      "{target}" edit_line => add;
}}
bundle edit_line add {{ insert_lines: "new"; }}
"""
    code, _ = run_agent(tmp_path, policy, inform=False)
    assert code == 0 and target.read_text() == "old\nnew\n" and calls == []
    target.write_text("old\n")
    code, _ = run_agent(tmp_path, policy, "--report", f"json={tmp_path / 'r.json'}",
                        inform=False)
    assert code == 0 and calls == [str(target)]
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["changes"] == 1


def test_dependency_met_later_is_not_waiting(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  reports:
      "second" depends_on => { "first" };
      "first" handle => "first";
}
""")
    assert [line for line in proc.stdout.splitlines() if line.startswith("R:")] == [
        "R: first", "R: second"]
    assert "never ran" not in proc.stdout


# -- the observer alone ---------------------------------------------------------------

def _record(promiser: str, seconds: float = 0.0) -> Any:
    from cfpromise.agent.runreport import PromiseRecord
    return PromiseRecord("default:main", "commands", promiser, None, "p.cf", 1, 1,
                         Outcome.KEPT, seconds)


def test_changes_noted_by_handlers_arrive_in_the_report(tmp_path: Path) -> None:
    out = Output(stream=io.StringIO())
    fake_agent = SimpleNamespace(out=out, handles={}, custom_types=(),
                                 options=SimpleNamespace(dry_run=False, file="p.cf",
                                                         workdir=str(tmp_path)))
    bundle = ast.Bundle("agent", "main", coord=Coord("p.cf", 1, 1))
    promise = ast.Promise("/etc/motd", coord=Coord("p.cf", 4, 7))
    run = SimpleNamespace(bundle=bundle, pass_no=2, done=set(), types=None, frame=None)
    step = SimpleNamespace(run=run, promise=promise, ptype="files", promiser="/etc/motd",
                           handle="motd", bindings={})
    recorder = RunRecorder(ReportOptions(report=str(tmp_path / "r.json")))
    recorder.run_started(fake_agent)
    changes = [{"kind": "content", "diff": "-a\n+b\n"},
               {"kind": "perms", "old_mode": "0644", "new_mode": "0600"}]
    recorder.promise_done(fake_agent, step, Outcome.REPAIRED, 0.5, changes)
    recorder.bundle_finished(fake_agent, bundle, run, 0.6)
    assert recorder.run_finished(fake_agent, 0) == 0
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["promises"][0]["changes"] == changes
    assert report["promises"][0]["pass"] == 2
    assert report["summary"]["changes"] == 2


def test_compliance_counts_only_acting_promise_types() -> None:
    from cfpromise.agent.runreport import PromiseRecord
    records = [PromiseRecord("d:m", t, "x", None, "f", 1, 1, o) for t, o in (
        ("vars", Outcome.KEPT), ("classes", Outcome.FAILED), ("meta", Outcome.KEPT),
        ("defaults", Outcome.KEPT), ("commands", Outcome.KEPT), ("files", Outcome.REPAIRED),
        ("files", Outcome.FAILED), ("packages", Outcome.WARN), ("reports", Outcome.SKIPPED))]
    s = Summary.of(records, 1.0)
    assert (s.kept, s.repaired, s.not_kept, s.warned, s.skipped) == (1, 1, 2, 1, 1)
    assert s.compliance == 50.0
    assert Summary.of([], 0.0).compliance is None
    assert "compliance n/a of 0 promises" in Summary.of([], 0.0).line()


def test_engine_waiting_hook_and_fallback_count_once(tmp_path: Path) -> None:
    """When the engine reports a waiting promise (promise_waiting), the end-of-bundle
    check does not report it again."""
    out = Output(stream=io.StringIO())
    fake_agent = SimpleNamespace(out=out, handles={}, custom_types=(),
                                 options=SimpleNamespace(dry_run=False, file="p.cf",
                                                         workdir=str(tmp_path)))
    depends = ast.Constraint("depends_on", ast.List((ast.Scalar("nosuch"),)))
    promise = ast.Promise("late", (depends,), coord=Coord("p.cf", 5, 7))
    bundle = ast.Bundle("agent", "main", sections=(ast.PromiseSection("reports", (promise,)),),
                        coord=Coord("p.cf", 1, 1))
    for engine_hook in (True, False):
        run = SimpleNamespace(bundle=bundle, pass_no=3, done=set(), types=None, frame=None)
        recorder = RunRecorder()
        recorder.run_started(fake_agent)
        if engine_hook:
            step = SimpleNamespace(run=run, promise=promise, ptype="reports", promiser="late",
                                   handle=None)
            recorder.promise_waiting(fake_agent, step, "nosuch")
        recorder.bundle_finished(fake_agent, bundle, run, 0.1)
        assert [(r.promiser, r.waiting, r.outcome) for r in recorder.records] == [
            ("late", True, Outcome.SKIPPED)]
        assert "'nosuch'" in recorder.records[0].reason
