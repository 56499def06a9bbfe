"""Generated edge cases of built-in function families, for a whole-agent differential test.

The families are where agreement with cf-agent 3.21 was weakest on tests no one had
listed: sorting and comparison; selecting variables, classes and bundles by pattern,
tag and namespace; choosing between values that may be undefined; mustache rendering
of data sections; invalid container arguments.  The cases are not a list of known
answers: they are the cross product of each family's functions with argument shapes
that stress types (numbers, non-numbers, empty strings, booleans, null, nested
data), ordering (duplicates, mixed case, signs), namespaces, tags and undefined
values.  :func:`policy_text` renders one policy holding every case; each case's
result is reported as ``@@name@@<result>@@`` (lists and data through ``format("%S")``,
classes as true/false; kinds s/i/r/l/d/c are string, int, real, slist,
data and class), so cf-agent and cf-lite-agent each run it once.
"""
from __future__ import annotations

import itertools
import re

LISTS = {
    "ints": '{ "10", "9", "-1", "0", "2", "007", "+3" }',
    "mixed": '{ "b", "10", "a", "9.5", "", "-3", "1e2", "x1", "B" }',
    "reals": '{ "1.5", "-0.25", "3", "2.50", "1e1", "abc", ".5" }',
    "ips": '{ "10.0.0.2", "10.0.0.10", "192.168.1.1", "::1", "fe80::1", "nope", "1.2.3", "2001:db8::2" }',
    "macs": '{ "00:11:22:33:44:55", "0:1:2:3:4:5", "ff:ff:ff:ff:ff:ff", "bad", "00:11:22:33:44:5", "0A:0b:0C:0d:0E:0f" }',
    "dups": '{ "b", "a", "b", "A", "a", "" }',
    "one": '{ "only" }',
    "empty": "{ }",
}
DATA = {
    "darr": """'[ 3, "10", 2.5, "b", true, null, "a", -1, { "x": 1 }, [ 1 ] ]'""",
    "dobj": """'{ "k": "v", "n": 2, "r": 2.50, "t": true, "f": false, "z": null, "e": "", "zero": 0, "l": [ "a", "b" ], "el": [], "o": { "p": "q", "i": 1 }, "eo": {}, "lo": [ { "name": "x", "v": 1 }, { "name": "y", "v": 2 } ] }'""",
    "dempty": "'[]'",
    "dnum": "'[ 10, 9, 100, -5, 2.5, 0 ]'",
}
SORT_MODES = ("lex", "int", "real", "IP", "ip", "MAC", "mac")
PAIRS = (("10", "9"), ("a", "b"), ("10", "abc"), ("1e1", "9"), ("", "0"), ("-1", "-2"),
         ("1.0", "1"), ("B", "a"), ("010", "9"), (" 5", "4"))
MUSTACHE = (
    ("list", "{{#l}}[{{.}}]{{/l}}"),
    ("empty_list", "{{#el}}[{{.}}]{{/el}}{{^el}}none{{/el}}"),
    ("objects", "{{#lo}}{{name}}={{v}};{{/lo}}"),
    ("bools", "{{#t}}T{{/t}}{{^t}}t{{/t}}{{#f}}F{{/f}}{{^f}}f{{/f}}"),
    ("falsy", "[{{#z}}z{{/z}}][{{#e}}e{{/e}}][{{#zero}}0{{/zero}}][{{#eo}}eo{{/eo}}]"),
    ("inverted_falsy", "[{{^z}}z{{/z}}][{{^e}}e{{/e}}][{{^zero}}0{{/zero}}][{{^eo}}eo{{/eo}}]"),
    ("object_section", "{{#o}}{{p}}/{{i}}{{/o}}"),
    ("keys", "{{#o}}{{@}}={{.}};{{/o}}"),
    ("dotted", "{{o.p}}|{{o.i}}|{{missing.x}}|{{r}}|{{n}}"),
    ("escape", "{{k}}|{{{k}}}|{{&k}}"),
    ("json", "{{$o}}|{{$l}}|{{$n}}"),
    ("json_multi", "{{%o}}"),
    ("numbers", "{{n}} {{r}} {{zero}} {{t}} {{f}} {{z}}"),
    ("nested", "{{#lo}}{{#v}}<{{name}}:{{v}}>{{/v}}{{/lo}}"),
    ("top", "{{#-top-}}{{@}};{{/-top-}}"),
    ("comment", "a{{! a comment }}b"),
    ("delims", "{{=<% %>=}}<% k %>"),
)


