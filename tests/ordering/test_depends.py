"""depends_on checked statically: missing handles and cycles (cf-lite-promises -c)."""
from __future__ import annotations

from pathlib import Path

import pytest

from cfpromise.cli.promises import main as promises_main
from cfpromise.schema.depends import check_dependencies, handle_pattern, shortest_cycle
from cfpromise.syntax.parser import parse_file
from tests.ordering.support import write_policy

CYCLE = """
bundle agent main
{
  commands:
      "/bin/true" handle => "ha", depends_on => { "hb" };
  reports:
      "b" handle => "hb", depends_on => { "hc" };
      "c" handle => "hc", depends_on => { "ha" };
      "free" handle => "hd";
}
"""

MISSING = """
bundle agent main
{
  reports:
      "waits" depends_on => { "nosuch" };
}
"""


def messages(tmp_path: Path, text: str, **kwargs: object) -> list[str]:
    policy = parse_file(str(write_policy(tmp_path, text)))
    return [d.render() for d in check_dependencies(policy, **kwargs)]  # type: ignore[arg-type]


def test_cycle_names_every_promise_in_order(tmp_path: Path) -> None:
    found = messages(tmp_path, CYCLE)
    assert len(found) == 1
    p = tmp_path / "p.cf"
    assert f"{p}:5:" in found[0]           # points at the first promise's depends_on
    assert (f"depends_on cycle: ha ({p}:5) => hb ({p}:7) => hc ({p}:8) => ha ({p}:5)"
            in found[0])
    assert "hd" not in found[0]


def test_self_dependency_is_a_cycle(tmp_path: Path) -> None:
    found = messages(tmp_path, 'bundle agent main { reports: "x" handle => "h", '
                               'depends_on => { "h" }; }')
    assert len(found) == 1 and "depends_on cycle: h (" in found[0]


def test_every_promise_of_every_cycle_is_named_once(tmp_path: Path) -> None:
    found = messages(tmp_path, """
bundle agent main
{
  reports:
      "a" handle => "a", depends_on => { "b" };
      "b" handle => "b", depends_on => { "a", "c" };
      "c" handle => "c", depends_on => { "b" };
      "x" handle => "x", depends_on => { "y" };
      "y" handle => "y", depends_on => { "x" };
}
""")
    chains = [m.split("depends_on cycle: ", 1)[1].split(";")[0] for m in found]
    names = [[part.split(" (")[0] for part in chain.split(" => ")] for chain in chains]
    assert names == [["a", "b", "a"], ["c", "b", "c"], ["x", "y", "x"]]


def test_shortest_cycle() -> None:
    graph = {"a": ["b"], "b": ["a"], "c": ["d"], "d": ["c", "a"], "e": []}
    assert shortest_cycle(graph, "a") == ["a", "b"]
    assert shortest_cycle(graph, "d") == ["d", "c"]
    assert shortest_cycle(graph, "e") is None


def test_missing_handle_names_handle_and_waiting_promise(tmp_path: Path) -> None:
    found = messages(tmp_path, MISSING)
    assert len(found) == 1
    assert "depends_on names handle 'nosuch', which no promise defines" in found[0]
    assert f"reports promise 'waits' ({tmp_path / 'p.cf'}:5)" in found[0]
    assert found[0].startswith(f"{tmp_path / 'p.cf'}:5:")


def test_missing_handles_not_judged_when_inputs_are_incomplete(tmp_path: Path) -> None:
    assert messages(tmp_path, MISSING, complete=False) == []
    assert len(messages(tmp_path, CYCLE, complete=False)) == 1


def test_severity_for_the_agent(tmp_path: Path) -> None:
    policy = parse_file(str(write_policy(tmp_path, MISSING)))
    assert {d.severity for d in check_dependencies(policy, severity="warning")} == {"warning"}


def test_variables_are_skipped_and_handle_patterns_match(tmp_path: Path) -> None:
    found = messages(tmp_path, """
bundle agent main
{
  vars:
      "v" slist => { "a", "b" };
  reports:
      "job $(v)" handle => "job_$(v)";
      "after" depends_on => { "job_a", "$(unknown)", canonify("x y") };
}
""")
    assert found == []
    assert handle_pattern("job_$(v)_${w[$(k)]}").fullmatch("job_1_2")
    assert not handle_pattern("job_$(v)").fullmatch("other")


def test_handles_in_every_bundle_count(tmp_path: Path) -> None:
    assert messages(tmp_path, """
bundle agent main
{
  reports:
      "after" depends_on => { "in_other" };
}
bundle agent other
{
  reports:
      "first" handle => "in_other";
}
""") == []


def test_full_check_reports_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_policy(tmp_path, CYCLE + MISSING.replace("main", "second"))
    assert promises_main(["--lint", "-f", str(path)]) == 1
    err = capsys.readouterr().err
    assert "depends_on cycle: ha" in err
    assert "handle 'nosuch', which no promise defines" in err
    assert "Policy failed validation" not in err     # cf-promises -c says no more


def test_plain_check_does_not(tmp_path: Path) -> None:
    """Without -c, as cf-promises, depends_on is not judged."""
    assert promises_main(["-f", str(write_policy(tmp_path, MISSING))]) == 0
