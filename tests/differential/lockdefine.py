"""Generated cases: what cf-promises says of promise locking when the agent is given
classes with ``-D``/``--define`` (issue #26).  cf-agent 3.21 validates by running
cf-promises with none of its -D classes (generic_agent.c, GenericAgentArePromisesValid:
``cf-promises -c <file>``, ``-b`` and ``--ignore-preferred-augments`` only), so a class a
common bundle derives from a -D class is not defined there either, and neither is one
derived from that; a class derived from its absence (``not``, ``!dd``) is.  The cases
are added to :mod:`agentmisc`'s (run and compared the same way)."""
from __future__ import annotations

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []

_BODIES = """
body action elapsed(n) { ifelapsed => "$(n)"; }
body action expire(n) { expireafter => "$(n)"; }
"""


def _case(name: str, common: str, vars_: str, *args: str, extra: str = "") -> None:
    text = (f"bundle common g {{\nclasses:\n{common}}}\n"
            f"bundle agent main {{\nvars:\n{vars_}reports:\n  \"r\";\n}}\n" + extra + _BODIES)
    CASES.append((f"locking_define_{name}", {"promises.cf": text}, args))


_V = '    "{v}" string => "x", action => elapsed("5");\n'


def _guarded(*guards: str) -> str:
    return "".join(f"  {g}::\n" + _V.format(v=f"v_{i}") for i, g in enumerate(guards))


_case("several", '  "x" expression => "dd.ee";\n  "y" or => { "dd", "nosuch" };\n'
      '  "z" expression => "ee";\n', _guarded("x", "y", "z", "dd", "ee", "!x", "!dd"),
      "-D", "dd,ee")
_case("several_flags", '  "x" expression => "dd";\n  "y" and => { "dd", "ee" };\n',
      _guarded("x", "y", "x.y", "x|ee"), "-D", "dd", "--define", "ee")
_case("ifvarclass", '  "x" expression => "dd";\n',
      '  "a" string => "x", action => elapsed("5"), ifvarclass => "dd";\n'
      '  "b" string => "x", action => expire("5"), ifvarclass => "x";\n'
      '  "c" string => "x", action => expire("5"), if => "!x";\n'
      '  "d" string => "x", action => expire("5"), unless => "x";\n'
      '  "e" string => "x", action => expire("5"), if => "x|dd";\n',
      "--define", "dd")
_case("chain", '  "x" expression => "dd";\n  "y" expression => "x";\n  "z" expression => "!y";\n'
      '  x::\n    "w" expression => "any";\n',
      _guarded("x", "y", "z", "w", "!z"), "-D", "dd")
_case("not", '  "nx" not => "dd";\n  "xo" xor => { "dd", "any" };\n  "nd" expression => "!dd";\n',
      _guarded("nx", "xo", "nd"), "-D", "dd")
_case("quoted_guard", '  "x" expression => "dd";\n',
      '  "x"::\n' + _V.format(v="q1") + '  "dd"::\n' + _V.format(v="q2")
      + '  "!x"::\n' + _V.format(v="q3"), "-D", "dd")
_case("common_vars", '  "x" expression => "dd";\n',
      _guarded("x"), "-D", "dd",
      extra='bundle common h {\nvars:\n  x::\n    "hv" string => "x", action => elapsed("3");\n'
            '  !x::\n    "hw" string => "x", action => elapsed("3");\n}\n')
_case("common_classes", '  "x" expression => "dd";\n  x::\n    "k" expression => "any", '
      'action => expire("4");\n  !x::\n    "k2" expression => "any", action => expire("4");\n',
      _guarded("x"), "-D", "dd")
_case("no_define", '  "x" expression => "dd";\n', _guarded("x", "!x"))
_case("hard_class_and_define", '  "x" expression => "linux.dd";\n  "y" expression => "linux|dd";\n',
      _guarded("x", "y"), "-D", "dd")
CASES.append(("locking_define_bundlesequence", {"promises.cf": """
body common control {
  dd:: bundlesequence => { "main", "extra" };
  !dd:: bundlesequence => { "main" };
}
bundle common g { classes: "x" expression => "dd"; }
bundle agent main {
vars:
  x:: "v" string => "x", action => elapsed("5");
  !x:: "w" string => "x", action => elapsed("6");
reports:
  "main";
}
bundle agent extra { reports: "extra ran"; }
""" + _BODIES}, ("-D", "dd")))
_LIB = ('bundle common lib {\nclasses:\n  "fromlib" expression => "any";\nvars:\n'
        '  "lv" string => "x", action => elapsed("2");\n}\n')
for _name, _guard in (("inputs_with", "dd"), ("inputs_without", "!dd")):
    CASES.append((f"locking_define_{_name}", {"promises.cf": (
        f'body common control {{\n  bundlesequence => {{ "main" }};\n  {_guard}:: inputs => {{ "lib.cf" }};\n}}\n'
        'bundle agent main {\nvars:\n  fromlib::\n    "v" string => "x", action => elapsed("5");\n'
        '  !fromlib::\n    "w" string => "x", action => elapsed("6");\nreports:\n  "r";\n}\n'
        + _BODIES), "lib.cf": _LIB}, ("-D", "dd")))
CASES.append(("locking_define_with_b", CASES[0][1], ("-D", "dd,ee", "-b", "main")))
CASES.append(("locking_define_validation_fails", {"promises.cf": """
body common control {
  dd:: bundlesequence => { "main" };
  !dd:: bundlesequence => { "main", "nosuch" };
}
bundle common g { classes: "x" expression => "dd"; }
bundle agent main {
vars:
  x:: "v" string => "x", action => elapsed("5");
reports:
  "main";
}
""" + _BODIES}, ("-D", "dd")))
