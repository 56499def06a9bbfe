"""Validation verdicts as cf-promises 3.21 gives them (issue #26): cases.

Four families, each over generated shapes, compared as ``cf-promises -f`` and
``cf-lite-promises -f`` print them (exit code; each error with its file:line:col, source
line and caret):

* ``reserved_*``: a bundle named as one of the special variable contexts (sys, const,
  mon, edit, match, this) is "Use of a reserved container name as a bundle name", an
  error of the check of the parsed policy (line of the name, column 0, no source line),
  for every bundle type, alone or among the check's other errors (its order: duplicate
  bundles, then each bundle's name and promises, then bodies, then handles), and not
  said when the parser found errors; bodies and near names (SYS, mon_x, global) pass;
* ``value_*``: an rval of the wrong shape or value (a scalar for a list, a list for a
  scalar, a quoted body reference, a number or menu option that does not parse, a
  function of the wrong type) is the parser's error once it has read the rval: one past
  its last character (a bare word: past the token after it), on its last line, over
  quoted, single-quoted, multi-line, listed, called, bare, commented and continued
  shapes, in promises and bodies, on the file's first line too (no source line there);
* ``retyped_*``: a vars promise with a second type is "Variable contains existing data
  type contstraint A, tried to redefine with B" (sic) from the check: the line where the
  second type's rval ends, column 0, after the promise's other checks;
* ``guard_*``: a class guard (or anything but a promise type) right after a bundle's
  ``{``: bison's "syntax error", then the error rule's "Expected promise type, got 'T'"
  for it and for each token after it up to a promise type or the ``}``, each at the
  token's end.

With them, their neighbours: ``check_*``, the check's other errors in its order
(promisers, a promise type its bundle type has not -- once per promise --, handles
compared with their first use, custom promises' ``ifvarclass``/``expireafter``, control
bodies' arguments, list conditions); ``skip_*``, no value of a bundle (and no attribute
of a body) checked after an unknown attribute, until the block ends (the parser's
INSTALL_SKIP); ``guard_past_*``, the rest of the file after a recovered bundle, parsed and
checked (the recovered bundle's unknown attributes still said, its values not).

``VALIDATIONS``: name -> policy text.  ``KNOWN``: name -> why cf-lite still differs
(none now; syntax errors other than these recoveries are :mod:`syntaxerrors`' family).
"""
from __future__ import annotations

from itertools import product

VALIDATIONS: dict[str, str] = {}
KNOWN: dict[str, str] = {}
_MAIN = 'bundle agent main { reports: "ok"; }\n'

# -- 1: reserved bundle names ---------------------------------------------------------
RESERVED = ("sys", "const", "mon", "edit", "match", "this")
_NEAR = ("SYS", "Mon", "mon_x", "thisx", "global", "default", "def", "control")
_BUNDLE_TYPES = ("agent", "common", "edit_line", "edit_xml", "server", "monitor")
_NAME_PLACES = {
    "plain": "\nbundle {type} {name}\n{{\n}}\n",
    "one_line": "\nbundle {type} {name} {{ }}\n",
    "name_next_line": "\nbundle {type}\n  {name}\n{{\n}}\n",
    "args": "\nbundle {type} {name}(a, b)\n{{\n}}\n",
    "first_line": "bundle {type} {name} {{ }}\n",
    "namespaced": "\nbody file control {{ namespace => \"ns\"; }}\nbundle {type} {name} {{ }}\n"
                  "body file control {{ namespace => \"default\"; }}\n",
}
for name, btype in product(RESERVED, _BUNDLE_TYPES):
    VALIDATIONS[f"reserved_{name}_{btype}"] = _NAME_PLACES["plain"].format(type=btype, name=name) + _MAIN
for name, (place, text) in product(RESERVED, _NAME_PLACES.items()):
    VALIDATIONS[f"reserved_{name}_agent_{place}"] = text.format(type="agent", name=name) + _MAIN
for name in _NEAR:
    VALIDATIONS[f"reserved_near_{name}"] = _NAME_PLACES["plain"].format(type="agent", name=name) + _MAIN
