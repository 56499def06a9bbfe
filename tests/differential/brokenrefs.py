"""Generated cases: references left open or broken (``${x``, ``$(a ${b)``, ``${}``) in
values read at run time and in policy literals, as cf-agent 3.21 treats them (issue #26).

* the value: cf-agent's ExpandScalar writes a broken reference as an empty one and
  drops the character after its bracket (``a ${x b`` is ``a ${} b``), saying "Variable
  reference close mismatch '...'" (or "Empty variable reference close mismatch",
  "Variable reference bracket mismatch");
* a vars promise's value read at run time (readfile(), readstringlist(), a
  readstringarray() array, execresult()) and left open is first said by the parser's
  error function: ``FILE:1:1: error: Broken variable syntax or bracket mismatch in
  string (...)`` on standard error;
* a literal left open is said by the iteration engine, "No closing ')' found for
  variable: ...", each time its promise is evaluated;
* a call's argument that expands to a reference left open is said by the parser's error
  function too (IsCf3Scalar: "Broken scalar variable syntax or bracket mismatch in
  '...'"), each time the call is evaluated;
* past twelve parser errors the process prints "Too many errors" and exits 1 (the
  validating cf-promises so: the failsafe); the count starts again with each file parsed.

The count decides where a run stops, so it is cf-agent's, check by check
(cfpromise.agent.yyerrors): the ``count_`` and ``toomany_`` cases put values where
each phase checks them a number of times, around the limit.  The errors are compared as
a set of distinct lines (the ``errors_once_`` prefix: cf-lite says an error of its own
load once where cf-agent's and its cf-promises' both say it).
"""
from __future__ import annotations

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []

# what a file (or a command) gives: no reference may end right after its bracket
# (cf-agent then reads past the end of its buffer)
VALUES = {
    "open_brace": "a ${x",
    "open_paren": "a $(x",
    "open_then_text": "a ${x b",
    "closed_then_open": "a $(x) b ${y",
    "wrong_close": "a ${x) b",
    "nested_wrong": "$(a ${b)",
    "outer_open": "a $(b$(c)",
    "empty_brace": "${}",
    "empty_paren": "$()",
    "undefined_closed": "a ${x}",
    "stray_dollar": "x $ y",
    "two_lines": "a ${x\nb",
    "at_list": "@(x",
    "closed_open": "a ${xy} ${z",
    "open_with_inner": "${x ${y}",
    "paren_with_inner": "$(x $(y) z",
    "open_after_closed": "a $(x)$(y",
    "double_dollar": "$$(x",
    "shell_slash": "a $(/bin/cat f",
    "defined_then_open": "$(v) $(w",
    "open_defined_inside": "$(a $(v) b",
}

_READERS = {
    "readfile": ('"r" string => readfile("$(this.promise_dirname)/d.txt", "4096");',
                 '"r=$(r)";'),
    "execresult": ('"r" string => execresult("/bin/cat $(this.promise_dirname)/d.txt", '
                   '"noshell");', '"r=$(r)";'),
}
for vname, text in VALUES.items():
    for rname, (vars_, report) in _READERS.items():
        if rname == "execresult" and "\n" in text:
            continue
        CASES.append((f"errors_once_{rname}_{vname}", {
            "promises.cf": (f'bundle agent main\n{{\nvars:\n  "v" string => "V";\n  {vars_}\n'
                            f'reports:\n  {report}\n}}\n'),
            "d.txt": text}, ("--show-evaluated-vars=^default:main\\.r$",)))

# a file's lines and fields: one line left open
_LINES = "ok ${fine}\nx a ${x\nlast line\n"
CASES.append(("errors_once_readstringlist", {
    "promises.cf": 'bundle agent main\n{\nvars:\n  "l" slist => readstringlist('
                   '"$(this.promise_dirname)/d.txt", "", "\\n", 10, 1000);\nreports:\n'
                   '  "l=$(l)";\n}\n', "d.txt": _LINES}, ()))
