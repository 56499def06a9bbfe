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

NAMES = [name for name, _ in CASES]

# Known differences, each with its reason (the test fails when one starts agreeing).
EXPECTED_DIFFERENCES: dict[str, str] = {}