def _cases() -> list[tuple[str, str, str]]:
    cases: list[tuple[str, str, str]] = []
    # sorting and comparison
    for name, mode in itertools.product(LISTS, SORT_MODES):
        cases.append((f"sort_{name}_{mode}", "l", f'sort("{name}", "{mode}")'))
    for name in LISTS:
        cases.append((f"sort_{name}_default", "l", f'sort("{name}")'))
        for fn, mode in itertools.product(("min", "max"), ("lex", "int", "real")):
            cases.append((f"{fn}_{name}_{mode}", "s", f'{fn}("{name}", "{mode}")'))
        for fn in ("mean", "variance", "sum", "product", "length", "unique", "reverse"):
            kind = {"unique": "l", "reverse": "l", "length": "i"}.get(fn, "r")
            cases.append((f"{fn}_{name}", kind, f'{fn}("{name}")'))
    for name, mode in itertools.product(DATA, ("lex", "int", "real")):
        cases.append((f"sort_{name}_{mode}", "l", f'sort("{name}", "{mode}")'))
        cases.append((f"max_{name}_{mode}", "s", f'max("{name}", "{mode}")'))
    for i, (a, b) in enumerate(PAIRS):
        cases.append((f"gt_{i}", "c", f'isgreaterthan("{a}", "{b}")'))
        cases.append((f"lt_{i}", "c", f'islessthan("{a}", "{b}")'))
        cases.append((f"strcmp_{i}", "c", f'strcmp("{a}", "{b}")'))
    # selecting by pattern, tag and namespace (sorted: cf-agent's order is a hash's)
    selections = (
        ("vars_main", 'variablesmatching("default:fam\\.sel_.*")'),
        ("vars_tag", 'variablesmatching(".*", "famtag")'),
        ("vars_tag_kv", 'variablesmatching(".*", "kind=.*")'),
        ("vars_ns", 'variablesmatching("famns:.*")'),
        ("vars_ns_tag", 'variablesmatching(".*", "nstag")'),
        ("vars_short", 'variablesmatching("sel_a")'),
        ("vars_two_tags", 'variablesmatching(".*", "famtag", "nstag")'),
        ("classes_tag", 'classesmatching(".*", "famclass")'),
        ("classes_pat", 'classesmatching("fam_c.*")'),
        ("classes_ns", 'classesmatching("famns:.*")'),
        ("bundles_all", 'bundlesmatching("(default|famns):fam.*")'),
        ("bundles_tag", 'bundlesmatching(".*", "fambundle")'),
        ("bundles_ns", 'bundlesmatching("famns:.*")'),
        ("bundles_short", 'bundlesmatching("fam")'),
    )
    for name, expr in selections:
        cases.append((f"sel_{name}", "l", f'sort({expr}, "lex")'))
    cases.append(("sel_vars_data", "d", 'variablesmatching_as_data("default:fam\\.sel_.*")'))
    cases.append(("sel_vars_data_tag", "d", 'variablesmatching_as_data(".*", "nstag")'))
    # choosing between values that may be undefined
    undefined = (
        ("ifelse_undef_then", 's', 'ifelse("any", "$(nosuch)", "b")'),
        ("ifelse_isvar", 's', 'ifelse(isvariable("nosuch"), "$(nosuch)", "fallback")'),
        ("ifelse_false_undef", 's', 'ifelse("nosuchclass", "a", "$(nosuch)")'),
        ("ifelse_chain", 's', 'ifelse("nosuchclass", "a", "any", "b", "c")'),
        ("getvalues_undef", 'l', 'getvalues("nosuch")'),
        ("getindices_undef", 'l', 'getindices("nosuch")'),
        ("length_undef", 'i', 'length("nosuch")'),
        ("nth_undef", 's', 'nth("nosuch", "0")'),
        ("join_undef", 's', 'join(",", "nosuch")'),
        ("mergedata_undef", 'd', 'mergedata("nosuch")'),
        ("concat_undef", 's', 'concat("a", "$(nosuch)")'),
        ("isvar_undef", 'c', 'isvariable("nosuch")'),
        ("isvar_index", 'c', 'isvariable("dobj[k]")'),
        ("isvar_badindex", 'c', 'isvariable("dobj[nope]")'),
        ("and_undef", 'c', 'and("any", "$(nosuch)")'),
        ("or_undef", 'c', 'or("$(nosuch)", "any")'),
        ("not_undef", 'c', 'not("$(nosuch)")'),
        ("classify_undef", 'c', 'classify("$(nosuch)")'),
        ("filter_undef", 'l', 'filter(".*", "nosuch", "true", "false", "10")'),
        ("every_empty", 'c', 'every(".*", "empty")'),
        ("none_empty", 'c', 'none(".*", "empty")'),
        ("some_empty", 'c', 'some(".*", "empty")'),
        ("nth_null", 's', 'nth("dobj", "z")'),
        ("nth_false", 's', 'nth("dobj", "f")'),
        ("nth_missing_key", 's', 'nth("dobj", "nope")'),
        ("nth_out_of_range", 's', 'nth("ints", "100")'),
        ("nth_negative", 's', 'nth("ints", "-1")'),
        ("getvalues_null", 'l', 'getvalues("dobj[z]")'),
        ("getvalues_obj", 'l', 'getvalues("dobj[o]")'),
        ("getindices_list", 'l', 'getindices("ints")'),
        ("getindices_obj", 'l', 'getindices("dobj[o]")'),
        ("data_ifelse_fallback", 's', 'ifelse(isvariable("dobj[e]"), "has:$(dobj[e])", "none")'),
    )
    cases.extend(undefined)
    # mustache rendering of data sections
    for name, template in MUSTACHE:
        cases.append((f"mustache_{name}", "s", f"string_mustache('{template}', dobj)"))
    cases.append(("mustache_list_top", "s", "string_mustache('{{#-top-}}<{{.}}>{{/-top-}}', darr)"))
    cases.append(("mustache_no_data", "s", "string_mustache('{{k}}|{{#l}}x{{/l}}')"))
    # invalid container arguments
    invalid = (
        ("length_string", 'i', 'length("str")'),
        ("getindices_string", 'l', 'getindices("str")'),
        ("getvalues_string", 'l', 'getvalues("str")'),
        ("nth_string", 's', 'nth("str", "0")'),
        ("mergedata_string", 'd', 'mergedata("str")'),
        ("mergedata_list_obj", 'd', 'mergedata("ints", "dobj")'),
        ("mergedata_inline", 'd', "mergedata('[1]', '{\"a\": 1}')"),
        ("parsejson_bad", 'd', 'parsejson("not json")'),
        ("parsejson_scalar", 'd', 'parsejson("3")'),
        ("sort_string", 'l', 'sort("str", "lex")'),
        ("length_obj", 'i', 'length("dobj")'),
        ("length_nested", 'i', 'length("dobj[l]")'),
        ("join_data_obj", 's', 'join(",", "dobj")'),
        ("join_data_arr", 's', 'join(",", "darr")'),
        ("sublist_obj", 'l', 'sublist("dobj", "head", "2")'),
        ("unique_data", 'l', 'unique("darr")'),
        ("data_expand_string", 'd', 'data_expand("str")'),
        ("storejson_string", 's', 'storejson("str")'),
        ("format_S_string", 's', 'format("%S", "str")'),
        ("getindices_data_arr", 'l', 'getindices("darr")'),
        ("difference_data", 'l', 'difference("darr", "ints")'),
        ("intersection_data", 'l', 'intersection("darr", "ints")'),
    )
    cases.extend(invalid)
    return cases


