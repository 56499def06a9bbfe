"""One custom promise: what is sent to its module, and what the answer means.

As cf-agent 3.21 does it (libpromises' custom promise evaluation):

* ``if``/``unless``/``depends_on``/``with``/``meta`` and the ``classes`` body are the
  agent's business and are not sent; ``log_level`` goes in the request's
  ``log_level`` field; the ``action`` body's attributes are sent flattened (so a
  module sees ``action_policy``), and under ``-n`` ``action_policy`` is ``warn``;
* a module that does not announce ``action_policy`` cannot be used when changes
  are not allowed (dry run, ``action_policy => "warn"``/``"nop"``);
* ``validate_promise`` must answer ``valid`` before ``evaluate_promise`` is sent;
* ``kept``/``repaired``/``not_kept``/``error`` map to kept/repaired/not kept (and
  a repair or an ``info`` message while changes are disabled, a repair without an
  ``info`` message, a not-kept or invalid promise without an error are reported as
  ``CRITICAL: Bug in promise module``); ``result_classes`` are defined in the
  bundle's scope with the tag ``source=promise-module``.
"""
from __future__ import annotations

import re
from typing import Any

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.api import PromiseRun
from cfpromise.promises.custom.process import ModuleError, ModuleProcess
from cfpromise.promises.custom.protocol import ACTION_LOG_LEVELS, SEVERITY, Request, Response
from cfpromise.promises.custom.registry import CustomTypes, Failed

# Attributes the agent evaluates itself and never sends to a module.
NOT_SENT = frozenset({"if", "ifvarclass", "unless", "depends_on", "with", "meta", "classes",
                      "log_level", "action", "action_name"})
# Common attributes of every custom promise type (their types come from the schema).
COMMON = ("action", "classes", "comment", "depends_on", "handle", "if", "ifvarclass", "meta",
          "unless", "with")
_UNRESOLVED = re.compile(r"\$[({]")


def common_attributes(schema: Any) -> dict[str, Any]:
    """The attribute table of a custom promise type: the common attributes only."""
    table = schema.promise_types["reports"]
    return {name: table[name] for name in COMMON if name in table}


def evaluate(types: CustomTypes, run: PromiseRun) -> Outcome:
    """Carry out one custom promise through its module."""
    log = run.agent.log
    block = types.block(run.promise_type)
    if block is None:
        log("error", f"Undefined promise type '{run.promise_type}'")
        return Outcome.FAILED
    interpreter, path = types.interpreter_and_path(block)
    if path is None:
        log("error", f"Custom promise type '{run.promise_type}' missing path")
        return Outcome.FAILED
    module = types.module(path, interpreter)
    if module.interpreter != interpreter:
        log("error", f"Conflicting interpreter specifications for custom promise module "
                     f"'{path}' (started with '{module.interpreter}' and '{interpreter}' "
                     f"requested for promise '{run.promiser}' of type '{run.promise_type}')")
        return Outcome.FAILED
    if isinstance(module, Failed):
        if module.error:
            log("error", module.error)
            module.error = ""      # said once; later promises only say they are not kept
        log("verbose", f"{run.where()} not kept: its promise module '{path}' failed earlier")
        return Outcome.FAILED
    try:
        return _evaluate(types, module, run)
    except ModuleError as exc:
        types.failed(path, "")
        log("error", f"{exc} ({run.where()})")
        return Outcome.FAILED