for name in RESERVED:
    VALIDATIONS[f"reserved_body_{name}"] = (
        f"\nbody perms {name} {{ mode => \"644\"; }}\nbody action {name} {{ ifelapsed => \"1\"; }}\n"
        + _MAIN)
    VALIDATIONS[f"reserved_with_content_{name}"] = (
        f"\nbundle agent {name}\n{{\n  vars:\n    \"x\" string => \"1\";\n  reports:\n"
        f"    \"$(x)\";\n}}\n" + _MAIN)
# among the check's other errors, in its order
VALIDATIONS["reserved_order_with_duplicates"] = (
    "\nbundle agent mon { }\nbundle agent main { reports: \"ok\"; }\n"
    "bundle agent main { reports: \"ok\"; }\nbundle common sys { }\n")
VALIDATIONS["reserved_order_with_late_attribute"] = (
    "\nbundle agent x { files: \"/tmp/x\" printfile => \"1\"; }\nbundle agent this\n{\n"
    "  files:\n    \"/tmp/y\"\n      string => \"2\";\n}\n" + _MAIN)
VALIDATIONS["reserved_order_with_bodies_and_handles"] = (
    "\nbody common control(a) { }\nbundle agent const\n{\n  reports:\n    \"a\" handle => \"h\";\n"
    "    \"b\" handle => \"h\";\n}\nbody perms p { mode => \"644\"; }\n"
    "body perms p { mode => \"600\"; }\n" + _MAIN)
VALIDATIONS["reserved_several"] = "".join(f"\nbundle agent {n} {{ }}" for n in RESERVED) + "\n" + _MAIN
VALIDATIONS["reserved_after_parse_error"] = (
    "\nbundle agent match { }\nbundle agent main\n{\n  reports:\n    \"x\" nosuch => \"1\";\n}\n")
VALIDATIONS["reserved_before_parse_error_in_body"] = (
    "\nbundle agent edit { }\nbody perms p\n{\n  mode => { \"644\" };\n}\n" + _MAIN)

# -- 2: value errors at the end of the value -------------------------------------------
# (promise type, promiser and attribute) -> value shapes
_SCALARS = {
    "quoted": '"x"', "single_quoted": "'x'", "backquoted": "`x`",
    "multi_line": '"a\n  b"', "spaced": '"x"   ', "comment": '"x" # note\n    ',
    "next_line": '\n      "x"', "variable": '"$(v)"', "long": '"' + "y" * 40 + '"',
}
_LISTS = {
    "one_line": '{ "a", "b" }', "multi_line": '{\n      "a",\n      "b"\n    }',
    "comment": '{ "a" } # note\n    ', "empty": "{ }", "with_call": '{ "a", canonify("b") }',
    "trailing_comma": '{ "a", }', "nested_quote": '{ "a\\"b" }',
}
_BARES = {"bare": "maybe", "bare_spaced": "maybe   ", "bare_comment": "maybe # c\n    ",
          "bare_next_line": "maybe\n    "}
_KINDS = {
    # kind: (bundle line before the value, the shapes, what follows the value)
    "scalar_to_list": ('  vars:\n    "v" slist => ', _SCALARS),
    "scalar_to_ilist": ('  vars:\n    "v" ilist => ', _SCALARS),
    "list_to_scalar": ('  vars:\n    "v" string => ', _LISTS),
    "list_to_report_attr": ('  reports:\n    "r" friend_pattern => ', _LISTS),
    "quoted_body": ('  files:\n    "/tmp/x" perms => ', _SCALARS),
    "quoted_edit_line": ('  files:\n    "/tmp/x" edit_line => ', _SCALARS),
    "int_word": ('  vars:\n    "v" int => ', {k: v.replace("x", "abc") for k, v in _SCALARS.items()
                                                if k != "variable"}),
    "option_word": ('  files:\n    "/tmp/x" create => ', {**{k: v.replace("x", "maybe") for k, v in
                                                          _SCALARS.items() if k != "variable"},
                                                       **_BARES}),
    "function_type": ('  vars:\n    "v" int => ', {"call": 'canonify("x")',
                                                    "call_multi_line": 'canonify(\n      "x"\n    )',
                                                    "call_comment": 'canonify("x") # c\n    ',
                                                    "list_call": '{ canonify("x") }'}),
}
_ENDS = {"semicolon": ";", "more": ', comment => "c";', "more_next_line": ',\n      comment => "c";'}
for kind, (before, shapes) in _KINDS.items():
    for (shape, value), (end, tail) in product(shapes.items(), _ENDS.items()):
        if end != "semicolon" and shape not in ("quoted", "one_line", "comment", "bare",
                                                "multi_line", "call", "next_line"):
            continue
        VALIDATIONS[f"value_{kind}_{shape}_{end}"] = (
            f"\nbundle agent main\n{{\n{before}{value}{tail}\n}}\n")
    VALIDATIONS[f"value_{kind}_guarded"] = (
        f"\nbundle agent main\n{{\n{before.replace(':', ':' + chr(10) + '   any::', 1)}"
        f"{next(iter(shapes.values()))};\n}}\n")
    VALIDATIONS[f"value_{kind}_first_line"] = (
        "bundle agent main { " + before.replace("\n", " ") + next(iter(shapes.values()))
        + "; }\n")
