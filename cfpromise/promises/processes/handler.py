"""The processes promise handler (cf-agent 3.21's VerifyProcessOp).

1. Find the processes whose command line matches the promiser regex
   (unanchored) and that pass ``process_select``.  pid 1 is left out unless the
   only signal is ``hup``; pids 2 and 3 are left out when signals are
   promised, and so is the agent itself.  Under ``action_policy => "warn"`` a
   promise of zero processes prints a "Process alert" for each match instead.
2. ``process_count``: when its ``match_range`` holds the promise is kept and
   ``in_range_define`` classes are set; otherwise (or without a range) it goes
   on, setting ``out_of_range_define`` classes and counting as repaired when a
   range was given.
3. With matches and not under warn: ``process_stop`` runs (repaired when it
   returns zero, failed otherwise or when it cannot run), then every
   ``signals`` entry is sent to each match (repaired; failed if a kill fails).
4. ``restart_class`` is defined when a ``term``/``kill`` signal was sent
   (repaired) or nothing matched (kept); under warn that is a warning instead.

Each result is reached as cf-agent's cfPS reaches it, and sets the ``classes`` body's
classes for that result at once (:class:`_Results`): an out-of-range count that restarts
nothing is repaired, then kept ("No restart promised"), so both classes are set; under
warn the warning result sets no class.  The sanity checks (a restart_class with
term/kill or with a zero count, process_count or process_select incomplete) come before
the lock: :func:`before_the_lock`, which the engine calls in every pass.

Classes set here live in the promise's namespace.  ``action_policy =>
"warn"``/``"nop"`` only reports what would be done; under ``-n`` the stop command and
the signals are logged as errors instead of being run or sent, and ``restart_class``
is defined as without ``-n`` (cf-agent 3.21 tells the two apart).
"""
from __future__ import annotations

import os
import signal
import subprocess

from cfpromise.agent.outcome import Outcome, merge
from cfpromise.promises.api import PromiseRun, before_lock, handler
from cfpromise.promises.processes import table
from cfpromise.promises.processes.select import SelectError, promiser_matches, selected

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SIGNALS: dict[str, int] = {
    "hup": signal.SIGHUP, "int": signal.SIGINT, "trap": signal.SIGTRAP,
    "kill": signal.SIGKILL, "pipe": signal.SIGPIPE, "cont": signal.SIGCONT,
    "abrt": signal.SIGABRT, "stop": signal.SIGSTOP, "quit": signal.SIGQUIT,
    "term": signal.SIGTERM, "child": signal.SIGCHLD, "usr1": signal.SIGUSR1,
    "usr2": signal.SIGUSR2, "bus": signal.SIGBUS, "segv": signal.SIGSEGV,
}


def signal_number(name: str) -> int:
    """SignalFromString: a ``signals`` entry by its exact (lower-case) name; -1 for any
    other, which kill() then refuses."""
    return SIGNALS.get(name, -1)


def _seconds(spec: str) -> int | None:
    """sscanf("%d%c%c"): a number, maybe followed by ``s`` and nothing more (a pause)."""
    import re
    found = re.match(r"\s*([+-]?\d+)(s?)(.?)", spec, re.S)
    if found is None or found.group(3) or (not found.group(2) and
                                           spec[found.end(1):] != ""):
        return None
    value = int(found.group(1))
    return value if value >= 0 else None


def _list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return [value] if isinstance(value, str) and value else []


def _range(run: PromiseRun) -> tuple[int, int] | None:
    from cfpromise.promises.processes.select import parse_range
    return parse_range(run.body("process_count").get("match_range"), "match_range")


def find_matches(run: PromiseRun, processes: list[table.Process],
                 bounds: tuple[int, int] | None, warn: bool) -> list[table.Process]:
    """FindPidMatches: the processes the promise is about."""
    signals = _list(run.attributes.get("signals"))
    select = run.body("process_select")
    own = os.getpid()
    promised_zero = bounds == (0, 0)
    out: list[table.Process] = []
    for process in processes:
        if not promiser_matches(run.promiser, process):
            continue
        if select and not selected(select, process):
            continue
        if signals:             # processes cf-agent will not signal (none without signals)
            if process.pid == 1:
                if signals != ["hup"]:
                    continue
                run.agent.log("verbose", "Okay to send only HUP to init")
            elif process.pid < 4:
                run.agent.log("verbose", "Will not signal or restart processes 0,1,2,3 (occurred "
                                         f"while looking for {run.promiser})")
                continue
            if process.pid == own:
                run.agent.log("verbose", "cf-agent will not signal itself!")
                continue
        if warn and promised_zero:
            run.agent.log("warning", f"Process alert '{table.legend()}'")
            run.agent.log("warning", f"Process alert '{table.describe(process)}'")
            continue
        run.agent.log("warning" if warn else "verbose", f"Matched '{table.describe(process)}'")
        out.append(process)
    return out