def _evaluate(types: CustomTypes, module: ModuleProcess, run: PromiseRun) -> Outcome:
    log = run.agent.log
    header = module.header
    assert header is not None
    action = run.body("action")
    policy = action.get("action_policy")
    dontdo = run.agent.dry_run or policy in ("warn", "nop")
    attributes = _attributes(run, dontdo)
    problem = _unsendable(run, attributes, header.json)
    if problem:
        log("error", f"{run.promise_type} promise with promiser '{run.promiser}' has "
                     f"unresolved/unexpanded variables{problem}")
        return Outcome.FAILED
    if dontdo and not header.action_policy:
        log("error", "Not making changes to the system, but the custom promise module "
                     f"'{module.path}' doesn't support action_policy")
        return Outcome.FAILED
    level = _promise_log_level(run)
    specific = ACTION_LOG_LEVELS.get(level, "error") if level else None
    where = f"({run.promise.coord.file}:{run.promise.coord.line})"
    what = f"{run.promise_type} promise with promiser '{run.promiser}'"

    response, counts = _exchange(types, module, run, "validate_promise", attributes, specific)
    if response.result != "valid":
        log("verbose", f"{what} failed validation {where}")
        if not counts.get("error") and not counts.get("critical"):
            log("critical", f"Bug in promise module - No error(s) logged for invalid "
                            f"{run.promise_type} promise with promiser '{run.promiser}' {where}")
        log("verbose", f"{what} will be skipped because it failed validation")
        return Outcome.FAILED

    response, counts = _exchange(types, module, run, "evaluate_promise", attributes, specific)
    for name in response.result_classes:
        run.agent.define_class(name, scope="bundle", namespace=run.namespace,
                               bundle=run.bundle, tags=("source=promise-module",))
    result = response.result
    bug = f"{run.promise_type} promise with promiser '{run.promiser}' {where}"
    if dontdo and counts.get("info"):
        log("critical", f"Bug in promise module - 'info:' log messages reported for {bug} "
                        "while making changes on the system disabled")
    module_name = f"promise module '{module.path}'"
    if result in ("kept", "repaired", "not_kept"):
        _log_context(run)
    if result == "kept":
        log("verbose", f"Promise with promiser '{run.promiser}' was kept by {module_name}")
        return Outcome.KEPT
    if result == "repaired":
        log("verbose", f"Promise with promiser '{run.promiser}' was repaired by {module_name}")
        if dontdo:
            log("critical", f"Bug in promise module - {bug} repaired while making changes on "
                            "the system disabled")
        if not counts.get("info"):
            log("critical", f"Bug in promise module - Failed to log about changes made by a "
                            f"repaired {bug}")
        run.agent.note_change(run, kind="custom", module=module.path,
                              messages=[m for level, m in response.log if level == "info"])
        return Outcome.REPAIRED
    if result == "not_kept":
        log("verbose", f"Promise with promiser '{run.promiser}' was not kept by {module_name}")
        if not dontdo and not counts.get("error") and not counts.get("critical"):
            log("critical", f"Bug in promise module - Failed to log errors for not kept {bug}")
        elif dontdo and not (counts.get("warning") or counts.get("error")
                             or counts.get("critical")):
            log("critical", f"Bug in promise module - Failed to log warnings for not kept {bug} "
                            "while making changes on the system disabled")
        return Outcome.WARN if dontdo else Outcome.FAILED
    detail = (f"({run.promise_type} promise, promiser: '{run.promiser}' module: "
              f"'{module.path}')")
    if result is None:
        log("error", f"Promise module did not return a result for promise evaluation {detail}")
    elif result == "error":
        log("error", f"An unexpected error occured in promise module {detail}")
    else:
        log("error", f"Promise module returned unacceptable result: '{result}' {detail}")
    return Outcome.FAILED


def _log_context(run: PromiseRun) -> None:
    """cf-agent's ``Additional promise info`` line, which it logs in verbose mode before
    a promise outcome it reports at verbose level (``cfPS``, ``LogPromiseContext``)."""
    parts = ["Additional promise info:"]
    if run.handle:
        parts.append(f"handle '{run.handle}'")
    version = run.agent.common_control("version")
    if isinstance(version, str):
        parts.append(f"version '{version}'")
    coord = run.promise.coord
    source = _source_path(coord.file, run.agent.start_dir)
    parts.append(f"source path '{source}' at line {coord.line}")
    promisee = run.promisee
    if isinstance(promisee, str):
        parts.append(f"promisee '{promisee}'")
    elif isinstance(promisee, list):
        # RlistWrite: ' {"a","b"}'
        parts.append("promisee  {" + ",".join(f'"{p}"' for p in promisee) + "}")
    comment = run.attributes.get("comment")
    if isinstance(comment, str):
        parts.append(f"comment '{comment}'")
    run.agent.log("verbose", " ".join(parts))


