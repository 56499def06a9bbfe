"""The plan (--graph): bundles in sequence order, normal-order steps, calls, depends_on edges."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cfpromise.agent.plan import PLAN_SCHEMA, build_plan, dot_string, to_dot, to_json
from cfpromise.cli.promises import main as promises_main
from cfpromise.syntax.loader import load
from tests.ordering.support import agent, agent_process, check_dot, schema_errors, write_policy

MASTERFILES = Path("/usr/share/cfengine3/masterfiles/promises.cf")

POLICY = r"""
body common control
{
  bundlesequence => { "main", @(lists.more), "other", "nosuch" };
}
bundle common lists
{
  vars:
      "more" slist => { "other" };
}
bundle agent main
{
  reports:
      "say \"hi\" \\ there" handle => "r", depends_on => { "c", "missing", "$(v)" };
  commands:
      "/bin/true" handle => "c";
  methods:
      "call" usebundle => helper("x", "$(v)");
      "dyn" usebundle => "$(v)";
      "other";
  vars:
      "v" string => "x";
}
bundle agent helper(a, b)
{
  methods:
      "back" usebundle => main;
  reports:
      "helper $(a)";
}
bundle agent other
{
  files:
      "/tmp/x" edit_line => lines;
}
bundle edit_line lines
{
  insert_lines:
      "l";
}
"""


def plan_json(tmp_path: Path, policy: str = POLICY) -> dict[str, Any]:
    path = write_policy(tmp_path, policy)
    loaded = load(str(path))
    return build_plan(loaded.policy, path=str(path), unresolved=loaded.unresolved).to_json()


def test_bundles_in_sequence_order_with_calls_followed(tmp_path: Path) -> None:
    plan = plan_json(tmp_path)
    assert [b["name"] for b in plan["bundles"]] == ["main", "helper", "other", "lines", "lists"]
    assert [b["role"] for b in plan["bundles"]] == ["sequence", "called", "sequence", "called",
                                                    "common"]
    seq = plan["bundlesequence"]
    assert [(e["name"], e["dynamic"], e["bundle"]) for e in seq] == [
        ("main", False, "bundle:agent:default:main"), ("@(lists.more)", True, None),
        ("other", False, "bundle:agent:default:other"), ("nosuch", False, None)]


def test_steps_follow_normal_order_and_only_used_types(tmp_path: Path) -> None:
    main = plan_json(tmp_path)["bundles"][0]
    assert [s["type"] for s in main["steps"]] == ["vars", "methods", "commands", "reports"]
    report = main["steps"][3]["promises"][0]
    assert report["promiser"] == 'say "hi" \\ there'
    assert (report["file"], report["line"]) == (str(tmp_path / "p.cf"), 14)
    assert report["handle"] == "r"
    assert report["depends_on"] == ["c", "missing", "$(v)"]


def test_calls_dynamic_and_cycles(tmp_path: Path) -> None:
    plan = plan_json(tmp_path)
    methods = plan["bundles"][0]["steps"][1]["promises"]
    assert methods[0]["calls"] == {"lval": "usebundle", "name": "helper", "args": ["x", "$(v)"],
                                   "bundle": "bundle:agent:default:helper", "dynamic": False}
    assert methods[1]["calls"]["name"] == "dynamic: $(v)" and methods[1]["calls"]["dynamic"]
    assert methods[2]["calls"]["bundle"] == "bundle:agent:default:other"   # promiser names it
    edges = plan["edges"]
    back = [e for e in edges if e["from"] == "bundle:agent:default:helper/methods/0"]
    assert back == [{"from": "bundle:agent:default:helper/methods/0",
                     "to": "bundle:agent:default:main", "kind": "usebundle", "label": "usebundle",
                     "cycle": True}]
    assert any(e["kind"] == "edit_line" and e["to"] == "bundle:edit_line:default:lines"
               for e in edges)
    labels = {n["id"]: n["label"] for n in plan["nodes"]}
    assert labels["dynamic-bundle:@(lists.more)"] == "dynamic: @(lists.more)"
    assert labels["dynamic-bundle:$(v)"] == "dynamic: $(v)"
    assert labels["undefined:nosuch"] == "undefined bundle nosuch"


def test_depends_on_edges(tmp_path: Path) -> None:
    plan = plan_json(tmp_path)
    deps = [(e["from"], e["to"], e["label"]) for e in plan["edges"] if e["kind"] == "depends_on"]
    report = "bundle:agent:default:main/reports/0"
    assert deps == [("bundle:agent:default:main/commands/0", report, "c"),
                    ("handle:missing", report, "missing"),
                    ("dynamic-handle:$(v)", report, "$(v)")]


def test_json_matches_the_documented_schema(tmp_path: Path) -> None:
    plan = plan_json(tmp_path)
    assert schema_errors(plan, PLAN_SCHEMA) == []
    ids = {b["id"] for b in plan["bundles"]} | {n["id"] for n in plan["nodes"]} | {
        p["id"] for b in plan["bundles"] for s in b["steps"] for p in s["promises"]}
    assert all(e["from"] in ids and e["to"] in ids for e in plan["edges"])


def test_schema_check_catches_a_wrong_shape() -> None:
    assert schema_errors({"format": "cf-lite-plan"}, PLAN_SCHEMA)


def test_dot_is_well_formed(tmp_path: Path) -> None:
    path = write_policy(tmp_path, POLICY)
    text = to_dot(build_plan(load(str(path)).policy, path=str(path)))
    nodes, edges = check_dot(text)
    assert '"bundle:agent:default:main/reports/0"' in nodes
    assert ('"bundle:agent:default:main/commands/0"', '"bundle:agent:default:main/reports/0"') \
        in edges
    assert 'label="say \\"hi\\" \\\\ there\\n' in text       # quotes and backslash escaped
    assert text.count("subgraph") == sum(1 + len(b["steps"]) for b in plan_json(tmp_path)
                                         ["bundles"])


def test_dot_string_escapes() -> None:
    assert dot_string('a"b\\c\nd\x01') == '"a\\"b\\\\c\\nd"'


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz (dot) is not installed")
def test_graphviz_accepts_the_dot(tmp_path: Path) -> None:
    path = write_policy(tmp_path, POLICY)
    text = to_dot(build_plan(load(str(path)).policy, path=str(path)))
    proc = subprocess.run(["dot", "-Tcanon"], input=text, capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""


def test_promises_cli_graph(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_policy(tmp_path, POLICY)
    assert promises_main(["--graph", "-f", str(path)]) == 0
    check_dot(capsys.readouterr().out)
    assert promises_main(["--graph=json", "-f", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["bundles"][0]["name"] == "main"


def test_promises_cli_graph_refuses_a_broken_policy(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = write_policy(tmp_path, "bundle agent main { reports: \"x\" }")
    assert promises_main(["--graph", "-f", str(path)]) == 1
    # no graph: only the verdict, a log line on standard output (as cf-promises')
    assert capsys.readouterr().out == "   error: There are syntax errors in policy files\n"


def test_agent_graph_prints_the_plan_and_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    policy = f"""
bundle agent main
{{
  commands:
      "/bin/touch {marker}";
  reports:
      "hello";
}}
bundle agent second
{{
  reports:
      "second";
}}
"""
    proc = agent_process(tmp_path, policy, "--graph")
    assert proc.returncode == 0, proc.stderr
    assert "R: " not in proc.stdout and not marker.exists()
    nodes, _ = check_dot(proc.stdout)
    assert '"bundle:agent:default:main/commands/0"' in nodes
    proc = agent(tmp_path, policy, "--graph=json", "-b", "second")
    plan = json.loads(proc.stdout)
    assert [b["name"] for b in plan["bundles"]] == ["second"]
    assert not marker.exists()


@pytest.mark.skipif(not MASTERFILES.exists(), reason="masterfiles not installed")
def test_masterfiles_plan_renders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert promises_main(["--graph=json", "-f", str(MASTERFILES)]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert schema_errors(plan, PLAN_SCHEMA) == []
    # inputs hold variables: cf-lite-promises resolves them by evaluating the common
    # bundles, as the agent does, so the plan covers the whole policy
    assert plan["unresolved_inputs"] == []
    assert "cfe_internal_management" in [b["name"] for b in plan["bundles"]]
    dynamic = [e["name"] for e in plan["bundlesequence"] if e["dynamic"]]
    assert "@(inventory.bundles)" in dynamic
    assert promises_main(["--graph", "-f", str(MASTERFILES)]) == 0
    check_dot(capsys.readouterr().out)


@pytest.mark.skipif(not MASTERFILES.exists(), reason="masterfiles not installed")
def test_masterfiles_plan_through_the_agent(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """The agent resolves the inputs (common bundles evaluated), so more bundles show."""
    from cfpromise.cli.agent import main as agent_main
    assert agent_main(["--graph=json", "-f", str(MASTERFILES), "-w", str(tmp_path / "wd")]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert schema_errors(plan, PLAN_SCHEMA) == []
    names = [e["name"] for e in plan["bundlesequence"]]
    assert names[0] == "inventory_control" and plan["bundlesequence"][0]["bundle"]
    assert "cfe_internal_management" in [b["name"] for b in plan["bundles"]]
