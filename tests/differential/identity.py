"""Generated cases for promise identity (issue #26): when cf-agent 3.21 takes two promises
for the same one and actuates only the first (its in-run lock cache, locks.c's
PromiseRuntimeHash; cfpromise.agent.promisehash says what it digests).

Every case is a pair of promises with the same promiser that differ in one thing: an
attribute's value (``with``, ``comment``, ``handle``, ``if``/``ifvarclass``/``unless``,
``depends_on``, ``meta``, a body, its arguments, a bundle's arguments), the order of the
attributes, a class guard, or nothing at all.  Each pair is written for reports,
commands, files (a transformer that appends to a log says how often it ran), methods
and classes promises, each pair in a bundle of its own (the bundle is part of the
identity); then the same promise in two bundles, one bundle called with different
parameters, and iterated promisers that expand to the same text.
"""
from __future__ import annotations

CASES: dict[str, str] = {}

# (name, first promise's attributes, second promise's attributes)
PAIRS: tuple[tuple[str, str, str], ...] = (
    ("identical", "", ""),
    ("identical_attrs", 'comment => "c", meta => { "m" }', 'comment => "c", meta => { "m" }'),
    ("with", 'with => "x"', 'with => "y"'),
    ("with_same", 'with => "x"', 'with => "x"'),
    ("with_call", 'with => canonify("a b")', 'with => canonify("a c")'),
    ("with_call_same", 'with => canonify("a b")', 'with => "a_b"'),
    ("comment", 'comment => "a"', 'comment => "b"'),
    ("comment_none", "", 'comment => "a"'),
    ("comment_empty", "", 'comment => ""'),
    ("handle", "", 'handle => "h_$(this.bundle)"'),
    ("if_any", "", 'if => "any"'),
    ("if_vs_ifvarclass", 'if => "any"', 'ifvarclass => "any"'),
    ("if_values", 'if => "any"', 'if => "cfengine"'),
    ("if_call", 'if => "any"', 'if => isvariable("this.bundle")'),
    ("unless", 'unless => "nosuch1"', 'unless => "nosuch2"'),
    ("unless_none", "", 'unless => "nosuch1"'),
    ("depends_on", "", 'depends_on => { "dep_$(this.bundle)" }'),
    ("meta", 'meta => { "a" }', 'meta => { "b" }'),
    ("meta_joined", 'meta => { "a", "b" }', 'meta => { "ab" }'),
    ("meta_split_comment", 'comment => "ab"', 'comment => "a", meta => { "b" }'),
    ("order", 'comment => "a", meta => { "b" }', 'meta => { "b" }, comment => "a"'),
    ("body_same_content", "action => a1", "action => a2"),
    ("body_same", "action => a1", "action => a1"),
    ("body_args", 'action => a3("1")', 'action => a3("2")'),
    ("body_log_string", 'action => a4("x")', 'action => a4("y")'),
    ("body_inherit", "action => a1", "action => a5"),
    ("classes_body", 'classes => c1("k1")', 'classes => c1("k2")'),
    ("classes_body_same", 'classes => c1("k1")', 'classes => c1("k1")'),
)
# differences in the promise's surroundings rather than its attributes
GUARDS: tuple[tuple[str, str, str], ...] = (
    ("guard_any", "", "any::"),
    ("guard_classes", "any::", "cfengine::"),
    ("guard_quoted", "", '"any"::'),
    ("guard_quoted_and_if", '"any"::', "any::"),
)

_BODIES = """
body action a1 { expireafter => "60"; }
body action a2 { expireafter => "60"; }
body action a3(x) { expireafter => "6$(x)"; }
body action a4(x) { expireafter => "60"; log_string => "$(x)"; }
body action a5 { inherit_from => a1; }
body classes c1(k) { promise_kept => { "$(k)" }; promise_repaired => { "$(k)" }; }
"""

# how each promise type is written: the promise line for a pair's name; the end
# of the policy shows what was actuated
_TYPES = {
    "reports": ('reports:', '"{name} printed"'),
    "commands": ('commands:', '"/bin/echo {name}"'),
    "files": ('files:', '"$(sys.workdir)/{name}" create => "true", '
              'transformer => "/bin/sh -c \'echo {name} >> $(sys.workdir)/log\'"'),
    "methods": ('methods:', '"{name}" usebundle => called("{name}")'),
    "classes": ('classes:', '"cls_{name}" expression => "any"'),
}


