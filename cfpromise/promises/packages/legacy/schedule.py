"""The batch of legacy package operations of one ``packages`` section pass.

cf-agent 3.21 does not run a package command when it evaluates a legacy
promise: it schedules the operation, and when the bundle's ``packages``
section ends (each pass) it runs the schedule:

* operations are grouped by (command, ``package_changes``) -- a "manager"
  that takes the action of the first operation grouped in it; the newest
  manager and, in it, the newest operation come first;
* deletions run first, then additions, updates, patches, verifications;
* ``individual``: ``COMMAND NAME`` per package; ``bulk``: one
  ``COMMAND NAME1 NAME2 ...``; a command ending in ``$`` gets no names at
  all (run once, the ``$`` dropped); with ``package_file_repositories`` an
  added or updated package is named by its path in the first repository
  holding it (double-quoted; skipped when none does); with
  ``package_commands_useshell`` names are single-quoted for the shell;
* each command's output is logged (``Q:`` lines at info level); its result
  becomes the promise's outcome: exit 0 repaired, else failed (or the
  ``classes`` body's ``*_returncodes``); a verification fails on a line
  matching ``package_noverify_regex`` or on ``package_noverify_returncode``,
  and is kept otherwise;
* afterwards the software cache is marked stale.

The promise's outcome and outcome classes come from that execution, given
back through the engine's deferred-result hook (no outcome when scheduled).
A bulk command's result goes to the first promise of the batch only (the newest
scheduled, whose promiser the command's messages name), as in cf-agent; the others
get no outcome (no classes), only the error line naming them when it failed.  Under ``-n`` nothing runs and,
as in cf-agent, nothing is said at the default level (verbose: the command that would
run) and the promise gets no outcome (no classes).  A failed command is "Package
schedule execution failed for 'x'", in a bulk command's batch "Bulk package schedule
execution failed somewhere - unknown outcome for 'x'", as cf-agent words them; cf-lite
adds the reason, the promise and its attribute (DESIGN.md: a runtime error names them).
"""
from __future__ import annotations

import os
import shlex
import subprocess
from typing import Any, Callable

import attrs

from cfpromise.agent.outcome import Outcome, merge
from cfpromise.promises.api import PromiseRun
from cfpromise.promises.packages.legacy.inventory import Package
from cfpromise.promises.packages.legacy.method import Method, executable

ORDER = ("delete", "add", "update", "patch", "verify")
VERB = {"add": "Installing", "delete": "Deleting", "update": "Updating", "patch": "Patching",
        "verify": "Verifying"}
ACTION_WORD = {"add": "installing", "delete": "uninstalling", "reinstall": "reinstalling",
               "update": "updating", "addupdate": "installing/updating", "patch": "patching",
               "verify": "verifying"}
ATTRIBUTE = {"add": "package_add_command", "delete": "package_delete_command",
             "update": "package_update_command", "patch": "package_patch_command",
             "verify": "package_verify_command"}
MAX_OUTPUT = 4 * 1024 * 1024


@attrs.define(slots=True, eq=False)
class Op:
    """One scheduled package operation."""

    name: str                       # how the manager is told the package (after conventions)
    method: Method
    run: PromiseRun
    finish: Callable[[Outcome, list[dict[str, Any]]], None]
    change: dict[str, Any]          # what it changes, for --report json


@attrs.define(slots=True, eq=False)
class Manager:
    command: str
    changes: str
    action: str
    ops: list[Op] = attrs.Factory(list)


@attrs.define(slots=True, eq=False)
class ManagerList:
    """The installed packages and patches of one list command, for this section pass."""

    packages: list[Package]
    patches: list[Package] = attrs.Factory(list)
    patches_available: list[Package] = attrs.Factory(list)
    patches_listed: bool = False


