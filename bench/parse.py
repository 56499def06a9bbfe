"""Benchmark: parsing masterfiles' standard library, cf-lite against cf-promises.

Both parse the same files in one run of this script, each as a fresh process per
repetition (start-up included, as a user would run them); prints the times and
the ratio cf-lite / cf-promises.  By default the entry file names every
lib/*.cf as an input (what a real policy loads); ``--file FILE`` parses that one
file alone (issue #15's check: ``lib/files.cf`` at most 3x cf-promises).

Each repetition starts from an empty work directory, so that cf-lite's cache of
parsed files (WORKDIR/state/policy_cache) is cold and the time is the parse's;
``--warm`` keeps the cache between repetitions (the cron agent's case).  The two
programs take turns, round by round (bench/timing.py).
Usage: python bench/parse.py [--repeat N] [--file FILE] [--warm] [LIBDIR]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from timing import Run, best_of

DEFAULT_LIB = Path("/usr/share/cfengine3/masterfiles/lib")


def policy_including(lib: Path, tmp: Path) -> Path:
    """One entry file whose inputs are every lib/*.cf (what a real policy loads)."""
    files = sorted(str(p) for p in lib.glob("*.cf"))
    entry = tmp / "parse_bench.cf"
    inputs = ", ".join(f'"{f}"' for f in files)
    entry.write_text(f"body common control\n{{\n  inputs => {{ {inputs} }};\n}}\n")
    entry.chmod(0o600)
    return entry


def lite_program(name: str) -> str:
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name) or name


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("lib", nargs="?", type=Path, default=DEFAULT_LIB)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--file", type=Path, help="parse this one file alone (e.g. LIBDIR/files.cf)")
    ap.add_argument("--warm", action="store_true",
                    help="keep cf-lite's parsed-policy cache between repetitions")
    args = ap.parse_args()
    if args.file is None and not args.lib.is_dir():
        print(f"no standard library at {args.lib}", file=sys.stderr)
        return 1
    lite = lite_program("cf-lite-promises")
    ref = shutil.which("cf-promises")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        if args.file is not None:
            entry = args.file.resolve()
            print(f"parsing {entry} alone, {len(entry.read_text().splitlines())} lines, "
                  f"best of {args.repeat}, {'warm' if args.warm else 'cold'} cache")
        else:
            entry = policy_including(args.lib, tmp)
            lines = sum(len(p.read_text().splitlines()) for p in args.lib.glob("*.cf"))
            print(f"parsing {len(list(args.lib.glob('*.cf')))} files, {lines} lines, "
                  f"best of {args.repeat}, {'warm' if args.warm else 'cold'} cache")
        workdir = tmp / "lite"
        workdir.mkdir(mode=0o700)
        lite_cmd = [lite, "-w", str(workdir), "-f", str(entry)]

        def empty_workdir() -> None:
            shutil.rmtree(workdir, ignore_errors=True)
            workdir.mkdir(mode=0o700)

        runs = {"cf-lite-promises": Run(lite_cmd, before=None if args.warm else empty_workdir)}
        if args.warm:
            best_of(runs, 1)                    # fills the cache
        if ref is not None:
            ref_wd = tmp / "ref"
            ref_wd.mkdir(mode=0o700)
            env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(ref_wd))
            runs["cf-promises"] = Run([ref, "-f", str(entry)], env)
        best = best_of(runs, args.repeat)
        mine = best["cf-lite-promises"].best
        print(f"cf-lite-promises: {mine * 1000:8.1f} ms")
        if ref is None:
            print("cf-promises not installed: no ratio")
            return 0
        theirs = best["cf-promises"].best
        print(f"cf-promises:      {theirs * 1000:8.1f} ms")
        print(f"ratio cf-lite / cf-promises: {mine / theirs:.2f}x (goal: at most 3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
