"""Generated cases: values of the wrong type for their promise or attribute (issue #26).

A vars promise of a list type (``slist``...) given a function that returns a scalar
passes cf-promises (a function's return type is not checked against a list), then
cf-agent 3.21 says, each time it evaluates the promise, "Variable 'ns:b.x' expected a
variable of type 'slist', but was given incompatible value 'x'" and "Promise belongs to
bundle ...", defines nothing, and its type check at load stops the run before any bundle
runs ("FILE:0:0: In attribute 'slist', Attempted to give a scalar to a non-scalar type.
Given attribute value 'x'", then "Fatal CFEngine error: Cannot continue", exit code 1).
The shapes: each list type against scalar functions, in the bundlesequence's bundle, in
another agent bundle, in a common bundle, guarded by a class that holds or not, behind
another bundle with reports, two such promises (the first in policy order is named), and
the type mismatches cf-promises itself catches (a list function into a scalar type, a
non-number into int/real, a string function into data); then number attributes written as
non-numbers in bodies, control bodies and promises (cf-promises' "Failed to parse integer
number: x" log line, then "FILE:LINE:COL: error: Cannot parse value as integer").

Each case's name starts with ``errors_once_``: cf-agent's count of a vars promise's
errors includes the cf-promises run it makes, so the errors are compared as distinct
lines (:func:`tests.differential.agentmisc.observe`).
"""
from __future__ import annotations

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []


def case(name: str, text: str, *args: str) -> None:
    CASES.append((f"errors_once_{name}", {"promises.cf": text}, args))


_MAIN = """
bundle agent main {
vars:
  "a" string => "before";
  %s
reports:
  "hello $(a)";
}
"""
_SCALAR_CALLS = {
    "canonify": 'canonify("x y")',
    "concat": 'concat("$(a)", "z")',
    "format": 'format("%s-%d", "a", 3)',
    "ifelse": 'ifelse("any", "a", "b")',
    "join": 'join(",", "l")',
    "length": 'length("l")',
    "strftime": 'strftime("gmtime", "%Y", 0)',
    "parsejson": "parsejson('[1]')",
    "splitstring": 'splitstring("a,b", ",", 9)',
}
for ltype in ("slist", "ilist", "rlist"):
    for fname, call in _SCALAR_CALLS.items():
        case(f"{ltype}_{fname}", _MAIN % f'"l" slist => {{ "p", "q" }};\n  "x" {ltype} => {call};')
for stype in ("string", "int", "real", "data"):
    for fname in ("canonify", "splitstring", "length", "parsejson"):
        case(f"{stype}_{fname}", _MAIN % f'"l" slist => {{ "p" }};\n  "x" {stype} => '
                                         f'{_SCALAR_CALLS[fname]};')
for stype, value in (("int", '"x"'), ("int", '"1x"'), ("real", '"abc"'), ("ilist", '{ "1", "a" }'),
                     ("rlist", '{ "1.5", "z" }'), ("int", '"10k"'), ("real", '"1e3"')):
    case(f"literal_{stype}_{value.strip(chr(34)+'{ }').replace(' ', '').replace(chr(34), '').replace(',', '_')}",
         _MAIN % f'"x" {stype} => {value};')

