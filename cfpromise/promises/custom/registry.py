"""The custom promise types of a run and their module processes.

cf-agent 3.21 keeps one process per module *path* for the whole run (two promise
types served by the same file share it) and sends each ``terminate`` when the
run ends; a second type naming the same path with another interpreter is an
error.  A module that failed (could not start, crashed, misbehaved) stays failed
for the rest of the run: its error is logged once, and the later promises that
need it are not kept without starting it again.
"""
from __future__ import annotations

import atexit
import os
from typing import Any

from cfpromise.agent.observer import Observer
from cfpromise.promises.custom.process import ModuleError, ModuleProcess
from cfpromise.syntax import ast


class Failed:
    """A module that failed earlier in this run."""

    def __init__(self, interpreter: str | None, error: str) -> None:
        self.interpreter = interpreter
        self.error = error


class CustomTypes(Observer):
    """The policy's ``promise agent NAME`` blocks and the modules started for them."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.modules: dict[str, ModuleProcess | Failed] = {}
        agent.observers.append(self)
        atexit.register(self.close)

    def block(self, promise_type: str) -> ast.PromiseBlock | None:
        found = None
        for block in self.agent.policy.promise_blocks:
            if block.name == promise_type and block.type == "agent":
                found = found or block
        return found

    def interpreter_and_path(self, block: ast.PromiseBlock) -> tuple[str | None, str | None]:
        """The block's attributes expanded ($(this.promise_dirname) is the block's folder)."""
        filename = block.coord.file
        if not os.path.isabs(filename):
            filename = os.path.join(os.getcwd(), filename)
        values: dict[str, str | None] = {"interpreter": None, "path": None}
        for c in block.constraints:
            if c.lval not in values or not isinstance(c.rval, ast.Scalar):
                continue
            text = c.rval.value
            for ref, value in (("this.promise_dirname", os.path.dirname(filename)),
                               ("this.promise_filename", filename)):
                text = text.replace(f"$({ref})", value).replace(f"${{{ref}}}", value)
            expanded = self.agent.ctx.expand(text)
            values[c.lval] = expanded if expanded is not None else text
        return values["interpreter"], values["path"]

    def module(self, path: str, interpreter: str | None) -> ModuleProcess | Failed:
        """The running module for ``path`` (started now if needed), or its failure."""
        known = self.modules.get(path)
        if known is not None:
            return known
        process = ModuleProcess(path, interpreter, log=self.agent.out.log,
                                workdir=self.agent.options.workdir)
        try:
            process.start()
        except ModuleError as exc:
            process.kill()
            failed = Failed(interpreter, str(exc))
            self.modules[path] = failed
            return failed
        self.modules[path] = process
        return process

    def failed(self, path: str, error: str) -> None:
        """Remember that the module at ``path`` misbehaved (it was killed)."""
        known = self.modules.get(path)
        self.modules[path] = Failed(known.interpreter if known is not None else None, error)

    def run_finished(self, agent: Any, exit_code: int) -> int:
        self.close()
        return exit_code

    def close(self) -> None:
        """Terminate every module still running (each gets ``terminate``)."""
        for path, module in list(self.modules.items()):
            if isinstance(module, ModuleProcess):
                module.terminate()
                module.relay_stderr()
                self.modules[path] = Failed(module.interpreter, "terminated")
