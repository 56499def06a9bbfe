"""The processes promise type: selection, process_count, signals, restart_class, warn-only.

The process table is replaced by a fixed one; expected outcomes and messages follow
cf-agent 3.21 (VerifyProcessOp), checked against it on the same promises.
"""
from __future__ import annotations

import os
import signal

import pytest

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.processes import handler, table
from cfpromise.promises.processes.select import SelectError, criteria, parse_range, selected
from tests.promises.fakes import FakeAgent, make_run


def proc(pid: int, command: str, user: str = "root", **fields: object) -> table.Process:
    values: dict[str, object] = dict(pid=pid, ppid=1, pgid=pid, user=user, vsize=1000,
                                     rsize=100, priority=0, tty="?", threads=1,
                                     start=1_700_000_000, ttime=5, command=command)
    values.update(fields)
    return table.Process(**values)  # type: ignore[arg-type]


LIVE_SNAPSHOT = table.snapshot      # before the fixture replaces it

TABLE = [
    proc(1, "/sbin/init"),
    proc(200, "/usr/sbin/sshd -D"),
    proc(300, "sleep 600", user="nobody", tty="pts/1", ttime=0),
    proc(301, "sleep 700", user="nobody"),
]


@pytest.fixture(autouse=True)
def fixed_table(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    monkeypatch.setattr(table, "snapshot", lambda: list(TABLE))
    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(handler.os, "kill", lambda pid, sig: sent.append((pid, sig)))
    return sent


def verify(promiser: str, agent: FakeAgent | None = None, **attributes: object) -> tuple[
        Outcome, FakeAgent]:
    agent = agent if agent is not None else FakeAgent()
    run = make_run(promiser, agent, promise_type="processes", **attributes)
    return handler.verify_processes(run), agent


def test_select_criteria_and_result() -> None:
    body = {"process_owner": ["nob.*"], "tty": "pts/.*", "ttime_range": "0,1",
            "process_result": "process_owner.tty"}
    assert criteria(body, TABLE[2]) == {"process_owner", "tty", "ttime"}
    assert selected(body, TABLE[2]) and not selected(body, TABLE[3])
    assert selected({"vsize": "1,1"}, TABLE[2])       # no process_result: 3.21 keeps all
    assert parse_range("1,inf", "x") == (1, 999999999)
    with pytest.raises(SelectError):
        parse_range("1", "x")


def test_count_in_range_is_kept_and_defines_classes() -> None:
    count = {"match_range": "2,2", "in_range_define": ["two"], "out_of_range_define": ["bad"]}
    outcome, agent = verify("sleep", process_count=count)
    assert outcome is Outcome.KEPT
    assert set(agent.classes) == {"default:two"}


def test_count_out_of_range_is_repaired() -> None:
    count = {"match_range": "0,0", "out_of_range_define": ["some_found"]}
    outcome, agent = verify("sleep 6", process_count=count)
    assert outcome is Outcome.REPAIRED and "default:some_found" in agent.classes


def test_no_attributes_is_kept_and_init_counts_only_without_signals() -> None:
    # cf-agent 3.21's FindPidMatches leaves pids 1-3 out only when signals are promised
    outcome, agent = verify("init", process_count={"match_range": "0,0",
                                                   "out_of_range_define": ["found"]})
    assert outcome is Outcome.REPAIRED and "default:found" in agent.classes
    outcome, agent = verify("init", signals=["term"], process_count={
        "match_range": "0,0", "in_range_define": ["none"]})
    assert outcome is Outcome.KEPT and "default:none" in agent.classes
    assert verify("/bin/true")[0] is Outcome.KEPT


def test_signals_and_restart_class(fixed_table: list[tuple[int, int]]) -> None:
    outcome, agent = verify("sleep", signals=["term"], restart_class="restart_sleep")
    assert outcome is Outcome.REPAIRED
    assert fixed_table == [(300, signal.SIGTERM), (301, signal.SIGTERM)]
    assert "default:restart_sleep" in agent.classes


def test_each_result_sets_its_classes_in_cf_agents_order(
        fixed_table: list[tuple[int, int]]) -> None:
    # cfPS sets the classes body's classes at every result: out of range, then "No
    # restart promised" (kept); under warn the WARN result itself sets none
    count = {"match_range": "0,0", "out_of_range_define": ["found"]}
    outcome, agent = verify("sleep", process_count=count)
    assert outcome is Outcome.REPAIRED and agent.owns_classes
    assert agent.results == [Outcome.REPAIRED, Outcome.KEPT]
    outcome, agent = verify("sleep", signals=["cont", "term"], restart_class="again")
    assert agent.results == [Outcome.REPAIRED] * 4 + [Outcome.REPAIRED]    # 2 x 2 signals
    outcome, agent = verify("sleep 600", action={"action_policy": "warn"})
    assert outcome is Outcome.WARN and agent.results == [Outcome.KEPT]
    outcome, agent = verify("sleep 600", signals=["bogus"])
    assert outcome is Outcome.FAILED and agent.results == [Outcome.FAILED, Outcome.KEPT]
    assert fixed_table == [(300, signal.SIGCONT), (300, signal.SIGTERM),
                           (301, signal.SIGCONT), (301, signal.SIGTERM)]


def test_sanity_checks_come_before_the_lock() -> None:
    agent = FakeAgent()
    run = make_run("sleep", agent, promise_type="processes", restart_class="r",
                   process_count={"match_range": "0,0"},
                   process_select={"process_owner": ["root"]})
    handler.before_the_lock(run)
    assert [m for m in agent.messages("error") if not m.startswith("Promise belongs")] == [
        "process_select body missing its a process_result return value",
        "Promise constraint conflicts - 'sleep' processes cannot have zero count if restarted",
        "Process select constraint body promised no result (check body definition)",
        "process_count body is insufficiently defined. process_count must specify at least "
        "one of in_range_define or out_of_range_define. "]
    handler.verify_processes(make_run("sleep", agent, promise_type="processes",
                                      restart_class="r"))
    assert len(agent.messages("error")) == 7          # the handler itself checks nothing


def test_agent_never_signals_itself(monkeypatch: pytest.MonkeyPatch,
                                    fixed_table: list[tuple[int, int]]) -> None:
    monkeypatch.setattr(handler.os, "getpid", lambda: 300)
    verify("sleep", signals=["hup"])
    assert fixed_table == [(301, signal.SIGHUP)]


def test_warn_only_restart_is_a_warning() -> None:
    outcome, agent = verify("nosuchprocess", restart_class="start_it",
                            action={"action_policy": "warn"})
    assert outcome is Outcome.WARN and not agent.classes
    assert agent.messages("warning") == [
        "Need to keep restart promise for 'nosuchprocess', but only a warning is promised"]


def test_dry_run_defines_restart_class_and_only_logs_signals(
        fixed_table: list[tuple[int, int]]) -> None:
    # -n is not action_policy warn in cf-agent 3.21: the class is defined (kept), what
    # would be stopped or signalled is logged as an error and nothing is sent or run
    agent = FakeAgent(dry_run=True)
    outcome, agent = verify("nosuchprocess", agent, restart_class="start_it")
    assert outcome is Outcome.KEPT and "default:start_it" in agent.classes
    agent = FakeAgent(dry_run=True)
    outcome, agent = verify("sleep 600", agent, signals=["term"], process_stop="/bin/false",
                            restart_class="again")
    assert fixed_table == [] and "default:again" not in agent.classes
    assert outcome is Outcome.WARN
    errors = agent.messages("error")
    assert errors[0] == ("Need to keep process-stop promise for 'sleep 600', but only a "
                         "warning is promised")
    assert errors[1].startswith("Need to keep signal promise 'term' in process entry '")


def test_process_stop() -> None:
    assert verify("sshd", process_stop="/bin/true")[0] is Outcome.REPAIRED
    assert verify("sshd", process_stop="/bin/false")[0] is Outcome.FAILED
    assert verify("sshd", process_stop="/nonexistent/stop")[0] is Outcome.FAILED
    assert verify("nomatch", process_stop="/bin/false")[0] is Outcome.KEPT


def test_live_table_sees_this_process() -> None:
    mine = [p for p in LIVE_SNAPSHOT() if p.pid == os.getpid()]
    assert len(mine) == 1 and mine[0].command
