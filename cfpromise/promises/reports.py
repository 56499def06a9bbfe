"""reports promises: ``R: text`` lines, report_to_file, printfile, bundle return values.

A printed report counts as kept, as in cf-agent (it sets promise_kept classes).
Printing takes the promise's lock (``ifelapsed``, default one minute), so without
``-K`` a run within the minute after another does not repeat it; bundle return
values are set regardless of locks.  Under ``action_policy => "warn"`` (or
``-n``) nothing is printed: a warning, and the promise is not kept.

A report whose text holds a variable reference (unresolved, or brought in by a
variable's value) waits; in the last pass it is printed as written (as cf-agent
does).  In an edit bundle "the last pass" is the calling agent bundle's.
"""
from __future__ import annotations

import os

from cfpromise.agent.outcome import Outcome
from cfpromise.agent.yyerrors import check_value
from cfpromise.promises.evaluators import Step, evaluator
from cfpromise.syntax.varstring import references


@evaluator("reports")
def evaluate(step: Step) -> Outcome | None:
    # cf-agent (VerifyReportPromise) waits for the last pass while the text to report
    # holds a variable reference -- an unresolved one, or one a variable's value brought
    # (its check says a reference left open as the parser would: cfpromise.agent.yyerrors)
    # -- as IsCf3VarString says (cfpromise.syntax.varstring): not ``$(a/b)``, ``$(a}``,
    # ``${a $(b)}``, which are printed at once, whatever left them unresolved
    check_value(step.agent, step.promiser)
    if references(step.promiser):
        if not step.last:
            return None
    else:
        step.ev.unresolved = False
    attributes = step.agent.attributes(step)
    if attributes is None:
        return None
    step.attributes = attributes
    text = step.promiser
    index = attributes.get("bundle_return_value_index")
    if isinstance(index, str):
        # the bundle's return value, before any lock (at each call): a variable of its
        # own scope, last-result[INDEX] (tagged source=bundle), which a methods
        # promise's useresult copies
        bundle = step.run.bundle
        step.ctx.set_var(bundle.namespace, bundle.name,
                         f"last-result[{index}]" if index else "last-result", "string", text,
                         ("source=bundle",))
        return Outcome.KEPT
    if step.agent.seen_before(step, attributes):
        return Outcome.SKIPPED
    action = attributes.get("action")
    if isinstance(action, dict) and action.get("action_policy") in ("warn", "nop") \
            or step.agent.options.dry_run:
        step.log("warning", f"Need to repair reports promise: {text}")
        return Outcome.WARN
    key = step.agent.lock(step, attributes)
    if key is False:
        return Outcome.SKIPPED
    try:
        return _report(step, attributes, text)
    finally:
        step.agent.unlock(key)


def _report(step: Step, attributes: dict, text: str) -> Outcome:
    """VerifyReportPromise: the text to report_to_file or the output, then the
    printfile lines, always to the output (as cf-agent's ReportToLog)."""
    target = attributes.get("report_to_file")
    if isinstance(target, str) and target:
        try:
            with open(target, "a", encoding="utf-8", errors="surrogateescape") as fh:
                fh.write(text + "\n")
        except OSError as exc:
            step.log("error", f"Could not open log file '{target}', message '{text}'. "
                              f"(fopen: {exc.strerror})")
    else:
        step.agent.out.report(text)
    printfile = attributes.get("printfile") or {}
    if printfile:
        lines = _file_lines(step, printfile.get("file_to_print"),
                            printfile.get("number_of_lines"))
        if lines is None:
            return Outcome.FAILED
        for line in lines:
            step.agent.out.report(line)
    return Outcome.KEPT


def _file_lines(step: Step, path: object, count: object) -> list[str] | None:
    """PrintFile: the first ``number_of_lines`` lines (``inf`` and the integer suffixes
    as CFEngine reads them; 5 when not given), or the last ones when it is negative;
    lines split at newlines only.  None when the file cannot be read (the promise fails)."""
    from cfpromise.schema.values import ValueError_, parse_int
    if not isinstance(path, str) or not path:
        step.log("verbose", "Printfile promise was incomplete, with no filename.")
        return None
    limit = 5
    if isinstance(count, str) and count:
        try:
            limit = parse_int(count)
        except ValueError_:
            limit = 5
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        step.log("error", f"Printing of file '{path}' was not possible. (fopen: {exc.strerror})")
        return None
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if limit < 0:
        return lines[max(len(lines) + limit, 0):]
    return lines[:limit]
