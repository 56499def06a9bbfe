"""Generated cases: what cf-agent 3.21 says of JSON it cannot parse, and what it makes of
numbers with an exponent (issue #26).

libntech's parser names the text from where it stopped: a bare word in an array or an
object value is first taken for a variable reference (LookupVarRefToJson moves to the
last character of the name before looking it up, so ``[abc]`` says ``'c]'``), a word
at the top is a primitive (``abc`` says ``'abc'``).  Each malformed text is given to
``parsejson()`` in an agent and in a common bundle and, where the shape allows, to
``mergedata()``; only the distinct error lines are compared (how often each is repeated is the
function error plumbing's business, not the parser's).
"""
from __future__ import annotations

# malformed texts, none holding a single quote (the policy quotes them with ')
MALFORMED: tuple[str, ...] = (
    "abc", "[abc]", '{"a": tru}', '{"a": nul}', "[truex]", "[fal]", "[nul]", "[t]", "[n]",
    "[f]", "[trueish, 1]", '{"a": falsey}', "[x.y]", "[a.b.c]", "[a[k]]", "[a[]]", "[_]",
    "[.]", "[..x]", "[1a]", "[-]", "[-x]", "[01]", "[1.]", "[1.2.3]", "[1e]", "[1e+]",
    "[1ee2]", "[1-2]", "[+1]", "[.5]", "[0x10]", "[1,,2]", "[,1]", "[1 2]", "[1,]",
    "[1, 2", '["a" : 1]', '["abc', '"abc', "[abc", '{"a" 1}', '{"a":}', '{"a":1,}',
    '{"a":1 "b":2}', "{,}", "{1:2}", '{"a"}', '{"a":1', "}", "]", "-", "", "   ", "tru",
    "nul", "true x", "[true x]", "[1] x", '{a: 1}', '{a b: 1}', "{a}", "{a:}", "{a:b}",
    '{"a": [1, }', '{"a": {"b": zz}}', '[[1], [2], [zz]]', '[{"a": 1}, {bb}]',
    '["x", y, "z"]', '[null, nulll]', "[true,false,nope]", '{"k": v.w}', "[éa]", "[a-b]",
    "[a b]", "[@x]", "[$x]", "[#]", "[a:b]", '["\\x"]', '{"a":1}}', "[[]]]",
)
# numbers with an exponent: with a dot libntech reads a real; without one an integer,
# whose copy (storing the container in a variable) cf-agent 3.21 converts with
# StringToLongExitOnError, which exits: "Conversion error (-83 - Not terminated)"
REAL_EXPONENTS: tuple[str, ...] = ("1.5E-2", "1.0e1", "0.5e1", "-2.5e+2", "1.25E2", "0.0e0")
INTEGER_EXPONENTS: tuple[str, ...] = ("1e3", "1E3", "2e+2", "-1e3", "0e0", "12e-1")

CASES: dict[str, dict[str, str]] = {}


def _lit(text: str) -> str:
    return "'" + text + "'"


_CALLS = "".join(f'  "p{i}" data => parsejson({_lit(t)});\n' for i, t in enumerate(MALFORMED))
# (mergedata() takes the text from where the parser stopped for a variable name then:
# "[a[]]" makes it say "Broken variable expression", the function's own message)
_MERGE = "".join(f'  "g{i}" data => mergedata({_lit(t)});\n' for i, t in enumerate(MALFORMED)
                 if t.startswith(("[", "{")) and t != "[a[]]")
CASES["parsejson_errors"] = {"promises.cf": f"bundle agent main {{\nvars:\n{_CALLS}}}\n"}
CASES["mergedata_errors"] = {"promises.cf": f"bundle agent main {{\nvars:\n{_MERGE}}}\n"}
CASES["common_errors"] = {"promises.cf": (
    f"bundle common g {{\nvars:\n{_CALLS}}}\nbundle agent main {{ reports: \"done\"; }}\n")}
# a defined variable named by a bare word is its value
CASES["lookup_errors"] = {"promises.cf": """
bundle agent main {
vars:
  "abc" string => "A";
  "lst" slist => { "l1", "l2" };
  "d" data => '{"k": [1, 2]}';
  "p1" data => parsejson('[abc, lst, d]');
  "p2" data => parsejson('{"x": abc, "y": main.lst}');
  "p3" data => parsejson('[abcd]');
  "p4" data => parsejson('[d[k]]');
  "s1" string => format("%S", p1);
  "s2" string => format("%S", p2);
  "s4" string => format("%S", p4);
reports:
  "$(s1) $(s2) $(s4)";
}
"""}


def _exp_policy(numbers: tuple[str, ...]) -> str:
    items = ", ".join(numbers)
    obj = ", ".join(f'"k{i}": {t}' for i, t in enumerate(numbers))
    lines = [
        f"  \"a\" data => parsejson('[{items}]');",
        f"  \"o\" data => parsejson('{{{obj}}}');",
        "  \"i\" slist => getvalues(a);",
        "  \"j\" string => join(\",\", a);",
        "  \"f\" string => format(\"%S\", a);",
        "  \"fo\" string => format(\"%S\", o);",
        "  \"c\" data => mergedata(a, o);",
        "  \"fc\" string => format(\"%S\", c);",
        "  \"s\" string => storejson(a);",
        "  \"copy\" data => @(a);",
        "  \"fcopy\" string => format(\"%S\", copy);",
        f"  \"inline\" data => '[{items}]';",
        "  \"finline\" string => format(\"%S\", inline);",
        "  \"r\" data => readjson(\"$(this.promise_dirname)/e.json\", 4096);",
        "  \"fr\" string => format(\"%S\", r);",
        "  \"keys\" slist => getindices(o);",
    ]
    return ("bundle agent main {\nvars:\n" + "\n".join(lines) + "\nreports:\n"
            '  "i=$(i)";\n  "j=$(j)";\n  "f=$(f)";\n  "fo=$(fo)";\n  "fc=$(fc)";\n'
            '  "s=$(s)";\n  "fcopy=$(fcopy)";\n  "finline=$(finline)";\n  "fr=$(fr)";\n'
            '  "$(keys)=$(o[$(keys)])";\n}\n')


for _name, _numbers in (("exponents_real", REAL_EXPONENTS),
                       ("exponents_integer", INTEGER_EXPONENTS)):
    CASES[_name] = {"promises.cf": _exp_policy(_numbers),
                    "e.json": "[" + ", ".join(_numbers) + "]"}
    for _i, _n in enumerate(_numbers):      # one container, one shape at a time
        CASES[f"{_name}_{_i}"] = {"promises.cf": (
            f"bundle agent main {{\nvars:\n  \"a\" data => '[{_n}]';\n"
            f"  \"v\" string => nth('[{_n}]', 0);\nreports:\n  \"$(a[0]) $(v)\";\n}}\n")}

# (the exponents_integer ones: cf-agent 3.21 exits at the copy, "Conversion error (-83 -
# Not terminated) on '1e3' (StringToLongExitOnError)", in the cf-promises it validates
# with, so the failsafe runs; as cf-lite does: docs/language.md)
EXPECTED_DIFFERENCES: dict[str, str] = {}
NAMES = sorted(CASES)
