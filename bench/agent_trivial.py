"""Benchmark: cf-lite-agent against cf-agent 3.21 on a one-report policy.

Both run the same policy file, each a fresh process per repetition with its own
scratch work directory (Python start-up included, as cron runs it).  Prints the
best wall time of each and the ratio; the goal is at most 2x.  The two take turns,
round by round (bench/timing.py).
Usage: python bench/agent_trivial.py [--repeat N]
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from timing import Run, best_of

POLICY = 'bundle agent main\n{\n  reports:\n    "hello from $(sys.host)";\n}\n'


def _reported(proc: subprocess.CompletedProcess[str]) -> str | None:
    return None if "R: hello" in proc.stdout else f"did not report:\n{proc.stdout}\n{proc.stderr}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args()
    beside = Path(sys.executable).parent / "cf-lite-agent"
    lite = str(beside) if beside.exists() else shutil.which("cf-lite-agent") or "cf-lite-agent"
    with tempfile.TemporaryDirectory() as tmp:
        policy = Path(tmp) / "trivial.cf"
        policy.write_text(POLICY)
        policy.chmod(0o600)
        lite_wd, ref_wd = Path(tmp) / "lite", Path(tmp) / "ref"
        (ref_wd / "bin").mkdir(parents=True)
        env = dict(os.environ)
        runs = {"cf-lite-agent": Run([lite, "-K", "-f", str(policy), "-w", str(lite_wd)], env,
                                     check=_reported)}
        ref = shutil.which("cf-agent")
        if ref is not None:
            promises = shutil.which("cf-promises")
            if promises:
                os.symlink(promises, ref_wd / "bin" / "cf-promises")
            runs["cf-agent"] = Run([ref, "-K", "-f", str(policy)],
                                   dict(env, CFENGINE_TEST_OVERRIDE_WORKDIR=str(ref_wd)),
                                   check=_reported)
        best = best_of(runs, args.repeat)
        mine = best["cf-lite-agent"].best
        print(f"cf-lite-agent: {mine * 1000:7.1f} ms")
        if ref is None:
            print("cf-agent not installed: no ratio")
            return 0
        theirs = best["cf-agent"].best
        print(f"cf-agent:      {theirs * 1000:7.1f} ms")
        print(f"ratio cf-lite / cf-agent: {mine / theirs:.2f}x (goal: at most 2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
