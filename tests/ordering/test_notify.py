"""Notify and onfail edges: classes bodies' outcome classes and the promises they guard
(cfpromise.agent.notify): --graph, enabled_by in the run report, the -c order warning."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfpromise.agent.notify import guard_classes, positive_names
from cfpromise.agent.plan import PLAN_SCHEMA
from cfpromise.cli.promises import main as promises_main
from tests.ordering.support import agent, check_dot, schema_errors, write_policy


def policy(tmp_path: Path, fail: bool = False) -> str:
    command = "/bin/false" if fail else "/bin/true"
    return f"""bundle agent main
{{
  files:
      "{tmp_path}/conf"
        create => "true",
        handle => "conf",
        classes => outcome("conf");
  commands:
      "{command}"
        handle => "check",
        classes => outcome("check");
    conf_repaired::
      "/bin/echo restart"
        handle => "restart";
    check_failed::
      "/bin/echo onfail";
    conf_kept.!check_failed::
      "/bin/echo steady";
}}
body classes outcome(p)
{{
  promise_repaired => {{ "$(p)_repaired" }};
  repair_failed => {{ "$(p)_failed" }};
  promise_kept => {{ "$(p)_kept" }};
}}
"""


def test_guards_are_read_without_negations() -> None:
    assert positive_names("a.!b|(c&!(d|e))") == ("a", "c")
    assert positive_names("$(x)_ok") == ()


def test_graph_draws_the_edges_with_their_kind(tmp_path: Path) -> None:
    proc = agent(tmp_path, policy(tmp_path), "--graph=json")
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    assert schema_errors(plan, PLAN_SCHEMA) == []
    base = "bundle:agent:default:main"
    edges = {(e["from"], e["to"], e["kind"], e.get("label")) for e in plan["edges"]
             if e["kind"].startswith("on-")}
    assert edges == {
        (f"{base}/files/0", f"{base}/commands/1", "on-repaired", "conf_repaired"),
        (f"{base}/commands/0", f"{base}/commands/2", "on-failed", "check_failed"),
        (f"{base}/files/0", f"{base}/commands/3", "on-kept", "conf_kept")}
    assert not (tmp_path / "conf").exists()
    dot = agent(tmp_path, policy(tmp_path), "--graph").stdout
    check_dot(dot)
    assert 'label="on-repaired: conf_repaired", style=dashed, color=darkorange' in dot
    assert 'label="on-failed: check_failed", style=dashed, color=red' in dot


def test_the_run_report_says_which_outcome_enabled_a_promise(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    proc = agent(tmp_path, policy(tmp_path, fail=True), "--report", f"json={out}")
    assert proc.returncode == 0, proc.stderr
    records = {r["promiser"]: r for r in json.loads(out.read_text())["promises"]}
    enabled = records["/bin/echo restart"]["enabled_by"]
    assert enabled == [{"class": "conf_repaired", "bundle": "default:main",
                        "promise_type": "files", "promiser": f"{tmp_path}/conf",
                        "handle": "conf", "file": str(tmp_path / "p.cf"), "line": 4,
                        "outcome": "repaired"}]
    assert records["/bin/echo onfail"]["enabled_by"][0]["outcome"] == "failed"
    assert "enabled_by" not in records["/bin/false"]
    # second run: the file is kept; restart does not run, the kept edge fires instead
    proc = agent(tmp_path, policy(tmp_path), "--report", f"json={out}")
    records = {r["promiser"]: r for r in json.loads(out.read_text())["promises"]}
    assert "/bin/echo restart" not in records
    assert records["/bin/echo steady"]["enabled_by"][0]["class"] == "conf_kept"


LATE = """body common control {{ bundlesequence => {{ "consumer", "producer" }}; }}
bundle agent consumer
{{
  reports:
    made_repaired::
      "would restart";
}}
bundle agent producer
{{
  files:
      "{tmp}/made" create => "true", classes => flag("made_repaired");
  reports:
    made_repaired::
      "same bundle: a later pass sees it";
}}
body classes flag(c) {{ promise_repaired => {{ "$(c)" }}; }}
"""


def test_full_check_warns_about_a_guard_that_can_never_hold(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_policy(tmp_path, LATE.format(tmp=tmp_path))
    assert promises_main(["--lint", "-f", str(path), "-w", str(tmp_path / "wd")]) == 0
    err = capsys.readouterr().err
    assert f"{path}:6:7: warning: reports promise 'would restart' is guarded by class " \
           "'made_repaired', which only files promise" in err
    assert "it runs after bundle default:consumer has ended" in err
    assert "same bundle" not in err
    swapped = LATE.replace('"consumer", "producer"', '"producer", "consumer"')
    path = write_policy(tmp_path, swapped.format(tmp=tmp_path))
    assert promises_main(["--lint", "-f", str(path), "-w", str(tmp_path / "wd")]) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_guard_of_a_bundle_calling_the_definer_holds_in_a_later_pass(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    nested = LATE.replace('"consumer", "producer"', '"consumer"').replace(
        "  reports:\n    made_repaired::\n      \"would restart\";",
        "  reports:\n    made_repaired::\n      \"would restart\";\n"
        "  methods:\n      \"p\" usebundle => producer;", 1)
    path = write_policy(tmp_path, nested.format(tmp=tmp_path))
    assert promises_main(["--lint", "-f", str(path), "-w", str(tmp_path / "wd")]) == 0
    assert "warning" not in capsys.readouterr().err
    proc = agent(tmp_path, nested.format(tmp=tmp_path))
    assert "R: would restart" in proc.stdout


def test_guard_classes_reads_if_and_context() -> None:
    from cfpromise.syntax.parser import parse
    pol = parse('bundle agent m\n{\n reports:\n  a.!b::\n   "x" if => "c|d";\n}\n', "t.cf")
    promise = pol.bundles[0].sections[0].promises[0]
    assert guard_classes(promise) == ("a", "c", "d")
