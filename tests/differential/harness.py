"""Run one policy under cf-agent 3.21 and under cf-lite-agent, for the differential tests.

Each agent gets its own work directory (cf-agent's through CFENGINE_TEST_OVERRIDE_WORKDIR,
with WORKDIR/bin holding its programs: see reference_workdir); runs go two at a time,
since a case is cheap and the tests batch many cases per run."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterable

import pytest

from cfpromise.agent.programs import OWN_PROGRAMS

HAVE_CF_AGENT = shutil.which("cf-agent") is not None and shutil.which("cf-promises") is not None
needs_cf_agent = [pytest.mark.reference,
                  pytest.mark.skipif(not HAVE_CF_AGENT,
                                     reason="needs the reference cf-agent 3.21 "
                                            "(/usr/bin/cf-agent)")]


def write_policy(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o600)       # cf-agent refuses policy others may write
    return path


def check_policy(policy: Path) -> None:
    """cf-promises accepts it: a case must never send cf-agent to its failsafe."""
    check = subprocess.run(["cf-promises", "-f", str(policy)], capture_output=True, text=True,
                           timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr


def validate_both(policy: Path, root: Path) -> tuple[subprocess.CompletedProcess[str],
                                                      subprocess.CompletedProcess[str]]:
    """(cf-promises', cf-lite-promises') validation of ``policy``, each with a work
    directory of its own under ``root``."""
    ref = subprocess.run(["cf-promises", "-f", str(policy)], capture_output=True, text=True,
                         timeout=60,
                         env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(root / "r")))
    lite = subprocess.run([sys.executable, "-m", "cfpromise.cli.promises", "-f", str(policy),
                           "-w", str(root / "l")], capture_output=True, text=True, timeout=60)
    return ref, lite


def reference_workdir(root: Path, name: str = "ref-workdir") -> Path:
    """cf-agent's work directory for a run, its bin/ holding the programs cf-lite finds
    beside itself (programs.OWN_PROGRAMS), as an installed CFEngine's does: cf-agent
    defines sys.cf_agent & co. for those it finds there, and the number of variables
    decides the order of its variable table (getindices(), variablesmatching())."""
    wd = root / name
    if not (wd / "bin").exists():
        (wd / "bin").mkdir(parents=True)
        for program in OWN_PROGRAMS:
            found = shutil.which(program) or f"/usr/bin/{program}"
            if os.path.exists(found):
                os.symlink(found, wd / "bin" / program)
    return wd


def run_reference(policy: Path, args: Iterable[str], workdir: Path, timeout: int = 300,
                  merge: bool = False) -> subprocess.CompletedProcess[str]:
    """cf-agent's run (``merge``: standard error into standard output, as in one file)."""
    return subprocess.run(["cf-agent", "-K", *args, "-f", str(policy)], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT if merge else subprocess.PIPE,
                          text=True, errors="surrogateescape", timeout=timeout,
                          env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(workdir)))


def run_lite(policy: Path, args: Iterable[str], workdir: Path, timeout: int = 300,
             merge: bool = False) -> subprocess.CompletedProcess[str]:
    """cf-lite-agent's run: -w first, read before an option acted on at once (-x, -V)."""
    env = {k: v for k, v in os.environ.items() if k != "CFENGINE_TEST_OVERRIDE_WORKDIR"}
    return subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-w", str(workdir), "-K",
                           *args, "-f", str(policy)], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT if merge else subprocess.PIPE, text=True,
                          errors="surrogateescape", timeout=timeout, env=env)


def run_both(root: Path, policy: Path, args: Iterable[str] = (), *,
             before: object = None) -> tuple[subprocess.CompletedProcess[str],
                                             subprocess.CompletedProcess[str]]:
    """cf-agent's run, then cf-lite's (``before``, if given, is called before each: it
    resets whatever the runs change)."""
    args = list(args)
    if callable(before):
        before("ref")
    ref = run_reference(policy, args, reference_workdir(root))
    if callable(before):
        before("lite")
    lite = run_lite(policy, args, root / "lite-workdir")
    return ref, lite


Run = subprocess.CompletedProcess


def run_many(jobs: list[tuple[str, Path, list[str]]], root: Path, merge: bool = False
             ) -> dict[str, tuple[Run[str], Run[str]]]:
    """Run independent (name, policy, args) jobs under both agents, two processes at a time
    (``merge``: each with its standard error in its standard output)."""
    def one(job: tuple[str, Path, list[str]], which: str) -> subprocess.CompletedProcess[str]:
        name, policy, args = job
        if which == "ref":
            return run_reference(policy, args, reference_workdir(root, f"ref-workdir-{name}"),
                                 merge=merge)
        return run_lite(policy, args, root / f"lite-workdir-{name}", merge=merge)

    with ThreadPoolExecutor(max_workers=2) as pool:
        refs = [pool.submit(one, job, "ref") for job in jobs]
        lites = [pool.submit(one, job, "lite") for job in jobs]
        return {job[0]: (r.result(), l.result()) for job, r, l in zip(jobs, refs, lites)}
