"""Generated cases: a built-in's literal argument that its parameter refuses
(``fileexists("rel/x")``: "Filename is not an absolute path"), wherever it is written
(issue #26, met while reducing the EFL library's relative data paths).

cf-agent 3.21: in a vars promise (any bundle; cf-promises evaluates them) the validating
cf-promises exits, so the failsafe runs; anywhere else (a classes promise, a report's
``if`` or ``with``, a bundle outside the sequence) cf-agent itself stops when it expands
every promise at load: "Fatal CFEngine error: In function ...", exit 1, before any
bundle runs -- but not for a promise whose class guard does not hold.  A variable
argument is not checked (a relative path is then read from the working directory)."""
from __future__ import annotations

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []

_CALLS = {
    "fileexists": 'fileexists("{arg}")',
    "isdir": 'isdir("{arg}")',
    "isplain": 'isplain("{arg}")',
    "nested": 'not(fileexists("{arg}"))',
}
_PLACES = {
    "vars_agent": ('bundle agent main {{ vars: "x" string => ifelse({call}, "a", "b"); '
                   'reports: "before"; }}'),
    "vars_common": ('bundle common g {{ vars: "x" string => ifelse({call}, "a", "b"); }}\n'
                    'bundle agent main {{ reports: "before"; }}'),
    "classes": 'bundle agent main {{ classes: "c" expression => {call}; reports: "before"; }}',
    "report_if": 'bundle agent main {{ reports: "before"; "r" if => {call}; "after"; }}',
    "report_with": ('bundle agent main {{ reports: "before"; "r $(with)" with => '
                    'canonify({call}); }}'),
    "other_bundle": ('bundle agent main {{ reports: "before"; }}\n'
                     'bundle agent other {{ reports: "o" if => {call}; }}'),
    "guarded_out": 'bundle agent main {{ reports: "before"; nosuch_class:: "r" if => {call}; }}',
}
_ARGS = {"relative": "rel/x.txt", "absolute": "/nonexistent/cflite/x"}
for cname, call in _CALLS.items():
    for pname, place in _PLACES.items():
        for aname, arg in _ARGS.items():
            text = place.format(call=call.format(arg=arg)) + "\n"
            CASES.append((f"{cname}_{pname}_{aname}", {"promises.cf": text}, ()))
# a variable argument is not checked
CASES.append(("variable_report_if", {"promises.cf": (
    'bundle agent main { vars: "p" string => "rel/x.txt"; '
    'reports: "before"; "r" if => fileexists("$(p)"); "after"; }\n')}, ()))

NAMES = [c[0] for c in CASES]
