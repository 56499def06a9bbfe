"""``replace_patterns``: replace what the promiser regex matches (VerifyPatterns/ReplacePatterns).

Every line of the region (start delimiter up to, not including, the end
delimiter, as in cf-agent) is searched for the pattern; each match is replaced
by ``replace_value`` expanded with the match's captures as ``$(match.0)``,
``$(match.1)``...  Matching restarts from the beginning of the line after each
replacement, up to 20 times (``occurrences => "first"`` stops after one).

The convergence rule: a pattern that is not anchored (``^...$``) and still
matches the line after replacement is not convergent -- the line is left as it
was and the promise fails (``... is not convergent while editing ...``).  An
anchored pattern that still matches after a replacement is reported as "not
properly convergent" at info level and interrupts the promise, but the
replacement stays.
"""
from __future__ import annotations

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.api import PromiseRun, handler
from cfpromise.promises.edit import matching, regions
from cfpromise.promises.edit.buffer import EditRun, current, no_buffer
from cfpromise.promises.files import bridge

CF_MAX_REPLACE = 20


def not_anchored(pattern: str) -> bool:
    return not (pattern.startswith("^") and pattern.endswith("$"))


def _replacement(run: PromiseRun, template: str, groups: list[str]) -> str:
    if "$" not in template:
        return template
    extra = {f"match.{i}": g for i, g in enumerate(groups)}
    return bridge.expand(run.agent, _match_refs(template, groups), extra)


def _match_refs(template: str, groups: list[str]) -> str:
    """Substitute ``$(match.N)``/``${match.N}`` directly (they are this promise's captures)."""
    out = template
    for i, g in enumerate(groups):
        out = out.replace(f"$(match.{i})", g).replace(f"${{match.{i}}}", g)
    return out


@handler("replace_patterns")
def verify_patterns(run: PromiseRun) -> Outcome | None:
    buf = current(run)
    if buf is None:
        return no_buffer(run)
    er = EditRun(run, buf)
    er.log("verbose", f"Looking at pattern '{run.promiser}'")
    body = run.body("replace_with")
    value = body.get("replace_value")
    if value is None:
        er.fail(f"The promised pattern replace '{run.promiser}' had no replacement string")
        return er.outcome
    value = str(value)
    lines = buf.lines
    span = regions.whole_span(run, er, lines, buf.filename, "pattern replace")
    if span is None:
        return er.retry_later(Outcome.INTERRUPTED)
    first, stop = span
    once = str(body.get("occurrences", "all")).strip() == "first"
    if once:
        er.log("warning", "Setting replace-occurrences policy to 'first' is not convergent")
    pattern = run.promiser
    error = matching.regex_error(pattern)
    if error is not None:
        er.fail(error)
        return er.finish()
    notfound = True
    warn_only = er.warn_only
    for i in range(first, stop):
        original = lines[i]
        line = original
        replaced = False
        match_len = 0
        cutoff = 1
        while True:
            found = matching.block(pattern, line)
            if found is None:
                break
            start, end, groups = found
            if match_len == len(line):
                er.log("verbose", "Improper convergent expression matches defacto convergence, "
                                  "so accepting")
                break
            cutoff += 1
            if cutoff > CF_MAX_REPLACE + 1:
                er.log("verbose", "Too many replacements on this line")
                break
            match_len = end - start
            replacement = _replacement(run, value, groups)
            er.log("verbose", f"Verifying replacement of '{pattern}' with '{replacement}', "
                              f"cutoff {cutoff}")
            line = line[:start] + replacement + line[end:]
            notfound = False
            replaced = True
            if once:
                er.log("verbose", "Replace first occurrence only (warning, this is not a "
                                  "convergent policy)")
                break
        if not_anchored(pattern) and matching.block(pattern, line) is not None:
            er.fail(f"Promised replacement '{line}' on line '{original}' for pattern "
                    f"'{pattern}' is not convergent while editing '{buf.filename}' (regular "
                    "expression matches the replacement string)")
            er.promise_ref()
            break
        if warn_only:
            er.warn(f"Should replace pattern '{pattern}' in '{buf.filename}'")
            if replaced and er.simulate:
                lines[i] = line
                buf.edits += 1
            continue
        if replaced:
            lines[i] = line
            er.change(f"Replaced pattern '{pattern}' in '{buf.filename}'")
            if once:
                break
            if matching.block(pattern, line) is not None:
                er.fail(f"Promised replacement '{line}' for pattern '{pattern}' is not properly "
                        f"convergent while editing '{buf.filename}' (pattern still matches the "
                        f"end-state replacement string '{line}', consider use of a negative "
                        "look ahead)")
                buf.queue("info", run.belongs_to())
    if notfound:
        er.kept(f"No pattern '{pattern}' in '{buf.filename}'")
    return er.finish()