CASES: list[tuple[str, str, str]] = _cases()


def policy_text() -> str:
    """One policy holding every case (bundle ``fam`` reports them)."""
    lines = ["body common control", "{", '  bundlesequence => { "famns:famother", "fam" };', "}",
             "", "bundle agent fam", "{", "  meta:", '      "tags" slist => { "fambundle" };',
             "  vars:"]
    for name, value in LISTS.items():
        lines.append(f'      "{name}" slist => {value};')
    for name, value in DATA.items():
        lines.append(f'      "{name}" data => {value};')
    lines += ['      "str" string => "a string";',
              '      "sel_a" string => "1", meta => { "famtag", "kind=a" };',
              '      "sel_b" slist => { "x" }, meta => { "kind=b" };',
              '      "sel_c" data => \'{"x": 1}\', meta => { "famtag" };']
    for name, kind, expr in CASES:
        if kind == "c":
            continue
        vtype = {"s": "string", "i": "int", "r": "real", "l": "slist", "d": "data"}[kind]
        lines.append(f'      "v_{name}" {vtype} => {expr};')
        scalar = kind in ("s", "i", "r")
        shown = f"$(v_{name})" if scalar else f"$(r_{name})"
        if not scalar:
            lines.append(f'      "r_{name}" string => format("%S", "v_{name}");')
        lines.append(f'      "out_{name}" string => "{shown}";')
    lines.append("  classes:")
    lines += ['      "fam_c1" expression => "any", meta => { "famclass" };',
              '      "fam_c2" expression => "any", scope => "namespace";']
    for name, kind, expr in CASES:
        if kind == "c":
            lines.append(f'      "c_{name}" expression => {expr};')
    lines.append("  reports:")
    for name, kind, _expr in CASES:
        if kind == "c":
            lines.append(f'      "@@{name}@@$(with)@@" with => ifelse("c_{name}", "true", "false");')
        else:
            lines.append(f'      "@@{name}@@$(out_{name})@@";')
    lines += ["}", "", "body file control", "{", '  namespace => "famns";', "}", "",
              "bundle agent famother", "{", "  meta:", '      "tags" slist => { "fambundle", "t2" };',
              "  vars:", '      "nv" string => "n", meta => { "nstag", "famtag" };',
              '      "nl" slist => { "n" }, meta => { "nstag" };',
              "  classes:", '      "ns_class" expression => "any", meta => { "famclass" };',
              "}", ""]
    return "\n".join(lines)


_LINE = re.compile(r"^R: @@([^@]+)@@(.*?)@@$", re.S | re.M)


def parse_reports(stdout: str) -> dict[str, str]:
    """Case name -> reported text (the last report of a name wins)."""
    return {m.group(1): m.group(2) for m in _LINE.finditer(stdout)}
