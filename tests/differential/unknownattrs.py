"""Unknown attributes (issue #26): cases.

cf-promises 3.21 reports an attribute its syntax table does not know for the promise
type (or body type) with "Unknown attribute 'Y' for promise type 'X' in bundle with
type 'B'" (or "... for 'body T N'"), placing it where its parser stands once the lval
token is read: one past the lval's last character, whatever blank, comment, line break
or ``=>`` follows.  The shapes here cross promise types of every bundle type with kinds
of unknown attribute (made up, valid for another promise type, a body type's name, a
body's attribute) and places in the promise (alone, first, last, on its own line, after
a comment, after a multi-line rval).

``VALIDATIONS`` (name -> policy) compare ``cf-promises -f`` with ``cf-lite-promises -f``:
exit code and every error with its source line and caret.
"""
from __future__ import annotations

from itertools import product

from cfpromise.schema import schema

# promise type -> (bundle type, promiser and a valid attribute, a body's attribute,
#                  an attribute only another promise type has)
_TYPES = {
    "vars": ("agent", '"v" string => "1"', "mode", "create"),
    "classes": ("common", '"c" expression => "any"', "action_policy", "string"),
    "files": ("agent", '"/tmp/x" create => "true"', "mode", "usebundle"),
    "commands": ("agent", '"/bin/true" inform => "false"', "useshell", "create"),
    "reports": ("agent", '"hello" comment => "c"', "lines", "edit_line"),
    "methods": ("agent", '"m" usebundle => m', "mode", "string"),
    "processes": ("agent", '"sshd" restart_class => "r"', "match_value", "create"),
    "services": ("agent", '"s" service_policy => "start"', "service_type", "create"),
    "packages": ("agent", '"p" policy => "present"', "package_name", "create"),
    "users": ("agent", '"u" policy => "present"', "mode", "create"),
    "storage": ("agent", '"/mnt" mount => m', "mount_type", "create"),
    "insert_lines": ("edit_line", '"x" location => l', "before_after", "create"),
    "delete_lines": ("edit_line", '"x" not_matching => "true"', "select_start", "create"),
    "replace_patterns": ("edit_line", '"x" replace_with => r', "replace_value", "create"),
    "field_edits": ("edit_line", '"x" edit_field => f', "field_separator", "create"),
    "access": ("server", '"/tmp" admit => { "127.0.0.1" }', "mode", "create"),
    "roles": ("server", '".*" authorize => { "root" }', "mode", "create"),
    "measurements": ("monitor", '"/tmp/m" stream_type => "file"', "select_line_matching",
                     "create"),
}
_KINDS = {"madeup": lambda body, other: "nosuch", "body_attr": lambda body, other: body,
          "other_type": lambda body, other: other, "body_type": lambda body, other: "edit_defaults",
          # attributes of the promise types every bundle has: the parser lets them by,
          # the check of the parsed policy refuses them (where the type has none)
          "common_vars": lambda body, other: "policy", "common_classes": lambda body, other: "dist",
          "common_reports": lambda body, other: "printfile",
          "common_defaults": lambda body, other: "if_match_regex"}
_PLACES = {
    "last": "{promise}, {lval} => \"1\";",
    "first": "{promiser} {lval} => \"1\", {rest};",
    "own_line": "{promise},\n      {lval} => \"1\";",
    "spaced": "{promise},\n   {lval}   =>   {{ \"1\", \"2\" }};",
    "line_break": "{promise},\n      {lval}\n      => \"1\";",
    "comment": "{promise},\n      {lval}# note\n      => \"1\";",
    "after_multiline": "{promise}, comment => concat(\n\"a\",\n\"b\"), {lval} => \"1\";",
    "guarded": "any::\n    {promise}, {lval} => \"1\";",
}
_FEW_PLACES = ("last", "comment", "after_multiline")   # (every place for the made-up one)
_TAIL = 'bundle agent main { reports: "ok"; }\n'

