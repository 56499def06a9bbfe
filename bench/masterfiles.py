"""Benchmark: the masterfiles policy framework, cf-lite-agent against cf-agent 3.21.

CFEngine 3.21's masterfiles (/usr/share/cfengine3/masterfiles, Debian package
cfengine3) is copied as each agent's WORKDIR/inputs and run there with
``-n -K -f WORKDIR/inputs/promises.cf`` (a dry run: a normal run of masterfiles
starts and manages CFEngine's daemons, so the dry run is the comparable workload
on a test machine):

* first run: a fresh work directory;
* converged run: the same work directory again (best of ``--repeat``);

the two agents take turns, round by round (bench/timing.py).

masterfiles names ``apt_get`` as its ``package_inventory``: cf-lite falls back to
its own module when WORKDIR/modules/packages holds none, cf-agent skips the
inventory without one.  So that both do the same work, each work directory gets
the module (cf-lite's ``apt_get``: one protocol, either agent runs it); both then
stop at masterfiles' ``interpreter`` ($(sys.bindir)/cfengine-selected-python,
which only masterfiles' update policy installs) with the same error, and neither
runs ``apt-get update`` (whose time depends on the network, not the agent).

Each run is a fresh process; its wall time and its own peak resident memory
(``wait4``) are printed, then the ratios cf-lite / cf-agent (goals: converged at
most 1.0x, first run at most 1.5x).  Skips, saying so, without CFEngine.
Usage: python bench/masterfiles.py [--repeat N] [--profile FILE]
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

MASTERFILES = Path("/usr/share/cfengine3/masterfiles")
APT_GET = Path(__file__).resolve().parent.parent / "cfpromise" / "modules" / "packages" / "apt_get"


def workdir(root: Path, name: str) -> Path:
    wd = root / name
    shutil.copytree(MASTERFILES, wd / "inputs", symlinks=True)
    (wd / "bin").mkdir(parents=True)
    modules = wd / "modules" / "packages"
    modules.mkdir(parents=True)
    shutil.copy2(APT_GET, modules / "apt_get")
    for prog in ("cf-promises", "cf-agent"):
        found = shutil.which(prog)
        if found:
            os.symlink(found, wd / "bin" / prog)
    return wd


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--profile", metavar="FILE",
                    help="also write a cProfile of one converged cf-lite run to FILE")
    args = ap.parse_args()
    ref = shutil.which("cf-agent")
    if ref is None or not MASTERFILES.is_dir():
        print("skipped: needs CFEngine 3.21 (cf-agent and masterfiles; apt-get install cfengine3)")
        return 0
    beside = Path(sys.executable).parent / "cf-lite-agent"
    lite = str(beside) if beside.exists() else shutil.which("cf-lite-agent") or "cf-lite-agent"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        lite_wd, ref_wd = workdir(root, "lite"), workdir(root, "ref")
        env = dict(os.environ)
        lite_cmd = [lite, "-n", "-K", "-f", str(lite_wd / "inputs" / "promises.cf"),
                    "-w", str(lite_wd)]
        ref_env = dict(env, CFENGINE_TEST_OVERRIDE_WORKDIR=str(ref_wd))
        runs = {"cf-lite-agent": Run(lite_cmd, env),
                "cf-agent": Run([ref, "-n", "-K", "-f", str(ref_wd / "inputs" / "promises.cf")],
                                ref_env)}
        first = best_of(runs, 1)                 # each in its fresh work directory
        converged = best_of(runs, args.repeat)   # the same work directories again
        for name in runs:
            peak = max(first[name].peak_kib, converged[name].peak_kib)
            print(f"{name:14s} first {first[name].best * 1000:7.0f} ms   converged "
                  f"{converged[name].best * 1000:7.0f} ms   peak RSS {peak / 1024:6.1f} MiB")
        mine, theirs = (first["cf-lite-agent"], converged["cf-lite-agent"]), \
            (first["cf-agent"], converged["cf-agent"])
        print(f"ratio first run:       {mine[0].best / theirs[0].best:.2f}x (goal: at most 1.5x)")
        print(f"ratio converged run:   {mine[1].best / theirs[1].best:.2f}x (goal: at most 1.0x)")
        peaks = [max(a.peak_kib, b.peak_kib) for a, b in (mine, theirs)]
        print(f"ratio peak memory:     {peaks[0] / peaks[1]:.2f}x")
        if args.profile:
            subprocess.run([sys.executable, "-m", "cProfile", "-o", args.profile,
                            "-m", "cfpromise.cli.agent", *lite_cmd[1:]],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            print(f"profile of a converged cf-lite run: {args.profile}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
