"""Data container built-ins: parsing, merging, mapping, expanding, writing.

JSON is read and written by :mod:`.jsondata` (CFEngine's lenient reader and its
exact output format).  ``mapdata`` is lazy like in cf-agent: its pattern is
expanded once per element with ``this.k``, ``this.v`` (and ``this.k[1]`` for
nested containers) bound; in ``json`` mode those values have their double
quotes escaped and every result is parsed as JSON (results that do not parse
are skipped), ``canonify`` mode canonifies them, ``json_pipe`` sends the
container to a command and reads JSON documents back.

``data_expand`` expands ``$(...)`` references in keys and string values; a
string with a reference that does not resolve is kept as written.
"""
from __future__ import annotations

from cfpromise.eval.canon import canonify
from cfpromise.eval.functions import jsondata
from cfpromise.eval.functions import messages
from cfpromise.eval.functions.api import FunctionError, builtin
from cfpromise.eval.functions.common import (
    argv, boolean, collect, collect_container, copied, describe, lazy_value, scalar)
from cfpromise.eval.functions.lists import map_container

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Sequence

    from cfpromise.eval.functions.api import FunctionContext, Value


@builtin("parsejson")
def parsejson(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (text,) = argv("parsejson", args, 1)
    from cfpromise.eval.functions.common import var_to_json
    try:
        data, end = jsondata.loads_end(text, lookup=lambda ref: var_to_json(ctx, ref, True))
    except jsondata.JsonError as exc:
        # an error in cf-agent 3.21, naming the text from where its parser stopped
        raise messages.fail("data.parse_expression", mode="JSON",
                            text=getattr(exc, "rest", text), err=exc) from None
    if not isinstance(data, (dict, list)):
        raise messages.fail("data.expression_non_container", mode="JSON", text=text[end:])
    return data


@builtin("parseyaml")
def parseyaml(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (text,) = argv("parseyaml", args, 1)
    try:
        data = jsondata.from_yaml(text)
    except jsondata.JsonError as exc:
        raise FunctionError(f"Error parsing YAML expression '{text}': {exc}") from None
    if not isinstance(data, (dict, list)):
        raise FunctionError(f"Non-container from parsing YAML expression '{text}'")
    return data


@builtin("validjson")
def validjson(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """True if the text parses as JSON (cf-agent 3.21 ignores the strict flag
    and anything after the first value)."""
    values = argv("validjson", args, 1, 2)
    return _valid(values[0])


@builtin("validdata")
def validdata(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    text, kind = argv("validdata", args, 2)
    if kind != "JSON":
        raise FunctionError(f"validdata: Data type {kind} is not supported by this function")
    return _valid(text)


def _valid(text: str) -> bool:
    try:
        jsondata.loads(text)
    except jsondata.JsonError:
        return False
    return True


@builtin("storejson")
def storejson(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (source,) = argv("storejson", args, 1, raw=(0,))
    return jsondata.dumps(collect_container(ctx, "storejson", source))


@builtin("mergedata")
def mergedata(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    if not args:
        raise messages.fail("data.mergedata_no_args")
    containers = []
    for arg in args:
        data = collect(ctx, arg)
        if data is None:
            raise FunctionError(f"Function 'mergedata': argument '{describe(arg)}' does "
                                f"not resolve to a container or a list or a CFEngine array")
        if not isinstance(data, (dict, list)):
            raise FunctionError(f"{describe(arg)} is not mergeable as it it not a container")
        containers.append(data)
    result = jsondata.copy(containers[0])
    for other in containers[1:]:
        result = jsondata.merge(result, other)
    return result


def _expand_element(ctx: FunctionContext, value: Any) -> Any:
    if isinstance(value, dict):
        return {_expand_text(ctx, k): _expand_element(ctx, v) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand_element(ctx, v) for v in value]
    if isinstance(value, str):
        return _expand_text(ctx, value)
    return jsondata.copy(value)


def _expand_text(ctx: FunctionContext, text: str) -> str:
    if "$" not in text:
        return text
    expanded = ctx.expand(text)
    return text if expanded is None else expanded


@builtin("data_expand")
def data_expand(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (source,) = argv("data_expand", args, 1, raw=(0,))
    data = collect(ctx, source)
    if data is None:
        raise FunctionError(f"Function 'data_expand': argument '{describe(source)}' "
                            f"does not resolve to a container")
    return _expand_element(ctx, data)


@builtin("type")
def type_(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    values = argv("type", args, 1, 2)
    detail = boolean(values[1]) if len(values) > 1 else False
    var = ctx.lookup(values[0])
    kind = "none" if var is None else var.type
    if not detail:
        return kind
    if var is not None and var.type == "data":
        v = var.value
        sub = ("object" if isinstance(v, dict) else "array" if isinstance(v, list)
               else "boolean" if isinstance(v, bool) else "null" if v is None
               else "int" if isinstance(v, int) else "real" if isinstance(v, float)
               else "string")
        return f"data {sub}"
    return f"policy {kind}"


# ---------------------------------------------------------------------------
# mapdata


@builtin("mapdata", lazy=True)
def mapdata(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    if len(args) != 3:
        raise FunctionError(f"Arguments to function 'mapdata' do not tally. "
                            f"Expected 3 not {len(args)}")
    mode = scalar(lazy_value(ctx, args[0]), "mapdata", 0)
    if mode not in ("none", "canonify", "json", "json_pipe"):
        raise FunctionError(f"Function 'mapdata': unknown conversion '{mode}'")
    data = copied("mapdata", collect_container(ctx, "mapdata", lazy_value(ctx, args[2])))
    if mode == "json_pipe":
        command = scalar(lazy_value(ctx, args[1]), "mapdata", 1)
        return _json_pipe(command, data)
    results = map_container(ctx, "mapdata", args[1], data, escape_quotes=(mode == "json"))
    if mode == "canonify":
        return [canonify(r) for r in results]
    if mode == "json":
        from cfpromise.eval.functions.common import var_to_json
        out = []
        for text in results:
            try:
                out.append(jsondata.loads(text, lookup=lambda ref: var_to_json(ctx, ref, True)))
            except jsondata.JsonError:
                ctx.log("verbose", f"Function 'mapdata' could not parse dynamic JSON "
                                   f"'{text}', skipping it")
        return out
    return results


def _json_pipe(command: str, data: Any) -> list[Any]:
    import shlex
    import subprocess
    try:
        proc = subprocess.run(shlex.split(command), input=jsondata.dumps(data).encode(),
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              timeout=300, check=False)
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        raise FunctionError(f"Function mapdata failed to get output from 'json_pipe' "
                            f"execution: {exc}") from None
    out: list[Any] = []
    pending = ""
    for line in proc.stdout.decode("utf-8", "surrogateescape").splitlines():
        pending = line if not pending else pending + "\n" + line
        try:
            out.append(jsondata.loads(pending))
            pending = ""
        except jsondata.JsonError:
            continue
    if not out and not proc.stdout:
        raise FunctionError("Function mapdata failed to get output from 'json_pipe' execution")
    return out