VALIDATIONS: dict[str, str] = {}
for (ptype, (btype, valid, body_attr, other)), (kind, pick), (place, shape) in product(
        _TYPES.items(), _KINDS.items(), _PLACES.items()):
    if kind != "madeup" and place not in _FEW_PLACES:
        continue
    lval = pick(body_attr, other)
    if schema().promise_attribute(ptype, lval) is not None:
        continue        # (not unknown there: its value's checks have their own tests)
    promiser, rest = valid.split(" ", 1)
    line = shape.format(promise=valid, promiser=promiser, rest=rest, lval=lval)
    name = "main" if btype in ("agent", "common") else "b"
    VALIDATIONS[f"{ptype}_{kind}_{place}"] = (
        f"bundle {btype} {name}\n{{\n  {ptype}:\n    {line}\n}}\n"
        + ("" if name == "main" else _TAIL))

# bodies: an attribute the body type does not have
_BODIES = {
    "perms": 'mode => "644"', "agent control": 'ifelapsed => "1"',
    "common control": 'bundlesequence => { "main" }', "file control": 'namespace => "n"',
    "action": 'ifelapsed => "1"', "contain": 'useshell => "true"',
    "server control": 'allowconnects => { "127.0.0.1" }', "edit_defaults": 'empty_file_before_editing => "true"',
}
for (btype, valid), (place, shape), lval in product(
        _BODIES.items(),
        {"last": "  {valid};\n  {lval} => \"1\";\n", "first": "  {lval} => \"1\";\n  {valid};\n",
         "comment": "  {lval} # c\n  => \"1\";\n",
         "guarded": "  any::\n    {lval}   => \"1\";\n"}.items(),
        ("nosuch", "create", "usebundle")):
    name = btype if " " in btype else f"{btype} b"
    text = f"body {name}\n{{\n{shape.format(valid=valid, lval=lval)}}}\n"
    VALIDATIONS[f"body_{btype.replace(' ', '_')}_{lval}_{place}"] = text + _TAIL
# several in one file: each error in order
VALIDATIONS["several"] = (
    "bundle agent main\n{\n  files:\n    \"/tmp/x\" nosuch => \"1\",\n      create => \"true\","
    " alsonot => \"2\";\n  vars:\n    \"v\" string => \"1\", perms => \"p\";\n}\n"
    "body perms p { mode => \"644\"; owners => { \"root\" }; nope => \"x\"; }\n")
VALIDATIONS["late_and_parse_errors"] = (
    "bundle agent main\n{\n  files:\n    \"/tmp/x\" printfile => \"1\";\n  reports:\n"
    "    \"x\" nosuch => \"1\";\n}\n")
VALIDATIONS["late_several"] = (
    "bundle agent main\n{\n  files:\n    \"/tmp/x\" create => \"true\",\n\n"
    "      printfile => \"1\", string => \"2\";\n  reports:\n    \"x\" data => \"1\";\n}\n"
    "bundle edit_line e { insert_lines: \"x\" expression => \"any\"; }\n")
VALIDATIONS["custom_type_any_attribute"] = (
    "promise agent foo { path => \"/bin/true\"; interpreter => \"/bin/sh\"; }\n"
    "bundle agent main\n{\n  foo:\n    \"x\" nosuch => \"1\", printfile => \"2\";\n}\n")

# -- cf-agent runs: a policy with either kind of error goes to the failsafe -------------
_SEQ = 'body common control { bundlesequence => { "main" }; }\n'
_RUNS = {
    "parse_error": 'bundle agent main { files: "/tmp/none" nosuch => "1"; reports: "ran"; }\n',
    "late_error": 'bundle agent main { files: "/tmp/none" printfile => "1"; reports: "ran"; }\n',
    "late_in_common": 'bundle common g { classes: "c" string => "1"; }\n'
                      'bundle agent main { reports: "ran"; }\n',
    "late_in_edit": 'bundle edit_line e { insert_lines: "x" policy => "free"; }\n'
                    'bundle agent main { reports: "ran"; }\n',
    "valid": 'bundle agent main { reports: "ran"; }\n',
}
CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = [
    (name, {"promises.cf": _SEQ + text}, ()) for name, text in _RUNS.items()]
NAMES = [name for name, _, _ in CASES]
VALIDATION_NAMES = sorted(VALIDATIONS)
