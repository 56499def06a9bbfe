"""Run cf-lite-agent on a small policy: in process (:func:`run_agent`: parsing,
evaluation, the engine and the handlers, as a subprocess would, returning the exit
code and output) or as a separate process (:func:`run_subprocess`, for tests that
kill it).
"""
from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path


def write_policy(tmp: Path, body: str, name: str = "policy.cf") -> Path:
    policy = tmp / name
    text = body if "bundlesequence" in body or "bundle agent main" in body else body
    policy.write_text(text)
    policy.chmod(0o600)
    return policy


def run_agent(tmp: Path, policy: Path | str, *args: str, inform: bool = True) -> tuple[int, str]:
    """Run the agent in process; (exit code, output)."""
    from cfpromise.cli.agent import main
    if isinstance(policy, str):
        policy = write_policy(tmp, policy)
    workdir = tmp / "work"
    workdir.mkdir(exist_ok=True)
    argv = ["-K", "-f", str(policy), "-w", str(workdir), *(["-I"] if inform else []), *args]
    out = io.StringIO()
    saved = os.environ.pop("CFENGINE_TEST_OVERRIDE_WORKDIR", None)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = main(argv)
    finally:
        if saved is not None:
            os.environ["CFENGINE_TEST_OVERRIDE_WORKDIR"] = saved
    return code, out.getvalue()


def agent_command(policy: Path, workdir: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", str(policy),
            "-w", str(workdir), *args]


def run_subprocess(tmp: Path, policy: Path, *args: str,
                   timeout: float = 120) -> subprocess.CompletedProcess[str]:
    workdir = tmp / "work"
    workdir.mkdir(exist_ok=True)
    env = dict(os.environ)
    env.pop("CFENGINE_TEST_OVERRIDE_WORKDIR", None)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(agent_command(policy, workdir, *args), capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=root)


def lines(output: str, level: str) -> list[str]:
    prefix = f"{level:>8}: "
    return [line[len(prefix):] for line in output.splitlines() if line.startswith(prefix)]


def reports(output: str) -> list[str]:
    return [line[3:] for line in output.splitlines() if line.startswith("R: ")]
