"""The edit_line handlers called directly on a buffer, with a fake AgentServices
(no engine): results, queued messages, warn-only and dry-run behaviour."""
from __future__ import annotations

from typing import Any

import attrs

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.edit.buffer import EditBuffer
from cfpromise.promises.edit.delete_lines import verify_line_deletions
from cfpromise.promises.edit.field_edits import verify_column_edits
from cfpromise.promises.edit.insert_lines import verify_line_insertions
from cfpromise.promises.edit.replace_patterns import verify_patterns
from tests.promises.fakes import FakeAgent, make_run


@attrs.define
class EditAgent(FakeAgent):
    buffer: Any = None

    def edit_buffer(self) -> Any:
        return self.buffer


def _setup(lines: list[str], dry_run: bool = False) -> tuple[EditAgent, EditBuffer]:
    buffer = EditBuffer("/f", list(lines), original=list(lines), dry_run=dry_run)
    return EditAgent(dry_run=dry_run, buffer=buffer), buffer


def test_insert_appends_and_queues_messages() -> None:
    agent, buffer = _setup(["a"])
    outcome = verify_line_insertions(make_run("b", agent, promise_type="insert_lines"))
    assert outcome is Outcome.REPAIRED
    assert buffer.lines == ["a", "b"]
    assert buffer.messages == [
        ("info", "Inserted the promised line 'b' into '/f' after locator"),
        ("info", "insert_lines promise 'b' repaired")]
    assert agent.output() == []            # printed only when the file is saved


def test_insert_kept() -> None:
    agent, buffer = _setup(["a", "b"])
    assert verify_line_insertions(make_run("b", agent, promise_type="insert_lines")) \
        is Outcome.KEPT
    assert buffer.edits == 0


def test_delete_warn_only_changes_nothing() -> None:
    agent, buffer = _setup(["a", "b"])
    run = make_run("b", agent, promise_type="delete_lines",
                   action={"action_policy": "warn"})
    assert verify_line_deletions(run) is Outcome.WARN
    assert buffer.lines == ["a", "b"]
    assert agent.messages("warning")[0] == \
        "Should delete line 'b' from /f, but only warning promised"


def test_dry_run_simulates_in_memory() -> None:
    agent, buffer = _setup(["a", "b"], dry_run=True)
    run = make_run("b", agent, promise_type="delete_lines")
    assert verify_line_deletions(run) is Outcome.WARN
    assert buffer.lines == ["a"]             # simulated, for the diff; never saved
    assert agent.messages("warning")[0] == "Should delete line 'b' from /f"


def test_replace_not_convergent_is_interrupted() -> None:
    agent, buffer = _setup(["a"])
    run = make_run("a", agent, promise_type="replace_patterns",
                   replace_with={"replace_value": "aa"})
    assert verify_patterns(run) is Outcome.INTERRUPTED
    assert buffer.lines == ["a"]
    assert "is not convergent" in agent.messages("error")[0]


def test_field_edit_append() -> None:
    agent, buffer = _setup(["user:x:1000:a,b"])
    run = make_run("user:.*", agent, promise_type="field_edits",
                   edit_field={"field_separator": ":", "select_field": "4",
                               "value_separator": ",", "field_value": "c",
                               "field_operation": "append"})
    assert verify_column_edits(run) is Outcome.REPAIRED
    assert buffer.lines == ["user:x:1000:a,b,c"]


def test_outside_an_edit_bundle() -> None:
    agent = EditAgent()
    assert verify_line_insertions(make_run("x", agent, promise_type="insert_lines")) \
        is Outcome.FAILED
