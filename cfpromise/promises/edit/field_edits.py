"""``field_edits``: edit one field of the lines matching the promiser (VerifyColumnEdits).

Every line of the region (from the start delimiter up to, not including, the end
delimiter -- cf-agent ignores the include flags here) that matches the promiser
as a whole is split at ``field_separator`` (a regex; the text of its first match
joins the fields again).  ``select_field`` picks the field (counting from 1, or
0 with ``start_fields_from_zero``); ``extend_fields`` adds empty fields when the
line has too few.  With ``value_separator`` the field is a list of sub-values
that ``field_operation`` edits: ``append`` (default) / ``prepend`` add
``field_value`` unless present, ``alphanum`` adds it and sorts, ``delete``
removes it, ``set`` makes it the only value.  Without a value separator the
whole field is set to the value (or emptied by ``delete``).
"""
from __future__ import annotations

from typing import Any

from cfpromise.agent.outcome import Outcome
from cfpromise.eval.functions import pcre
from cfpromise.promises.api import PromiseRun, handler
from cfpromise.promises.edit import matching, regions
from cfpromise.promises.edit.buffer import EditRun, boolean, current, no_buffer

CF_MAXVARSIZE = 1024


def rlist_to_string(items: list[str], sep: str) -> str:
    """cf-agent's Rlist2String, which joins the sub-values of an edited field and then the
    fields of an edited line: every double quote is written with a backslash before it
    (ScalarWrite), so a quoted value set through a value separator gains two (``\\\\"``)."""
    return sep.join(item.replace('"', '\\"') for item in items)


