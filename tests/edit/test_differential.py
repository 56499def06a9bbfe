"""The edit_line cases replayed against cf-agent 3.21 itself (skipped without it): the
file after the run and the change messages must be the same as cf-lite's."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.edit import cfagent
from tests.edit.cases import CASES, EditCase, policy_for
from tests.files.agentrun import lines, run_agent

pytestmark = pytest.mark.skipif(not cfagent.available(), reason="cf-agent 3.21 not installed")


def _changes(out: str, path: Path) -> list[str]:
    return [m.replace(str(path), "{path}").replace(str(path.parent), "{dir}")
            for level in ("info", "warning", "error") for m in lines(out, level)]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_same_as_cf_agent(tmp_path: Path, case: EditCase) -> None:
    results = []
    for name in ("ref", "lite"):
        base = tmp_path / name
        base.mkdir()
        target = base / "file.txt"
        if case.before is not None:
            target.write_bytes(case.before.encode())
        policy = base / "policy.cf"
        policy.write_text(policy_for(case, str(target)))
        policy.chmod(0o600)
        if name == "ref":
            _code, out = cfagent.run_cf_agent(base, policy)
        else:
            _code, out = run_agent(base, policy)
        results.append((target.read_bytes() if target.exists() else None,
                        _changes(out, target)))
    assert results[1][0] == results[0][0], results
    assert results[1][1] == results[0][1], results
