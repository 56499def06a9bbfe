"""Benchmark: validating masterfiles, ``cf-lite-promises -f promises.cf`` against
``cf-promises -f promises.cf`` (CFEngine 3.21), in one run of this script.

masterfiles (/usr/share/cfengine3/masterfiles) is copied into a scratch
directory; each program validates its promises.cf as a fresh process per
repetition, with its own work directory.  cf-lite is timed twice:

* cold: its parsed-policy cache (WORKDIR/state/policy_cache) emptied before each
  run, so every file is parsed and validated (goal: at most 3x cf-promises);
* warm: the cache filled by a first run and kept (goal: at most 1.5x).

Prints the best of ``--repeat`` for each and the ratios; the three take turns,
round by round (bench/timing.py).  Skips, saying so,
without CFEngine.  Usage: python bench/validate.py [--repeat N]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from timing import Run, best_of

MASTERFILES = Path("/usr/share/cfengine3/masterfiles")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    ref = shutil.which("cf-promises")
    if ref is None or not MASTERFILES.is_dir():
        print("skipped: needs CFEngine 3.21 (cf-promises and masterfiles; apt-get install cfengine3)")
        return 0
    beside = Path(sys.executable).parent / "cf-lite-promises"
    lite = str(beside) if beside.exists() else shutil.which("cf-lite-promises") or "cf-lite-promises"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        inputs = root / "masterfiles"
        shutil.copytree(MASTERFILES, inputs, symlinks=True)
        entry = str(inputs / "promises.cf")
        lite_wd, ref_wd = root / "lite", root / "ref"
        lite_wd.mkdir(mode=0o700)
        ref_wd.mkdir(mode=0o700)
        env = dict(os.environ)
        lite_cmd = [lite, "-w", str(lite_wd), "-f", entry]
        cache = lite_wd / "state" / "policy_cache"
        warm_wd = root / "lite-warm"
        warm_wd.mkdir(mode=0o700)
        warm_cmd = [lite, "-w", str(warm_wd), "-f", entry]
        best_of({"warm": Run(warm_cmd, env)}, 1)            # fills the warm cache
        best = best_of({"cold": Run(lite_cmd, env, before=lambda: shutil.rmtree(cache, True)),
                        "warm": Run(warm_cmd, env),
                        "cf-promises": Run([ref, "-f", entry],
                                           dict(env, CFENGINE_TEST_OVERRIDE_WORKDIR=str(ref_wd)))},
                       args.repeat)
        cold, warm, theirs = (best[name].best for name in ("cold", "warm", "cf-promises"))
        print(f"validating masterfiles' promises.cf, best of {args.repeat}")
        print(f"cf-lite-promises cold cache: {cold * 1000:7.0f} ms")
        print(f"cf-lite-promises warm cache: {warm * 1000:7.0f} ms")
        print(f"cf-promises:                 {theirs * 1000:7.0f} ms")
        print(f"ratio cold: {cold / theirs:.2f}x (goal: at most 3x)")
        print(f"ratio warm: {warm / theirs:.2f}x (goal: at most 1.5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
