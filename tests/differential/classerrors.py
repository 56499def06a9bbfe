"""Classes promises and class expressions cf-agent 3.21 refuses at run time: cases.

Third-party policy and core's examples hold classes promises whose value cf-agent cannot
use, and conditions that are no class expression once expanded.  What cf-agent says of
them, found by running both agents over each shape:

* two combinators in one promise (``expression`` and ``or``...): "Irreconcilable
  constraints in classes for 'NAME'", the promise failed, again in each pass;
* ``dist`` weights read as IntFromString reads them (``1k`` is 1000, ``1.5`` is an
  "Anomalous ending" and no number, a reference left unexpanded no number either),
  a negative or an all-zero distribution refused with the promise's PromiseRef (its
  comment, its promisees), again in each pass; ``select_class`` of nothing the same;
* an empty promiser: "Attempted to name a class '', which is an illegal class
  identifier";
* a condition (``if``, ``unless``, ``ifvarclass``, a quoted class guard, a classes
  promise's ``expression``/``not``, ``and()``/``or()``/``not()``...) whose expansion
  cf-agent's parser of class expressions reads nothing of ("a..b", "any|", "!!any",
  "(any", ""): "Unable to parse class expression 'X'", and the condition does not hold.

cf-lite says a class expression's error once per run, as it says a function's (the
distinct lines are compared: cf-agent says it at each evaluation, the preliminary walk
and cf-promises' included).  A promise's errors are compared line for line: an agent
bundle's pass by pass, a common bundle's as often as cf-agent evaluates it -- in the
validating cf-promises' rounds and its own as the policy loads (each file's
PolicyResolve, one more before each input written with a variable, the whole
policy's), then twice in each pass (its classes, then BundleResolve), over the shapes
``common_count_*`` (in and out of the bundlesequence, -b, called by methods, in inputs,
inputs written with variables, nested inputs, classes that need later definitions).
"""
from __future__ import annotations

import itertools
import re
from typing import Any

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []
# cases whose lines are compared as distinct lines (see the module docstring)
_DISTINCT: set[str] = set()

_REPORT = ('reports:\n  "classes=$(with)" with => join(",", sort(classesmatching("c_.*"), '
           '"lex"));\n')


def _agent(name: str, classes: str, vars_: str = "", distinct: bool = False) -> None:
    CASES.append((name, {"promises.cf": (
        f"bundle agent main\n{{\nvars:\n  \"l\" slist => {{ \"0\", \"3\" }};\n{vars_}"
        f"classes:\n{classes}{_REPORT}}}\n")}, ()))
    if distinct:
        _DISTINCT.add(name)


# -- two combinators or more --------------------------------------------------------
_COMBINATORS = {
    "expression": 'expression => "any"', "not": 'not => "nosuch"', "and": 'and => { "any" }',
    "or": 'or => { "any" }', "xor": 'xor => { "any" }', "dist": 'dist => { "1" }',
    "select_class": 'select_class => { "c_sel" }',
}
for (a, ta), (b, tb) in itertools.combinations(_COMBINATORS.items(), 2):
    _agent(f"irreconcilable_{a}_{b}", f'  "c_{a}_{b}" {ta}, {tb};\n')
_agent("irreconcilable_three", '  "c_three" expression => "any", or => { "any" }, '
       'not => "any", comment => "three of them";\n')
_agent("irreconcilable_then_defined", '  "c_x" expression => "any", or => { "any" };\n'
       '  "c_x" expression => "any";\n')

# -- dist weights ---------------------------------------------------------------------
_WEIGHTS = {
    "negative": ('{ "$(w)" }', "-1"), "zero": ('{ "0", "0" }', None),
    "kilo": ('{ "$(w)" }', "1k"), "kibi": ('{ "0", "$(w)" }', "1K"),
    "mega": ('{ "$(w)" }', "2m"), "fraction": ('{ "1.5" }', None),
    "junk": ('{ "$(w)" }', "abc"), "junk_after": ('{ "$(w)" }', "3abc"),
    "blank_after": ('{ "$(w)" }', "4 "), "two_numbers": ('{ "$(w)" }', "1 2"),
    "percent": ('{ "$(w)" }', "5%"), "inf": ('{ "$(w)" }', "inf"),
    "undefined": ('{ "$(nosuch)" }', None), "undefined_second": ('{ "2", "$(nosuch)" }', None),
    "list": ("{ @(l) }", None), "list_and_zero": ('{ "0", @(l) }', None),
    "empty": ("{ }", None), "leading_blank": ('{ "$(w)" }', " 3"),
}
for wname, (weights, value) in _WEIGHTS.items():
    vars_ = f'  "w" string => "{value}";\n' if value is not None else ""
    _agent(f"dist_{wname}", f'  "c_{wname}" dist => {weights};\n', vars_)
_agent("dist_ref_comment", '  "c_ref" -> { "p1", "p2" } dist => { "-1" }, '
       'comment => "weighted $(sys.class)";\n')
