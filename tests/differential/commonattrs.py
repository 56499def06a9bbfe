"""Generated cases: bad values in the attributes every promise has (CF_COMMON_BODIES).

``if``, ``unless``, ``ifvarclass``, ``comment``, ``handle``, ``depends_on``, ``meta`` and
``with`` are not type-checked by cf-promises 3.21's parser (its CheckConstraint looks only
at the promise type's own attributes); what it says of them comes later:

* its check of the parsed policy wants a scalar or a call for the scalar ones: a list
  (empty or not) is "FILE:LINE:0: error: Type mismatch in constraint: LVAL";
* its parser validates an ``if``/``ifvarclass`` literal as a class expression, variable
  references part of the grammar ("Syntax error in context string" for ``"$(x"``);
* its check of handles asks whether a handle holds a reference: a broken one says
  "FILE:1:1: error: Broken variable syntax ..." (twice) and does not fail;
* everything else -- an unknown function, a call with the wrong number of arguments, a
  scalar for ``depends_on``/``meta`` -- only when the promise is evaluated: cf-promises
  evaluates vars promises (and a common bundle's classes), cf-agent every promise.

The shapes: each attribute x each bad value x contexts (a vars, reports, files and
classes promise in an agent bundle; vars and classes in a common bundle; a custom promise
type's promise, which cf-promises does not check at all).  (A body has none of these
attributes: "Unknown attribute", as for any other -- tests/differential/unknownattrs.py.)
``VALIDATIONS`` compare ``cf-promises -f`` with ``cf-lite-promises -f`` (exit code and
errors); ``CASES`` compare ``cf-agent -K`` runs (the errors as distinct lines: cf-agent's
count includes the cf-promises it validates with).
"""
from __future__ import annotations

from itertools import product

ATTRS = ("if", "unless", "ifvarclass", "comment", "handle", "depends_on", "meta", "with")
VALUES = {
    "unknown_fn": 'nosuchfn("a")',
    "arity": 'canonify("a", "b")',
    "list": '{ "a", "b" }',
    "scalar": '"a"',
    "nested_unknown": 'concat(nosuchfn("a"))',
    "and_unknown": 'and(nosuchfn("a"))',
    "broken_ref": '"$(x"',
    "data": "parsejson('[1]')",
    "empty_list": "{ }",
    "list_unknown": '{ nosuchfn("a") }',
    "list_fn": 'splitstring("a,b", ",", 3)',
}
_CONTEXTS = {
    "vars": 'bundle agent main\n{\n  vars:\n    "x" string => "v", {a} => {v};\n'
            '  reports:\n    "done $(x)";\n}}\n',
    "reports": 'bundle agent main\n{\n  reports:\n    "r" {a} => {v};\n    "done";\n}}\n',
    "files": 'bundle agent main\n{\n  files:\n    "/tmp/cflite-commonattrs-none" '
             'create => "false", {a} => {v};\n  reports:\n    "done";\n}}\n',
    "classes": 'bundle agent main\n{\n  classes:\n    "c" expression => "any", {a} => {v};\n'
               '  reports:\n    "done";\n  c::\n    "c set";\n}}\n',
    "common_vars": 'bundle common main\n{\n  vars:\n    "x" string => "v", {a} => {v};\n'
                   '  reports:\n    "done";\n}}\n',
    "common_classes": 'bundle common main\n{\n  classes:\n    "c" expression => "any", '
                      '{a} => {v};\n  reports:\n    "done";\n}}\n',
}
# a custom promise type's promise: nothing of it is checked before it runs (validations only:
# running it needs its module)
_CUSTOM = ('promise agent foo\n{\n  path => "/bin/true";\n  interpreter => "/bin/sh";\n}}\n'
           'bundle agent main\n{\n  foo:\n    "x" {a} => {v};\n}}\n')


def _text(context: str, attr: str, value: str) -> str:
    shape = _CUSTOM if context == "custom" else _CONTEXTS[context]
    return shape.replace("{a}", attr).replace("{v}", value).replace("}}", "}")


VALIDATIONS: dict[str, str] = {
    f"{context}_{attr}_{kind}": _text(context, attr, value)
    for context, attr, (kind, value) in product([*_CONTEXTS, "custom"], ATTRS, VALUES.items())}
# more than one place: a policy's several errors in its order
VALIDATIONS["several"] = (
    'bundle agent main\n{\n  vars:\n    "x" string => "v", comment => { "a" };\n'
    '  reports:\n    "r" if => nosuchfn("a"), with => { "b" };\n'
    '    "s" handle => { }, meta => "m";\n}\n')
VALIDATIONS["guarded_if_list"] = (
    'bundle agent main\n{\n  reports:\n    linux::\n      "r" if => { "any" };\n}\n')
