"""Generated cases: IsCf3VarString's two verdicts -- the text holds a reference, a
reference is left open -- in every place cf-lite asks them, as cf-agent 3.21 decides them
(cf-lite asks :mod:`cfpromise.syntax.varstring`).

The shapes put a first reference of each kind (whole, mismatched, empty, left open,
nested, with a ``/``, after ``$$``) before a second one (none, left open, whole, with
text after); cf-agent's walk stops counting brackets at the first whole reference, so
``$(a) ${b`` is a reference and not a broken one, while ``$(a} ${b`` is broken.  The
places:

* ``value``: a vars promise's value read at run time (readfile()): the parser's "Broken
  variable syntax or bracket mismatch in string" on standard error, or nothing;
* ``report``: a report whose text, once expanded, is the value read: a reference makes
  it wait for the last pass (printed after the ``marker`` report that follows it);
* ``literal``: the same text written in the report itself (the iteration engine's "No
  closing ')' found for variable" and the parser's "Empty variable reference" of a
  promiser that is ``$()`` or ``${}`` come with it);
* ``promiser``: a vars promise whose name, once expanded, is the value read: a reference
  makes no variable, and no error; no reference (``$(a/b)``, ``${a $(b)}``) is "Variable
  identifier '...' is not legal";
* ``parse``: the text as an int (``ifelapsed``), an irange (``mtime``), an absolute
  path (``chdir``) and a class list (``promise_repaired``) in bodies: cf-promises'
  parse-time check, the broken reference's error and then the type's own ("Cannot parse
  value as integer", "Scalar value is out of range", ...) unless the text is a reference
  (and a few texts that are no reference as an irange, ``range_``).

Each case holds one text (cf-agent stops at its thirteenth parser error); the errors
are compared as a set of distinct lines (the ``errors_once_`` prefix).
"""
from __future__ import annotations

CASES: list[tuple[str, dict[str, str] | str, tuple[str, ...]]] = []

_FIRST = {
    "whole_paren": "$(a)",
    "whole_brace": "${a}",
    "mismatch_pb": "$(a}",
    "mismatch_bp": "${a)",
    "empty_paren": "$()",
    "empty_brace": "${}",
    "open_paren": "$(a",
    "open_brace": "${a x",
    "nested_open": "$(a ${b)",
    "nested_whole": "${a $(b)}",
    "nested_inner": "$(a$(b)",
    "slash": "$(a/b)",
    "double_dollar": "$$(a)",
    "at_list": "@(a)",
    "text": "x",
}
_SECOND = {
    "alone": "",
    "later_open": " ${b",
    "later_open_paren": "$(b c",
    "later_whole": " z ${b} y",
}
SHAPES = {f"{f}__{s}": first + second for f, first in _FIRST.items()
          for s, second in _SECOND.items() if first + second != "x"}

_DIR = "$(this.promise_dirname)"
_READ = f'  "r" string => readfile("{_DIR}/d.txt", "4096");\n'
_PARSE = """bundle agent main
{{
reports:
  "marker";
}}
body action act
{{
  ifelapsed => "{t}";
}}
body file_select fs
{{
  mtime => "{t}";
}}
body contain ct
{{
  chdir => "{t}";
}}
body classes cl
{{
  promise_repaired => {{ "{t}" }};
}}
"""

for sname, text in SHAPES.items():
    CASES.append((f"errors_once_value_{sname}", {
        "promises.cf": f'bundle agent main\n{{\nvars:\n{_READ}reports:\n  "r=$(r)";\n}}\n',
        "d.txt": text}, ("--show-evaluated-vars=^default:main\\.r$",)))
    CASES.append((f"errors_once_report_{sname}", {
        "promises.cf": f'bundle agent main\n{{\nvars:\n{_READ}reports:\n  "$(r)";\n'
                       f'  "marker";\n}}\n',
        "d.txt": text}, ()))
    CASES.append((f"errors_once_literal_{sname}",
                  f'bundle agent main\n{{\nreports:\n  "{text}";\n  "marker";\n}}\n', ()))
    CASES.append((f"errors_once_parse_{sname}", _PARSE.format(t=text), ()))
    CASES.append((f"errors_once_promiser_{sname}", {
        "promises.cf": f'bundle agent main\n{{\nvars:\n{_READ}  "$(r)" string => "v";\n'
                       f'reports:\n  "marker";\n}}\n',
        "d.txt": text}, ("--show-evaluated-vars=^default:main\\.",)))

# a literal in other places of a promise (PromiseIteratorPrepare reads every constraint):
# a vars value, a classes expression's argument, a report's comment
_PLACES = {
    "vars": 'vars:\n  "s" string => "{t}";\nreports:\n  "s=$(s)";\n',
    "classes": 'classes:\n  "k" expression => strcmp("{t}", "zz");\nreports:\n  "k" if => "k";\n',
    "comment": 'reports:\n  "commented" comment => "{t}";\n',
}
for sname, text in SHAPES.items():
    if sname.split("__")[0] in ("nested_open", "nested_whole", "nested_inner", "open_paren",
                                "mismatch_bp"):
        for pname, place in _PLACES.items():
            CASES.append((f"errors_once_in_{pname}_{sname}",
                          f'bundle agent main\n{{\n{place.format(t=text)}  "marker";\n}}\n',
                          ("--show-evaluated-vars=^default:main\\.s$",)))

# the range an irange literal must be, which the walk now lets a text with '$' reach:
# SplitString's items (empty ones kept, "\\," escaped), each an integer in range
_RANGES = {"trailing_comma": "1,2,", "empty_item": "1,,2", "one": "1", "word": "1,x",
           "bracketed": "[1,2]", "escaped_comma": "1,2\\,3", "infinite": "0,inf",
           "dollar": "1,$"}
for rname, text in _RANGES.items():
    CASES.append((f"errors_once_parse_range_{rname}", _PARSE.format(t=text), ()))

NAMES = [c[0] for c in CASES]

# Known differences, each with its reason (the test fails when one starts agreeing).
EXPECTED_DIFFERENCES: dict[str, str] = {}
