"""bench/callgrind.py: the instruction counts of a warm run, read from valgrind's summary;
without valgrind it says so and stops (no figure is asserted: counts depend on the host)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))
import callgrind  # noqa: E402


def test_skips_saying_so_without_valgrind(tmp_path: Path) -> None:
    env = dict(os.environ, PATH=str(tmp_path))          # no valgrind on this PATH
    proc = subprocess.run([sys.executable, str(BENCH / "callgrind.py")], capture_output=True,
                          text=True, env=env, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("skipped: needs valgrind")


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
def test_counts_the_instructions_of_the_traced_run(tmp_path: Path) -> None:
    out = tmp_path / "cg.out"
    small = callgrind.instructions(["/bin/true"], out, None)
    bigger = callgrind.instructions(["/bin/sh", "-c", "i=0; while [ $i -lt 2000 ]; do "
                                     "i=$((i+1)); done"], out, None)
    assert 0 < small < bigger and out.exists()
    with pytest.raises(SystemExit, match="no 'R: hello'"):
        callgrind.instructions(["/bin/true"], out, "R: hello")