def _promise_log_level(run: PromiseRun) -> str:
    """The promise's ``log_level``: its own attribute or its action body's, whichever
    is written last (cf-agent appends an action body's attributes to the promise's at the
    ``action`` attribute's place, and a later attribute of the same name replaces an
    earlier one).  '' when there is none."""
    found = ""
    for c in run.promise.constraints:
        if c.lval == "log_level" and isinstance(run.attributes.get("log_level"), str):
            found = run.attributes["log_level"]
        elif c.lval == "action" and "log_level" in run.body("action"):
            found = str(run.body("action")["log_level"])
    return found


def _attributes(run: PromiseRun, dontdo: bool) -> list[tuple[str, Any]]:
    """What the module is sent, in the promise's order (the action body flattened)."""
    out: list[tuple[str, Any]] = []
    for c in run.promise.constraints:
        if c.lval == "action":
            out += [(k, v) for k, v in run.body("action").items()
                    if k not in ("log_level", "action_policy")]
            policy = run.body("action").get("action_policy")
            if policy is not None:
                out.append(("action_policy", "warn" if dontdo else policy))
            continue
        if c.lval in NOT_SENT or c.lval not in run.attributes:
            continue
        value = run.attributes[c.lval]
        if c.lval == "action_policy" and dontdo:
            value = "warn"
        if value is not None:
            out.append((c.lval, value))
    if dontdo and not any(k == "action_policy" for k, _ in out):
        out.append(("action_policy", "warn"))
    return out


def _unsendable(run: PromiseRun, attributes: list[tuple[str, Any]], json_based: bool) -> str:
    """Why the promise cannot be sent ('' when it can)."""
    if _UNRESOLVED.search(run.promiser):
        return f" (promiser '{run.promiser}')"
    for name, value in attributes:
        if isinstance(value, str):
            if _UNRESOLVED.search(value):
                return f" (attribute '{name}': '{value}')"
        elif not json_based:
            return (f" (attribute '{name}' is a list or data container, which the "
                    "line-based protocol cannot carry)")
        elif _has_unresolved(value):
            return f" (attribute '{name}')"
    return ""


def _has_unresolved(value: Any) -> bool:
    if isinstance(value, str):
        return _UNRESOLVED.search(value) is not None
    if isinstance(value, list):
        return any(_has_unresolved(v) for v in value)
    if isinstance(value, dict):
        return any(_has_unresolved(k) or _has_unresolved(v) for k, v in value.items())
    return False


def _exchange(types: CustomTypes, module: ModuleProcess, run: PromiseRun, operation: str,
              attributes: list[tuple[str, Any]], specific: str | None
              ) -> tuple[Response, dict[str, int]]:
    """Send one operation; print the module's log messages as cf-agent does (a promise's
    ``log_level`` hides the less severe ones); count them by level."""
    fields = (("operation", operation),
              ("log_level", _request_level(types, specific)),
              ("promise_type", run.promise_type),
              ("promiser", run.promiser),
              ("line_number", run.promise.coord.line),
              ("filename", _source_path(run.promise.coord.file,
                                        run.agent.start_dir)))
    response = module.request(Request(fields, tuple(attributes)))
    counts: dict[str, int] = {}
    for level, message in response.log:
        if specific is not None and SEVERITY.index(specific) < SEVERITY.index(level):
            continue
        counts[level] = counts.get(level, 0) + 1
        run.agent.log(level, message)
    return response, counts


def _source_path(filename: str, start_dir: str) -> str:
    """The policy file as named on the command line: cf-lite keeps ``./x.cf`` as
    ``$CWD/./x.cf`` (``$CWD`` where the run started); cf-agent sends ``./x.cf``."""
    prefix = start_dir.rstrip("/") + "/"
    if filename.startswith(prefix + "./"):
        return filename[len(prefix):]
    return filename


def _request_level(types: CustomTypes, specific: str | None) -> str:
    """The agent's log level (never above the promise's own), at least ``error``."""
    from cfpromise.agent.output import LEVELS
    threshold = types.agent.out.threshold
    level = next((name for name, value in LEVELS.items() if value == threshold), "notice")
    if specific is not None and SEVERITY.index(specific) < SEVERITY.index(level):
        level = specific
    return "error" if level == "critical" else level
