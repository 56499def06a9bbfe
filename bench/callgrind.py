"""Benchmark: instructions (valgrind's callgrind) of a warm start, a number that repeats.

Wall times on a shared machine vary by 10% from run to run; the instructions one
process executes vary by a few hundredths of a percent, so this is the figure to
compare two trees or two interpreters by (issue #29's check: no worse than before
on 3.11, and 3.12 and 3.13 within 15% of 3.11).  Two workloads, each run twice
untraced first so that the policy cache and the work directory are warm, then
once under ``valgrind --tool=callgrind`` with ``PYTHONHASHSEED=0``:

* one-report: ``cf-lite-agent -K -f trivial.cf`` (one ``reports:`` promise), the
  start path: interpreter start-up, imports, the cached policy, one promise;
* masterfiles dry run: ``cf-lite-agent -n -K -f WORKDIR/inputs/promises.cf`` on a copy
  of CFEngine 3.21's masterfiles, set up as bench/masterfiles.py sets it up.

The agent measured is the ``cf-lite-agent`` beside this Python (``VENV/bin/python
bench/callgrind.py``) or each ``--venv`` given, so that one command compares trees or
interpreters side by side::

    .venv/bin/python bench/callgrind.py --venv .venv --venv .venv312 --venv .venv313

Skips, saying so, without valgrind; the masterfiles run is left out, saying so,
without /usr/share/cfengine3/masterfiles.  ``--keep DIR`` keeps the callgrind
output files there for ``callgrind_annotate``.
Usage: python bench/callgrind.py [--venv DIR]... [--only one-report|masterfiles] [--keep DIR]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from masterfiles import MASTERFILES, workdir

POLICY = 'bundle agent main\n{\n  reports:\n    "hello from $(sys.host)";\n}\n'
_COLLECTED = re.compile(r"Collected : (\d+)")


def _agent_of(venv: Path | None) -> str:
    if venv is not None:
        return str(venv / "bin" / "cf-lite-agent")
    beside = Path(sys.executable).parent / "cf-lite-agent"
    return str(beside) if beside.exists() else shutil.which("cf-lite-agent") or "cf-lite-agent"


def _python_of(agent: str) -> str:
    """The interpreter's version named by the agent script's #! line (for the table)."""
    with open(agent, encoding="utf-8") as f:
        line = f.readline()
    python = line[2:].strip().split()[0] if line.startswith("#!") else sys.executable
    out = subprocess.run([python, "-c", "import sys; print(sys.version.split()[0])"],
                         capture_output=True, text=True)
    return out.stdout.strip() or "?"


def instructions(cmd: list[str], out_file: Path, check: str | None) -> int:
    """Run ``cmd`` twice untraced (warm), then once under callgrind; its instructions."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    for _ in range(2):
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    proc = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
                           *cmd], capture_output=True, text=True, env=env)
    if check is not None and check not in proc.stdout:
        raise SystemExit(f"{' '.join(cmd)}: no {check!r} in its output:\n{proc.stdout}")
    found = _COLLECTED.search(proc.stderr)
    if found is None:
        raise SystemExit(f"valgrind gave no count:\n{proc.stderr}")
    return int(found.group(1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--venv", type=Path, action="append",
                    help="a venv whose cf-lite-agent to measure (repeatable)")
    ap.add_argument("--only", choices=("one-report", "masterfiles"))
    ap.add_argument("--keep", type=Path, metavar="DIR",
                    help="keep the callgrind.out files in DIR")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        print("skipped: needs valgrind (apt-get install valgrind)")
        return 0
    agents = [_agent_of(v) for v in args.venv] if args.venv else [_agent_of(None)]
    with_masterfiles = args.only != "one-report"
    if with_masterfiles and not MASTERFILES.is_dir():
        print(f"masterfiles run left out: no {MASTERFILES} (apt-get install cfengine3)")
        with_masterfiles = False
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    print(f"{'agent':48s} {'python':8s} {'one-report':>12s} {'masterfiles -n':>15s}")
    for n, agent in enumerate(agents):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            keep = args.keep or root
            counts = ["-", "-"]
            if args.only != "masterfiles":
                policy = root / "trivial.cf"
                policy.write_text(POLICY)
                policy.chmod(0o600)
                cmd = [agent, "-K", "-f", str(policy), "-w", str(root / "wd")]
                counts[0] = f"{instructions(cmd, keep / f'one-report.{n}.out', 'R: hello'):,}"
            if with_masterfiles:
                wd = workdir(root, "mf")
                cmd = [agent, "-n", "-K", "-f", str(wd / "inputs" / "promises.cf"), "-w", str(wd)]
                counts[1] = f"{instructions(cmd, keep / f'masterfiles.{n}.out', None):,}"
        print(f"{agent:48s} {_python_of(agent):8s} {counts[0]:>12s} {counts[1]:>15s}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