# in bodies
_BODY_VALUES = {
    "perms_owners_scalar": ("perms p", "owners", _SCALARS),
    "perms_mode_list": ("perms p", "mode", _LISTS),
    "contain_useshell_word": ("contain c", "useshell", {"bare": "maybe", "quoted": '"maybe"',
                                                       "comment": '"maybe" # c\n  '}),
    "action_ifelapsed_word": ("action a", "ifelapsed", {"quoted": '"abc"', "bare": "abc",
                                                        "multi_line": '"a\nbc"'}),
    "copy_from_source_list": ("copy_from c", "source", _LISTS),
}
for kind, (body, lval, shapes) in _BODY_VALUES.items():
    for shape, value in shapes.items():
        VALIDATIONS[f"value_body_{kind}_{shape}"] = (
            f"\nbody {body}\n{{\n  {lval} => {value};\n}}\n" + _MAIN)
        VALIDATIONS[f"value_body_{kind}_{shape}_guarded"] = (
            f"\nbody {body}\n{{\n  any::\n    {lval} => {value};\n}}\n" + _MAIN)
_CONDITIONS = {"dot": '"a."', "bar": '"x|" # c\n    ', "paren": '"(a"', "double_dot": '"a.."',
               "multi_line": '"a\n   |"', "multi_line_ok": '"a\n   .b"', "call": 'concat("a.")',
               "spaced": "'a.'   "}
for (shape, value), lval in product(_CONDITIONS.items(), ("if", "unless", "ifvarclass")):
    VALIDATIONS[f"value_condition_{lval}_{shape}"] = (
        f"\nbundle agent main\n{{\n  reports:\n    \"r\" {lval} => {value};\n}}\n")
VALIDATIONS["value_mixed_types"] = (
    '\nbundle agent main\n{\n  vars:\n    "a" data => "x";\n'
    '    "b" string => readstringlist("/x", "", "", 1, 1);\n'
    '    "c" slist => { "a" }, int => "\n  1";\n    "d" string => @(x);\n'
    '    "e" real => "1.5x" ;\n  classes:\n    "f" or => "a";\n'
    '    "g" expression => { "a" };\n  files:\n    "/tmp/x" edit_line => "e"\n'
    ' ,  perms => p("a"), create => maybe # c\n    ;\n}\n')
VALIDATIONS["value_several_in_file_order"] = (
    "\nbundle agent main\n{\n  vars:\n    \"a\" slist => \"x\";\n}\n"
    "body perms p\n{\n  mode => { \"1\" };\n}\nbundle agent b\n{\n  files:\n"
    "    \"/tmp/x\" perms => \"p\";\n}\n")

# -- 3: a vars promise typed twice -----------------------------------------------------
_TYPES = {"string": '"a"', "int": '"1"', "real": '"1.5"', "slist": '{ "a" }',
          "ilist": '{ "1" }', "rlist": '{ "1.5" }', "data": 'parsejson("[]")'}