_agent("dist_ref_one_promisee", '  "c_ref1" -> "someone" dist => { "0" };\n')
_agent("dist_guarded", '  any::\n    "c_g" dist => { "0", "0" };\n  nosuch::\n'
       '    "c_h" dist => { "0" };\n')

_agent("dist_late_junk", '  "c_late" dist => { "$(late)" };\n  "later" expression => "any";\n',
       '  "w" string => "abc";\n  "late" string => "$(w)", if => "later";\n')
for aname, (attr, value) in {"persistence": ("persistence", "abc"),
                             "persistence_unit": ("persistence", "5k"),
                             "scope": ("scope", "everywhere"),
                             "scope_bundle": ("scope", "bundle")}.items():
    _agent(f"attribute_{aname}", f'  "c_{aname}" expression => "any", {attr} => "$(v)";\n',
           f'  "v" string => "{value}";\n')

# -- select_class ---------------------------------------------------------------------
_agent("select_empty", '  "c_sel" select_class => { }, comment => "none";\n')
_agent("select_empty_list", '  "c_sel" -> { "p" } select_class => { @(e) };\n',
       '  "e" slist => { };\n')
_agent("select_unexpanded", '  "c_sel" select_class => { "@(nosuch)" };\n')

# -- the empty promiser -------------------------------------------------------------
for pname, promise in (("bare", '""'), ("expression", '"" expression => "any"'),
                       ("false", '"" expression => "nosuch"'), ("or", '"" or => { "any" }'),
                       ("dist", '"" dist => { "1" }'), ("not", '"" not => "any"'),
                       ("select", '"" select_class => { "c_sel" }'),
                       ("expanded", '"$(empty)" expression => "any"')):
    _agent(f"empty_promiser_{pname}", f"  {promise};\n", '  "empty" string => "";\n', True)

# -- in a common bundle -----------------------------------------------------------------
for cname, promise in (("dist", '"c_gd" dist => { "0", "0" }, comment => "in g"'),
                       ("irreconcilable", '"c_gi" expression => "any", not => "any"'),
                       ("select", '"c_gs" select_class => { }'),
                       ("empty", '"" expression => "any"')):
    name = f"common_{cname}"
    CASES.append((name, {"promises.cf": (
        'body common control { bundlesequence => { "g", "main" }; }\n'
        f"bundle common g\n{{\nclasses:\n  {promise};\n}}\n"
        f"bundle agent main\n{{\n{_REPORT}}}\n")}, ()))
# (its name is an empty class expression too: "Unable to parse", said once per run)
_DISTINCT.add("common_empty")

# ... evaluated as often as cf-agent evaluates it: the validating cf-promises' rounds and
# its own (each file's PolicyResolve, one more before each input written with a variable,
# the whole policy's), then its passes (two a pass: the classes, then BundleResolve)
_MAIN = f"bundle agent main\n{{\n{_REPORT}}}\n"
_CALLING = f'bundle agent main\n{{\nmethods:\n  "g";\n{_REPORT}}}\n'


def _common(body: str, name: str = "g", promise: str = "") -> str:
    return f"bundle common {name}\n{{\n{body}classes:\n  {promise};\n}}\n"


def _control(seq: str, inputs: str = "") -> str:
    return (f"body common control {{ bundlesequence => {{ {seq} }}; "
            f"{f'inputs => {{ {inputs} }}; ' if inputs else ''}}}\n")


_LATE_VARS = ('vars:\n  late::\n    "v" string => "any";\n  c_two::\n    "w" string => "x";\n')
_LATE_CLASSES = ('  "c_one" expression => "$(v)";\n  "c_two" expression => "c_one";\n'
                 '  "late" expression => "any"')
_SHAPES: dict[str, tuple[Any, tuple[str, ...]]] = {
    "sequence": (lambda p: {"promises.cf": _control('"g", "main"') + _common("", "g", p) + _MAIN},
                 ()),
    "not_in_sequence": (lambda p: {"promises.cf": _control('"main"') + _common("", "g", p)
                                   + _MAIN}, ()),
    "no_control": (lambda p: {"promises.cf": _common("", "g", p) + _MAIN}, ()),
    "bundle_option": (lambda p: {"promises.cf": _control('"g", "main"') + _common("", "g", p)
                                 + _MAIN}, ("-b", "main")),
    "inform": (lambda p: {"promises.cf": _control('"g", "main"') + _common("", "g", p)
                          + _MAIN}, ("-I",)),
    "methods": (lambda p: {"promises.cf": _control('"main"') + _common("", "g", p) + _CALLING},
                ()),
    "late": (lambda p: {"promises.cf": _control('"g", "main"')
                        + _common(_LATE_VARS, "g", f"{p};\n{_LATE_CLASSES}") + _MAIN}, ()),
    "input_file": (lambda p: {"promises.cf": _control('"g", "main"', '"lib.cf"') + _MAIN,
                              "lib.cf": _common("", "g", p)}, ()),
    "inputs_written_with_variables": (lambda p: {
        "promises.cf": _control('"main"', '"lib.cf", "$(g.f)"') + _MAIN,
        "lib.cf": _common('vars:\n  "f" string => "lib2.cf";\n', "g", p),
        "lib2.cf": _common("", "h", p.replace("c_", "c_h"))}, ()),
    "nested_inputs": (lambda p: {
        "promises.cf": _control('"main"', '"$(g.f)", "$(g.f2)"')
        + _common('vars:\n  "f" string => "lib.cf";\n  "f2" string => "lib2.cf";\n'
                  '  "f3" string => "lib3.cf";\n', "g", p) + _MAIN,
        "lib.cf": 'body file control { inputs => { "lib4.cf", "$(g.f3)" }; }\n'
                  + _common("", "h", p.replace("c_", "c_h")),
        "lib2.cf": _common("", "k", p.replace("c_", "c_k")),
        "lib3.cf": _common("", "m", p.replace("c_", "c_m")),
        "lib4.cf": _common("", "n", p.replace("c_", "c_n"))}, ()),
}
_IN_SHAPES = {"irreconcilable": '"c_i" expression => "any", not => "any"',
              "fraction": '"c_f" dist => { "1.5" }, comment => "weighted"'}
