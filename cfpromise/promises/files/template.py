"""Templates: ``edit_template`` in CFEngine's own format, mustache and inline mustache.

CFEngine format (MakeTemporaryBundleFromTemplate + RenderTemplateCFEngine): the
template becomes a list of insert_lines promises with ``insert_type =>
"preserve_all_lines"``, applied to the emptied file:

* every ordinary line is one promise;
* ``[%CFEngine BEGIN %]`` ... ``[%CFEngine END %]`` make the lines between them
  one multi-line promise (blocks do not nest);
* ``[%CFEngine classexpr:: %]`` guards the lines that follow (until the next
  guard; a block restores the guard in force at its BEGIN);
* a line whose guard is not defined is left out; ``$(...)`` references are
  expanded, a list reference repeats the line (or block) once per value;
* a marker line without its closing ``%]`` is a syntax error: the promise is
  interrupted and nothing is rendered.

Mustache (RenderTemplateMustache): ``template_data`` (or, without it, the
datastate of all classes and variables) rendered with
:mod:`cfpromise.eval.functions.mustache` -- CFEngine's extensions included --
replaces the whole file when its content differs.
"""
from __future__ import annotations

from typing import Any

from cfpromise.agent.outcome import Outcome
from cfpromise.eval.functions import mustache
from cfpromise.promises.api import PromiseRun
from cfpromise.promises.files import bridge
from cfpromise.fast.records import record
from cfpromise.syntax import ast
from cfpromise.syntax.errors import Coord

MARKER = "[%CFEngine"


class TemplateError(ValueError):
    pass


@record             # (not attrs: see cfpromise.promises.edit.buffer)
class TemplatePromise:
    text: str          # the promiser before expansion
    context: str       # the class expression guarding it
    line: int          # template line of the promise (its END line for blocks)


def parse_cfengine_template(text: str, path: str, defined: Any) -> list[TemplatePromise]:
    """The insert_lines promises a CFEngine-format template stands for.

    ``defined(expr)`` says whether a class expression holds (lines under a guard that
    does not hold are dropped while reading, as cf-agent does)."""
    promises: list[TemplatePromise] = []
    context = "any"
    stack: list[str] = []
    block: list[str] | None = None
    level = 0
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
        complete_last = True
    else:
        complete_last = False
    for number, raw in enumerate(lines, start=1):
        if raw.startswith(MARKER):
            words = raw[len(MARKER):].split()
            op = words[0] if words else ""
            bracket = words[1][:3] if len(words) > 1 else ""
            if bracket != "%]":
                raise TemplateError(f"Template file '{path}' syntax error, missing close \"%]\" "
                                    f"at line {number}")
            if op == "BEGIN":
                stack.insert(0, context)
                level += 1
                if level > 1:
                    raise TemplateError(f"Template file '{path}' contains nested blocks which "
                                        f"are not allowed, near line {number}")
                block = []
                continue
            if op == "END":
                level -= 1
                if stack:
                    context = stack.pop(0)
            if op.endswith("::"):
                context = op[:-2]
                continue
            body = "".join(block or [])
            if body.endswith("\n"):
                body = body[:-1]
            promises.append(TemplatePromise(body, context, number))
            block = None
            continue
        if not defined(context):
            continue
        is_last = number == len(lines)
        if level > 0:
            if block is None:
                block = []
            block.append(raw + ("\n" if (not is_last or complete_last) else ""))
        else:
            promises.append(TemplatePromise(raw, context, number))
    return promises


def _insert_run(run: PromiseRun, path: str, promise: TemplatePromise, text: str) -> PromiseRun:
    node = ast.Promise(promise.text, coord=Coord(path, promise.line, 1))
    return PromiseRun(promise=node, promise_type="insert_lines", promiser=text,
                      attributes={"insert_type": "preserve_all_lines"},
                      namespace="default", bundle=f"temp_cf_bundle_{_canon(path)}",
                      agent=run.agent)


def _canon(text: str) -> str:
    from cfpromise.eval.canon import canonify
    return canonify(text)


def render_cfengine(fr: Any, buffer: Any, template_path: str) -> Outcome:
    """Apply a CFEngine-format template to ``buffer`` (already emptied)."""
    from cfpromise.promises.edit.insert_lines import insert_into
    agent = fr.agent
    try:
        with open(template_path, "rb") as fh:
            text = fh.read().decode("utf-8", "surrogateescape")
    except OSError:
        return fr.interrupted(f"Unable to open template file '{template_path}' to make "
                              f"'{fr.path}'")
    try:
        promises = parse_cfengine_template(text, template_path, agent.eval_class_expr)
    except TemplateError as exc:
        return fr.interrupted(str(exc))
    results: list[Outcome] = []
    for promise in promises:
        if promise.context != "any" and not agent.eval_class_expr(promise.context):
            continue
        seen: set[str] = set()
        for expanded in bridge.expand_all(agent, promise.text):
            if expanded in seen:
                continue
            seen.add(expanded)
            results.append(insert_into(_insert_run(fr.run, template_path, promise, expanded),
                                       buffer))
    buffer.edits += 1            # a rendered template is always compared with the file
    buffer.forced = True
    return Outcome.KEPT


def validate_cfengine(path: str) -> str | None:
    """The syntax error of a CFEngine-format template, or None (for create-by-default)."""
    try:
        with open(path, "rb") as fh:
            text = fh.read().decode("utf-8", "surrogateescape")
    except OSError as exc:
        return f"Unable to open template file '{path}'. ({exc.strerror})"
    try:
        parse_cfengine_template(text, path, lambda _c: True)
    except TemplateError as exc:
        return str(exc)
    return None


# --- mustache --------------------------------------------------------------------------

def template_data(fr: Any) -> Any:
    """The data to render: template_data, or the datastate."""
    if fr.a.has_template_data:
        return fr.a.template_data
    return bridge.datastate(fr.agent)


def mustache_source(fr: Any) -> tuple[str | None, str]:
    """(template text or None after a failure, name for messages)."""
    a = fr.a
    if a.template_method == "inline_mustache":
        if a.edit_template_string is None:
            fr.fail(f"'edit_template_string' not set for promiser: '{fr.run.promiser}'")
            return None, "inline"
        return a.edit_template_string, "inline"
    path = a.edit_template or ""
    try:
        with open(path, "rb") as fh:
            return fh.read().decode("utf-8", "surrogateescape"), path
    except OSError:
        fr.fail(f"Template file '{path}' could not be opened for reading")
        return None, path


def render_mustache_text(template: str, data: Any, log: Any = None) -> str | None:
    try:
        return mustache.render(template, data)
    except (mustache.MustacheError, ValueError, TypeError, KeyError) as exc:
        if log is not None and str(exc):
            log("warning", str(exc))
        return None


def data_is_container(value: Any) -> bool:
    return isinstance(value, (dict, list))
