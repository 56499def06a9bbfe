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

# -- the rest of 3.21's removed language (SYNTAX_STATUS_REMOVED) -----------------------
# Every removed attribute of a living body type (the parser warns and drops it before its
# value is checked: no type error, no unknown function), and the removed promise types
# (the parser's skip flag stays set from the guard to the end of the bundle).  These are
# compared whole with cf-promises' output (FULL_VALIDATIONS), not only their warnings.
_REMOVED_ATTRS = {
    "action": ("value_kept", "value_repaired", "value_notkept"),
    "report_data_select": ("classes_include", "classes_exclude", "variables_include",
                           "variables_exclude", "promise_notkept_log_include",
                           "promise_notkept_log_exclude", "promise_repaired_log_include",
                           "promise_repaired_log_exclude"),
    "agent": ("auditing", "binarypaddingchar", "exclamation", "syslog", "track_value"),
    "server": ("keycacheTTL",),
    "hub": ("export_zenoss",),
    "common": ("host_licenses_paid",),
}
_CONTROL = frozenset({"agent", "server", "hub", "common"})
_REMOVED_RVALS = {
    "quoted": '"1.5"', "word": "nosuch_word", "list": '{ "a", "b" }',
    "call": 'nosuchfunction("$(x)", "b")', "known_call": 'concat("a", "b")',
    "multi_line": '{\n      "a",\n      "b"\n    }', "empty_list": "{ }",
    "wrong_type": '"not a number, not a bool"',
}
FULL_VALIDATIONS: dict[str, str] = {}
for btype, lvals in _REMOVED_ATTRS.items():
    header = f"body {btype} control" if btype in _CONTROL else f"body {btype} b(x)"
    for lval in lvals:
        for rshape, rval in _REMOVED_RVALS.items():
            FULL_VALIDATIONS[f"rattr_{lval}_{rshape}"] = (
                f"\n{header}\n{{\n  {lval} => {rval};\n}}\n" + _MAIN)
        FULL_VALIDATIONS[f"rattr_{lval}_guarded"] = (
            f"\n{header}\n{{\n  linux::\n    {lval} => \"x\";\n  !any::\n    {lval} => {{ }};\n}}\n"
            + _MAIN)
        FULL_VALIDATIONS[f"rattr_{lval}_after_unknown"] = (
            f"\n{header}\n{{\n  nosuch_attribute => \"1\";\n  {lval} => \"x\";\n}}\n" + _MAIN)
        FULL_VALIDATIONS[f"rattr_{lval}_with_an_error"] = (
            f"\n{header}\n{{\n  {lval} => \"x\";\n}}\n"
            'bundle agent main { vars: "v" int => "notanumber"; }\n')
FULL_VALIDATIONS["rattr_action_used"] = (
    '\nbody action a(v) { value_kept => "$(v)"; ifelapsed => "$(v)"; value_notkept => "-1"; }\n'
    'bundle agent main { reports: "r" action => a("5"); }\n')
FULL_VALIDATIONS["rattr_action_inherited"] = (
    '\nbody action base { value_kept => "1"; ifelapsed => "1"; }\n'
    'body action child { inherit_from => base; value_repaired => "x"; }\n'
    'bundle agent main { reports: "r" action => child; }\n')
FULL_VALIDATIONS["rattr_wrong_types_next_to_living"] = (
    '\nbody agent control\n{\n  syslog => "maybe";\n  ifelapsed => "notanumber";\n'
    '  track_value => { "x" };\n}\n' + _MAIN)
FULL_VALIDATIONS["rattr_first_line"] = 'body agent control { syslog => "true"; }\n' + _MAIN
FULL_VALIDATIONS["rattr_old_reports_cf"] = (      # (old masterfiles' controls/reports.cf)
    '\nbody report_data_select default_data_select_host\n{\n'
    '      metatags_include => { "inventory", "report" };\n'
    '      variables_include => { "default.sys.fqhost", "default.sys.uqhost" };\n'
    '      classes_include => { ".*" };\n      classes_exclude => { "cfengine_internal_.*" };\n'
    '      promise_notkept_log_include => { ".*" };\n'
    '      promise_repaired_log_exclude => { "x" };\n}\n' + _MAIN)
# a variable class guard refuses a kept attribute (after its value), not a removed one
for vname, battrs in {"removed": 'value_kept => "1";', "living": 'ifelapsed => "1";',
                      "both": 'value_kept => "1";\n    ifelapsed => "1";',
                      "unknown_first": 'nosuch => "1";\n    ifelapsed => "1";'}.items():
    FULL_VALIDATIONS[f"varclass_{vname}"] = (
        f'\nbody action a(x)\n{{\n  "$(x)"::\n    {battrs}\n  any::\n    ifelapsed => "2";\n}}\n'
        'bundle agent main { reports: "r" action => a("any"); }\n')
FULL_VALIDATIONS["varclass_promise_block"] = (
    '\npromise agent x\n{\n  "$(y)"::\n    path => "/bin/true";\n'
    '  interpreter => "/bin/sh";\n}\n' + _MAIN)
