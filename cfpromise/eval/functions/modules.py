"""The module protocol: usemodule() and read_module_protocol().

A module (``WORKDIR/modules/NAME``, owned by root or the agent's user, in directories
only they can write: cfpromise.agent.trust.module_problem) prints
lines that define classes and variables:

* ``+class`` / ``-class1,class2``: define / undefine classes (namespace scope);
* ``=name=value``: a string, ``@name= { "a", "b" }``: a list,
  ``%name={json}``: a data container, ``&name=/path/file``: a data container
  read from a JSON/YAML/CSV/ENV file (by suffix);
* ``^context=name`` sets the bundle the variables go into (default: the
  module's canonified file name), ``^meta=a,b`` their tags,
  ``^persistence=N`` would make classes persistent (cf-lite does not keep
  persistent classes; it logs that and defines them for this run);
* other non-blank lines are shown as ``M 'command': line``.

Variables are defined as ``context.name`` through
:meth:`FunctionContext.define_variable`, classes through
:meth:`FunctionContext.define_class` / :meth:`FunctionContext.undefine_class`.
Like cf-agent, usemodule() runs under ``--dry-run`` too (it only defines
classes and variables) but not under ``--simulate``.
"""
from __future__ import annotations

import os
import re

from cfpromise.eval.canon import canonify
from cfpromise.eval.functions import jsondata
from cfpromise.eval.functions.api import FunctionError, builtin
from cfpromise.eval.functions.common import argv, refuse_in_simulation, to_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence

    from cfpromise.eval.functions.api import FunctionContext, Value

_CONTEXT = re.compile(r"[a-zA-Z0-9_]+")


class ModuleState:
    """What a module's output has set so far (context, tags, persistence)."""

    def __init__(self, command: str) -> None:
        from cfpromise.eval.functions.system import command_arg0
        self.command = command
        self.context = canonify(os.path.basename(command_arg0(command)))
        self.persistence = 0
        self.meta: list[str] = []

    @property
    def tags(self) -> tuple[str, ...]:
        return tuple(self.meta) + ("source=module", f"derived_from={self.command}")


def parse_list(text: str) -> list[str] | None:
    """RlistParseString: ``{ "a", 'b' }`` -> ["a", "b"]; None if malformed."""
    text = text.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return None
    body = text[1:-1]
    items: list[str] = []
    i, n = 0, len(body)
    expect_item = True
    while i < n:
        ch = body[i]
        if ch.isspace():
            i += 1
            continue
        if ch in "\"'" and expect_item:
            j = i + 1
            out: list[str] = []
            while j < n and body[j] != ch:
                if body[j] == "\\" and j + 1 < n:
                    j += 1
                out.append(body[j])
                j += 1
            if j >= n:
                return None
            items.append("".join(out))
            i = j + 1
            expect_item = False
            continue
        if ch == "," and not expect_item:
            expect_item = True
            i += 1
            continue
        return None
    if expect_item and items:
        return None
    return items


def protocol_line(ctx: FunctionContext, state: ModuleState, line: str, show: bool) -> None:
    """Apply one line of module output."""
    if not line:
        return
    head, rest = line[0], line[1:]
    if head == "^":
        if rest.startswith("context="):
            value = rest[len("context="):][:50]
            if value and _CONTEXT.fullmatch(value):
                state.context = value
            else:
                ctx.log("error", f"Module protocol was given an unacceptable ^context "
                                 f"directive '{value}', skipping")
        elif rest.startswith("meta=") and rest[5:]:
            state.meta = [t for t in rest[5:].split(",") if t]
        elif rest.startswith("persistence="):
            try:
                state.persistence = int(rest[len("persistence="):].split()[0])
            except (ValueError, IndexError):
                ctx.log("info", f"Unknown extended module command '{line}'")
        else:
            ctx.log("info", f"Unknown extended module command '{line}'")
    elif head == "+":
        name = canonify(rest)
        if state.persistence > 0:
            ctx.log("verbose", f"Module set persistent class '{name}' for "
                               f"{state.persistence} minutes (kept for this run only)")
        ctx.define_class(name, state.tags, "namespace")
    elif head == "-":
        for name in rest.split(","):
            if name:
                ctx.undefine_class(name)
    elif head in "=@%&" and "=" in rest:
        name, value = rest.split("=", 1)
        if not name:
            return
        target = f"{state.context}.{name}"
        if head == "=":
            ctx.define_variable(target, "string", value, state.tags)
        elif head == "@":
            items = parse_list(value)
            if items is None:
                ctx.log("error", f"Module protocol could not parse variable {name}'s data "
                                 f"content {value}")
            else:
                ctx.define_variable(target, "slist", items, state.tags)
        elif head == "%":
            try:
                data = jsondata.loads(value)
            except jsondata.JsonError as exc:
                ctx.log("info", f"Failed to parse JSON '{value}' for module protocol: {exc}")
                return
            if not isinstance(data, (dict, list)):
                ctx.log("info", f"Module protocol JSON '{value}' should be object or array; "
                                f"wasn't")
                return
            ctx.define_variable(target, "data", jsondata.copy(data), state.tags)
        else:
            from cfpromise.eval.functions.readers import data_type_from_suffix, read_data_file
            try:
                data = read_data_file("module file protocol", value,
                                      data_type_from_suffix(value), 999999999)
            except FunctionError as exc:
                ctx.log("error", f"could not load module file '{value}': {exc}")
                return
            ctx.define_variable(target, "data", jsondata.copy(data), state.tags)
    elif show and line.strip():
        ctx.log("info", f"M '{state.command}': {line}")


@builtin("usemodule")
def usemodule(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """Run ``WORKDIR/modules/NAME ARGS`` and apply its module protocol output."""
    name, arguments = argv("usemodule", args, 2)
    refuse_in_simulation(ctx, "usemodule")
    path = os.path.join(ctx.workdir, "modules", name)
    command = f'"{path}" {arguments}'
    try:
        sb = os.stat(path)
    except OSError:
        from cfpromise.eval.functions import messages
        raise messages.fail("module.missing", path=path) from None
    refusal = None
    if sb.st_uid not in (0, os.getuid()):
        refusal = f"Module '\"{path}\"' was not owned by uid {os.getuid()} who is executing agent"
    else:
        from cfpromise.agent.trust import module_problem
        problem = module_problem(path, ctx.workdir)  # nor in a directory others can write
        if problem is not None:
            refusal = f"Module '\"{path}\"' not run: {problem}"
    if refusal is not None:
        from cfpromise.eval.functions import messages
        raise messages.fail("module.refused", message=refusal)
    import subprocess
    from cfpromise.eval.functions.system import split_command
    try:
        proc = subprocess.run(split_command(command), stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, check=False)
    except OSError as exc:
        raise FunctionError(f"Couldn't open pipe from '{command}'. ({exc.strerror})") from None
    state = ModuleState(command)
    for line in to_text(proc.stdout).split("\n"):
        protocol_line(ctx, state, line.rstrip("\r"), True)
    return True


@builtin("read_module_protocol")
def read_module_protocol(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """Apply the module protocol lines of a file (a cached module's output)."""
    (path,) = argv("read_module_protocol", args, 1)
    try:
        with open(path, "rb") as handle:
            text = to_text(handle.read())
    except OSError:
        return False
    state = ModuleState(path)
    for line in text.split("\n"):
        protocol_line(ctx, state, line, False)
    return True
