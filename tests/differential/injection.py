"""Generated cases: a vars promise writing into another bundle's scope (issue #26, CFE-1915).

A promiser ``b.x`` names bundle ``b``'s scope.  While the policy loads, a bundle not read
yet takes the variable, which the bundle drops when it is resolved ("Ignoring
remotely-injected variable 'x'"); once the policy is loaded, a bundle of the policy refuses
it: "Remote bundle variable injection detected!", "Variable identifier 'b.x' is not
legal" and "Promise belongs to ...".  cf-promises says so too, in its preliminary
convergence (the pass over every bundle's vars after loading).  A name of no bundle takes
the variable.  The shapes: the target defined before or after the writer, an agent, common
or edit_line bundle, none at all, the writer's own name, a name made of a parameter or a
variable, an array element, a namespace, and a bundle called with a qualified reference as
argument.  Each runs under cf-agent (``agent_``) and under cf-promises (``promises_``);
errors are compared as a set of distinct lines (how often each is said depends on passes).
"""
from __future__ import annotations

_SEQ = 'body common control { bundlesequence => { "main" }; }\n'
SHAPES: dict[str, str] = {
    "defined_after": """
bundle agent main { vars: "other.x" string => "v"; "u.y" string => "w";
  reports: "x=$(other.x) y=$(u.y)"; }
bundle agent other { }
""",
    "defined_before": """
bundle agent other { vars: "z" string => "z"; }
bundle agent main { vars: "other.x" string => "v"; reports: "x=$(other.x) z=$(other.z)"; }
""",
    "common_target": """
bundle common other { vars: "z" string => "z"; }
bundle agent main { vars: "other.x" string => "v"; reports: "x=$(other.x)"; }
""",
    "edit_target": """
bundle agent main { vars: "ed.x" string => "v"; reports: "x=$(ed.x)"; }
bundle edit_line ed { insert_lines: "a"; }
""",
    "own_name": """
bundle agent main { vars: "main.x" string => "v"; reports: "x=$(x)"; }
""",
    "no_such_bundle": """
bundle agent main { vars: "nobundle.x" string => "v"; reports: "x=$(nobundle.x)"; }
""",
    "from_variable": """
bundle agent main { vars: "t" string => "other"; "$(t).x" string => "v";
  reports: "x=$(other.x)"; }
bundle agent other { }
""",
    "from_parameter": """
bundle agent main { methods: "m" usebundle => writer("other"); reports: "x=$(other.x)"; }
bundle agent writer(t) { vars: "$(t).x" string => "v"; }
bundle agent other { }
""",
    "array_element": """
bundle agent main { vars: "other.a[k]" string => "v"; reports: "a=$(other.a[k])"; }
bundle agent other { }
""",
    "namespaced": """
bundle agent main { vars: "ns:other.x" string => "v"; "other.y" string => "w";
  reports: "x=$(ns:other.x) y=$(other.y)"; }
bundle agent other { }
""",
    "qualified_argument": """
bundle agent main { vars: "x" string => "v";
  methods: "m" usebundle => other("$(main.x)", "main.x"); reports: "after"; }
bundle agent other(a, b) { vars: "other.c" string => "$(a)"; reports: "a=$(a) b=$(b) c=$(c)"; }
""",
    "parameter_named_remote": """
bundle agent main { methods: "m" usebundle => other("$(third.z)"); }
bundle agent other(a) { vars: "third.w" string => "$(a)"; reports: "a=$(a)"; }
bundle agent third { vars: "z" string => "Z"; }
""",
    "two_writers": """
bundle agent main { vars: "other.x" string => "a"; methods: "m" usebundle => w2; reports: "x=$(other.x)"; }
bundle agent w2 { vars: "other.x" string => "b"; }
bundle agent other { reports: "in other x=$(x)"; }
""",
}
CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = [
    (f"errors_once_injection_{name}", {"promises.cf": _SEQ + text}, ())
    for name, text in SHAPES.items()]
NAMES = [c[0] for c in CASES]
PROMISES_NAMES = sorted(SHAPES)