CASES.append(("errors_once_readstringarray", {
    "promises.cf": 'bundle agent main\n{\nvars:\n  "n" int => readstringarray("arr", '
                   '"$(this.promise_dirname)/d.txt", "", " ", 10, 1000);\n'
                   '  "k" slist => getindices("arr");\nreports:\n'
                   '  "k=$(k) v=$(arr[$(k)][1]) w=$(arr[$(k)][2])";\n}\n', "d.txt": _LINES},
              ()))

# literals: a vars promise's value, a report, a promiser, a function's argument
LITERALS = {
    "open": "lit $(unclosed",
    "open_brace": "lit ${unclosed",
    "nested_wrong": "lit $(a ${b)",
    "outer_open": "lit $(b$(v) c",
    "wrong_close": "lit ${x) y",
    "empty": "lit $() and ${}",
    "closed_then_open": "lit $(v) ${w",
    "open_after_dollar": "x$(const.dollar)(a",
}
for lname, text in LITERALS.items():
    CASES.append((f"errors_once_literal_{lname}", (
        f'bundle agent main\n{{\nvars:\n  "v" string => "V";\n  "s" string => "{text}";\n'
        f'  "c" string => concat("{text}", "!");\nreports:\n  "s=$(s) c=$(c)";\n'
        f'  "direct {text}";\n}}\n'), ("--show-evaluated-vars=^default:main\\.[sc]$",)))

# more than twelve parser errors: "Too many errors", exit 1
for count in (3, 4):
    lines = "".join(f'  "r{i}" string => readfile("$(this.promise_dirname)/d.txt", "100");\n'
                    for i in range(count))
    CASES.append((f"errors_once_toomany_{count}", {
        "promises.cf": f'bundle agent main\n{{\nvars:\n{lines}reports:\n  "done";\n}}\n',
        "d.txt": "a ${x"}, ()))

# the count around its limit, wherever the values are checked: each bundle's phases check
# a vars promise's value a number of times (agent passes, BundleResolve after a classes
# section or before a methods call's bundle, the loading, the preliminary convergence, a
# common bundle's rounds), the validating cf-promises counts its own (past twelve: the
# failsafe), and the count starts again with each file parsed
_READ = '  "r{i}" string => readfile("$(this.promise_dirname)/d.txt", "100");\n'
_CLASSES = 'classes:\n  "c" expression => "any";\n'
_PLACES = {
    # name: (bundlesequence, bundle holding the values, its extra sections, counts)
    "agent": ("main", "agent main", "", (1, 5, 6, 7)),
    "classes": ("main", "agent main", _CLASSES, (2, 3, 4)),
    "common": ("main", "common g", "", (2, 3, 4)),
    "common_classes": ("main", "common g", _CLASSES, (2, 3)),
    "common_inseq": ("g, main", "common g", "", (1, 2)),
    "other": ("main", "agent other", "", (3, 4, 5, 7)),
    "method": ("main", "agent other", "", (1, 2, 3)),
}
for place, (seq, holder, extra, counts) in _PLACES.items():
    seq_names = ", ".join(f'"{n.strip()}"' for n in seq.split(","))
    call = '\nmethods:\n  "m" usebundle => other;' if place == "method" else ""
    for count in counts:
        values = "".join(_READ.format(i=i) for i in range(count))
        main = "" if holder == "agent main" else \
            f'bundle agent main\n{{{call}\nreports:\n  "done";\n}}\n'
        reports = 'reports:\n  "done";\n' if holder == "agent main" else ""
        CASES.append((f"errors_once_count_{place}_{count}", {
            "promises.cf": f'body common control {{ bundlesequence => {{ {seq_names} }}; }}\n'
                           f'bundle {holder}\n{{\nvars:\n{values}{extra}{reports}}}\n{main}',
            "d.txt": "a ${x"}, ()))
# in an edit bundle (its files promise's BundleResolve, then one check a pass)
for count in (1, 2, 3):
    CASES.append((f"errors_once_count_edit_{count}", {
        "promises.cf": 'bundle agent main\n{\nfiles:\n  "$(sys.workdir)/edited" create => '
                       '"true", edit_line => el;\nreports:\n  "done";\n}\nbundle edit_line el\n'
                       '{\nvars:\n' + "".join(_READ.format(i=i) for i in range(count))
                       + 'insert_lines:\n  "line";\n}\n',
        "d.txt": "a ${x"}, ()))