def split_values(text: str, sep: str) -> list[str]:
    """RlistFromSplitString: split at ``sep`` (a backslash escapes it); a trailing separator
    adds no empty value."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        piece: list[str] = []
        while i < n and text[i] != sep:
            if text[i] == "\\" and i + 1 < n and text[i + 1] == sep:
                piece.append(sep)
                i += 2
                continue
            piece.append(text[i])
            i += 1
        out.append("".join(piece))
        if i < n and text[i] == sep:
            i += 1
    return out


def edit_values(values: list[str], operation: str, value: str, er: EditRun) -> bool:
    """DoEditColumn on the sub-values of a field; True if they changed."""
    name = er.filename
    if operation == "delete":
        changed = False
        while value in values:
            values.remove(value)
            er.buffer.queue("info", f"Deleted column field sub-value '{value}' in '{name}'")
            changed = True
        return changed
    if operation == "set":
        if len(values) == 1 and values[0] == value:
            er.log("verbose", "Field sub-value set as promised")
            return False
        if not values and value == "":
            er.log("verbose", "Empty field sub-value set as promised")
            return False
        er.buffer.queue("info", f"Set field sub-value '{value}' in '{name}'")
        values[:] = [value]
        return True
    if operation == "prepend":
        if value in values:
            return False
        values.insert(0, value)
        er.buffer.queue("info", f"Prepended field sub-value '{value}' in '{name}'")
        return True
    if operation == "alphanum":
        if value in values:
            return False
        values.insert(0, value)
        values.sort(key=lambda v: v.encode("utf-8", "surrogateescape"))
        er.buffer.queue("info", f"Inserted field sub-value '{value}' in '{name}'")
        return True
    if value in values:
        return False
    values.append(value)
    er.buffer.queue("info", f"Appended field sub-value '{value}' in '{name}'")
    return True


def edit_line_by_column(columns: list[str], spec: dict[str, Any], er: EditRun) -> bool:
    """EditLineByColumn; True if the line must be rewritten."""
    select = spec["select"]
    if select > len(columns):
        if not spec["extend"]:
            er.fail(f"The file {er.filename} has only {len(columns)} fields, but there is a "
                    f"promise for field {select}")
            return False
        columns.extend([""] * (select - len(columns)))
    index = select - 1
    value = spec["value"]
    operation = spec["operation"]
    sep = spec["value_separator"]
    if sep:
        values = split_values(columns[index], sep)
        if er.warn_only:
            # cf-agent asks MakingChanges before it looks at the sub-values (its test,
            # strstr(field, value) || field != value, always holds): a warning even when
            # nothing would change
            if er.would(f"Should edit field '{value}' in '{er.filename}'") and \
                    edit_values(values, operation, value, er):
                columns[index] = rlist_to_string(values, sep)
                return True
            return False
        if not edit_values(values, operation, value, er):
            er.kept(f"No need to edit field in {er.filename}")
            return False
        er.buffer.edits += 1
        er._result(Outcome.REPAIRED)
        columns[index] = rlist_to_string(values, sep)
        return True
    if operation == "delete":
        if er.warn_only:
            if er.would(f"Should delete field value '{columns[index]}' in '{er.filename}'"):
                columns[index] = ""
                return True
            return False
        columns[index] = ""
        er.change(f"Deleted column field value '{columns[index]}' in '{er.filename}'")
        return True
    if er.warn_only:
        if er.would(f"Should set column field value '{columns[index]}' to '{value}' in "
                    f"'{er.filename}'"):
            columns[index] = value
            return True
        return False
    er.change(f"Set whole column field value '{columns[index]}' to '{value}' in "
              f"'{er.filename}'")
    columns[index] = value
    return True


def _spec(run: PromiseRun) -> dict[str, Any]:
    body = run.body("edit_field")
    select: int | None
    try:
        select = int(str(body.get("select_field")))
    except (TypeError, ValueError):
        select = None
    if select is not None and boolean(body.get("start_fields_from_zero"), False):
        select += 1
    value_sep = body.get("value_separator")
    value = body.get("field_value")
    return {
        "separator": None if body.get("field_separator") in (None, "") else
        str(body.get("field_separator")),
        "select": select,
        "value": None if value is None else str(value),
        "value_separator": str(value_sep)[:1] if value_sep else "",
        "operation": str(body.get("field_operation") or "append"),
        "extend": boolean(body.get("extend_fields"), False),
        "blanks": boolean(body.get("allow_blank_fields"), False),
    }


@handler("field_edits")
def verify_column_edits(run: PromiseRun) -> Outcome | None:
    buf = current(run)
    if buf is None:
        return no_buffer(run)
    er = EditRun(run, buf)
    spec = _spec(run)
    if spec["separator"] is None:
        er.fail(f"No field_separator in promise to edit by column for '{run.promiser}'",
                outcome=Outcome.WARN)
        er.promise_ref()
        return er.outcome
    if spec["select"] is None or spec["select"] <= 0:
        er.fail(f"No select_field in promise to edit '{run.promiser}'", outcome=Outcome.WARN)
        er.promise_ref()
        return er.outcome
    if spec["value"] is None:
        er.fail(f"No field_value is promised to column_edit '{run.promiser}'",
                outcome=Outcome.WARN)
        er.promise_ref()
        return er.outcome
    lines = buf.lines
    span = regions.whole_span(run, er, lines, buf.filename, "column edit")
    if span is None:
        return er.retry_later(Outcome.INTERRUPTED)
    first, stop = span
    if matching.compile_or_none(run.promiser) is None:
        return er.finish()
    separator = spec["separator"]
    found_match = False
    for i in range(first, stop):
        line = lines[i]
        if not matching.full(run.promiser, line):
            continue
        found_match = True
        er.log("verbose", f"Matched line '{line}'")
        found = matching.block(separator, line)
        if found is None:
            er.fail(f"Field edit, no fields found by promised pattern '{separator}' in "
                    f"'{buf.filename}'")
            return er.finish()
        start, end, _groups = found
        if end - start > CF_MAXVARSIZE // 2:
            er.log("error", "Line split criterion matches a huge part of the line, seems to be "
                            "in error")
            return er.finish()
        joiner = line[start:end]
        columns = pcre.split(line, separator, 1 << 30, spec["blanks"])
        if edit_line_by_column(columns, spec, er):
            lines[i] = rlist_to_string(columns, joiner)
    if not found_match:
        # cf-agent's RecordFailure: the standard library's set_variable_values and its kin
        # insert the line when this promise is neither kept nor repaired
        er.fail(f"No matched line to edit fields of for pattern '{run.promiser}' in "
                f"'{buf.filename}'", outcome=Outcome.FAILED)
    return er.finish()
