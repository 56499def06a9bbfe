"""Shapes of custom promises for the differential test of what reaches a promise module.

One policy holds many promises of a custom type whose module (:data:`MODULE`, JSON
protocol) writes the attributes it is asked to evaluate into ``<promiser>.json`` and
answers with log messages of several levels.  The shapes cover the three things
cf-agent 3.21 decides on its side (libpromises' promises.c and mod_custom.c):

* a body attribute (``example_body => child``, ``=> withargs("a")``): a body of the
  attribute's type, called with or without arguments, with ``inherit_from`` chains
  (with and without arguments), class-guarded attributes, lists (with ``@(list)``
  items), parameters and global variables in its values -- or a quoted or unknown name;
* the promise's ``log_level`` (its own or its action body's, or both: the first one
  written wins), which hides the module's less severe messages;
* ``comment``, ``handle``, promisee and ``body common control version`` in the
  ``Additional promise info`` line of the ``-v`` trace.
"""
from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

MODULE = r'''#!/usr/bin/python3
import json, sys

def read():
    lines = []
    for line in sys.stdin:
        line = line.rstrip("\n")
        if line == "":
            return lines
        lines.append(line)
    sys.exit(0)

read()
print("dump 1.0 v1 json_based action_policy\n", flush=True)
while True:
    request = json.loads(read()[0])
    op = request["operation"]
    if op == "terminate":
        print(json.dumps({"operation": op, "result": "success"}) + "\n", flush=True)
        sys.exit(0)
    if op == "validate_promise":
        print(json.dumps({"operation": op, "promiser": request["promiser"],
                          "result": "valid"}) + "\n", flush=True)
        continue
    name = request["promiser"]
    with open(name + ".json", "w") as f:
        f.write(json.dumps(request.get("attributes", {}), sort_keys=True))
    log = [{"level": level, "message": "module-%s %s" % (level, name.rsplit("/", 1)[-1])}
           for level in ("error", "warning", "notice", "info", "verbose")]
    print(json.dumps({"operation": op, "promiser": name, "result": "kept",
                      "log": log}) + "\n", flush=True)
'''

BODIES = r'''
body example_body plain
{
  a => "x";
  c => { "x", "y" };
  linux:: d => "on linux";
  nosuchclass:: e => "never";
  any:: f => "";
}
body example_body globallist { c => { "x", @(main.l) }; }
body example_body globalvar { b => "$(main.v)"; }
body example_body withargs(p) { a => "$(p)"; b => "$(p)-$(main.v)"; c => { "$(p)", "k" }; }
body example_body twoargs(p, q) { a => "$(p)"; b => "$(q)"; }
body example_body gp(x) { z => "$(x)"; a => "gp"; }
body example_body parent(x) { inherit_from => gp("g"); a => "$(x)"; b => "pb"; }
body example_body child { b => "kb"; c => "kc"; inherit_from => parent("P"); }
body example_body argchild(q) { b => "$(q)"; inherit_from => parent("$(q)"); }
body example_body childvar { inherit_from => parent("$(main.v)"); }
body example_body argchildvar(q) { b => "$(q)"; inherit_from => parent("$(main.v)"); }
body example_body guarded { linux:: inherit_from => parent("L"); any:: c => "c"; }
body other_body ob { k => "v"; l => { "1", "2" }; }
body action act_error { log_level => "error"; }
body action act_inform { log_level => "inform"; }
body action act_plain { ifelapsed => "0"; }
'''

# attribute text of a promise -> a name for the case
BODY_SHAPES = {
    "plain": "example_body => plain",
    "globallist": "example_body => globallist",
    "globalvar": "example_body => globalvar",
    "withargs": 'example_body => withargs("A")',
    "withargs_var": 'example_body => withargs("$(v)")',
    "twoargs": 'example_body => twoargs("1", "2")',
    "child": "example_body => child",
    "parent": 'example_body => parent("X")',
    "argchild": 'example_body => argchild("Q")',
    "childvar": "example_body => childvar",
    "argchildvar": 'example_body => argchildvar("Q")',
    "argvars": 'example_body => twoargs("$(v)", "$(main.v)")',
    "arglist": "example_body => withargs(@(l))",
    "guarded": "example_body => guarded",
    "quoted": 'example_body => "plain"',
    "unknown_type": "example_body => ob",
    "other_type": "other_body => ob",
    "function": 'example_body => concat("x", "y")',
    "none": "",
}