FULL_VALIDATIONS["varclass_removed_body"] = (
    '\nbody reporter control\n{\n  "$(y)"::\n    reports => { "all" };\n}\n' + _MAIN)

_OUTPUTS = 'outputs:\n  "x" output_level => "verbose";\n'
_BROKEN = ('vars:\n  "v" int => "notanumber";\n  "n" string => nosuchfunction("x");\n'
           'reports:\n  "r" if => "a..b", action => nosuchbody;\n  "$()";\n')
_PROMISE_TYPES = {
    "first": "bundle agent main {\n" + _OUTPUTS + 'reports:\n  "after";\n}\n',
    "middle": ('bundle agent main {\nreports:\n  "before";\n' + _OUTPUTS
               + 'reports:\n  "after";\n}\n'),
    "last": 'bundle agent main {\nreports:\n  "before";\n' + _OUTPUTS + "}\n",
    "empty": 'bundle agent main {\nreports:\n  "before";\noutputs:\nreports:\n  "after";\n}\n',
    "twice": ('bundle agent main {\n' + _OUTPUTS + 'reports:\n  "a";\n' + _OUTPUTS
              + 'reports:\n  "b";\n}\n'),
    "guarded": 'bundle agent main {\noutputs:\n any::\n  "x";\n linux::\n  "y";\n}\n',
    "broken_after": "bundle agent main {\n" + _OUTPUTS + _BROKEN + "}\n",
    "broken_before": "bundle agent main {\n" + _BROKEN + _OUTPUTS + "}\n",
    "unknown_attr_after": ("bundle agent main {\n" + _OUTPUTS
                           + 'files:\n  "/tmp/x" nosuch => "y";\n'
                             'reports:\n  "r" string => "x";\n}\n'),
    "unknown_attr_inside": ('bundle agent main {\noutputs:\n  "x" output_level => "bogus",\n'
                            '      nosuch => "1", if => "a..b";\n}\n'),
    "handles_after": ('bundle agent main {\nreports:\n  "r" handle => "h";\n' + _OUTPUTS
                      + 'reports:\n  "s" handle => "h";\n}\n'),
    "next_bundle_normal": ('bundle agent a {\n' + _OUTPUTS + "}\n"
                           'bundle agent main {\nvars:\n  "v" int => "notanumber";\n}\n'),
    "in_common": 'bundle common main {\n' + _OUTPUTS + 'reports:\n  "after";\n}\n',
    "in_edit_line": ('bundle edit_line e {\n' + _OUTPUTS + 'insert_lines:\n  "x";\n}\n'
                     'bundle agent main { reports: "r"; }\n'),
    "knowledge": ('bundle knowledge k {\nvars:\n  "v" string => "1";\ntopics:\n'
                  '  "t" association => a, synonyms => { "s" };\nthings:\n  "y" certainty => "bogus";\n'
                  'inferences:\n  "z" precedents => { "p" };\noccurrences:\n  "w";\n'
                  'vars:\n  "n" int => "notanumber";\n}\n' + _MAIN),
    "knowledge_unknown_attr": 'bundle knowledge k {\ntopics:\n  "t" nosuch => "1";\n}\n' + _MAIN,
    "topics_in_agent": 'bundle agent main {\ntopics:\n  "t";\nreports:\n  "r";\n}\n',
    "association_body": 'body association a { forward_relationship => "x"; }\n' + _MAIN,
    "with_removed_attr": ('bundle agent main {\n' + _OUTPUTS + "}\n"
                          'body action a { value_kept => "1"; }\n'),
}
for pname, text in _PROMISE_TYPES.items():
    FULL_VALIDATIONS[f"rtype_{pname}"] = "\n" + text
FULL_VALIDATIONS["rtype_first_line"] = ('bundle agent main { reports: "before"; outputs: "x"'
                                        ' output_level => "verbose"; reports: "after"; }\n')

# with a syntax error: the warnings among the errors of cf-promises' recovering parser
_SYNTAX_ERRORS = {
    "attr_before": 'body agent control { syslog => "true"; }\nbundle agent main { reports: "r" }\n',
    "attr_last_unterminated": ('body agent control { syslog => "true"; track_value => "x" }\n'
                               + _MAIN),
    "type_before": 'bundle agent main { outputs: "x"; reports: "r" }\n',
    "check_then_syntax": ('body agent control { syslog => "true"; }\n'
                          'bundle agent main { reports: "r" if => "a..b"; }\n'
                          'bundle agent main2 { reports: "r" &; }\n'),
    "all_kinds": ('body reporter control { x => "1"; }\n'
                  'bundle agent main { outputs: "x" nosuch => "1"; vars: "v" int => "x";'
                  ' reports: "r" &; }\n'
                  'body server control { skipverify => { "a" }; keycacheTTL => "x";'
                  ' allowconnects => "bad" }\n'),
    "knowledge_then_error": ('bundle knowledge k { topics: "t"; things: "y" }\n'
                             'body association a { x => "1"; }\n' + _MAIN),
}
for sname, text in _SYNTAX_ERRORS.items():
    FULL_VALIDATIONS[f"syntax_{sname}"] = "\n" + text
