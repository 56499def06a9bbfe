"""Run cf-lite-agent on a small policy, in process, with the files/edit_line handlers.

Until the engine's HANDLER_MODULES lists the files and edit_line promise types,
:func:`register` adds them (``setdefault``: a registered entry wins).  It also
applies, once, the engine change the edit_line handlers need (see the report of
issue 6): an edit_line promise is "identical" to one already actuated only on
the same file.

:func:`run_agent` runs the real agent (``cfpromise.cli.agent.main``) in this
process -- parsing, evaluation, the engine and the handlers, as a subprocess
would -- and returns its exit code and output.  :func:`run_subprocess` is the
same as a separate process (for tests that kill it).
"""
from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

MODULES = {
    "files": "cfpromise.promises.files.handler",
    "delete_lines": "cfpromise.promises.edit.delete_lines",
    "insert_lines": "cfpromise.promises.edit.insert_lines",
    "field_edits": "cfpromise.promises.edit.field_edits",
    "replace_patterns": "cfpromise.promises.edit.replace_patterns",
}

WRAPPER = """
import sys
from tests.files.agentrun import register
register()
from cfpromise.cli.agent import main
sys.exit(main(sys.argv[1:]))
"""


class _RecordingSet(set):     # type: ignore[type-arg]
    """A set that remembers the last element added (the identity seen_before records)."""

    last: Any = None

    def add(self, item: Any) -> None:
        self.last = item
        super().add(item)


def register() -> None:
    from cfpromise.promises import api
    for ptype, module in MODULES.items():
        api.HANDLER_MODULES.setdefault(ptype, module)
    from cfpromise.agent import engine
    if getattr(engine.Agent.seen_before, "_files_edit_aware", False):
        return
    original_seen = engine.Agent.seen_before
    original_actuate = engine.Agent.actuate

    def seen_before(self: Any, step: Any, attributes: dict[str, Any]) -> bool:
        # an edit_line promise is identical to another only on the same file
        buffer = self.services.edit_buffer()
        if buffer is not None:
            attributes = dict(attributes)
            attributes["\0edit.filename"] = getattr(buffer, "filename", "")
        if not isinstance(self.actuated, _RecordingSet):
            self.actuated = _RecordingSet(self.actuated)
        self.actuated.last = None
        seen = original_seen(self, step, attributes)
        self._files_identity = self.actuated.last
        return seen

    def actuate(self: Any, step: Any) -> Any:
        self._files_identity = None
        outcome = original_actuate(self, step)
        if outcome is None and self._files_identity is not None:
            # the handler waits for the next pass: the promise was not actuated yet
            self.actuated.discard(self._files_identity)
        return outcome

    seen_before._files_edit_aware = True       # type: ignore[attr-defined]
    engine.Agent.seen_before = seen_before     # type: ignore[method-assign]
    engine.Agent.actuate = actuate             # type: ignore[method-assign]


def write_policy(tmp: Path, body: str, name: str = "policy.cf") -> Path:
    policy = tmp / name
    text = body if "bundlesequence" in body or "bundle agent main" in body else body
    policy.write_text(text)
    policy.chmod(0o600)
    return policy


def run_agent(tmp: Path, policy: Path | str, *args: str, inform: bool = True) -> tuple[int, str]:
    """Run the agent in process; (exit code, output)."""
    register()
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
    return [sys.executable, "-c", WRAPPER, "-K", "-f", str(policy), "-w", str(workdir), *args]


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
