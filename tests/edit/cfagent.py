"""Run CFEngine 3.21's cf-agent (when installed) on a policy, in a scratch work directory.

cf-agent is only ever run with its own work directory (CFENGINE_TEST_OVERRIDE_WORKDIR
and a ``bin/cf-promises`` link in it), never on the host's, and with ``-K``.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

CF_AGENT = "/usr/bin/cf-agent"
CF_PROMISES = "/usr/bin/cf-promises"


def available() -> bool:
    return os.access(CF_AGENT, os.X_OK) and os.access(CF_PROMISES, os.X_OK)


def run_cf_agent(tmp: Path, policy: Path, *args: str) -> tuple[int, str]:
    workdir = tmp / "cfagent-work"
    (workdir / "bin").mkdir(parents=True, exist_ok=True)
    link = workdir / "bin" / "cf-promises"
    if not link.exists():
        link.symlink_to(CF_PROMISES)
    env = dict(os.environ)
    env["CFENGINE_TEST_OVERRIDE_WORKDIR"] = str(workdir)
    proc = subprocess.run([CF_AGENT, "-K", "-I", "-f", str(policy), *args],
                          capture_output=True, text=True, env=env, timeout=120,
                          cwd=str(policy.parent))
    return proc.returncode, proc.stdout + proc.stderr


def fresh(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()
