"""Generated cases: policy files others may write (issue #26).  cf-agent 3.21 refuses such
a file only after its validating cf-promises, which reads it, accepted the policy: a
valid policy stops at the security exception (exit 1), an invalid one goes to the
failsafe, which may fetch a good policy from the server.  cf-lite gives the same verdicts,
finding the invalid policy by parsing and checking the files without evaluating anything
another user may have written.

Each case: the entry file's text and mode, and an input's text and mode (or none).
"""
from __future__ import annotations

_VALID = 'bundle agent main { reports: "ran"; }\n'
_SYNTAX = 'bundle agent main { vars: "x" int => "y"; reports: "ran"; }\n'
_UNKNOWN = 'bundle agent main { reports: "ran" nosuch => "x"; }\n'
_BADBODY = 'bundle agent main { reports: "ran"; }\nbody action a { ifelapsed => "x"; }\n'
_INPUTS = 'body common control {{ inputs => {{ "inc.cf" }}; }}\n{main}'
_INC_VALID = 'bundle agent inc { reports: "inc"; }\n'
_INC_SYNTAX = 'bundle agent inc { vars: "x" int => "y"; reports: "inc"; }\n'

# (a value the parser refuses: its words are cf-promises'; other syntax errors are
# worded by cf-lite, tests/syntax)
_ENTRIES = {"valid": _VALID, "syntax": _SYNTAX, "unknown": _UNKNOWN, "badbody": _BADBODY}
_MODES = {"group": 0o664, "other": 0o606, "mine": 0o600}

CASES: list[tuple[str, dict[str, tuple[str, int]]]] = []
for _entry, _text in _ENTRIES.items():
    for _mode, _bits in _MODES.items():
        if _mode != "mine":
            CASES.append((f"entry_{_entry}_{_mode}", {"promises.cf": (_text, _bits)}))
        for _inc, _inc_text in (("valid", _INC_VALID), ("syntax", _INC_SYNTAX)):
            for _inc_mode in ("group", "other"):
                CASES.append((f"entry_{_entry}_{_mode}_inc_{_inc}_{_inc_mode}", {
                    "promises.cf": (_INPUTS.format(main=_text), _bits),
                    "inc.cf": (_inc_text, _MODES[_inc_mode])}))

# what else makes the validating cf-promises refuse a policy, seen without evaluating it:
# an input named as written that is not there (not with ignore_missing_inputs), a body or a
# bundlesequence's bundle no file defines (not while an input is named with a variable:
# the policy is not all read); each in a file others may write, the entry or an input
_REFUSED = {
    "missing_input": 'body common control { inputs => { "nosuch.cf" }; }\n' + _VALID,
    "missing_input_ignored": ('body common control { inputs => { "nosuch.cf" }; '
                              'ignore_missing_inputs => "true"; }\n' + _VALID),
    "missing_input_beside": ('body common control { inputs => { "inc.cf", "nosuch.cf" }; }\n'
                             + _VALID),
    "undefined_body": 'bundle agent main { files: "/tmp/cflite-insecure-none" perms => '
                      'nosuchbody; reports: "ran"; }\n',
    "undefined_body_call": 'bundle agent main { files: "/tmp/cflite-insecure-none" perms '
                           '=> nosuch("644"); reports: "ran"; }\n',
    "undefined_bundle": 'body common control { bundlesequence => { "main", "nosuchb" }; }\n'
                        + _VALID,
    "undefined_body_variable_input": ('bundle common g { vars: "f" string => "inc.cf"; }\n'
                                      'body common control { inputs => { "$(g.f)" }; }\n'
                                      'bundle agent main { files: "/tmp/cflite-insecure-none" '
                                      'perms => nosuchbody; reports: "ran"; }\n'),
}
for _name, _text in _REFUSED.items():
    for _mode in ("group", "other"):
        CASES.append((f"refused_{_name}_{_mode}", {"promises.cf": (_text, _MODES[_mode]),
                                                   "inc.cf": (_INC_VALID, 0o600)}))
    if "body common control" in _text:
        continue
    CASES.append((f"refused_{_name}_in_input", {
        "promises.cf": ('body common control { inputs => { "inc.cf" }; }\n'
                        'bundle agent x { reports: "x"; }\n', 0o600),
        "inc.cf": (_text.replace("bundle agent main", "bundle agent main2")
                   .replace('"inc.cf"', '"inc2.cf"'), 0o664)}))