case("slist_other_bundle", """
bundle agent main { reports: "main ran"; }
bundle agent other { vars: "y" slist => concat("a"); }
""")
case("slist_common_bundle", """
bundle common g { vars: "y" slist => concat("a"); }
bundle agent main { reports: "main ran $(g.y)"; }
""")
case("slist_after_reports", """
body common control { bundlesequence => { "first", "main" }; }
bundle agent first { reports: "first ran"; }
bundle agent main { vars: "y" slist => canonify("a b"); reports: "main ran"; }
""")
case("slist_two", """
bundle agent main { vars: "y" slist => concat("a"); "z" slist => canonify("b"); reports: "main"; }
bundle agent second { vars: "w" slist => concat("c"); }
""")
case("slist_guard_false", """
bundle agent main {
vars:
  nosuch_class::
    "y" slist => concat("a");
reports:
  "main ran";
}
""")
case("slist_guard_true", """
bundle agent main {
vars:
  any::
    "y" slist => concat("a");
reports:
  "main ran";
}
""")
case("slist_guard_agent_class", """
bundle agent main {
classes:
  "later" expression => "any";
vars:
  later::
    "y" slist => concat("a");
reports:
  "main ran y=$(y)";
}
""")
case("slist_if_false", """
bundle agent main { vars: "y" slist => concat("a"), if => "nosuch"; reports: "main ran"; }
""")
case("slist_iterated", """
bundle agent main {
vars:
  "l" slist => { "p", "q" };
  "y_$(l)" slist => concat("$(l)");
reports:
  "main ran";
}
""")
case("slist_list_function_fine", """
bundle agent main {
vars:
  "y" slist => splitstring("a,b", ",", 9);
  "z" slist => { concat("a"), canonify("b c") };
reports:
  "main ran $(y) $(z)";
}
""")
case("slist_with_precheck_error_before", """
bundle agent main {
vars:
  "l" slist => { "p", "q" };
reports:
  "r" with => "@(l)";
}
bundle agent zz { vars: "y" slist => concat("a"); }
""")

# -- a number attribute written as a non-number, in bodies and promises ---------------
# cf-promises' CheckConstraintTypeMatch: the parser's own line ("Failed to parse integer
# number: x"), then "FILE:LINE:COL: Cannot parse value as integer" (a real: "Real value is
# out of range"); the agent goes to its failsafe
_BODY_NUMBERS = (
    ("action", "ifelapsed", 'action => ab', "files", '"/tmp/cflite-typeerrors-x"'),
    ("action", "expireafter", 'action => ab', "reports", '"r"'),
    ("classes", "persist_time", 'classes => ab', "reports", '"r"'),
    ("contain", "exec_timeout", 'contain => ab', "commands", '"/bin/true"'),
    ("copy_from", "timeout", 'copy_from => ab', "files", '"/tmp/cflite-typeerrors-y"'),
    ("depth_search", "depth", 'depth_search => ab', "files", '"/tmp/cflite-typeerrors-z"'),
)
for btype, lval, ref, ptype, promiser in _BODY_NUMBERS:
    for label, value in (("x", "x"), ("unit", "5q"), ("empty", ""), ("space", "1 2"),
                         ("real", "1.5")):
        extra = ' source => "/etc/hostname";' if btype == "copy_from" else ""
        case(f"body_{btype}_{lval}_{label}", f"""
body {btype} ab {{ {lval} => "{value}";{extra} }}
bundle agent main {{ {ptype}: {promiser} {ref}; reports: "main ran"; }}
""")
for ctype, lval in (("agent", "ifelapsed"), ("agent", "default_timeout"),
                    ("executor", "splaytime"), ("monitor", "forgetrate"),
                    ("common", "bwlimit")):
    for label, value in (("x", "x"), ("unit", "3z")):
        case(f"control_{ctype}_{lval}_{label}", f"""
body {ctype} control {{ {lval} => "{value}"; }}
bundle agent main {{ reports: "main ran"; }}
""")
for label, value in (("x", "x"), ("neg", "-"), ("frac", "1.5"), ("empty", "")):
    case(f"promise_printfile_{label}", f"""
bundle agent main {{ reports: "r" printfile => pf; }}
body printfile pf {{ file_to_print => "/etc/hostname"; number_of_lines => "{value}"; }}
""")
case("numbers_two_errors", """
body action a1 { ifelapsed => "x"; expireafter => "y"; }
bundle agent main { vars: "n" int => "z"; "r" real => "w"; reports: "r" action => a1; }
""")

NAMES = [c[0] for c in CASES]
EXPECTED_DIFFERENCES: dict[str, str] = {}