# what else decides whether the value is looked at: the promise's conditions (``with``
# and the conditions' own calls are evaluated before them), its class guard, the bundle
# it is in (every bundle's vars are evaluated, an edit_line bundle's too), iteration
_SHAPES = {
    "if_false_depends_on": '"x" string => "v", if => "nosuch", depends_on => "a";',
    "unless_true_meta": '"x" string => "v", unless => "any", meta => "m";',
    "if_false_with_arity": '"x" string => "v", if => "nosuch", with => canonify("a", "b");',
    "if_true_depends_on": '"x" string => "v", if => "any", depends_on => "a";',
    "guard_false_meta": 'nosuch::\n    "x" string => "v", meta => "m";',
    "guard_false_if_arity": 'nosuch::\n    "x" string => "v", if => canonify("a", "b");',
    "guard_true_meta": 'any::\n    "x" string => "v", meta => "m";',
    "iterated_depends_on": '"l" slist => { "a", "b" };\n    "x_$(l)" string => "v", '
                           'depends_on => "$(l)";',
    "if_and_unknown_meta": '"x" string => "v", if => and(nosuchfn("a")), meta => "m";',
    "meta_then_arity": '"x" string => "v", meta => "m", handle => canonify("a", "b");',
    "two_promises": '"x" string => "v", comment => concat(nosuchfn("a"));\n'
                    '    "y" string => "w", depends_on => "a";',
}
for _name, _vars in _SHAPES.items():
    VALIDATIONS[f"shape_{_name}"] = (
        f'bundle agent main\n{{\n  vars:\n    {_vars}\n  reports:\n    "done";\n}}\n')
VALIDATIONS["shape_edit_line_depends_on"] = (
    'bundle agent main\n{\n  files:\n    "/tmp/cflite-commonattrs-none" create => "false", '
    'edit_line => e;\n}\nbundle edit_line e\n{\n  vars:\n    "x" string => "v", '
    'depends_on => "a";\n  insert_lines:\n    "l";\n}\n')
VALIDATIONS["shape_other_bundle_meta"] = (
    'bundle agent main\n{\n  reports:\n    "done";\n}\nbundle agent other\n{\n  vars:\n'
    '    "x" string => "v", meta => "m";\n}\n')
# an if/ifvarclass literal is a class expression whose names may hold references: where
# a broken one makes it fail (its column) and where it only ends the name
_LITERALS = ("$()", "$x", "a|$(x", "a$(x", "$(x.y)", "$(a$(b))", "${x", "$(x.)", "$(.x)",
             "a.$(x", "$(x)$(", "!$(x", "($(x)", "@(x", "$(x[a b])|")
for _i, _literal in enumerate(_LITERALS):
    for _lval in ("if", "ifvarclass", "unless"):
        VALIDATIONS[f"literal_{_lval}_{_i}"] = (
            f'bundle agent main\n{{\n  reports:\n    "r" {_lval} => "{_literal}";\n}}\n')
VALIDATION_NAMES = sorted(VALIDATIONS)

# cf-agent runs: the contexts cf-agent evaluates differently (cf-promises evaluates vars)
_RUN_CONTEXTS = ("vars", "reports", "files", "classes", "common_classes")
CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = [
    (f"errors_once_{context}_{attr}_{kind}", {"promises.cf": _text(context, attr, value)}, ())
    for context, attr, (kind, value) in product(_RUN_CONTEXTS, ATTRS, VALUES.items())]
CASES += [(f"errors_once_shape_{name}", {"promises.cf": VALIDATIONS[f"shape_{name}"]}, ())
          for name in _SHAPES]
CASES += [(f"errors_once_shape_reports_{name}", {"promises.cf": (
    f'bundle agent main\n{{\n  reports:\n    {shape.replace("string => ", "comment => ")}\n'
    '    "done";\n}\n')}, ()) for name, shape in _SHAPES.items() if "slist" not in shape]
# a meta string is read as a list as soon as a function is called for the promise, in
# any of its attributes -- not a body's arguments
CASES.append(("errors_once_meta_promise_call", {"promises.cf": (
    'bundle agent main\n{\n  reports:\n    "r" friend_pattern => canonify("a"), meta => "m";\n'
    '    "done";\n}\n')}, ()))
CASES.append(("errors_once_meta_body_argument_call", {"promises.cf": (
    'bundle agent main\n{\n  files:\n    "/tmp/cflite-commonattrs-none" create => "false", '
    'perms => m(canonify("a")), meta => "m";\n  reports:\n    "done";\n}\n'
    'body perms m(x)\n{\n  mode => "644";\n}\n')}, ()))
NAMES = [name for name, _, _ in CASES]

# Known differences, each with its reason (the test fails when one starts agreeing).
_CRASH = ("cf-promises 3.21 crashes (rlist.c: 'Rlist value contains type f instead of "
          "expected scalar', exit 255) on a call in a meta list it evaluates; cf-lite says "
          "which promise and fails instead")
EXPECTED_DIFFERENCES: dict[str, str] = {
    f"errors_once_{context}_meta_list_unknown": _CRASH for context in ("vars", "common_classes")}
VALIDATION_DIFFERENCES: dict[str, str] = {
    f"{context}_meta_list_unknown": _CRASH for context in ("vars", "common_vars",
                                                           "common_classes")}
