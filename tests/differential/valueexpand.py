"""Generated cases: a value that itself holds variable references (issue #26, found in
the EFL community library's tests).

cf-agent 3.21 expands a vars promise's value twice (the ExpandDeRefPromise copy, then
VerifyVarPromise's EvaluateFinalRval), so a reference brought in by the first expansion
-- an element of a data container or of a function-made array, the text a function
returns (``readfile()``, ``readstringlist()``, ``getvalues()``, ``format()``...) -- is
expanded once more, in the promise's bundle, before the variable is stored.  Elsewhere
(reports, class names and expressions, function arguments) the value is substituted as
it is and the text stays unresolved: the class is not defined, the function is not
called, the report waits for the last pass.  A bundle's arguments are expanded once
more when it is called.  Data containers are stored as read.

Each case is a policy tree (agentmisc.run_observed): the data file holding references
is written beside the policy, and the run shows the variables (``--show-evaluated-vars``)
and the reports.
"""
from __future__ import annotations

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []

# what the data files hold: a qualified reference, a bundle-local one, this.promiser,
# an undefined one, and a reference whose own value holds another
_TEXTS = {
    "qualified": "${sys.cf_version_major}",
    "local": "$(lvl)",
    "other_bundle": "$(g.gv)",
    "promiser": "$(this.promiser)",
    "undefined": "$(nosuch)",
    "mixed": "a $(lvl) b ${g.gv} c $(nosuch)",
    "chain": "$(main.f_local)",
}

_HEAD = """
body common control {{ bundlesequence => {{ "main" }}; }}
bundle common g {{ vars: "gv" string => "GV"; }}
bundle agent main
{{
vars:
  "lvl" string => "LVL";
  "dir" string => "$(this.promise_dirname)";
  "f_local" string => readfile("$(dir)/local.txt", 1000);
{body}
{rest}
}}
bundle agent callee(x)
{{
vars:
  "v" string => "$(x)";
reports:
  "callee x=$(x) v=$(v)";
}}
"""

_SHOW = ("--show-evaluated-vars=^default:(main|callee)\\.",
         "--show-evaluated-classes=^c_")


def _files(text: str, body: str, rest: str = "") -> dict[str, str]:
    return {
        "promises.cf": _HEAD.format(body=body, rest=rest),
        "v.txt": text,
        "local.txt": "$(lvl)",
        "v.json": '{ "a": "%s", "l": [ "%s", "x" ] }' % (text.replace('"', '\\"'),
                                                       text.replace('"', '\\"')),
        "v.csv": f"k;;{text}\nm;;plain\n",
    }


_SHAPES = {
    # vars: each source of a value holding references
    "readfile": '  "f" string => readfile("$(dir)/v.txt", 1000);',
    "readfile_list": '  "l" slist => { readfile("$(dir)/v.txt", 1000), "y" };',
    "readstringlist": '  "l" slist => readstringlist("$(dir)/v.txt", "", "\\n", 10, 1000);',
    "container_elem": '  "d" data => readjson("$(dir)/v.json", 1000);\n'
                      '  "x" string => "$(d[a])";\n  "y" string => "pre-$(d[a])-post";',
    "container_list": '  "d" data => readjson("$(dir)/v.json", 1000);\n'
                      '  "l" slist => getvalues("d[l]");\n  "m" slist => { @(l) };',
    "container_format": '  "d" data => readjson("$(dir)/v.json", 1000);\n'
                        '  "j" string => format("%S", d);',
    "array_elem": '  "n" int => readstringarray("arr", "$(dir)/v.csv", "", ";;", 10, 1000);\n'
                  '  "x" string => "$(arr[k][1])";',
    "array_idx_iter": '  "csv" data => data_readstringarrayidx("$(dir)/v.csv", "", ";;", 10, 1000);\n'
                      '  "t" slist => getindices("csv");\n'
                      '  "tmp[$(t)]" string => "$(csv[$(t)][1])";',
    "array_two_lists": '  "params" data => parsejson(\'{ "0": "key", "1": "value" }\');\n'
                       '  "p" slist => getindices("params");\n'
                       '  "csv" data => data_readstringarrayidx("$(dir)/v.csv", "", ";;", 10, 1000);\n'
                       '  "t" slist => getindices("csv");\n'
                       '  "tmp[$(t)][$(params[$(p)])]" string => "$(csv[$(t)][$(p)])";\n'
                       '  "m" data => mergedata(tmp);',
    "chain_var": '  "f" string => readfile("$(dir)/v.txt", 1000);\n  "x" string => "$(f)";',
}
for text_name, text in _TEXTS.items():
    for shape, body in _SHAPES.items():
        CASES.append((f"vars_{shape}_{text_name}", _files(text, body), _SHOW))

# where the value is used as it is: reports, class names and expressions, function
# arguments; and a bundle's arguments (expanded once more, in the called bundle)
_USES = """
  "n" int => readstringarray("arr", "$(dir)/v.csv", "", ";;", 10, 1000);
  "d" data => readjson("$(dir)/v.json", 1000);
"""
_USES_REST = """
classes:
  "c_name_$(arr[k][1])" expression => "any";
  "c_expr" expression => "$(arr[k][1])";
  "c_plain_$(arr[m][1])" expression => "any";
reports:
  "report arr=$(arr[k][1]) d=$(d[a])";
  "with=$(with)" with => concat("$(arr[k][1])", "!");
  "plain=$(arr[m][1])";
"""
_METHODS_REST = """
methods:
  "m1" usebundle => callee("$(arr[k][1])");
  "m2" usebundle => callee("$(d[a])");
"""
for text_name in ("qualified", "other_bundle", "local", "undefined"):
    CASES.append((f"uses_{text_name}", _files(_TEXTS[text_name], _USES, _USES_REST), _SHOW))
    CASES.append((f"methods_{text_name}", _files(_TEXTS[text_name], _USES, _METHODS_REST),
                  _SHOW))

EXPECTED_DIFFERENCES: dict[str, str] = {}

NAMES = [c[0] for c in CASES]