_RETYPED_PLACES = {
    "same_line": '    "v" {a} => {av}, {b} => {bv};\n',
    "own_line": '    "v" {a} => {av},\n      {b} => {bv};\n',
    "multi_line_value": '    "v" {a} => {av},\n      {b} =>\n        {bv}\n      ;\n',
    "comment": '    "v" {a} => {av}, # c\n      {b} => {bv}; # d\n',
    "guarded": '   any::\n    "v" {a} => {av},\n      {b} => {bv};\n',
    "bare_next_line": '    "v" {a} => {av}, string => word\n    ;\n',
    "naked_comment": '    "v" {a} => {av}, string => $(x) # c\n    , comment => "c";\n',
    "naked_blank_lines": '    "v" {a} => {av},\n      string => @(x)\n\n\n    ;\n',
    "with_policy": '    "v" policy => "free", {a} => {av},\n      comment => "c",\n      {b} => {bv};\n',
}
for (a, av), (b, bv) in product(_TYPES.items(), _TYPES.items()):
    if a == b and a not in ("string", "slist"):
        continue
    VALIDATIONS[f"retyped_{a}_{b}"] = (
        "\nbundle agent main\n{\n  vars:\n" + _RETYPED_PLACES["own_line"].format(a=a, av=av, b=b, bv=bv)
        + "}\n")
for place, text in _RETYPED_PLACES.items():
    VALIDATIONS[f"retyped_place_{place}"] = (
        "\nbundle agent main\n{\n  vars:\n" + text.format(a="int", av='"1"', b="string", bv='"s"')
        + "}\n")
VALIDATIONS["retyped_late_attribute_bare"] = (
    "\nbundle agent main\n{\n  files:\n    \"/tmp/x\" string => word # c\n\n    ;\n"
    "  reports:\n    \"r\" if => { \"any\" }, policy => $(p)\n    ;\n}\n")
VALIDATIONS["retyped_three_types"] = (
    "\nbundle agent main\n{\n  vars:\n    \"v\" string => \"a\",\n      int => \"1\",\n"
    "      real => \"2.5\";\n}\n")
VALIDATIONS["retyped_with_bad_names"] = (
    "\nbundle agent main\n{\n  vars:\n    \"123\" string => \"a\",\n      int => \"1\";\n"
    "    \"a.b.c\" slist => { \"x\" },\n      string => \"1\";\n    \"$()\" int => \"1\",\n"
    "      string => \"s\";\n}\n")
VALIDATIONS["retyped_with_late_attribute"] = (
    "\nbundle agent main\n{\n  vars:\n    \"v\" string => \"a\",\n      int => \"1\",\n"
    "      if => { \"any\" };\n  files:\n    \"/tmp/x\" string => \"s\";\n}\n")
VALIDATIONS["retyped_in_common_and_agent"] = (
    "\nbundle common c\n{\n  vars:\n    \"v\" int => \"1\", string => \"a\";\n}\n"
    "bundle agent main\n{\n  vars:\n    \"w\" data => parsejson(\"{}\"),\n      slist => { };\n}\n")
VALIDATIONS["retyped_sections_merged"] = (
    "\nbundle agent main\n{\n  vars:\n    \"a\" string => \"a\", int => \"1\";\n  reports:\n"
    "    \"r\" if => { \"any\" };\n  vars:\n    \"b\" string => \"a\", real => \"1\";\n}\n")
VALIDATIONS["retyped_after_parse_error"] = (
    "\nbundle agent main\n{\n  vars:\n    \"v\" string => \"a\", int => \"1\";\n"
    "    \"w\" slist => \"x\";\n}\n")

# -- 4: a class guard (or another token) right after a bundle's '{' --------------------
_GUARDS = {"any": "any::", "or": "linux|any::", "and": "any.cfengine::", "not": "!foo::",
           "varclass": '"any"::', "spaced_expr": "(any|foo)::"}
_AFTER = {
    "type_next": "\n  vars:\n    \"x\" string => \"1\";\n",
    "type_same_line": " vars: \"x\" string => \"1\";",
    "promise": "\n    \"x\" string => \"1\";\n",
    "two_promises": "\n    \"x\" string => \"1\";\n    \"y\" string => \"2\";\n",
    "close": "\n",
    "comment": " # a comment\n  vars:\n    \"x\" string => \"1\";\n",
    "guard_again": "\n  any::\n  vars:\n    \"x\" string => \"1\";\n",
}
for (g, guard), (a, after) in product(_GUARDS.items(), _AFTER.items()):
    VALIDATIONS[f"guard_{g}_{a}"] = f"\nbundle agent main\n{{\n  {guard}{after}}}\n"
