"""Benchmark: cf-lite-agent against cf-agent 3.21 on a one-report policy.

Both run the same policy file, each a fresh process per repetition with its own
scratch work directory (Python start-up included, as cron runs it).  Prints the
best wall time of each and the ratio; the goal is at most 2x.
Usage: python bench/agent_trivial.py [--repeat N]
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

POLICY = 'bundle agent main\n{\n  reports:\n    "hello from $(sys.host)";\n}\n'


def best(cmd: list[str], env: dict[str, str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0 or "R: hello" not in proc.stdout:
            raise SystemExit(f"{cmd[0]} failed:\n{proc.stdout}\n{proc.stderr}")
    return min(times)


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
        mine = best([lite, "-K", "-f", str(policy), "-w", str(lite_wd)], env, args.repeat)
        print(f"cf-lite-agent: {mine * 1000:7.1f} ms")
        ref = shutil.which("cf-agent")
        if ref is None:
            print("cf-agent not installed: no ratio")
            return 0
        promises = shutil.which("cf-promises")
        if promises:
            os.symlink(promises, ref_wd / "bin" / "cf-promises")
        env["CFENGINE_TEST_OVERRIDE_WORKDIR"] = str(ref_wd)
        theirs = best([ref, "-K", "-f", str(policy)], env, args.repeat)
        print(f"cf-agent:      {theirs * 1000:7.1f} ms")
        print(f"ratio cf-lite / cf-agent: {mine / theirs:.2f}x (goal: at most 2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
