"""Crash safety: an agent killed (SIGKILL) at any moment leaves every file old or new.

The policy edits many largish files (so that a kill often lands in the middle of
writing one) and copies a few; the agent is started and killed after a random
delay, several times, each time from the same starting state.  Every target
file must then hold exactly its old or exactly its new content -- never a torn
mix, never missing -- whatever leftovers (``.cf-after-edit``, ``.cfnew``) lie
beside it.
"""
from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.files.agentrun import agent_command

COUNT = 60
LINES = 8000


def _old(i: int) -> str:
    return "".join(f"file {i} line {n} obsolete\n" if n % 7 == 0 else f"file {i} line {n}\n"
                   for n in range(LINES))


def _new(i: int) -> str:
    kept = [f"file {i} line {n}\n" for n in range(LINES) if n % 7 != 0]
    return "".join(kept) + f"managed {i}\n"


def _policy(base: Path) -> str:
    promises = "".join(
        f'    "{base}/t/f{i}" edit_line => e("{i}"), edit_defaults => big;\n'
        for i in range(COUNT))
    copies = "".join(
        f'    "{base}/t/c{i}" copy_from => cp("{base}/src{i}");\n' for i in range(5))
    return f"""
body common control {{ bundlesequence => {{ "main" }}; }}
body edit_defaults big {{ max_file_size => "100000000"; edit_backup => "false"; }}
body copy_from cp(s) {{ source => "$(s)"; compare => "digest"; copy_backup => "false"; }}
bundle edit_line e(i)
{{
  delete_lines:
      ".* obsolete";
  insert_lines:
      "managed $(i)";
}}
bundle agent main
{{
  files:
{promises}{copies}}}
"""


def _setup(base: Path) -> None:
    (base / "t").mkdir(parents=True, exist_ok=True)
    for i in range(COUNT):
        (base / "t" / f"f{i}").write_text(_old(i))
    for i in range(5):
        (base / f"src{i}").write_text(_new(i) * 3)
        (base / "t" / f"c{i}").write_text(_old(i) * 3)


def _check(base: Path) -> int:
    """Assert every file is whole; return how many are new."""
    new = 0
    for i in range(COUNT):
        text = (base / "t" / f"f{i}").read_text()
        assert text in (_old(i), _new(i)), f"f{i} is torn ({len(text)} bytes)"
        new += text == _new(i)
    for i in range(5):
        text = (base / "t" / f"c{i}").read_text()
        assert text in (_old(i) * 3, _new(i) * 3), f"c{i} is torn"
    return new


@pytest.mark.parametrize("seed", range(4))
def test_killed_agent_leaves_old_or_new(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    policy = tmp_path / "p.cf"
    policy.write_text(_policy(tmp_path))
    policy.chmod(0o600)
    _setup(tmp_path)
    workdir = tmp_path / "work"
    workdir.mkdir()
    env = dict(os.environ)
    env.pop("CFENGINE_TEST_OVERRIDE_WORKDIR", None)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    # a full run, timed, to know the window to kill in
    start = time.monotonic()
    proc = subprocess.run(agent_command(policy, workdir), env=env, cwd=root,
                          capture_output=True, text=True, timeout=300)
    full = time.monotonic() - start
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _check(tmp_path) == COUNT
    for attempt in range(3):
        _setup(tmp_path)
        child = subprocess.Popen(agent_command(policy, workdir), env=env, cwd=root,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.05, full))
        child.send_signal(signal.SIGKILL)
        child.wait()
        _check(tmp_path)
        # and a run after the crash finishes the job
        if attempt == 2:
            proc = subprocess.run(agent_command(policy, workdir), env=env, cwd=root,
                                  capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0
            assert _check(tmp_path) == COUNT