# inputs named with what the agent itself defines (sys. and const. variables,
# this.promise_dirname): cf-lite resolves them as the validating cf-promises does, without
# evaluating the policy; one it does not define is cf-promises' "Unresolved variable" (that
# input left out, the policy still valid).  WORKDIR/inputs/lib/stdlib.cf exists in each
# case's work directory (test_insecure_differential), as in an installed CFEngine.
_OWN = {
    "libdir": '"$(sys.libdir)/nosuch.cf"', "libdir_braces": '"${sys.libdir}/nosuch.cf"',
    "inputdir": '"$(sys.inputdir)/nosuch.cf"', "workdir": '"$(sys.workdir)/nosuch.cf"',
    "masterdir": '"$(sys.masterdir)/nosuch.cf"', "local_libdir": '"$(sys.local_libdir)/nosuch.cf"',
    "fqhost": '"/tmp/$(sys.fqhost)-nosuch.cf"', "const": '"/tmp/$(const.t)nosuch.cf"',
    "dirname_and_sys": '"$(this.promise_dirname)/$(sys.os)-nosuch.cf"',
    "undefined_sys": '"$(sys.nosuchvar)/nosuch.cf"',
    "undefined_sys_beside": '"$(sys.nosuchvar)/nosuch.cf", "inc.cf"',
    "stdlib": '"$(sys.libdir)/stdlib.cf"', "stdlib_and_inc": '"$(sys.libdir)/stdlib.cf", "inc.cf"',
    "call": 'concat("$(sys.libdir)", "/nosuch.cf")', "call_beside": '"inc.cf", concat("a", "b")',
}
_BODIES = {"valid": _VALID, "undefined_body": _REFUSED["undefined_body"]}
for _name, _inputs in _OWN.items():
    for _main, _text in _BODIES.items():
        CASES.append((f"own_{_name}_{_main}", {
            "promises.cf": (f"body common control {{ inputs => {{ {_inputs} }}; }}\n{_text}",
                            0o664), "inc.cf": (_INC_VALID, 0o600)}))
    CASES.append((f"own_{_name}_in_input", {
        "promises.cf": ('body common control { inputs => { "inc.cf" }; }\n' + _VALID, 0o600),
        "inc.cf": (f"body file control {{ inputs => {{ {_inputs} }}; }}\n{_INC_VALID}", 0o664)}))

# the bundlesequence as the validating cf-promises checks it: main when none is in effect
# (none written, or one under a class that does not hold), a bundle of any type counts,
# names in a namespace, ignore_missing_bundles; a name held by a variable is known only
# once the policy is evaluated (see EXPECTED_DIFFERENCES)
_X = 'bundle agent x { reports: "x"; }\n'
_SEQUENCES = {
    "no_main": _X, "no_main_common": 'bundle common x { vars: "a" string => "b"; }\n',
    "no_main_other_control": 'body common control { inputs => { }; }\n' + _X,
    "main_common": 'bundle common main { vars: "a" string => "b"; }\n',
    "dunder_main": 'bundle agent __main__ { reports: "x"; }\n',
    "empty": 'body common control { bundlesequence => { }; }\n' + _VALID,
    "empty_no_main": 'body common control { bundlesequence => { }; }\n' + _X,
    "edit_line": ('body common control { bundlesequence => { "main", "el" }; }\n' + _VALID
                  + 'bundle edit_line el { insert_lines: "x"; }\n'),
    "namespaced": ('body common control { bundlesequence => { "main", "ns:b" }; }\n' + _VALID
                   + 'body file control { namespace => "ns"; }\nbundle agent b { reports: "b"; }\n'),
    "namespaced_missing": ('body common control { bundlesequence => { "main", "ns:c" }; }\n'
                           + _VALID + 'body file control { namespace => "ns"; }\n'
                           'bundle agent b { reports: "b"; }\n'),
    "ignored": ('body common control { bundlesequence => { "main", "nosuch" }; '
                'ignore_missing_bundles => "true"; }\n' + _VALID),
    "guard_false": 'body common control { nosuchclass:: bundlesequence => { "main", "nosuch" }; }\n' + _VALID,
    "guard_false_no_main": 'body common control { nosuchclass:: bundlesequence => { "x" }; }\n' + _X,
    "guard_hard": 'body common control { any:: bundlesequence => { "main", "nosuch" }; }\n' + _VALID,
    "guard_later": ('body common control { bundlesequence => { "x" }; nosuchclass:: '
                    'bundlesequence => { "nosuch" }; }\n' + _X),
    "call": 'body common control { bundlesequence => { "main", nosuch("a") }; }\n' + _VALID,
    "two_missing": 'body common control { bundlesequence => { "n1", "main", "n2" }; }\n' + _VALID,
    "variable": ('bundle common g { vars: "s" slist => { "nosuch" }; }\n'
                 'body common control { bundlesequence => { "main", @(g.s) }; }\n' + _VALID),
}
for _name, _text in _SEQUENCES.items():
    CASES.append((f"sequence_{_name}", {"promises.cf": (_text, 0o664)}))
# -b: the validating cf-promises checks no bundlesequence (the agent checks -b's names)
ARGS = {"sequence_no_main_b": ["-b", "x"], "sequence_no_main_b_missing": ["-b", "y"]}
for _name in ARGS:
    CASES.append((_name, {"promises.cf": (_X, 0o664)}))

NAMES = [name for name, _ in CASES]

# Known differences, each with its reason (the test fails when one starts agreeing).
EXPECTED_DIFFERENCES: dict[str, str] = {
    f"refused_undefined_body_variable_input_{mode}": "deliberate: an input named with a "
    "variable is known only once the policy is evaluated, and cf-lite evaluates nothing of a "
    "file another user may write (cf-agent's validating cf-promises does, as root: it reads "
    "the input, finds the undefined body and goes to the failsafe); cf-lite stops at the "
    "security exception (exit 1)" for mode in ("group", "other")}
EXPECTED_DIFFERENCES["sequence_variable"] = (
    "deliberate, as refused_undefined_body_variable_input: a bundlesequence name held by a "
    "variable is known once the policy is evaluated, which cf-lite does not do for a file "
    "another user may write (cf-agent's validating cf-promises does, as root)")