def _stop(run: PromiseRun, command: str, result: _Results) -> bool:
    """process_stop (not under -n): False when the command is not executable (cf-agent
    gives up on the promise there)."""
    from cfpromise.promises.commands import command_arg0, executable_problems, split_command
    argv = split_command(command)
    problems = executable_problems(command_arg0(command))      # IsExecutable(CommandArg0())
    for message in problems or ():
        run.agent.log("error", message)
    if not argv or problems is not None:
        result.cfps(Outcome.FAILED, "error", f"Process promise to stop '{run.promiser}' could "
                                             f"not be kept because '{command}' is not executable")
        return False
    try:
        code = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, check=False).returncode
    except OSError:
        code = -1
    if code == 0:
        result.cfps(Outcome.REPAIRED, "info", f"Promise to stop '{run.promiser}' repaired, "
                                              f"'{command}' returned zero")
    else:
        result.cfps(Outcome.FAILED, "error", f"Promise to stop '{run.promiser}' failed, "
                                             f"'{command}' returned nonzero")
    return True


class _Results:
    """cf-agent's ``result`` of VerifyProcessOp and its cfPS calls: each cfPS sets the
    promise's outcome classes for its own result at once (so an out-of-range count that
    restarts nothing sets repaired, then kept); :meth:`update` only folds a result in."""

    __slots__ = ("run", "seen")

    def __init__(self, run: PromiseRun) -> None:
        self.run = run
        self.seen: list[Outcome] = [Outcome.KEPT]      # PROMISE_RESULT_NOOP

    def cfps(self, outcome: Outcome, level: str, message: str, update: bool = True) -> None:
        self.run.agent.log(level, message)
        self.run.agent.record_result(self.run, outcome)
        if update:
            self.seen.append(outcome)

    def update(self, outcome: Outcome) -> None:
        self.seen.append(outcome)

    def overall(self) -> Outcome:
        return merge(self.seen)


def _signal_all(run: PromiseRun, matches: list[table.Process], result: _Results,
                dontdo: bool = False) -> bool:
    """DoAllSignals: whether a term/kill was sent; under -n each signal that would be
    sent is logged instead."""
    signals = _list(run.attributes.get("signals"))
    if not matches:
        return False
    if not signals:
        run.agent.log("verbose", f"No signals to send for '{run.promiser}'")
        return False
    killed, failure = False, False
    for process in matches:
        for name in signals:
            pause = _seconds(name)
            if pause is not None:
                import time      # "5" or "5s" between signals: cf-agent sleeps that long
                time.sleep(pause)
                continue
            number = signal_number(name)
            if dontdo:
                run.agent.log("error", f"Need to keep signal promise '{name}' in process entry "
                                       f"'{table.describe(process)}'")
                continue
            if number in (signal.SIGKILL, signal.SIGTERM):
                killed = True
            try:
                if number < 0:
                    raise OSError(22, "Invalid argument")
                os.kill(process.pid, number)
            except OSError as exc:
                # cfPS's fail classes, but the result is folded in only after the loop,
                # and only if the last signal sent failed (cf-agent 3.21)
                result.cfps(Outcome.FAILED, "info",
                            f"Couldn't send promised signal '{name}' ({number}) to pid "
                            f"{process.pid} (might be dead). (kill: {exc.strerror})",
                            update=False)
                failure = True
            else:
                result.cfps(Outcome.REPAIRED, "info", f"Signalled '{name}' ({number}) to process "
                                                      f"{process.pid} ({process.command})")
                failure = False
    if failure:
        result.update(Outcome.FAILED)
    return killed


def _promise_ref(run: PromiseRun, level: str) -> None:
    for line in run.promise_ref():
        run.agent.log(level, line)


