"""Benchmark: parsing masterfiles' standard library (lib/*.cf), cf-lite against cf-promises.

Both parse the same files in one run of this script, each as a fresh process per
repetition (start-up included, as a user would run them); prints the times and
the ratio cf-lite / cf-promises.  Usage: python bench/parse.py [--repeat N] [LIBDIR]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_LIB = Path("/usr/share/cfengine3/masterfiles/lib")


def policy_including(lib: Path, tmp: Path) -> Path:
    """One entry file whose inputs are every lib/*.cf (what a real policy loads)."""
    files = sorted(str(p) for p in lib.glob("*.cf"))
    entry = tmp / "parse_bench.cf"
    inputs = ", ".join(f'"{f}"' for f in files)
    entry.write_text(f"body common control\n{{\n  inputs => {{ {inputs} }};\n}}\n")
    entry.chmod(0o600)
    return entry


def timed(cmd: list[str], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            raise SystemExit(f"{cmd[0]} failed: {proc.stderr[:500]}")
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("lib", nargs="?", type=Path, default=DEFAULT_LIB)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    if not args.lib.is_dir():
        print(f"no standard library at {args.lib}", file=sys.stderr)
        return 1
    beside = Path(sys.executable).parent / "cf-lite-promises"
    lite = str(beside) if beside.exists() else shutil.which("cf-lite-promises") or "cf-lite-promises"
    ref = shutil.which("cf-promises")
    with tempfile.TemporaryDirectory() as tmpdir:
        entry = policy_including(args.lib, Path(tmpdir))
        lines = sum(len(p.read_text().splitlines()) for p in args.lib.glob("*.cf"))
        print(f"parsing {len(list(args.lib.glob('*.cf')))} files, {lines} lines, best of {args.repeat}")
        mine = min(timed([lite, "-f", str(entry)], args.repeat))
        print(f"cf-lite-promises: {mine * 1000:8.1f} ms")
        if ref is None:
            print("cf-promises not installed: no ratio")
            return 0
        theirs = min(timed([ref, "-f", str(entry)], args.repeat))
        print(f"cf-promises:      {theirs * 1000:8.1f} ms")
        print(f"ratio cf-lite / cf-promises: {mine / theirs:.2f}x (goal: at most 3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
