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

NAMES = [name for name, _ in CASES]

# Known differences, each with its reason (the test fails when one starts agreeing).
EXPECTED_DIFFERENCES: dict[str, str] = {
    f"refused_undefined_body_variable_input_{mode}": "deliberate: an input named with a "
    "variable is known only once the policy is evaluated, and cf-lite evaluates nothing of a "
    "file another user may write (cf-agent's validating cf-promises does, as root: it reads "
    "the input, finds the undefined body and goes to the failsafe); cf-lite stops at the "
    "security exception (exit 1)" for mode in ("group", "other")}
