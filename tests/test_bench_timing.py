"""bench/timing.py: the programs compared take turns, and a failed run stops the benchmark."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from timing import Run, best_of  # noqa: E402


def test_programs_take_turns_in_alternating_order(tmp_path: Path) -> None:
    log = tmp_path / "order"
    runs = {name: Run(["sh", "-c", f"echo {name} >> {log}"]) for name in ("a", "b")}
    best = best_of(runs, 3)
    assert log.read_text().split() == ["a", "b", "b", "a", "a", "b"]
    assert set(best) == {"a", "b"} and all(0 < r.best < 60 for r in best.values())
    assert all(r.peak_kib > 0 for r in best.values())


def test_before_runs_ahead_of_each_run_and_failures_stop(tmp_path: Path) -> None:
    seen: list[int] = []
    best_of({"x": Run(["true"], before=lambda: seen.append(1))}, 4)
    assert seen == [1, 1, 1, 1]
    with pytest.raises(SystemExit, match="exited 3"):
        best_of({"bad": Run(["sh", "-c", "exit 3"])}, 1)
    memory = best_of({"big": Run([sys.executable, "-c", "b = bytearray(64 << 20); b[::4096] = "
                                  "b'x' * len(b[::4096])"])}, 1)
    assert memory["big"].peak_kib > 64 << 10                      # its own peak, from wait4
    with pytest.raises(SystemExit, match="no output"):
        best_of({"quiet": Run(["true"], check=lambda proc: proc.stdout or "no output")}, 1)