FULL_VALIDATIONS["rattr_repeated"] = (
    '\nbody agent control\n{\n  syslog => "true";\n  syslog => "true";\n  any::\n'
    '  syslog => "false";\n  ifelapsed => "1";\n  ifelapsed => "x";\n}\n' + _MAIN)
FULL_VALIDATIONS["rattr_repeated_in_action"] = (
    '\nbody action a(x) { value_kept => "$(x)"; value_kept => "2"; ifelapsed => "1"; }\n'
    'bundle agent main { reports: "r" action => a("1"); }\n')

# a promise block named as a built-in promise type, a removed one too
for bname, block in {"files": "promise agent files", "outputs": "promise agent outputs",
                     "topics_common": "promise common topics", "vars": "promise agent vars"}.items():
    FULL_VALIDATIONS[f"builtin_custom_{bname}"] = (
        f'\n{block}\n{{\n  path => "/bin/true";\n  interpreter => "/bin/sh";\n}}\n' + _MAIN)
FULL_VALIDATIONS["builtin_custom_syntax_error"] = (
    '\npromise agent vars { path => "/bin/true" }\n' + _MAIN)

# agent runs: what the parser dropped is neither run nor a variable
_RUNS = {
    "brief": ('bundle agent main { reports: "before"; outputs: "x" output_level => "verbose";'
              ' reports: "after"; }\n'),
    "first": 'bundle agent main {\n' + _OUTPUTS + 'reports:\n  "after";\n}\n',
    "middle_vars": ('bundle agent main {\nvars:\n  "a" string => "A";\n' + _OUTPUTS
                    + 'vars:\n  "b" string => "B";\nreports:\n  "a=$(a) b=$(b)";\n}\n'),
    "last": 'bundle agent main {\nreports:\n  "before";\n' + _OUTPUTS + "}\n",
    "twice": ('bundle agent main {\nreports:\n  "a";\n' + _OUTPUTS + 'reports:\n  "b";\n'
              + _OUTPUTS + "}\n"),
    "broken_after": ('bundle agent main {\nreports:\n  "before";\n' + _OUTPUTS
                     + 'vars:\n  "v" int => "notanumber";\nreports:\n  "r" if => "a..b";\n}\n'),
    "sequence": ('body common control { bundlesequence => { "main", "other" }; }\n'
                 'bundle agent main {\n' + _OUTPUTS + 'reports:\n  "after";\n}\n'
                 'bundle agent other { reports: "other ran"; }\n'),
    "called": ('bundle agent main {\nmethods:\n  "m" usebundle => sub;\nreports:\n  "main";\n}\n'
               'bundle agent sub {\nreports:\n  "sub before";\n' + _OUTPUTS
               + 'reports:\n  "sub after";\n}\n'),
    "knowledge": ('bundle knowledge k {\ntopics:\n  "t";\n}\n'
                  'bundle agent main { reports: "main ran"; }\n'),
    "removed_attrs": ('body common control { bundlesequence => { "main" }; host_licenses_paid => "5"; }\n'
                      'body agent control { syslog => "true"; auditing => "x"; ifelapsed => "3"; }\n'
                      'body action a { value_kept => nosuchfunction("x"); ifelapsed => "0"; }\n'
                      'bundle agent main { reports: "ran" action => a; }\n'),
}
for rname, text in _RUNS.items():
    CASES.append((f"run_{rname}", {"promises.cf": text}, ()))
CASES.append(("run_removed_attrs_control_vars", {"promises.cf": _RUNS["removed_attrs"]},
              ("--show-evaluated-vars=^default:control_agent",)))
_LIB = ('body agent control\n{\n  syslog => "true";\n}\nbundle agent lib\n{\nreports:\n'
        '  "lib before";\n' + _OUTPUTS + 'reports:\n  "lib after";\n}\n')
CASES.append(("run_in_inputs", {
    "promises.cf": 'body common control { bundlesequence => { "main", "lib" }; inputs => { "lib.cf" }; }\n'
                   'bundle agent main { reports: "main"; }\n', "lib.cf": _LIB}, ()))
NAMES = [name for name, _, _ in CASES]

# ``cf-promises -p json`` and ``-p json-full``: what the parser kept, a section at its last
# guard before the removed one
POLICY_OUTPUTS = {
    "sections": FULL_VALIDATIONS["rtype_middle"], "twice": FULL_VALIDATIONS["rtype_twice"],
    "empty": FULL_VALIDATIONS["rtype_empty"], "knowledge": FULL_VALIDATIONS["rtype_knowledge"]
    .replace('"notanumber"', '"5"').replace('"bogus"', '"certain"'),
    "handles": FULL_VALIDATIONS["rtype_handles_after"],
    "attributes": FULL_VALIDATIONS["rattr_action_used"],
    "old_reports_cf": FULL_VALIDATIONS["rattr_old_reports_cf"],
    "lib": 'bundle agent main { reports: "main"; }\n' + _LIB,
}