for btype in ("common", "edit_line", "server", "monitor"):
    VALIDATIONS[f"guard_in_{btype}"] = (f"\nbundle {btype} b\n{{\n  any::\n  vars:\n"
                                        f"    \"x\" string => \"1\";\n}}\n" + _MAIN)
_OTHER_TOKENS = {"promiser": '"x" string => "1";', "word": "vars\n  reports:",
                 "semicolon": "; vars:", "brace": "{ } vars:", "arrow": "=> vars:"}
for name, text in _OTHER_TOKENS.items():
    VALIDATIONS[f"guard_token_{name}"] = f"\nbundle agent main\n{{\n  {text}\n}}\n"
VALIDATIONS["guard_close_same_line"] = "\nbundle agent main { any:: }\n" + _MAIN
VALIDATIONS["guard_then_end_of_file"] = "\nbundle agent main {\n  any::\n"
VALIDATIONS["guard_bundle_with_args"] = (
    "\nbundle agent b(x, y)\n{\n  any::\n  reports:\n    \"$(x)\";\n}\n" + _MAIN)
VALIDATIONS["guard_two_bundles"] = (
    "\nbundle agent a\n{\n  any::\n  reports:\n    \"a\";\n}\n"
    "bundle agent b\n{\n  \"x\"::\n  \"y\";\n  reports:\n    \"b\";\n}\n" + _MAIN)
VALIDATIONS["guard_recovered_then_close_then_junk"] = (
    "\nbundle agent main\n{\n  any:: }\nbody x y { }\n\"junk\"\n")
VALIDATIONS["guard_one_line"] = "\nbundle agent main { any:: vars: \"x\" string => \"1\"; }\n"
VALIDATIONS["guard_first_line"] = "bundle agent main { any:: vars: \"x\" string => \"1\"; }\n"
VALIDATIONS["guard_valid_after_type"] = (
    "\nbundle agent main\n{\n  vars:\n  any::\n    \"x\" string => \"1\";\n}\n")
VALIDATIONS["guard_valid_in_body"] = "\nbody perms p\n{\n  any::\n    mode => \"644\";\n}\n" + _MAIN
VALIDATIONS["guard_many_tokens"] = (
    "\nbundle agent main\n{\n  any::\n    \"x\" string => \"1\", comment => \"c\";\n"
    "    \"y\" string => \"1\", comment => \"c\";\n}\n")
VALIDATIONS["guard_later_error"] = (
    "\nbundle agent main\n{\n  any::\n  vars:\n    \"x\" string => \"1\";\n}\n"
    "bundle agent b\n{\n  reports:\n    \"x\" nosuch => \"1\";\n}\n")
# past the recovery: the parser goes on (nothing of the recovered bundle checked)
_PAST = {
    "later_error": 'bundle agent b\n{\n  reports:\n    "x" nosuch => "1";\n}\n',
    "later_value": 'body perms p\n{\n  mode => { "1" };\n}\n',
    "earlier_and_later": None,
    "same_bundle_value": None,
    "second_guard_bundle": 'bundle agent c\n{\n  "x"::\n  reports:\n    "y";\n}\n',
    "reserved_later": "bundle agent mon { }\n",
    "junk_later": "junk\n",
    "unterminated": "bundle agent d\n{\n  any::\n",
}
for name, later in _PAST.items():
    first = "\nbundle agent main\n{\n  any::\n  vars:\n    \"x\" string => \"1\";\n}\n"
    if name == "earlier_and_later":
        text = ("\nbundle agent a { vars: \"v\" int => \"x\"; }\n" + first
                + "bundle agent z\n{\n  vars:\n    \"w\" slist => \"s\";\n}\n")
    elif name == "same_bundle_value":
        text = first.replace('string => "1"', 'slist => "1", nosuch => "2"')
    else:
        text = first + later
    VALIDATIONS[f"guard_past_{name}"] = text
