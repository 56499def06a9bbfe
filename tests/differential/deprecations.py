"""Deprecated and removed language (issue #26): cases.

Old real-world policy (cyphermaster/pimp_my_cfengine3's promises.cf) still has
``body reporter control``, ``body knowledge control`` and ``skipverify`` in ``body
server control``.  cf-promises 3.21 and cf-agent warn of each as they parse
(``[-Wdeprecated]``, ``[-Wremoved]``, with the source line and a caret just after the
rval or the body's ``{``), and cf-agent's parser leaves out the agent bundle that
follows a removed body (its skip flag stays set until a normal body, a common or edit
bundle, or the end of a bundle), so a ``main`` written right after ``body reporter
control`` is "not a defined bundle" to cf-agent while cf-promises accepts the policy.

``VALIDATIONS`` (name -> policy) compare ``cf-promises -f`` with ``cf-lite-promises -f``
line for line (the file's path replaced); ``CASES`` are agent runs compared as
:func:`agentmisc.observe` sees them.
"""
from __future__ import annotations

from itertools import product

# -- parse-time warnings: what cf-promises prints, column and source line included ------
_REMOVED_BODIES = {
    "same_line": "body {type} {name} {{ }}\n",
    "next_line": "body {type} {name}\n{{\n}}\n",
    "after_comment": "body {type} {name} # {{ not this\n{{\n  x => \"1\";\n}}\n",
    "no_space": "body {type} {name}{{}}\n",
}
_DEPRECATED = {
    "skipverify": ("server control", "skipverify", "slist"),
    "acl_directory_inherit": ("acl a", "acl_directory_inherit", "option"),
    "specify_inherit_aces": ("acl a", "specify_inherit_aces", "slist"),
    "host_licenses_paid": ("common control", "host_licenses_paid", "int"),
}
_RVALS = {
    "slist": {"one_line": '{ "127.0.0.1" }', "multi_line": '{\n    "a",\n    "b"\n  }',
              "call": 'splitstring("a,b", ",", "5")', "spaced_end": '{ "a" }   '},
    "option": {"quoted": '"parent"', "single_quoted": "'parent'", "bare": "parent"},
    "int": {"quoted": '"5"', "bare": "5"},
}

VALIDATIONS: dict[str, str] = {}
_MAIN = 'bundle agent main { reports: "ok"; }\n'
for (shape, text), type_, name in product(_REMOVED_BODIES.items(), ("reporter", "knowledge"),
                                          ("control", "other")):
    VALIDATIONS[f"removed_{type_}_{name}_{shape}"] = (
        "# leading line\n" + text.format(type=type_, name=name) + _MAIN)
    VALIDATIONS[f"removed_{type_}_{name}_{shape}_first_line"] = (
        text.format(type=type_, name=name) + _MAIN)
for key, (body, lval, kind) in _DEPRECATED.items():
    for rshape, rval in _RVALS[kind].items():
        VALIDATIONS[f"attr_{key}_{rshape}"] = (
            f"\nbody {body}\n{{\n  {lval} => {rval};\n}}\n" + _MAIN)
        VALIDATIONS[f"attr_{key}_{rshape}_guarded_one_line"] = (
            f"\nbody {body} {{ any:: {lval} => {rval}; }}\n" + _MAIN)
VALIDATIONS["several_in_order"] = (
    "\nbody server control { allowconnects => { \"127.0.0.1\" }; skipverify => { \"a\" }; }\n"
    "body reporter control { }\nbody acl a { specify_inherit_aces => { \"x\" };"
    " acl_directory_inherit => \"parent\"; }\n" + _MAIN)
VALIDATIONS["with_an_error_after"] = (
    "\nbody reporter control { }\n"
    'bundle agent main { vars: "x" int => "notanumber"; }\n')

# -- cf-agent runs: the agent bundle a removed body hides -------------------------------
_SEQ = 'body common control { bundlesequence => { "main" }; }\n'
_BLOCKS = {
    "removed": "body reporter control { }\n",
    "removed_other": "body knowledge k { }\n",
    "normal_body": 'body classes nb { promise_kept => { "x" }; }\n',
    "common": 'bundle common c { vars: "v" string => "common ran"; }\n',
    "edit": 'bundle edit_line e { insert_lines: "x"; }\n',
    "agent_x": 'bundle agent x { reports: "x ran"; }\n',
    "main": 'bundle agent main { reports: "main ran"; }\n',
    "server": 'bundle server s { access: "/tmp" admit => { "127.0.0.1" }; }\n',
}
_ORDERS = {
    "removed_then_main": ("removed", "main"),
    "removed_other_then_main": ("removed_other", "main"),
    "two_removed_then_main": ("removed", "removed_other", "main"),
    "removed_common_main": ("removed", "common", "main"),
    "removed_normal_body_main": ("removed", "normal_body", "main"),
    "removed_edit_main": ("removed", "edit", "main"),
    "removed_server_main": ("removed", "server", "main"),
    "removed_x_then_main": ("removed", "agent_x", "main"),
    "main_then_removed": ("main", "removed"),
    "nothing_removed": ("common", "main"),
}
CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []
for order, blocks in _ORDERS.items():
    text = "".join(_BLOCKS[b] for b in blocks)
    CASES.append((f"{order}_sequence", {"promises.cf": _SEQ + text}, ()))
    CASES.append((f"{order}_default_main", {"promises.cf": text}, ()))
# a hidden bundle called by name from main
CASES.append(("hidden_bundle_called", {"promises.cf": _SEQ + _BLOCKS["removed"]
                                       + _BLOCKS["agent_x"]
                                       + 'bundle agent main { methods: "x" usebundle => x; '
                                         'reports: "main ran"; }\n'}, ()))
NAMES = [name for name, _, _ in CASES]
