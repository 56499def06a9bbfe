"""edit_line cases through the real agent: state after, messages, and a second run that
changes nothing (idempotence)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.edit.cases import CASES, EditCase, policy_for
from tests.files.agentrun import lines, run_agent


def _run(tmp_path: Path, case: EditCase) -> tuple[Path, str]:
    target = tmp_path / "file.txt"
    if case.before is not None:
        target.write_bytes(case.before.encode())
    code, out = run_agent(tmp_path, policy_for(case, str(target)))
    assert code == 0, out
    return target, out


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_edit_case(tmp_path: Path, case: EditCase) -> None:
    target, out = _run(tmp_path, case)
    assert target.read_bytes().decode() == case.after, out
    info = lines(out, "info")
    wanted = [m.format(path=target) for m in case.messages]
    it = iter(info)
    assert all(any(w == got for got in it) for w in wanted), (wanted, info)


CONVERGENT = [c for c in CASES if c.converges]


@pytest.mark.parametrize("case", CONVERGENT, ids=[c.id for c in CONVERGENT])
def test_edit_case_converges(tmp_path: Path, case: EditCase) -> None:
    target, _ = _run(tmp_path, case)
    before = target.read_bytes()
    code, out = run_agent(tmp_path, policy_for(case, str(target)))
    assert code == 0
    assert target.read_bytes() == before
    assert not [m for m in lines(out, "info") if m.startswith("Edited file")], out