for shape, (files, args) in _SHAPES.items():
    for pname, promise in _IN_SHAPES.items():
        CASES.append((f"common_count_{shape}_{pname}", files(promise), args))

# -- class expressions that do not parse ------------------------------------------------
EXPRESSIONS = ("", "a..b", "(any", "any|", "!", "!!any", "a.!!b", "a&&b", "any||b",
               "a|||b", "(any))", "()", "any()", "default:any", "a:b:c", "a-b", "9", "_",
               "any.", ".any", "any&", "&any", "a!b", "any!", "[a]", "{a}", "a,b",
               "any.(!b)", "((any))", "!(b|c)", "any|!", "any..any", "any&&&b", "any.!",
               "(", ")", "any.()", "!any.any", "any|.b", "$(x", "${nosuch}",
               "any.${nosuch}", "$(nosuch)|any", " any ", "any . any", "a\tb", "any#b",
               "a=b", "a*b")


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")


_EXPR_VARS = "".join(f'  "e{i}" string => "{_quoted(e)}";\n' for i, e in enumerate(EXPRESSIONS))
_CONTEXTS = {
    "if": '  "ran {i}" if => "$(e{i})";\n',
    "unless": '  "ran {i}" unless => "$(e{i})";\n',
    "ifvarclass": '  "ran {i}" ifvarclass => "$(e{i})";\n',
    "guard": '  "$(e{i})"::\n    "ran {i}";\n',
    "and": '  "ran {i}" if => and("$(e{i})", "any");\n',
    "or": '  "ran {i}" if => or("nosuch", "$(e{i})");\n',
    "not": '  "ran {i}" if => not("$(e{i})");\n',
    "ifelse": '  "ran {i} $(with)" with => ifelse("$(e{i})", "yes", "no");\n',
}
for ctx, line in _CONTEXTS.items():
    promises = "".join(line.format(i=i) for i in range(len(EXPRESSIONS)))
    name = f"unparsable_{ctx}"
    CASES.append((name, {"promises.cf": (
        f"bundle agent main\n{{\nvars:\n{_EXPR_VARS}reports:\n{promises}}}\n")}, ()))
    _DISTINCT.add(name)
# (a classes promise's expression out of the class range stops the run: see listclasses)
_IN_RANGE = [i for i, e in enumerate(EXPRESSIONS) if e and "$" not in e and
             re.fullmatch(r"[a-zA-Z0-9_!&@$|.()\[\]{}:]+", e)]
for kind in ("expression", "not"):
    promises = "".join(f'  "c_{kind}_{i}" {kind} => "$(e{i})";\n' for i in _IN_RANGE)
    name = f"unparsable_classes_{kind}"
    CASES.append((name, {"promises.cf": (
        f"bundle agent main\n{{\nvars:\n{_EXPR_VARS}classes:\n{promises}{_REPORT}}}\n")}, ()))
    _DISTINCT.add(name)

# abort patterns are class regexes as well as expressions: no error for one that is not an
# expression
for pname, patterns in (("regex", '"c_abort.*"'), ("regexes", '"c_ab..t", "c_x|", "(c_abort"'),
                        ("expression", '"c_abort.!nosuch"')):
    CASES.append((f"abort_patterns_{pname}", {"promises.cf": (
        f"body agent control {{ abortbundleclasses => {{ {patterns} }}; }}\n"
        'bundle agent main\n{\nclasses:\n  "c_abort" expression => "any";\n'
        'reports:\n  "after";\n}\n')}, ()))

NAMES = [c[0] for c in CASES]
CASE_FILES = {name: files for name, files, _args in CASES}
CASE_ARGS = {name: args for name, _files, args in CASES}
DISTINCT_LINES = _DISTINCT.__contains__

# Known differences, each with its reason (the test fails when one starts agreeing).
EXPECTED_DIFFERENCES: dict[str, str] = {}
