"""The engine's per-promise memos (cfpromise.agent.promiseinfo and the fast paths built on
them) give what evaluating the promise afresh gives: each test here fails if a memo
were kept for the wrong promise or trusted when the promise can still change."""
from __future__ import annotations

from pathlib import Path

from cfpromise.agent.promiseinfo import PromiseInfo, guard_info, info
from cfpromise.syntax import ast
from tests.agent.test_agent_run import agent, reports


def _promise(promiser: str, *constraints: tuple[str, ast.Rval],
             varclass: str | None = None) -> ast.Promise:
    return ast.Promise(promiser, tuple(ast.Constraint(lval, rval) for lval, rval in constraints),
                       varclass=varclass)


def test_an_entry_left_at_a_recycled_address_is_not_reused() -> None:
    first = _promise("static")
    second = _promise("$(x)", ("if", ast.Scalar("linux")))
    table = {id(second): PromiseInfo(first)}      # as if ``first`` had lived at that address
    facts = info(table, second)
    assert facts.promise is second
    assert facts.dynamic and not facts.static
    assert [lval for lval, _ in facts.conditions] == ["if"]
    assert info(table, second) is facts


def test_texts_skip_lazy_function_arguments_and_a_quoted_guard_makes_it_not_static() -> None:
    lazy = _promise("p", ("string", ast.FnCall("maplist", (ast.Scalar("$(this)"),
                                                           ast.Scalar("l")))))
    assert not PromiseInfo(lazy).dynamic and PromiseInfo(lazy).static
    guarded = _promise("p", varclass="$(c)")
    assert not PromiseInfo(guarded).dynamic and not PromiseInfo(guarded).static
    assert PromiseInfo(guarded).guard_texts == ("p", "$(c)")


def test_guard_info_works_out_the_guard_only_and_info_finishes_it() -> None:
    p = ast.Promise("$(x)", (ast.Constraint("if", ast.Scalar("b")),), classes="linux.!a")
    table: dict[int, PromiseInfo] = {}
    partial = guard_info(table, p)
    assert partial.guarded and partial.guard is not None and not partial.complete
    assert info(table, p) is partial and partial.complete
    assert partial.dynamic and [lval for lval, _ in partial.conditions] == ["if"]
    assert guard_info(table, p) is partial


def test_a_promise_first_met_behind_a_false_guard_runs_in_full_once_it_holds(
        tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  vars:
    late::
      "v" string => "x$(n)", if => "any";
  classes:
      "late" expression => "any";
  vars:
      "n" string => "1";
  reports:
      "v=$(v)";
}
""")
    assert proc.returncode == 0, proc.stderr
    assert reports(proc) == ["v=x1"]


def test_condition_order_is_if_ifvarclass_unless_whatever_the_writing_order() -> None:
    p = _promise("p", ("unless", ast.Scalar("a")), ("if", ast.Scalar("b")),
                 ("ifvarclass", ast.Scalar("c")))
    assert [lval for lval, _ in PromiseInfo(p).conditions] == ["if", "ifvarclass", "unless"]


def test_a_static_promise_done_in_one_call_runs_again_in_the_next_call(tmp_path: Path) -> None:
    # the done-set belongs to a bundle call: the fast path must not carry it over (the
    # bundle-scoped class is gone when the first call ends and must be defined again)
    proc = agent(tmp_path, """
bundle agent main
{
  methods:
      "one" usebundle => b("1");
      "two" usebundle => b("2");
}
bundle agent b(x)
{
  classes:
      "local" expression => "any", scope => "bundle";
  reports:
    local::
      "local set in call $(x)";
}
""")
    assert reports(proc) == ["local set in call 1", "local set in call 2"], proc.stderr


def test_a_static_vars_promise_redefined_later_in_the_bundle_is_evaluated_again(
        tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  vars:
      "v" string => "first";
    late::
      "v" string => "second";
  classes:
      "late" expression => "any";
  reports:
      "v=$(v)";
}
""")
    assert reports(proc) == ["v=second"], proc.stderr
