"""``changes`` (the "tripwire" use): first run records, a later run reports what changed
-- content, permissions, new and removed files in searched directories -- in cf-agent's
words, and a run with nothing changed says nothing.  Replayed against cf-agent 3.21 when
installed (each agent with its own state, on the same files)."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.edit import cfagent
from tests.files.agentrun import run_agent

POLICY = """
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main
{{
  files:
    "{d}/c1" changes => all;
    "{d}/dd" changes => all, depth_search => deep;
}}
body changes all {{ hash => "sha256"; report_changes => "all"; update_hashes => "yes"; }}
body depth_search deep {{ depth => "inf"; }}
"""


def _setup(d: Path) -> None:
    (d / "dd" / "sub").mkdir(parents=True)
    (d / "c1").write_text("a\n")
    (d / "c1").chmod(0o644)
    (d / "dd" / "q1").write_text("q\n")
    (d / "dd" / "sub" / "s1").write_text("s\n")


def _change(d: Path) -> None:
    with open(d / "c1", "a") as fh:
        fh.write("b\n")
    (d / "c1").chmod(0o600)
    (d / "dd" / "q2").write_text("new\n")
    (d / "dd" / "q1").unlink()
    (d / "dd" / "sub" / "s2").write_text("t\n")


# Whether a run reports a changed modification time depends on whether the edit between
# runs crossed a second boundary (for cf-agent too): those lines are left out, and so is
# "Wrote stat information changes" for a file whose only recorded change was its mtime.
_TIMING = ("Last modified time for",
           "Recorded mtime changes in")


def _lines(out: str, d: Path) -> list[str]:
    keep = ("    info: ", "  notice: ", " warning: ", "   error: ")
    lines = [line.replace(str(d), "{d}") for line in out.splitlines() if line.startswith(keep)]
    recorded: dict[str, set[str]] = {}
    for line in lines:
        m = re.search(r"Recorded (\w+) changes in '(.*)'", line)
        if m:
            recorded.setdefault(m.group(2), set()).add(m.group(1))
    only_mtime = {path for path, kinds in recorded.items() if kinds == {"mtime"}}
    return [line for line in lines if not any(t in line for t in _TIMING) and not any(
        f"Wrote stat information changes for '{path}'" in line for path in only_mtime)]


def _three_runs(base: Path, runner: str) -> list[list[str]]:
    d = base / "d"
    _setup(d)
    policy = base / "p.cf"
    policy.write_text(POLICY.format(d=d))
    policy.chmod(0o600)
    outs = []
    for step in range(3):
        if step == 1:
            _change(d)
        if runner == "lite":
            _code, out = run_agent(base, policy)
        else:
            _code, out = cfagent.run_cf_agent(base, policy)
        outs.append(_lines(out, d))
    return outs


def test_tripwire(tmp_path: Path) -> None:
    first, second, third = _three_runs(tmp_path, "lite")
    assert "  notice: New file '{d}/dd/q1' found" in first
    assert "    info: Stored sha256 hash for '{d}/c1' (SHA=" \
           "87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7)" in first
    assert second == [
        "    info: Hash 'sha256' for '{d}/c1' changed!",
        "    info: Updated sha256 hash for '{d}/c1' (SHA="
        "911169ddaaf146aff539f58c26c489af3b892dff0fe283c1c264c65ae5aa59a2)",
        "    info: Recorded integrity changes in '{d}/c1'",
        "  notice: Permissions for '{d}/c1' changed 100644 -> 100600",
        "    info: Recorded permissions changes in '{d}/c1'",
        "    info: Wrote stat information changes for '{d}/c1' to database",
        "  notice: New file '{d}/dd/q2' found",
        "    info: Stored sha256 hash for '{d}/dd/q2' (SHA="
        "7aa7a5359173d05b63cfd682e3c38487f3cb4f7f1d60659fe59fab1505977d4c)",
        "    info: Wrote stat information for '{d}/dd/q2' to database",
        "  notice: New file '{d}/dd/sub/s2' found",
        "    info: Stored sha256 hash for '{d}/dd/sub/s2' (SHA="
        "fe8edeeb98cc6d3b93cf2d57000254b84bd9eba34b4df7ce4b87db8b937b7703)",
        "    info: Wrote stat information for '{d}/dd/sub/s2' to database",
        "    info: Recorded directory listing for '{d}/dd/sub'",
        "  notice: File '{d}/dd/q1' no longer exists",
        "    info: Removal of '{d}/dd/q1' recorded",
        "    info: Recorded directory listing for '{d}/dd'",
    ]
    assert third == []
    log = (tmp_path / "work" / "state" / "file_changes.log").read_text().splitlines()
    assert [line.split(",", 1)[1] for line in log if ",C," in line] == \
        [f",{tmp_path}/d/c1,C,Content changed"]


@pytest.mark.skipif(not cfagent.available(), reason="cf-agent 3.21 not installed")
def test_tripwire_as_cf_agent(tmp_path: Path) -> None:
    lite = _three_runs(tmp_path / "lite", "lite")
    ref = _three_runs(tmp_path / "ref", "ref")
    assert lite == ref
    shutil.rmtree(tmp_path / "ref", ignore_errors=True)
