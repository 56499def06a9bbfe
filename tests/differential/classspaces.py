"""Class expressions evaluated at run time that hold blanks: cases.

cf-agent 3.21 evaluates a class expression given as a value (``if``, ``unless``,
``ifvarclass``, ``ifelse()``, ``and()``, ``or()``, ``not()``) with
CheckClassExpression: two names with only blanks between them (``any any``) are an
error, logged, and the expression is false; otherwise every blank is taken out
before it is parsed (``any . x`` is ``any.x``).  The cases put each expression in
each place, written there or through a variable; the distinct lines are compared
(:func:`agentmisc.observe`'s ``errors_once_`` cases: how often cf-agent repeats the
line follows its evaluations, as for function errors)."""
from __future__ import annotations

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []

EXPRESSIONS = {
    "two_names": "any any",
    "name_undefined": "any nosuch",
    "undefined_name": "nosuch any",
    "tab": "any\\tany",
    "spaced_and": "any . any",
    "spaced_or": "nosuch | any",
    "spaced_not": "! nosuch",
    "padded": "  any  ",
    "parens": "(any) (any)",
    "parens_op": "( any ) . ( cfengine )",
    "three": "a b c",
    "and_then_space": "any.cfengine any",
    "dotted_space": "any. any",
    "or_or": "nosuch || any",
}
PLACES = {
    "if": '"r" if => "{e}";',
    "unless": '"r" unless => "{e}";',
    "ifvarclass": '"r" ifvarclass => "{e}";',
    "if_var": '"r" if => "$(e)";',
    "ifelse": '"r $(v)";',
    "and": '"r $(v)";',
    "or": '"r $(v)";',
    "not": '"r $(v)";',
}
_VALUES = {
    "ifelse": 'ifelse("{e}", "yes", "no")',
    "and": 'ifelse(and("{e}"), "yes", "no")',
    "or": 'ifelse(or("{e}", "nosuch2"), "yes", "no")',
    "not": 'ifelse(not("{e}"), "yes", "no")',
}

for ename, expr in EXPRESSIONS.items():
    for pname, promise in PLACES.items():
        value = _VALUES.get(pname, '"x"').format(e=expr)
        if pname in ("if", "ifvarclass") and ename == "dotted_space":
            continue            # a literal cf-promises refuses (its own case below)
        text = f"""
bundle agent main
{{
vars:
  "e" string => "{expr}";
  "v" string => {value};
reports:
  {promise.format(e=expr)}
  "end";
}}
"""
        CASES.append((f"errors_once_classspaces_{ename}_{pname}", {"promises.cf": text}, ()))

NAMES = [name for name, _, _ in CASES]