# an unknown attribute: the parser checks no value of its bundle after it (nor any
# attribute of its body), until the block ends
_SKIP_AFTER = {
    "value": '    "y" slist => "a";\n',
    "unknown_again": '    "y" nosuch2 => "1";\n',
    "function": '    "y" int => canonify("a");\n',
    "if_literal": '    "y" string => "a", if => "a.";\n',
    "same_promise": None,
}
for name, after in _SKIP_AFTER.items():
    promise = ('    "x" nosuch => "1";\n' + after if after
               else '    "x" nosuch => "1", slist => "a";\n')
    VALIDATIONS[f"skip_bundle_{name}"] = (
        "\nbundle agent main\n{\n  vars:\n" + promise + "}\nbundle agent b\n{\n  vars:\n"
        '    "z" slist => "a";\n}\n')
for name, second in {"unknown": '  nosuch2 => "1";\n', "value": '  mode => { "1" };\n',
                     "both": '  owners => "x";\n  nope => "1";\n'}.items():
    VALIDATIONS[f"skip_body_{name}"] = (
        "\nbody perms p\n{\n  nosuch => \"1\";\n" + second + "}\nbody perms q\n{\n"
        '  mode => { "1" };\n}\n' + _MAIN)
VALIDATIONS["skip_body_then_bundle"] = (
    "\nbody perms p\n{\n  nosuch => \"1\";\n}\nbundle agent main\n{\n  vars:\n"
    '    "z" slist => "a";\n}\n')
# the check's other errors (file:line:0, its order): promisers, promise types, handles,
# custom promises' common attributes, control bodies' arguments, list conditions
_CUSTOM = 'promise agent foo { path => "/bin/true"; interpreter => "/bin/sh"; }\n'
_CHECKS = {
    "numerical_vars": '  vars:\n    "123"\n      string => "x";\n',
    "numerical_classes": '  classes:\n    "0" expression => "any";\n',
    "invalid_name": '  vars:\n    "a.b.c" string => "x";\n    "this" string => "x";\n',
    "empty_reference": '  reports:\n    "$()";\n    "${}" if => "any";\n',
    "unsupported_type": '  insert_lines:\n    "a";\n    "b";\n',
    "unsupported_empty_reference": '  insert_lines:\n    "$()";\n',
    "unsupported_empty": '  insert_lines:\n  reports:\n    "r";\n',
    "handles": '  reports:\n    "a" handle => "h";\n    "b"\n      handle => "h";\n',
    "handles_guarded": '  reports:\n    "a" handle => "h";\n   x::\n    "b" handle => "h";\n'
                       '    "c" handle => "h";\n   any::\n    "d" handle => "h";\n',
    "handles_variable": '  reports:\n    "a" handle => "$(x)";\n    "b" handle => "$(x)";\n',
    "list_condition": '  reports:\n    "a" if => { "any" };\n    "b"\n      unless => { "x" },\n'
                      '      comment => "c";\n',
    "custom_ifvarclass": '  foo:\n    "x"\n      ifvarclass => "any";\n',
    "custom_expireafter": '  foo:\n    "x" expireafter => "1", ifvarclass => "any";\n',
    "sections_merged": '  vars:\n    "1" string => "x";\n  reports:\n    "$()";\n'
                       '  vars:\n    "2" string => "x";\n',
    "custom_after_builtin": '  foo:\n    "x" ifvarclass => "any";\n  vars:\n    "9" string => "x";\n',
}
for name, section in _CHECKS.items():
    VALIDATIONS[f"check_{name}"] = ((_CUSTOM if "foo:" in section else "\n")
                                    + "bundle agent main\n{\n" + section + "}\n")
VALIDATIONS["check_control_arguments"] = (
    "\nbody common control(x) { }\nbody agent control(a, b) { }\n" + _MAIN)
VALIDATIONS["check_everything_in_order"] = (
    "\nbody perms p(x) { mode => \"1\"; }\nbody perms p(x) { mode => \"1\"; }\n"
    "body agent control(y) { }\nbundle agent b\n{\n  reports:\n    \"x\" handle => \"h\";\n}\n"
    "bundle agent main\n{\n  reports:\n    \"y\" handle => \"h\";\n  vars:\n"
    "    \"1\" string => \"a\", int => \"1\";\n}\nbundle agent sys { }\n"
    "bundle agent b\n{\n  files:\n    \"/tmp/x\" string => \"s\";\n}\n")
VALIDATION_NAMES = sorted(VALIDATIONS)
