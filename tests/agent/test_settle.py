"""The engine leaves out an evaluation of a vars or classes promise only at a fixed point
(cfpromise.agent.settle): the evaluation before it, in the very same state, changed
nothing, logged nothing and deferred nothing.  Each test counts the evaluations of a
promise through the evaluator table and checks the values against what evaluating
every time gives."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cfpromise.agent.loading import evaluated_agent
from cfpromise.eval.variables import same_variable
from cfpromise.eval.functions.api import Variable
from cfpromise.promises import evaluators


def _counting(monkeypatch: pytest.MonkeyPatch, ptype: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    inner = evaluators.load()[ptype]

    def counted(step: Any) -> Any:
        counts[step.promiser] = counts.get(step.promiser, 0) + 1
        return inner(step)
    monkeypatch.setitem(evaluators.EVALUATORS, ptype, counted)
    return counts


def _load(tmp_path: Path, policy: str, **files: str) -> Any:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    path = tmp_path / "promises.cf"
    path.write_text(policy)
    (tmp_path / "wd").mkdir(mode=0o700, exist_ok=True)
    return evaluated_agent(str(path), str(tmp_path / "wd"))


def _passes(tmp_path: Path, policy: str) -> Any:
    """An agent whose policy is ``policy``, its bundle ``b`` called once (three passes
    over its vars, defaults and classes, as a bundle of the bundlesequence), from nothing
    evaluated: the policy is added, not loaded (loading evaluates a common bundle in
    rounds of its own, cf-agent's PolicyResolve)."""
    from cfpromise.agent.policyfile import read
    path = tmp_path / "promises.cf"
    path.write_text(policy)
    path.chmod(0o600)
    (tmp_path / "wd").mkdir(mode=0o700, exist_ok=True)
    agent = evaluated_agent(str(tmp_path / "nothing.cf"), str(tmp_path / "wd"))
    agent.add_policy(read(agent, str(path)))
    agent.run_bundle(agent.find_bundle("b", "default"), [], types=("vars", "defaults",
                                                                   "classes"))
    return agent


def _value(agent: Any, name: str) -> Any:
    var = agent.ctx.lookup(name)
    return None if var is None else var.value


def test_a_converged_promise_is_not_evaluated_a_third_time(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    counts = _counting(monkeypatch, "vars")
    agent = _passes(tmp_path, """
bundle common b
{
  vars:
      "x" string => concat("a", "b");
}
""")
    assert _value(agent, "b.x") == "ab"
    # pass 1 defines it, pass 2 changes nothing (the fixed point), pass 3 is left out
    assert counts["x"] == 2


def test_promises_that_keep_changing_are_evaluated_every_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counts = _counting(monkeypatch, "vars")
    agent = _passes(tmp_path, """
bundle common b
{
  vars:
      "v" string => "one";
    have_two::
      "v" string => "two";
  classes:
      "have_two" expression => "any";
}
""")
    assert _value(agent, "b.v") == "two"
    # v goes "one" then "two" in every evaluation of the section: never a fixed point.
    # 3 passes, the vars section before the classes and twice after them (a common
    # bundle's BundleResolve: vars, classes, vars): "one" 9 times, "two" 8 (the class
    # is not defined yet the first time)
    assert counts["v"] == 17


def test_a_deferred_promise_is_evaluated_until_the_last_pass(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counts = _counting(monkeypatch, "vars")
    agent = _passes(tmp_path, """
bundle common b
{
  vars:
      "late" string => "$(nosuch.var)";
}
""")
    # unresolved: waits in passes 1 and 2, defined as written in the last one
    assert counts["late"] == 3
    assert _value(agent, "b.late") == "$(nosuch.var)"


def test_only_the_waiting_promise_is_evaluated_in_the_last_pass(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counts = _counting(monkeypatch, "vars")
    agent = _passes(tmp_path, """
bundle common b
{
  vars:
      "w" string => "$(nosuch.var)";
      "k" string => concat("a", "b");
}
""")
    assert counts == {"w": 3, "k": 2}
    assert _value(agent, "b.k") == "ab"


def test_a_value_defined_later_in_the_pass_reaches_an_earlier_promise(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counts = _counting(monkeypatch, "vars")
    agent = _passes(tmp_path, """
bundle common b
{
  vars:
      "copy" string => concat("got ", "$(b.src)");
      "src" string => "v1";
}
""")
    assert _value(agent, "b.copy") == "got v1"
    assert counts["copy"] == 3       # pass 1 waits, pass 2 resolves, pass 3 confirms


def test_a_class_from_a_later_file_changes_an_inputs_variable_of_an_earlier_one(
        tmp_path: Path) -> None:
    # a.cf's bundle picks the next input by a class only c.cf's bundle defines; c.cf is
    # loaded after a.cf: before the input written with the variable is read, the files
    # its list has read are resolved again (cf-agent's LoadPolicyInputFiles), so the
    # variable has its new value then -- b2.cf is read, b1.cf is not (as cf-agent 3.21)
    agent = _load(tmp_path, """
body common control
{
  inputs => { "a.cf", "c.cf", "$(cfg.next)" };
}
""", **{"a.cf": """
bundle common cfg
{
  vars:
      "next" string => "b1.cf";
    from_c::
      "next" string => "b2.cf";
}
""", "b1.cf": """
bundle common one { vars: "loaded" string => "b1"; }
""", "b2.cf": """
bundle common two { vars: "loaded" string => "b2"; }
""", "c.cf": """
bundle common setc { classes: "from_c" expression => "any"; }
"""})
    assert _value(agent, "one.loaded") is None
    assert _value(agent, "two.loaded") == "b2"
    assert agent.ctx.class_defined("from_c")
    assert _value(agent, "cfg.next") == "b2.cf"


def test_storing_an_equal_value_is_no_change_but_order_and_python_types_are() -> None:
    assert same_variable(Variable("slist", ["a", "b"]), Variable("slist", ["a", "b"]))
    assert not same_variable(Variable("slist", ["a"]), Variable("slist", ["a"], ("t",)))
    assert not same_variable(Variable("data", {"a": 1, "b": 2}), Variable("data", {"b": 2, "a": 1}))
    assert not same_variable(Variable("data", [1]), Variable("data", [True]))
    assert not same_variable(Variable("data", {"k": [1.0]}), Variable("data", {"k": [1]}))
    assert same_variable(Variable("data", {"k": [1, {"x": None}]}),
                         Variable("data", {"k": [1, {"x": None}]}))


def test_a_promise_calling_randomint_never_settles(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """randomint() may give the same value twice and another one the third time: an
    evaluation that changed nothing says nothing about the next one, so cf-agent's
    evaluation in every pass is kept (the last value is the last pass's)."""
    import random
    draws = iter([0.5, 0.5, 0.7] + [0.9] * 20)
    monkeypatch.setattr(random, "random", lambda: next(draws))
    counts = _counting(monkeypatch, "vars")
    agent = _passes(tmp_path, """
bundle common b
{
  vars:
      "r" int => randomint(0, 10);
}
""")
    # one evaluation per pass (no classes section): 5, 5 (no change), then 7
    assert counts["r"] == 3
    assert _value(agent, "b.r") == "7"