LEVEL_SHAPES = {
    "none": (),
    "error": ('log_level => "error"',),
    "inform": ('log_level => "inform"',),
    "verbose": ('log_level => "verbose"',),
    "log": ('log_level => "log"',),
    "action_error": ("action => act_error",),
    "action_inform": ("action => act_inform",),
    "action_plain": ("action => act_plain",),
    "own_then_action": ('log_level => "inform"', "action => act_error"),
    "action_then_own": ("action => act_error", 'log_level => "inform"'),
}

INFO_SHAPES = {
    "bare": ((), ""),
    "comment": (('comment => "a remark on $(this.promiser)"',), ""),
    "handle": (('handle => "h_$(v)"',), ""),
    "both": (('comment => "why"', 'handle => "hh"'), ""),
    "promisee": ((), ' -> { "alice", "bob" }'),
    "scalar_promisee": (('comment => "c"',), ' -> "carol"'),
}


def cases() -> list[tuple[str, str, str, str]]:
    """(name, body shape, level shape, info shape): every body shape with the plain
    level and info shapes, every level shape with two body shapes, every info shape."""
    out = [(f"body-{b}", b, "none", "bare") for b in BODY_SHAPES]
    out += [(f"level-{lv}-{b}", b, lv, "bare")
            for lv, b in itertools.product(LEVEL_SHAPES, ("none", "child"))]
    out += [(f"info-{i}", "plain", "none", i) for i in INFO_SHAPES]
    out += [(f"mixed-{lv}-{i}", "withargs", lv, i)
            for lv, i in (("error", "comment"), ("action_inform", "both"),
                          ("own_then_action", "promisee"))]
    return out


def policy_text(module: Path, out_dir: Path, version: bool) -> str:
    """One policy with a promise per case (promiser ``<out_dir>/<case name>``)."""
    promises = []
    for name, body, level, info in cases():
        attrs, promisee = INFO_SHAPES[info]
        lines = [BODY_SHAPES[body], *LEVEL_SHAPES[level], *attrs]
        lines = [line for line in lines if line]
        text = f'    "{out_dir}/{name}"{promisee}'
        text += ",".join(f"\n      {line}" for line in lines) + ";"
        promises.append(text)
    control = 'version => "1.2.3";' if version else ""
    return (f'promise agent dump {{ interpreter => "/usr/bin/python3"; path => "{module}"; }}\n'
            f'body common control {{ bundlesequence => {{ "main" }}; {control} }}\n'
            + BODIES +
            'bundle agent main\n{\n  vars:\n    "v" string => "V";\n'
            '    "l" slist => { "l1", "l2" };\n  dump:\n' + "\n".join(promises) + "\n}\n")


_MODULE_LINE = re.compile(r"module-\w+ \S+")
_INFO_LINE = re.compile(r"Additional promise info:.*")


def observe(out_dir: Path, output: str, rewrite: dict[str, str]) -> dict[str, object]:
    """What each case gave: the attributes the module got (None: not sent; ``rewrite``
    applied to their text), and the module's messages and the promise info lines the
    agent printed, per case."""
    sent = {}
    for name, *_ in cases():
        path = out_dir / f"{name}.json"
        text = path.read_text() if path.exists() else "null"
        for old, new in rewrite.items():
            text = text.replace(old, new)
        sent[name] = json.loads(text)
    messages: dict[str, list[str]] = {}
    for line in output.splitlines():
        match = _MODULE_LINE.search(line)
        if match:
            level, name = match.group(0).split(" ")
            prefix = line[:match.start()].split(":")[0].strip()
            messages.setdefault(name, []).append(f"{prefix}: {level}")
    infos = [m.group(0) for m in map(_INFO_LINE.search, output.splitlines()) if m]
    return {"sent": sent, "messages": messages, "infos": infos}
