"""``transformer``: run a command on the file (TransformFile).

The command is the ``transformer`` text as written, expanded with
``$(this.promiser)`` bound to the file at hand (each leaf of a depth_search);
it runs without a shell (the commands promise's argument splitting), its output
is logged at info level, and its exit code is judged like a commands
promise's (0 repaired, else failed, or the ``classes`` body's return code
lists).  Under ``-n`` nothing runs.
"""
from __future__ import annotations

import os
import subprocess

from cfpromise.promises.files import bridge
from cfpromise.promises.files.context import FileRun
from cfpromise.syntax import ast


def command_for(fr: FileRun, path: str) -> str | None:
    raw = fr.run.promise.get("transformer")
    if raw is not None and isinstance(raw.rval, ast.Scalar):
        text = bridge.expand(fr.agent, raw.rval.value, {"this.promiser": path})
        if "$(this.promiser)" in text or "${this.promiser}" in text:
            text = text.replace("$(this.promiser)", path).replace("${this.promiser}", path)
        return text
    return fr.a.transformer


def transform_file(fr: FileRun, path: str) -> None:
    from cfpromise.promises.commands import (command_arg0, executable_problems,
                                             returncode_outcome, split_command)
    command = command_for(fr, path)
    if not command:
        return
    done = bridge.run_state(fr.agent, "transformed")
    key = (fr.run.promise.coord, path, command)
    if key in done:                  # cf-agent's lock: once per promise, file and command
        return
    done[key] = True
    arg0 = command_arg0(command)
    if executable_problems(arg0) is not None:
        fr.fail(f"Transformer '{fr.a.transformer}' for file '{path}' failed")
        return
    if fr.warn_only:
        fr.should(f"Should transform file '{path}' with '{command}'")
        return
    fr.log("info", f"Transforming '{path}' with '{command}'")
    try:
        proc = subprocess.run(split_command(command), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                              cwd=os.path.dirname(path) or "/", check=False)
    except OSError:
        fr.fail(f"Transformer '{fr.a.transformer}' for file '{path}' failed")
        return
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        fr.log("info", line)
    fr.log("info", f"Transformed '{path}' with '{command}' ")
    outcome = returncode_outcome(fr.run, proc.returncode if proc.returncode >= 0 else 1,
                                 inform=False)
    fr.results.append(outcome)
    if outcome.not_kept:
        fr.log("error", f"Transformer '{path}' => '{command}' returned error")
    else:
        fr.log("info", f"Transformer '{path}' => '{command}' seemed to work ok")
