"""Differential test: a bundle called with another number of arguments than it takes
(cf-agent's ScopeAugment), by methods (written names, a name held in a variable that
validation cannot judge, a list given for one parameter), from the bundlesequence,
warn-only: none at all runs the bundle with its parameters undefined, another number
is fatal.  cf-lite used to fail the methods promise with an error of its own and go on."""
from __future__ import annotations

import pytest

from tests.differential import agentmisc, harness

pytestmark = harness.needs_cf_agent

_B1 = 'bundle agent b(x)\n{\n  reports:\n    "b x=$(x)";\n}\n'
_B2 = 'bundle agent b2(x, y)\n{\n  reports:\n    "b2 $(x) $(y)";\n}\n'
_B0 = 'bundle agent b0\n{\n  reports:\n    "b0 ran";\n}\n'


def _main(methods: str, before: str = "") -> str:
    return (f"{before}bundle agent main\n{{\n  vars:\n    \"n1\" string => \"b\";\n"
            f"    \"n2\" string => \"b2\";\n    \"n0\" string => \"b0\";\n"
            f"    \"l\" slist => {{ \"p\", \"q\" }};\n  methods:\n{methods}\n  reports:\n"
            f"    \"done\";\n}}\n" + _B1 + _B2 + _B0)


CASES = {
    "none_for_one": _main('    "m" usebundle => b;'),
    "none_for_two": _main('    "m" usebundle => b2;'),
    "none_quoted": _main('    "m" usebundle => "b";'),
    "var_none_for_one": _main('    "m" usebundle => "$(n1)";'),
    "var_two_for_one": _main('    "m" usebundle => $(n1)("a", "b");'),
    "var_one_for_two": _main('    "m" usebundle => $(n2)("a");'),
    "var_one_for_none": _main('    "m" usebundle => $(n0)("a");'),
    "var_right": _main('    "m" usebundle => $(n2)("a", "b");'),
    "list_for_one": _main('    "m" usebundle => b(@(l));'),
    "list_for_two": _main('    "m" usebundle => b2(@(l));'),
    "warn_none": _main('    "m" usebundle => b, action => w;',
                       'body action w\n{\n  action_policy => "warn";\n}\n'),
    "warn_var_wrong": _main('    "m" usebundle => $(n1)("a", "b"), action => w;',
                            'body action w\n{\n  action_policy => "warn";\n}\n'),
    "after_other": _main('    "first" usebundle => b0;\n    "m" usebundle => $(n1)("a", "b");'),
    "sequence_none": 'body common control\n{\n  bundlesequence => { "b" };\n}\n' + _B1,
}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    return agentmisc.run_observed(tmp_path_factory.mktemp("arity"),
                                  [(name, text, []) for name, text in CASES.items()])


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_run_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    assert ours == reference