def run_command(command: str, useshell: bool) -> tuple[int | None, list[str], str]:
    """Run ``command`` (``/bin/sh -c`` or split into words); stdout and stderr together.

    Returns (exit code, output lines, error) -- exit code None when it could
    not be started (error says why)."""
    if useshell:
        argv = ["sh", "-c", command]        # execl("/bin/sh", "sh", "-c", ...) as cf-agent
    else:
        from cfpromise.promises.commands import split_command
        argv = split_command(command)
        if not argv:
            return None, [], "empty command"
    try:
        proc = subprocess.run(argv, executable="/bin/sh" if useshell else None,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, close_fds=True, check=False)
    except OSError as exc:
        return None, [], exc.strerror or str(exc)
    text = proc.stdout[:MAX_OUTPUT].decode("utf-8", "replace")
    code = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
    return code, text.splitlines(), ""


def quote_name(name: str, method: Method) -> str:
    return shlex.quote(name) if method.useshell else name


def repository_path(repositories: list[str], name: str) -> str | None:
    """PrefixLocalRepository: ``"DIR/NAME"`` for the first repository holding NAME."""
    for repo in repositories:
        path = os.path.join(repo, name)
        if os.path.exists(path):
            return f'"{path}"'
    return None


class Batch:
    """The section pass's package lists and schedule; called at the section's end."""

    def __init__(self, agent: Any, cache_file: str) -> None:
        self.agent = agent
        self.cache_file = cache_file
        self.lists: dict[str, ManagerList] = {}      # by list command
        self.managers: list[Manager] = []             # newest first

    # -- scheduling ------------------------------------------------------------------
    def schedule(self, action: str, command: str, op: Op) -> None:
        changes = op.method.changes
        for manager in self.managers:
            if manager.command == command and manager.changes == changes:
                break
        else:
            manager = Manager(command, changes, action)
            self.managers.insert(0, manager)
        manager.ops.insert(0, op)

    # -- execution -------------------------------------------------------------------
    def __call__(self) -> None:
        """Run the schedule (the engine calls this when the packages section ends)."""
        if not self.managers:
            return
        log = self.agent.log
        log("verbose", "Offering the following package-promise suggestions to the managers")
        modified = False
        for action in ORDER:
            for manager in self.managers:
                if manager.action != action or not manager.ops:
                    continue
                if action != "verify":
                    modified = True
                try:
                    self._execute(manager, action)
                except Exception as exc:          # never a traceback out of the section end
                    log("error", f"Package schedule execution failed: {exc!r}")
                    for op in manager.ops:
                        op.finish(Outcome.FAILED, [])
        if modified and not self.agent.dry_run:
            from cfpromise.promises.packages.legacy.inventory import invalidate_cache
            invalidate_cache(self.cache_file)
        self.managers = []

    def _execute(self, manager: Manager, action: str) -> None:
        first = manager.ops[0]
        command = manager.command
        log = self.agent.log
        log("info", f"{VERB[action]} {first.run.promiser[:39]}...")
        if command.endswith("$"):
            self._run(command[:-1], [first], action, first.method)
            return
        if manager.changes == "individual":
            for op in manager.ops:
                word = self._word(op, action)
                if word is None:
                    continue
                self._run(f"{command} {word}", [op], action, op.method)
            return
        words: list[str] = []
        for op in manager.ops:
            word = self._word(op, action)
            if word is None:
                break
            words.append(word)
        self._run(" ".join([command] + words) + " ", manager.ops, action, first.method)

    @staticmethod
    def _word(op: Op, action: str) -> str | None:
        repos = op.method.file_repositories
        if repos and action in ("add", "update"):
            return repository_path(repos, op.name)
        return quote_name(op.name, op.method)

    def _run(self, command: str, ops: list[Op], action: str, method: Method) -> None:
        agent = self.agent
        verify = action == "verify"
        outcome, reason = self._outcome(command, ops, verify, method)
        if outcome is Outcome.SKIPPED:         # (-n: no result at all, as in cf-agent)
            return
        bulk = len(ops) > 1
        for op in ops:
            if outcome is Outcome.FAILED:
                said = (f"Bulk package schedule execution failed somewhere - unknown outcome "
                        f"for '{op.name}'") if bulk else \
                    f"Package schedule execution failed for '{op.name}'"
                agent.log("error", f"{said}{': ' + reason if reason else ''} "
                                   f"({op.run.where()}, attribute '{ATTRIBUTE[action]}')")
            elif bulk:
                agent.log("verbose", f"Bulk package schedule execution ok for '{op.name}' "
                                     "(outcome cannot be promised by cf-agent)")
            if op is not ops[0]:        # (a bulk command's result: its first promise's only)
                continue
            changes = [dict(op.change, outcome=outcome.value)] if \
                outcome in (Outcome.REPAIRED, Outcome.WARN) and not verify else []
            op.finish(outcome, changes)

    def _outcome(self, command: str, ops: list[Op], verify: bool, method: Method
                 ) -> tuple[Outcome, str]:
        agent = self.agent
        first = ops[0]
        if not method.useshell and not executable(command):
            agent.log("error", f"The proposed package schedule command '{command}' was not "
                               f"executable ({first.run.where()}, attribute "
                               "'package_method')")
            return Outcome.FAILED, "not executable"
        if agent.dry_run:           # (cf-agent says nothing, and gives no outcome)
            agent.log("verbose", f"Would run the package command '{command.strip()}' "
                                 f"(dry run) for {first.run.where()}")
            return Outcome.SKIPPED, ""
        agent.log("verbose", f"Executing {command[:60]}...")
        code, lines, error = run_command(command, method.useshell)
        if code is None:
            agent.log("error", f"Couldn't start command '{command}': {error} "
                               f"({first.run.where()})")
            return Outcome.FAILED, error
        short = _summary(command)
        failed_lines = False
        for line in lines:
            agent.log("info", f"Q:{short:>20} ...:{line}")
            if verify and line and method.noverify_regex is not None:
                from cfpromise.promises.packages.legacy.inventory import full_match
                if full_match(method.noverify_regex, line):
                    agent.log("info", f"Package verification error in {short} ... :{line}")
                    failed_lines = True
        if verify and method.noverify_returncode is not None:
            if code == method.noverify_returncode:
                agent.log("info", f"Package verification error (returned {code})")
                return Outcome.FAILED, f"returned {code}"
            agent.log("info", f"Package verification succeeded (returned {code})")
            return Outcome.KEPT, ""
        if verify and method.noverify_regex is not None:
            if failed_lines:
                return Outcome.FAILED, "output matched package_noverify_regex"
            agent.log("info", "Package verification succeeded (no match with "
                              "package_noverify_regex)")
            return Outcome.KEPT, ""
        return self._by_returncode(code, ops)

    def _by_returncode(self, code: int, ops: list[Op]) -> tuple[Outcome, str]:
        """cf-agent's VerifyCommandRetcode: the classes body's return code lists, or 0."""
        agent = self.agent
        first = ops[0].run
        body = first.body("classes")
        kept, repaired, failed = (_codes(body.get(k)) for k in
                                  ("kept_returncodes", "repaired_returncodes",
                                   "failed_returncodes"))
        promiser = first.promiser
        if kept or repaired or failed:
            results = []
            if str(code) in kept:
                results.append(Outcome.KEPT)
            if str(code) in repaired:
                results.append(Outcome.REPAIRED)
            if str(code) in failed:
                agent.log("error", f"Command related to promiser '{promiser}' returned code "
                                   f"'{code}' defined as promise failed")
                results.append(Outcome.FAILED)
            if not results:
                agent.log("error", f"Command related to promiser '{promiser}' returned code "
                                   f"'{code}' not defined as promise kept, not kept or "
                                   "repaired; setting to failed")
                return Outcome.FAILED, f"returned {code}"
            return merge(results), "" if Outcome.FAILED not in results else f"returned {code}"
        if code == 0:
            agent.log("verbose", f"Finished command related to promiser '{promiser}' -- "
                                 "succeeded")
            return Outcome.REPAIRED, ""
        agent.log("error", f"Finished command related to promiser '{promiser}' -- an error "
                           f"occurred, returned {code}")
        return Outcome.FAILED, f"returned {code}"


def _codes(value: Any) -> set[str]:
    if value is None:
        return set()
    if isinstance(value, list):
        return {str(v).strip() for v in value}
    return {str(value).strip()}


def _summary(command: str) -> str:
    """What cf-agent quotes output lines with: the command from the last ``/`` of its
    first word on, 20 characters."""
    end = command.find(" ")
    end = len(command) if end < 0 else end
    start = command.rfind("/", 0, end) + 1
    return command[start:start + 20]
