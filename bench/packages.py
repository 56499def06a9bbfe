"""Benchmark: 50 installed Debian packages promised present, cf-lite against cf-agent 3.21.

A converged run: every package is already installed, so each agent only asks
its package module.  cf-lite uses its own ``apt_get`` module (shipped in the
package); cf-agent uses masterfiles' rendered ``apt_get`` module in its work
directory, run by ``bin/cfengine-selected-python`` (a link to python3), as
masterfiles' ``package_module apt_get`` body says.  Both bodies refresh the
installed list on every run (``query_installed_ifelapsed => "0"``) and the
updates once a day.  Each agent first runs once to fill its caches, then the
best of ``--repeat`` fresh processes is kept (start-up included, as cron runs
it).  Prints both wall times and the ratio; the goal is at most 1.0x.
Usage: python bench/packages.py [--repeat N] [--count N]
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

VENDORED = Path("/usr/share/cfengine3/masterfiles/modules/packages/vendored/apt_get.mustache")

POLICY = """body common control
{{
  bundlesequence => {{ "main" }};
}}
body package_module apt_get
{{
  query_installed_ifelapsed => "0";
  query_updates_ifelapsed => "1440";
{interpreter}}}
bundle agent main
{{
  packages:
{promises}
  reports:
      "converged";
}}
"""


def installed_packages(count: int) -> list[str]:
    out = subprocess.run(["dpkg-query", "-W", "--showformat", "${Status} ${Package}\n"],
                         capture_output=True, text=True, check=True).stdout
    names = sorted(line.split()[-1] for line in out.splitlines()
                   if line.startswith("install ok installed"))
    return names[:count]


def policy(names: list[str], interpreter: str) -> str:
    promises = "".join(f'      "{n}" policy => "present", package_module => apt_get;\n'
                       for n in names)
    return POLICY.format(promises=promises, interpreter=interpreter)


def best(cmd: list[str], env: dict[str, str], repeat: int) -> float:
    times = []
    for i in range(repeat + 1):
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0 or "R: converged" not in proc.stdout or "error" in proc.stdout:
            raise SystemExit(f"{cmd[0]} failed:\n{proc.stdout}\n{proc.stderr}")
        if i:                                   # the first run fills the caches
            times.append(elapsed)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--count", type=int, default=50)
    args = ap.parse_args()
    if not shutil.which("dpkg-query"):
        print("needs dpkg-query (Debian)")
        return 0
    names = installed_packages(args.count)
    beside = Path(sys.executable).parent / "cf-lite-agent"
    lite = str(beside) if beside.exists() else shutil.which("cf-lite-agent") or "cf-lite-agent"
    with tempfile.TemporaryDirectory() as tmp:
        lite_policy, ref_policy = Path(tmp) / "lite.cf", Path(tmp) / "ref.cf"
        lite_policy.write_text(policy(names, ""))
        ref_policy.write_text(policy(names, '  interpreter => "$(sys.bindir)/'
                                            'cfengine-selected-python";\n'))
        for path in (lite_policy, ref_policy):
            path.chmod(0o600)
        lite_wd, ref_wd = Path(tmp) / "lite", Path(tmp) / "ref"
        env = dict(os.environ)
        mine = best([lite, "-K", "-f", str(lite_policy), "-w", str(lite_wd)], env, args.repeat)
        print(f"{len(names)} packages present, converged")
        print(f"cf-lite-agent (cf-lite apt_get):      {mine:7.2f} s")
        ref = shutil.which("cf-agent")
        if ref is None or not VENDORED.is_file():
            print("cf-agent or masterfiles not installed: no ratio")
            return 0
        (ref_wd / "bin").mkdir(parents=True)
        (ref_wd / "modules" / "packages").mkdir(parents=True)
        os.symlink(shutil.which("python3") if not os.path.exists("/usr/bin/python3")
                   else "/usr/bin/python3", ref_wd / "bin" / "cfengine-selected-python")
        promises = shutil.which("cf-promises")
        if promises:
            os.symlink(promises, ref_wd / "bin" / "cf-promises")
        module = ref_wd / "modules" / "packages" / "apt_get"
        module.write_text(VENDORED.read_text())      # no mustache tags: rendering is a copy
        module.chmod(0o755)
        env["CFENGINE_TEST_OVERRIDE_WORKDIR"] = str(ref_wd)
        theirs = best([ref, "-K", "-f", str(ref_policy)], env, args.repeat)
        print(f"cf-agent 3.21 (masterfiles apt_get):  {theirs:7.2f} s")
        print(f"ratio cf-lite / cf-agent: {mine / theirs:.2f}x (goal: at most 1.0x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
