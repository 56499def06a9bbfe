"""Best-of-N wall times of whole processes, the programs compared taking turns.

The machines these benchmarks run on are noisy: a burst of other work can last
a second or more, so timing all of one program's repetitions and then all of
the other's can give one of them a quiet stretch and the other a busy one.
Here each round runs every program once, in alternating order (A B, then B A),
and the best time of each is kept, so that both see the same conditions.  Each
run's own peak resident memory comes from ``wait4``.
"""
from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable


@dataclass
class Run:
    """One program to time: its command line, environment, what to do before each run
    (such as emptying a cache), and a check of its result (an error text or None)."""

    cmd: list[str]
    env: dict[str, str] | None = None
    before: Callable[[], None] | None = None
    check: Callable[[subprocess.CompletedProcess[str]], str | None] = field(
        default=lambda proc: None)


@dataclass
class Result:
    """A program's best wall time (seconds) and its largest peak resident memory (KiB)."""

    best: float = float("inf")
    peak_kib: int = 0


def _exit_status(proc: subprocess.CompletedProcess[str]) -> str | None:
    if proc.returncode != 0:
        return f"exited {proc.returncode}:\n{proc.stdout[-1000:]}\n{proc.stderr[-2000:]}"
    return None


def run_once(run: Run) -> tuple[float, int, subprocess.CompletedProcess[str]]:
    """(wall seconds, peak RSS in KiB, the finished process) of one run of ``run``."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(run.cmd, stdout=out, stderr=err, env=run.env)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        done = subprocess.CompletedProcess(run.cmd, proc.returncode,
                                           out.read().decode(errors="replace"),
                                           err.read().decode(errors="replace"))
    return elapsed, usage.ru_maxrss, done


def best_of(runs: dict[str, Run], repeat: int) -> dict[str, Result]:
    """Each run's best wall time and peak memory over ``repeat`` rounds (see the module)."""
    results = {name: Result() for name in runs}
    order = list(runs)
    for round_ in range(repeat):
        for name in order if round_ % 2 == 0 else reversed(order):
            run = runs[name]
            if run.before is not None:
                run.before()
            elapsed, peak, proc = run_once(run)
            problem = _exit_status(proc) or run.check(proc)
            if problem is not None:
                raise SystemExit(f"{name} ({run.cmd[0]}) {problem}")
            result = results[name]
            result.best = min(result.best, elapsed)
            result.peak_kib = max(result.peak_kib, peak)
    return results
