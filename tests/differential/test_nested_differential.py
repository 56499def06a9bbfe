"""Differential test: references whose name holds another reference (:mod:`nested`), in
reports, vars and insert_lines promises, one policy run under cf-agent 3.21 and under
cf-lite: every case must report the same lines."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential import harness, nested

pytestmark = harness.needs_cf_agent

# A list reached through a name whose scope or namespace comes from the expansion
# ($($(q)) with q = "b.l", $($(ns):b.l)): cf-agent 3.21 never finds the list and leaves the
# reference as written, a bug CFEngine fixed later (ENT-9491, ENT-11923). The acceptance
# suite tests the fix (01_vars/01_basic/double_expansion_list_namespace.cf, in the
# ratchet), and cf-lite follows it: the list is iterated over.
_DOUBLE_EXPANSION = ("deliberate: cf-agent 3.21 bug ENT-9491/ENT-11923 (a list named through "
                     "an expanded scope is not iterated over), fixed in later CFEngine and "
                     "tested by the acceptance suite (in the ratchet); cf-lite iterates, as "
                     "the fix does")
EXPECTED_DIFFERENCES: dict[str, str] = {
    f"{ctx}_{name}": _DOUBLE_EXPANSION for ctx in nested.CONTEXTS
    for name in ("indirect_list_scoped", "indirect_list_namespaced", "scope_from_inner",
                 "namespace_from_inner", "indirect_data_scoped", "indirect_array_scoped",
                 "indirect_list_self_scoped")}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    root = tmp_path_factory.mktemp("nested")
    policy_ref = harness.write_policy(root / "ref.cf", nested.policy_text(str(root / "ref")))
    policy_lite = harness.write_policy(root / "lite.cf", nested.policy_text(str(root / "lite")))
    harness.check_policy(policy_ref)
    ref = harness.run_reference(policy_ref, [], harness.reference_workdir(root))
    lite = harness.run_lite(policy_lite, [], root / "lite-workdir")
    assert lite.returncode == 0, lite.stdout + lite.stderr
    return nested.parse_reports(ref.stdout), nested.parse_reports(lite.stdout)


@pytest.mark.parametrize("name,context,reference", nested.CASES,
                         ids=[c[0] for c in nested.CASES])
def test_same_as_cf_agent(results: tuple[dict, dict], name: str, context: str,
                          reference: str) -> None:
    theirs, ours = results
    if name in EXPECTED_DIFFERENCES:
        assert ours[name] != theirs[name], "now agrees: drop it from the list"
        pytest.xfail(EXPECTED_DIFFERENCES[name])
    assert ours[name] == theirs[name], f"{context}: {reference}"


def test_the_cases_tell_something(results: tuple[dict, dict]) -> None:
    """cf-agent's own answers show both behaviours: a nested reference that names no
    variable drops its iteration, a plain undefined one stays as written."""
    theirs, _ours = results
    assert theirs["report_list_idx"] == ["A1", "A3"]
    assert theirs["report_plain_undefined"] == ["$(nosuch)"]


UNRESOLVED_VARS = """
bundle agent main
{
  vars:
    "v" string => "x $(nosuch)";
    "l" slist => { "a", "$(nosuch)" };
  classes:
    "seen_v" expression => isvariable("v");
    "seen_l" expression => isvariable("l");
  commands:
    "/bin/echo cmd-sees-v" if => isvariable("v");
    "/bin/echo cmd-sees-l" if => isvariable("l");
  reports:
    "class-seen-v" if => "seen_v";
    "class-seen-l" if => "seen_l";
    "v=$(v)";
    "l=$(l)";
}
"""


def test_a_value_with_unresolved_references_is_defined_as_written_at_once(
        tmp_path: Path) -> None:
    """cf-agent defines a vars promise whose value still holds an undefined reference as
    written in the first pass (and again in later passes): promises after it in that pass
    see the variable."""
    policy = harness.write_policy(tmp_path / "early.cf", UNRESOLVED_VARS)
    ref, lite = harness.run_both(tmp_path, policy)

    def lines(out: str) -> list[str]:
        return sorted(x[x.index("Q: "):] if "Q: " in x else x for x in out.splitlines()
                      if x.startswith("R: ") or "Q: " in x)
    assert "R: class-seen-v" in ref.stdout
    assert lines(lite.stdout) == lines(ref.stdout)