def _promise(ptype: str, name: str, attrs: str, guard: str = "") -> str:
    text = _TYPES[ptype][1].format(name=name)
    if attrs:
        text += (", " if "=>" in text else " ") + attrs
    return (f"  {guard}\n" if guard else "") + f"    {text};\n"


def _bundle(ptype: str, name: str, first: str, second: str,
            guards: tuple[str, str] = ("", "")) -> str:
    dep = ""
    if "depends_on" in first + second:
        dep = f'reports:\n  "dep" handle => "dep_{name}_{ptype}";\n'
    text = f"bundle agent {name}_{ptype}\n{{\n{dep}{_TYPES[ptype][0]}\n"
    text += _promise(ptype, name, first, guards[0]) + _promise(ptype, name, second, guards[1])
    return text + "}\n"


_END = """
bundle agent called(x) { reports: "called with $(x)"; }
bundle agent report {
vars:
  "log" string => readfile("$(sys.workdir)/log"), if => fileexists("$(sys.workdir)/log");
  "cls" slist => classesmatching("(cls_|k[12]).*");
  "scls" slist => sort("cls", "lex");
reports:
  "log: $(log)";
  "classes: $(scls)";
}
"""


def _policy(bundles: list[tuple[str, str]]) -> str:
    seq = ", ".join(f'"{b}"' for b, _ in bundles) + ', "report"'
    return (f"body common control {{ bundlesequence => {{ {seq} }}; }}\n"
            + "".join(text for _, text in bundles) + _BODIES + _END)


def _depends_fix(name: str, ptype: str, text: str) -> str:
    return text.replace("$(this.bundle)", f"{name}_{ptype}") if ptype != "reports" else text


for _ptype in _TYPES:
    _bundles = []
    for _name, _a, _b in PAIRS:
        _bundles.append((f"{_name}_{_ptype}",
                         _depends_fix(_name, _ptype, _bundle(_ptype, _name, _a, _b))))
    for _name, _g1, _g2 in GUARDS:
        _bundles.append((f"{_name}_{_ptype}", _bundle(_ptype, _name, "", "", (_g1, _g2))))
    CASES[f"pairs_{_ptype}"] = _policy(_bundles)


# -- the same promise in other bundles, calls and iterations -------------------------
CASES["across_bundles"] = """
body common control { bundlesequence => { "one", "two", "one", "ns:three", "main" }; }
bundle agent one { reports: "same text"; commands: "/bin/echo same"; }
bundle agent two { reports: "same text"; commands: "/bin/echo same"; }
bundle agent main {
methods:
  "a" usebundle => p("1");
  "b" usebundle => p("2");
  "c" usebundle => p("1");
  "d" usebundle => q("1");
  "e" usebundle => q("2");
  "f" usebundle => q("1");
  "g" usebundle => r("x", "y");
  "h" usebundle => r("xy", "");
  "i" usebundle => one;
}
bundle agent p(x) { reports: "p ran"; "p with $(x)"; "p plain" with => "$(x)"; }
bundle agent q(x) { commands: "/bin/echo q"; "/bin/echo q" comment => "$(x)"; }
bundle agent r(a, b) { reports: "r ran" with => "$(a)", comment => "$(b)"; }
body file control { namespace => "ns"; }
bundle agent three { reports: "same text"; }
"""
CASES["iterations"] = """
bundle agent main {
vars:
  "dup" slist => { "a", "a", "b" };
  "two" slist => { "a", "b" };
  "d" data => '{ "k1": "v", "k2": "v" }';
  "keys" slist => getindices("d");
reports:
  "dup $(dup)";
  "two $(two)";
  "two a";
  "cross $(two)" with => "$(dup)";
  "plain" with => "$(two)";
  "only $(d[$(keys)])";
  "key $(keys)" with => "$(d[$(keys)])";
commands:
  "/bin/echo it $(dup)";
  "/bin/echo it a";
methods:
  "m $(dup)" usebundle => mb("$(dup)");
  "m a" usebundle => mb("a");
  "n" usebundle => mb("$(two)");
}
bundle agent mb(x) { reports: "mb $(x)"; }
"""
CASES["methods_args"] = """
bundle agent main {
methods:
  "m" usebundle => b("1");
  "m" usebundle => b("1");
  "m" usebundle => b("2");
  "m" usebundle => b("1"), comment => "c";
  "m" usebundle => c("a", "b");
  "m" usebundle => c("ab", "");
  "m" usebundle => c("", "ab");
}
bundle agent b(x) { reports: "b got $(x)"; }
bundle agent c(x, y) { reports: "c got $(x) $(y)"; }
"""

NAMES = sorted(CASES)
