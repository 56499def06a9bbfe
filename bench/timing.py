"""Best-of-N wall times of whole processes, the programs compared taking turns.

The machines these benchmarks run on are noisy: a burst of other work can last
a second or more, so timing all of one program's repetitions and then all of
the other's can give one of them a quiet stretch and the other a busy one.
Here each round runs every program once, in alternating order (A B, then B A),
and the best time of each is kept, so that both see the same conditions.
"""
from __future__ import annotations

import subprocess
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


def _exit_status(proc: subprocess.CompletedProcess[str]) -> str | None:
    if proc.returncode != 0:
        return f"exited {proc.returncode}:\n{proc.stdout[-1000:]}\n{proc.stderr[-2000:]}"
    return None


def best_of(runs: dict[str, Run], repeat: int) -> dict[str, float]:
    """The best wall time in seconds of each run over ``repeat`` rounds (see the module)."""
    best = {name: float("inf") for name in runs}
    order = list(runs)
    for round_ in range(repeat):
        for name in order if round_ % 2 == 0 else reversed(order):
            run = runs[name]
            if run.before is not None:
                run.before()
            start = time.perf_counter()
            proc = subprocess.run(run.cmd, capture_output=True, text=True, env=run.env)
            elapsed = time.perf_counter() - start
            problem = _exit_status(proc) or run.check(proc)
            if problem is not None:
                raise SystemExit(f"{name} ({run.cmd[0]}) {problem}")
            best[name] = min(best[name], elapsed)
    return best