# one value, its list's items: each broken item is a check
for count in (2, 4, 5):
    CASES.append((f"errors_once_count_list_{count}", {
        "promises.cf": 'bundle agent main\n{\nvars:\n  "l" slist => readstringlist('
                       '"$(this.promise_dirname)/d.txt", "", "\\n", 10, 1000);\nreports:\n'
                       '  "done";\n}\n',
        "d.txt": "".join(f"a ${{x{i}\n" for i in range(count))}, ()))
# an input file: the parser's count starts again with it
for before, after in ((3, 3), (5, 2), (2, 5)):
    CASES.append((f"errors_once_count_inputs_{before}_{after}", {
        "promises.cf": 'body common control { bundlesequence => { "main" }; inputs => '
                       '{ "b.cf" }; }\nbundle agent main\n{\nvars:\n'
                       + "".join(_READ.format(i=i) for i in range(before))
                       + 'reports:\n  "done";\n}\n',
        "b.cf": 'bundle agent other\n{\nvars:\n'
                + "".join(_READ.format(i=i) for i in range(after)) + '}\n',
        "d.txt": "a ${x"}, ()))
# a broken report: checked in each pass but the last
for count in (1, 3):
    CASES.append((f"errors_once_count_reports_{count}", {
        "promises.cf": 'bundle agent main\n{\nvars:\n' + "".join(
            _READ.format(i=i) for i in range(count)) + 'reports:\n  "r=$(const.dollar)(x";\n}\n',
        "d.txt": "a ${x"}, ()))

# values read at run time and used by another promise: a data container's, a
# readstringarray() field, a call's argument (IsCf3Scalar: "Broken scalar variable syntax")
USED = {
    "json_value": ('"j" data => readjson("$(this.promise_dirname)/d.json", 4096);\n'
                   '  "s" string => "$(j[k])";', '{ "k": "%s" }'),
    "array_field": ('"n" int => readstringarray("arr", "$(this.promise_dirname)/d.txt", '
                    '"", ",", 10, 1000);\n  "s" string => "$(arr[x][1])";', "x,%s\n"),
    "call_argument": ('"s" string => concat(readfile("$(this.promise_dirname)/d.txt", '
                      '"4096"), "!");', "%s"),
    "variable_argument": ('"r" string => readfile("$(this.promise_dirname)/d.txt", "4096");\n'
                          '  "s" string => concat("$(r)", "!");', "%s"),
}
for uname, (vars_, data) in USED.items():
    for vname in ("open_brace", "open_paren", "nested_wrong", "open_then_text",
                  "paren_with_inner"):
        text = VALUES[vname].replace('"', '')
        CASES.append((f"errors_once_used_{uname}_{vname}", {
            "promises.cf": (f'bundle agent main\n{{\nvars:\n  "v" string => "V";\n  {vars_}\n'
                            f'reports:\n  "s=$(s)";\n}}\n'),
            "d.json" if uname == "json_value" else "d.txt": data % text},
            ("--show-evaluated-vars=^default:main\\.s$",)))
# a literal that expands to a broken reference, in a call's argument, n times over
for lname, text in (("paren", "x$(const.dollar)(a"), ("brace", "x$(const.dollar){a"),
                    ("nested", "$(const.dollar)(a ${b)")):
    for count in (1, 2, 3):
        lines = "".join(f'  "c{i}" string => concat("{text}", "{i}");\n' for i in range(count))
        CASES.append((f"errors_once_literal_call_{lname}_{count}", (
            f'bundle agent main\n{{\nvars:\n{lines}reports:\n  "done";\n}}\n'), ()))

NAMES = [c[0] for c in CASES]

# Known differences, each with its reason (the test fails when one starts agreeing).
EXPECTED_DIFFERENCES: dict[str, str] = {}
