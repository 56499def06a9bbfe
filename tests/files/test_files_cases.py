"""files promise cases through the real agent: state after, cf-agent's messages, and a
second run that changes nothing; the same table against cf-agent 3.21 when installed."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.edit import cfagent
from tests.files.agentrun import run_agent
from tests.files.cases import CASES, COMMON_BODIES, Entry, FileCase


def make_state(base: Path, state: dict[str, Entry]) -> None:
    d = str(base)
    for rel, entry in sorted(state.items()):
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if entry.directory:
            path.mkdir(exist_ok=True)
        elif entry.link is not None:
            path.symlink_to(entry.link.format(d=d))
            continue
        else:
            path.write_text(entry.content or "")
        if entry.mode is not None:
            path.chmod(entry.mode)
        if entry.owner is not None:
            os.chown(path, entry.owner, entry.owner)


def read_state(base: Path, expected: dict[str, Entry | None]) -> dict[str, Entry | None]:
    """The actual state of the paths ``expected`` names, in the same terms."""
    d = str(base)
    out: dict[str, Entry | None] = {}
    for rel, want in expected.items():
        path = base / rel
        try:
            st = path.lstat()
        except (FileNotFoundError, NotADirectoryError):
            out[rel] = None
            continue
        if want is None:
            out[rel] = Entry(content="<exists>")
            continue
        if stat.S_ISLNK(st.st_mode):
            out[rel] = Entry(link=os.readlink(path).replace(d, "{d}"))
        elif stat.S_ISDIR(st.st_mode):
            out[rel] = Entry(directory=True,
                             mode=stat.S_IMODE(st.st_mode) if want.mode is not None else None)
        else:
            out[rel] = Entry(content=path.read_text() if want.content is not None else None,
                             mode=stat.S_IMODE(st.st_mode) if want.mode is not None else None,
                             owner=st.st_uid if want.owner is not None else None)
    return out


def expected_state(case: FileCase) -> dict[str, Entry | None]:
    return {rel: (None if e is None else Entry(
        content=e.content if not e.directory and e.link is None else None,
        mode=e.mode, link=e.link, directory=e.directory, owner=e.owner))
        for rel, e in case.after.items()}


def policy_text(case: FileCase, base: Path) -> str:
    promises = case.promises.format(d=str(base))
    return f"""
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main
{{
  vars:
    "l" slist => {{ "a", "b" }};
  files:
    {promises}
}}
{COMMON_BODIES}
{case.bodies}
"""


def messages(out: str, base: Path) -> list[str]:
    d = str(base)
    got = []
    for line in out.splitlines():
        for prefix, tag in (("    info: ", "I:"), (" warning: ", "W:"), ("   error: ", "E:"),
                            ("  notice: ", "N:")):
            if line.startswith(prefix):
                got.append(tag + line[len(prefix):].replace(d, "{d}"))
    return got


def is_subsequence(wanted: list[str], got: list[str]) -> bool:
    it = iter(got)
    return all(any(w == g for g in it) for w in wanted)


def run_case(base: Path, case: FileCase, runner: str = "lite") -> tuple[str, str]:
    base.mkdir(parents=True, exist_ok=True)
    policy = base.parent / f"{base.name}.cf"
    policy.write_text(policy_text(case, base))
    policy.chmod(0o600)
    if runner == "lite":
        _code, out = run_agent(base.parent, policy, *case.args)
    else:
        _code, out = cfagent.run_cf_agent(base.parent, policy, *case.args)
    return out, str(policy)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_files_case(tmp_path: Path, case: FileCase) -> None:
    base = tmp_path / "d"
    base.mkdir()
    make_state(base, case.before)
    out, _ = run_case(base, case)
    assert "Traceback" not in out, out
    assert read_state(base, case.after) == expected_state(case), out
    got = messages(out, base)
    assert is_subsequence(list(case.messages), got), (case.messages, got)


CONVERGENT = [c for c in CASES if c.converges]


@pytest.mark.parametrize("case", CONVERGENT, ids=[c.id for c in CONVERGENT])
def test_files_case_converges(tmp_path: Path, case: FileCase) -> None:
    base = tmp_path / "d"
    base.mkdir()
    make_state(base, case.before)
    run_case(base, case)
    state = read_state(base, case.after)
    out, _ = run_case(base, case)
    assert read_state(base, case.after) == state
    assert [m for m in messages(out, base) if m.startswith("I:")] == [], out


DIFFERENTIAL = [c for c in CASES if c.differential]


@pytest.mark.skipif(not cfagent.available(), reason="cf-agent 3.21 not installed")
@pytest.mark.parametrize("case", DIFFERENTIAL, ids=[c.id for c in DIFFERENTIAL])
def test_files_case_same_as_cf_agent(tmp_path: Path, case: FileCase) -> None:
    results = []
    for runner in ("ref", "lite"):
        base = tmp_path / runner / "d"
        base.mkdir(parents=True)
        make_state(base, case.before)
        out, policy = run_case(base, case, runner)
        results.append((read_state(base, case.after),
                        [m for m in messages(out, base)
                         if "rxdirs" not in m and not m.startswith("I:Would change")]))
    assert results[1][0] == results[0][0]
    assert results[1][1] == results[0][1]
