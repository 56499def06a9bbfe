"""Benchmark: files promises at scale, cf-lite-agent against cf-agent 3.21.

For N in 1,000 and 5,000 (``--sizes``) the same generated policy -- N files
promises, each ``create``, ``perms`` (mode 0640) and an ``edit_line`` bundle with
``insert_lines`` and ``delete_lines`` -- is run by both agents, each in its own
scratch directory of target files and its own work directory:

* first run: the files do not exist (created, chmod'ed, edited);
* converged run: the same policy again (everything kept).

Both agents are fresh processes (start-up and parsing included) run with
``-K``.  Prints wall times and the ratios cf-lite / cf-agent (goals: converged
at most 1.0x, first run at most 1.5x) and checks that both agents left the
same files behind.
Usage: python bench/files_scale.py [--sizes 1000,5000] [--repeat N]
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

HEADER = """
body common control
{
  bundlesequence => { "main" };
}

body perms bench_mode
{
  mode => "0640";
  rxdirs => "false";
}

bundle edit_line bench_edit(name)
{
  delete_lines:
      "# obsolete.*";
  insert_lines:
      "# managed by the benchmark";
      "name = $(name)";
}

bundle agent main
{
  files:
"""


def make_policy(path: Path, target_dir: Path, count: int) -> None:
    parts = [HEADER]
    for i in range(count):
        parts.append(f'      "{target_dir}/file{i:05d}.conf"\n'
                     f'        create => "true",\n'
                     f'        perms => bench_mode,\n'
                     f'        edit_line => bench_edit("file{i}");\n')
    parts.append("}\n")
    path.write_text("".join(parts))
    path.chmod(0o600)


def lite_command() -> list[str]:
    """cf-lite-agent as installed beside this Python (else on PATH)."""
    beside = Path(sys.executable).parent / "cf-lite-agent"
    return [str(beside) if beside.exists() else shutil.which("cf-lite-agent") or "cf-lite-agent"]


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n"
                         f"{proc.stderr[-2000:]}")
    return elapsed


def snapshot(directory: Path) -> dict[str, tuple[int, bytes]]:
    out = {}
    for entry in sorted(directory.iterdir()):
        if entry.name.endswith(".conf"):
            out[entry.name] = (entry.stat().st_mode & 0o7777, entry.read_bytes())
    return out


def bench_one(count: int, repeat: int, lite: list[str], tmp: Path) -> tuple[float, ...]:
    results: dict[str, tuple[float, float]] = {}
    states = {}
    for agent in ("cf-lite", "cf-agent"):
        firsts, converged = [], []
        for rep in range(repeat):
            base = tmp / f"{agent}-{count}-{rep}"
            targets = base / "targets"
            targets.mkdir(parents=True)
            policy = base / "bench.cf"
            make_policy(policy, targets, count)
            workdir = base / "work"
            (workdir / "bin").mkdir(parents=True)
            env = dict(os.environ)
            if agent == "cf-agent":
                promises = shutil.which("cf-promises") or "/usr/bin/cf-promises"
                os.symlink(promises, workdir / "bin" / "cf-promises")
                env["CFENGINE_TEST_OVERRIDE_WORKDIR"] = str(workdir)
                cmd = [shutil.which("cf-agent") or "/usr/bin/cf-agent", "-K", "-f", str(policy)]
            else:
                env.pop("CFENGINE_TEST_OVERRIDE_WORKDIR", None)
                cmd = [*lite, "-K", "-f", str(policy), "-w", str(workdir)]
            firsts.append(timed(cmd, env))
            converged.append(timed(cmd, env))
            states[agent] = snapshot(targets)
            shutil.rmtree(base)
        results[agent] = (min(firsts), min(converged))
    if states["cf-lite"] != states["cf-agent"]:
        print(f"  WARNING: the agents left different files behind for N={count}")
    (lf, lc), (rf, rc) = results["cf-lite"], results["cf-agent"]
    return lf, lc, rf, rc


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,5000")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    if shutil.which("cf-agent") is None and not os.path.exists("/usr/bin/cf-agent"):
        print("cf-agent not installed: no comparison")
        return 1
    lite = lite_command()
    print(f"{'N':>6}  {'run':<10} {'cf-lite':>9} {'cf-agent':>9} {'ratio':>7}  goal")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for count in (int(s) for s in args.sizes.split(",")):
            lf, lc, rf, rc = bench_one(count, args.repeat, lite, tmp)
            print(f"{count:>6}  {'first':<10} {lf:8.2f}s {rf:8.2f}s {lf / rf:6.2f}x  <= 1.5x")
            print(f"{count:>6}  {'converged':<10} {lc:8.2f}s {rc:8.2f}s {lc / rc:6.2f}x  <= 1.0x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