def sanity_checks(run: PromiseRun, bounds: tuple[int, int] | None) -> None:
    """ProcessSanityChecks: warnings and errors only (3.21 goes on whatever they say)."""
    log = run.agent.log
    restart = run.attributes.get("restart_class")
    signals = _list(run.attributes.get("signals"))
    count = run.body("process_count")
    # cf-agent's haveprocess_count: the promise names a body, even one whose attributes
    # all went (match_range => irange("$(undefined)", ...) is never called)
    have_count = bool(count) or isinstance(run.attributes.get("process_count"), dict)
    if restart:
        if "term" in signals or "kill" in signals:
            log("warning", f"Promise '{run.promiser}' kills then restarts - never strictly "
                           "converges")
            _promise_ref(run, "info")
        if have_count:
            log("verbose", "Note both process_count and restart_class define classes. Please "
                           "exercises caution that there is not a logic error. Review "
                           "process_count match_range, in_range_define, and out_of_range_define "
                           "with respect to restart_class.")
            _promise_ref(run, "verbose")
    if bounds == (0, 0) and restart:
        log("error", f"Promise constraint conflicts - '{run.promiser}' processes cannot have "
                     "zero count if restarted")
        _promise_ref(run, "error")
    select = run.attributes.get("process_select")
    if isinstance(select, dict) and not select.get("process_result"):
        log("error", "Process select constraint body promised no result (check body "
                     "definition)")
        _promise_ref(run, "error")
    if have_count and count.get("match_range") is None:
        log("error", "process_count used without match_range, this promise will not define a "
                     "class based on a count of matching promises.")
        _promise_ref(run, "error")
    if have_count and not (count.get("in_range_define") or count.get("out_of_range_define")):
        log("error", "process_count body is insufficiently defined. process_count must specify "
                     "at least one of in_range_define or out_of_range_define. ")
        _promise_ref(run, "error")


@before_lock("processes")
def before_the_lock(run: PromiseRun) -> None:
    """VerifyProcessesPromise before its lock: the sanity checks (in every pass)."""
    try:
        bounds = _range(run)
    except SelectError:
        return                  # the handler says so
    select = run.attributes.get("process_select")
    if isinstance(select, dict) and not select.get("process_result") \
            and any(select.get(name) not in (None, "", []) for name in _SELECT_ENTRIES):
        run.agent.log("error", "process_select body missing its a process_result return "
                               "value")            # (GetProcessFilterConstraints)
    sanity_checks(run, bounds)


# process_select attributes whose presence makes process_result needed (cf-agent 3.21)
_SELECT_ENTRIES = ("pid", "ppid", "pgid", "rsize", "vsize", "ttime_range", "stime_range",
                   "priority", "threads", "process_owner", "status", "command", "tty")


@handler("processes")
def verify_processes(run: PromiseRun) -> Outcome:
    agent = run.agent
    agent.own_classes(run)
    # cf-agent tells action_policy warn/nop (nothing is done, warnings) from -n (DONTDO:
    # what would be signalled or stopped is logged, the restart_class is still defined)
    warn = run.body("action").get("action_policy", "fix") in ("warn", "nop")
    dontdo = agent.dry_run
    try:
        bounds = _range(run)
        matches = find_matches(run, table.snapshot(), bounds, warn)
    except SelectError as exc:
        agent.log("error", f"{exc} in {run.where()}")
        agent.record_result(run, Outcome.FAILED)
        return Outcome.FAILED
    count = run.body("process_count")
    result = _Results(run)
    if bounds is not None:
        if not bounds[0] <= len(matches) <= bounds[1]:
            result.cfps(Outcome.REPAIRED, "verbose", f"Process count for '{run.promiser}' was "
                                                     f"out of promised range ({len(matches)} "
                                                     "found)")
            for name in _list(count.get("out_of_range_define")):
                agent.define_class(name, namespace=run.namespace)
        else:
            for name in _list(count.get("in_range_define")):
                agent.define_class(name, namespace=run.namespace)
            result.cfps(Outcome.KEPT, "verbose", f"Process promise for '{run.promiser}' is kept")
            return result.overall()
    if warn:
        result.update(Outcome.WARN)
    killed = False
    if not warn and matches:
        stop = run.attributes.get("process_stop")
        if isinstance(stop, str) and stop and dontdo:
            result.cfps(Outcome.WARN, "error", f"Need to keep process-stop promise for "
                                               f"'{run.promiser}', but only a warning is "
                                               "promised")
        elif isinstance(stop, str) and stop:
            if not _stop(run, stop, result):
                return result.overall()
        killed = _signal_all(run, matches, result, dontdo)
    restart = run.attributes.get("restart_class")
    if not (isinstance(restart, str) and restart and (killed or not matches)):
        result.cfps(Outcome.KEPT, "verbose", f"No restart promised for {run.promiser}")
        return result.overall()
    if warn:
        result.cfps(Outcome.WARN, "warning", f"Need to keep restart promise for "
                                             f"'{run.promiser}', but only a warning is promised")
    else:
        result.cfps(Outcome.REPAIRED if killed else Outcome.KEPT, "verbose",
                    f"C:     +  Global class: {restart} ")
        agent.define_class(restart, namespace=run.namespace)
    return result.overall()
