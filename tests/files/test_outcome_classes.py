"""Outcome classes of files and edit_line promises: cf-agent sets a promise's classes for
every result it reaches (a file created, then found with the right mode, is both
repaired and kept).  Each case reports which of ``<id>_kept``, ``<id>_repaired``,
``<id>_notkept`` were defined; the expected sets were read off cf-agent 3.21 (and are
replayed against it when it is installed)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.edit import cfagent
from tests.files.agentrun import reports, run_agent

BODIES = """
body classes outcomes(id)
{
  promise_kept => { "$(id)_kept" };
  promise_repaired => { "$(id)_repaired" };
  repair_failed => { "$(id)_notkept" };
  repair_denied => { "$(id)_notkept" };
  repair_timeout => { "$(id)_notkept" };
}
body perms m(mode) { mode => "$(mode)"; rxdirs => "false"; }
body delete tidy { dirlinks => "delete"; rmdirs => "true"; }
body action warn { action_policy => "warn"; }
bundle edit_line add(x) { insert_lines: "$(x)"; }
bundle edit_line del(x) { delete_lines: "$(x)"; }
bundle edit_line add_c(x) { insert_lines: "$(x)" classes => outcomes("c"); }
bundle edit_line del_c(x) { delete_lines: "$(x)" classes => outcomes("c"); }
"""

# (id, files promises with {d}, setup files {name: content}, expected classes)
CASES = [
    ("create", '"{d}/f" create => "true", classes => outcomes("c");', {}, {"c_repaired"}),
    ("exists", '"{d}/f" create => "true", classes => outcomes("c");', {"f": "x"}, {"c_kept"}),
    ("create-perms", '"{d}/f" create => "true", perms => m("0644"), classes => outcomes("c");',
     {}, {"c_kept", "c_repaired"}),
    ("edit", '"{d}/f" edit_line => add("y"), classes => outcomes("c");', {"f": "x\n"},
     {"c_repaired"}),
    ("edit-kept", '"{d}/f" edit_line => add("x"), classes => outcomes("c");', {"f": "x\n"},
     {"c_kept"}),
    ("edit-missing", '"{d}/f" edit_line => add("x"), classes => outcomes("c");', {},
     {"c_notkept"}),
    ("delete", '"{d}/f" delete => tidy, classes => outcomes("c");', {"f": "x"},
     {"c_repaired"}),
    ("delete-absent", '"{d}/f" delete => tidy, classes => outcomes("c");', {}, {"c_kept"}),
    ("warn", '"{d}/f" create => "true", action => warn, classes => outcomes("c");', {},
     {"c_notkept"}),
    ("perms-fix", '"{d}/f" perms => m("0600"), classes => outcomes("c");', {"f": "x"},
     {"c_kept", "c_repaired"}),
    ("create-edit-perms", '"{d}/f" create => "true", edit_line => add("y"), perms => m("0640"), '
     'classes => outcomes("c");', {}, {"c_kept", "c_repaired"}),
    ("exists-edit", '"{d}/f" create => "true", edit_line => add("y"), classes => outcomes("c");',
     {"f": "x\n"}, {"c_kept", "c_repaired"}),
    ("edit-promise-classes", '"{d}/f" edit_line => add_c("y");', {"f": "x\n"},
     {"c_repaired"}),
    ("edit-promise-kept", '"{d}/f" edit_line => add_c("x");', {"f": "x\n"}, {"c_kept"}),
    ("delete-line-promise", '"{d}/f" edit_line => del_c("x");', {"f": "x\n"}, {"c_repaired"}),
]


def _policy(d: Path, promise: str) -> str:
    return f"""
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main
{{
  files:
    {promise.format(d=d)}
  reports:
    c_kept:: "c_kept";
    c_repaired:: "c_repaired";
    c_notkept:: "c_notkept";
}}
{BODIES}
"""


def _run(base: Path, promise: str, setup: dict[str, str], runner: str) -> set[str]:
    d = base / "d"
    d.mkdir(parents=True)
    for name, content in setup.items():
        (d / name).write_text(content)
        (d / name).chmod(0o644)
    policy = base / "p.cf"
    policy.write_text(_policy(d, promise))
    policy.chmod(0o600)
    if runner == "lite":
        _code, out = run_agent(base, policy)
    else:
        _code, out = cfagent.run_cf_agent(base, policy)
    return set(reports(out))


@pytest.mark.parametrize("case_id, promise, setup, expected", CASES,
                         ids=[c[0] for c in CASES])
def test_outcome_classes(tmp_path: Path, case_id: str, promise: str, setup: dict[str, str],
                         expected: set[str]) -> None:
    assert _run(tmp_path, promise, setup, "lite") == expected


@pytest.mark.skipif(not cfagent.available(), reason="cf-agent 3.21 not installed")
@pytest.mark.parametrize("case_id, promise, setup, expected", CASES,
                         ids=[c[0] for c in CASES])
def test_outcome_classes_as_cf_agent(tmp_path: Path, case_id: str, promise: str,
                                     setup: dict[str, str], expected: set[str]) -> None:
    assert _run(tmp_path / "ref", promise, setup, "ref") == expected
