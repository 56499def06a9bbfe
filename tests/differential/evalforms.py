"""Generated cases for how values are evaluated: function argument forms, the iteration
order of maps, undefined values.

Each family renders policies whose cases each define one variable ``c_<name>`` and
report it once as ``@@<name>@@<value>@@`` (a list or data container through
``format("%S", ...)``, a scalar as itself) or ``@@<name>@@UNDEF@@`` when cf-agent would
define nothing.  :func:`parse_reports` reads them back into ``{name: value}``, so
the order in which the agents print the reports does not matter, only what they print.

- :data:`FORM_CASES`: function calls as arguments, also as the first argument of
  maplist()/maparray()/mapdata() (evaluated per element), and ``@(array)`` / ``"array"``
  / qualified forms of classic arrays, lists, data containers and undefined names given
  to every collecting function.
- :func:`order_policy`: classic arrays of random keys (sizes from 1 to a few hundred,
  one or two levels, keys with bytes above 0x7f), data containers, global and
  bundle-local classes and variables, walked by getindices(), getvalues(), maparray(),
  mapdata(), mergedata(), classesmatching() and variablesmatching(); a policy per seed,
  so the maps are resized at different points.
- :data:`UNDEF_CASES`: values needing an undefined variable: nested calls that cannot
  run, keys from undefined lists, numbers not yet numbers, references left in strings.
"""
from __future__ import annotations

import random
import re

# ---------------------------------------------------------------------------
# shared


def _report(name: str, kind: str) -> str:
    var = f"c_{name}"
    if kind == "s":
        shown = f'"@@{name}@@$({var})@@" if => isvariable("{var}");'
    else:
        shown = f'"@@{name}@@$(with)@@" with => format("%S", {var}), if => isvariable("{var}");'
    return f'    {shown}\n    "@@{name}@@UNDEF@@" unless => isvariable("{var}");\n'


def render(setup: str, cases: list[tuple[str, str, str]], extra: str = "",
           bundle: str = "main") -> str:
    """One policy: ``bundle`` defines ``setup`` then each case's variable and reports
    them all."""
    # (no body common control: cf-agent would add control_common.bundlesequence to its
    # variable table, which cf-lite does not keep, and shift where the table resizes)
    out = [f"bundle agent {bundle}\n{{\n  vars:\n", setup]
    for name, _kind, promise in cases:
        out.append(f'    "c_{name}" {promise};\n')
    out.append("\n  reports:\n")
    for name, kind, _promise in cases:
        out.append(_report(name, kind))
    out.append("}\n")
    out.append(extra)
    return "".join(out)


_REPORT = re.compile(r"^R: @@([A-Za-z0-9_]+)@@(.*?)@@$", re.M | re.S)


def parse_reports(stdout: str) -> dict[str, list[str]]:
    """{case: [each value it reported]} (a value may span lines)."""
    found: dict[str, list[str]] = {}
    for m in _REPORT.finditer(stdout):
        found.setdefault(m.group(1), []).append(m.group(2))
    return found


# ---------------------------------------------------------------------------
# function argument forms (deliverable 4)

FORM_SETUP = """\
    "arr[a]" string => "1";
    "arr[b]" string => "2";
    "arr[c]" string => "10";
    "deep[x][p]" string => "xp";
    "deep[x][q]" string => "xq";
    "deep[y][p]" string => "yp";
    "deep[z]" string => "z";
    "mixed[k]" string => "v";
    "mixed[l]" slist => { "l1", "l2" };
    "nums[one]" string => "1";
    "nums[two]" string => "2.5";
    "nums[three]" string => "-3";
    "l" slist => { "b b", "a-a", "c.c", "a-a" };
    "nl" slist => { "3", "1", "2" };
    "el" slist => { };
    "d" data => '{ "p": "1", "q": [ "2", "3" ], "r": { "s": "4" } }';
    "da" data => '[ "x y", "z", "x y" ]';
    "dao" data => '[ { "k1": "v1" }, { "k2": [ "a", "b" ] }, "s", [ "t" ] ]';
    "word" string => "Hello World";
"""

# source name -> what it is (for the ids)
SOURCES = {
    "arr": "classic array",
    "deep": "two-level classic array",
    "mixed": "classic array with a list entry",
    "l": "slist",
    "el": "empty slist",
    "d": "data object",
    "da": "data array",
    "dao": "data array of containers",
    "nosuch": "undefined name",
    "deep[x]": "classic sub-array",
}

# how a source is written as an argument
FORMS = {
    "at": "@({})",
    "name": '"{}"',
    "qual": '@(main.{})',
    "ns": '"default:main.{}"',
}

# collecting function -> (vars type, call with {} for the source)
COLLECTORS = {
    "getvalues": ("slist", "getvalues({})"),
    "getindices": ("slist", "getindices({})"),
    "length": ("int", "length({})"),
    "join": ("s", 'join(",", {})'),
    "mergedata": ("data", "mergedata({})"),
    "sort": ("slist", 'sort({}, "lex")'),
    "unique": ("slist", "unique({})"),
    "reverse": ("slist", "reverse({})"),
    "nth0": ("s", 'nth({}, "0")'),
    "nthkey": ("s", 'nth({}, "p")'),
    "filter": ("slist", 'filter(".*", {}, "true", "false", 99)'),
    "grep": ("slist", 'grep(".*", {})'),
    "sublist": ("slist", 'sublist({}, "head", 2)'),
    "every": ("s", 'ifelse(every(".*", {}), "yes", "no")'),
    "some": ("s", 'ifelse(some("1", {}), "yes", "no")'),
    "storejson": ("s", "storejson({})"),
    "intersection": ("slist", "intersection({}, nl)"),
    "difference": ("slist", "difference({}, nl)"),
    "maparray": ("slist", 'maparray("$(this.k)=$(this.v)", {})'),
    "maplist": ("slist", 'maplist("<$(this)>", {})'),
    "mapdata": ("data", 'mapdata("none", "$(this.k):$(this.v)", {})'),
}

def _form_cases() -> list[tuple[str, str, str]]:
    cases: list[tuple[str, str, str]] = []
    for fn, (kind, call) in COLLECTORS.items():
        for src in SOURCES:
            for form, pattern in FORMS.items():
                if "[" in src and form != "at":
                    continue
                written = pattern.format(src)
                name = f"{fn}_{form}_{re.sub(r'[^a-z0-9]', '_', src)}"
                vtype = "string" if kind == "s" else kind
                cases.append((name, "s" if kind in ("s", "int") else "l",
                              f"{vtype} => {call.format(written)}"))
    # a call as an argument, also as the pattern of the map functions
    calls = {
        "canonify": 'canonify("$(this)")',
        "regex_replace": 'regex_replace("$(this)", "[^a-z]", "_", "g")',
        "concat": 'concat("[", canonify("$(this)"), "]")',
        "upcase": 'string_upcase("$(this)")',
        "format": 'format("%s/%s", "$(this)", string_length("$(this)"))',
        "ifelse": 'ifelse(strcmp("$(this)", "a-a"), "A", "$(this)")',
        "length": 'string_length("$(this)")',
        "head": 'string_head("$(this)", "1")',
        "downcase": 'string_downcase("$(this)")',
        "reverse": 'string_reverse("$(this)")',
        "hash": 'hash("$(this)", "md5")',
    }
    for label, call in calls.items():
        for src in ("l", "da", "el", "arr", "nosuch"):
            cases.append((f"maplist_fn_{label}_{src}", "l",
                          f"slist => maplist({call}, @({src}))"))
    kv_calls = {
        "canonify": 'canonify("$(this.k)_$(this.v)")',
        "concat": 'concat("$(this.k)", "=", string_upcase("$(this.v)"))',
        "regex_replace": 'regex_replace("$(this.k)$(this.v)", "[0-9]", "#", "g")',
        "upcase": 'string_upcase("$(this.v)")',
        "upcase_k": 'string_upcase("$(this.k)")',
        "downcase": 'string_downcase("$(this.k)$(this.v)")',
        "reverse": 'string_reverse("$(this.v)")',
        "length": 'string_length("$(this.v)")',
        "hash": 'hash("$(this.v)", "md5")',
        "ifelse": 'ifelse("any", "$(this.k)", "n")',
        "format": 'format("%s-%s", "$(this.k)", "$(this.v)")',
        "nested_upcase": 'concat("<", string_upcase(string_downcase("x$(this.v)")), ">")',
    }
    for label, call in kv_calls.items():
        for src in ("arr", "deep", "d", "l", "nosuch"):
            cases.append((f"maparray_fn_{label}_{src}", "l",
                          f"slist => maparray({call}, @({src}))"))
            cases.append((f"mapdata_fn_{label}_{src}", "l",
                          f'data => mapdata("none", {call}, @({src}))'))
    # a template naming this.k inside another reference, defined as written and
    # expanded per element (the acceptance suite's maparray.cf "spec4")
    cases.append(("spec_nested", "s", 'string => "$(this.k) is $(arr[$(this.k)])"'))
    cases.append(("spec_nested_v", "s", 'string => "$(arr[$(this.v)]) $(this)"'))
    for src in ("arr", "d", "l"):
        cases.append((f"maparray_spec_nested_{src}", "l",
                      f'slist => maparray("$(c_spec_nested)", {src})'))
        cases.append((f"mapdata_spec_nested_{src}", "l",
                      f'data => mapdata("none", "$(c_spec_nested)", {src})'))
    cases.append(("maplist_spec_nested", "l", 'slist => maplist("$(c_spec_nested_v)", l)'))
    # calls nested in every argument position of ordinary functions
    nested = {
        "join_split": 'join("+", splitstring(canonify("a b,c d"), "_", 9))',
        "concat_nested": 'concat(string_upcase("a"), canonify("b c"), format("%d", "7"))',
        "regex_in_regex": 'regex_replace(regex_replace("$(word)", "o", "0", "g"), "l", "1", "g")',
        "ifelse_calls": 'ifelse(strcmp(canonify("a b"), "a_b"), string_upcase("y"), "n")',
        "strcmp_calls": 'ifelse(strcmp(string_downcase("$(word)"), "hello world"), "eq", "ne")',
        "nth_split": 'nth(splitstring("a,b,c", ",", 9), "1")',
        "length_split": 'length(splitstring("a,b,c", ",", 9))',
        "sort_maplist": 'join(",", sort(maplist(canonify("$(this)"), l), "lex"))',
        "getvalues_merge": 'join(",", getvalues(mergedata(@(arr))))',
        "format_list": 'format("%S", maplist(string_upcase("$(this)"), l))',
        "eval_nested": 'eval(concat("1+", string_length("abc")), "math", "infix")',
    }
    for label, call in nested.items():
        cases.append((f"nested_{label}", "s", f"string => {call}"))
    # @(name) given to a function that does not collect stays as written; a result that
    # is exactly @(list) is that list (spliced into a list, an error for a string)
    listrefs = {
        "concat_around": ("s", 'string => concat("[", @(l), "]")'),
        "concat_only": ("s", "string => concat(@(l))"),
        "concat_undef": ("s", "string => concat(@(nosuch))"),
        "concat_string": ("s", "string => concat(@(word))"),
        "canonify": ("s", "string => canonify(@(l))"),
        "canonify_qual": ("s", "string => canonify(@(main.da))"),
        "upcase_data": ("s", "string => string_upcase(@(d))"),
        "strcmp": ("s", 'string => ifelse(strcmp(@(l), "@(l)"), "same", "differ")'),
        "length_str": ("s", "string => string_length(@(el))"),
        "in_list": ("l", 'slist => { concat("@(l)"), "x" }'),
        "split": ("l", 'slist => splitstring("@(l),@(nl)", ",", 9)'),
        "split_built": ("l", 'slist => splitstring(concat("@", "(nl)"), ",", 9)'),
        "split_undef": ("l", 'slist => splitstring("@(nosuch)", ",", 9)'),
        "int_from": ("s", "int => string_length(@(nl))"),
    }
    for label, (kind, promise) in listrefs.items():
        cases.append((f"listref_{label}", kind, promise))
    return cases


# classic arrays of unusual shapes, and the tags of what a promise defines: cf-agent builds
# an array's JSON walking its variable table (a key given again moves to the end of its
# object, a scalar under a string makes it an object, the array's own scalar takes the
# key of the entry before it), reads a promiser's brackets as VarRefParse does, refuses
# a container under an index, and keeps tags in a string set (once each, hashed past 14)
SHAPE_SETUP = """\
    "sk" slist => { "q", "r", "s", "b" };
    "sb[$(sk)][$(sk)]" string => "bb";
    "sb[one][two]" string => "x";
    "sb[one]" string => "y";
    "sx[a]" string => "1";
    "sx" string => "s";
    "sy" string => "s";
    "sy[a]" string => "1";
    "sy[b]" string => "2";
    "sz[a]" string => "1";
    "sz[a][b]" string => "2";
    "sw[a][b]" string => "2";
    "sw[a]" string => "1";
    "sd" data => '{ "k": { "x": 1 }, "s": "str", "l": [ 1, 2 ] }';
    "sd[k]" string => "v1";
    "sd[s]" string => "v2";
    "sd[new]" string => "v3";
    "sd[l]" slist => { "a" };
    "sd[k][x]" string => "v4";
    "se[x]" data => '[ "a" ]';
    "se[y]" string => "y";
    "se2[y]" data => mergedata('{ "q": 1 }');
    "sr[a[b]]" string => "1";
    "sr[c]d]" string => "2";
    "sr[e][f]" string => "3";
    "sr[g h]" string => "5";
    "sr[x.y.z]" string => "9";
    "sr[a:b]" string => "10";
    "sr[p]q[r]" string => "11";
    "st[[a]]" string => "2";
    "st[a][b]]" string => "3";
    "tv" string => "1", meta => { "b", "a", "b", "k=v", "k=w", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10", "t11", "t12" };
    "tw" string => "1", meta => { "b", "a", "b", "source=promise", "z" };
    "tl" slist => { "x" }, meta => { "inventory", "attribute_name=Foo", "inventory" };
"""
SHAPE_CLASSES = """\
    "tc_many" expression => "any", meta => { "b", "a", "c", "a", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10", "t11", "t12" };
    "tc_dup" expression => "any", meta => { "source=promise", "q", "q" };
    "tc_none" expression => "any", meta => { };
"""
SHAPE_CASES: list[tuple[str, str, str]] = []
for _src in ("sb", "sx", "sy", "sz", "sw", "sz[a]", "sd", "se", "se2", "sr", "sr[e]", "st"):
    _label = re.sub(r"[^a-z0-9]", "_", _src)
    SHAPE_CASES += [(f"shape_gv_{_label}", "l", f'slist => getvalues("{_src}")'),
                    (f"shape_gi_{_label}", "l", f'slist => getindices("{_src}")'),
                    (f"shape_mg_{_label}", "l", f'data => mergedata("{_src}")'),
                    (f"shape_ma_{_label}", "l", f'slist => maparray("$(this.k)=$(this.v)", "{_src}")'),
                    (f"shape_md_{_label}", "l", f'data => mapdata("none", "$(this.k)", "{_src}")'),
                    (f"shape_vm_{_label}", "l", 'data => variablesmatching_as_data('
                     f'"default:main\\.{_src.split("[")[0]}(\\[.*)?")')]
SHAPE_CASES += [
    ("shape_ref_sd_s", "s", 'string => "$(sd[s])"'),
    ("shape_ref_sd_new", "s", 'string => "$(sd[new])"'),
    ("shape_ref_sd_k_x", "s", 'string => "$(sd[k][x])"'),
    ("shape_ref_se_y", "s", 'string => "$(se[y])"'),
    ("shape_isvar_se_x", "s", 'string => ifelse(isvariable("se[x]"), "y", "n")'),
    ("shape_isvar_se2_y", "s", 'string => ifelse(isvariable("se2[y]"), "y", "n")'),
    ("shape_tags_tv", "l", 'slist => getvariablemetatags("main.tv")'),
    ("shape_tags_tv_k", "l", 'slist => getvariablemetatags("main.tv", "k")'),
    ("shape_tags_tw", "l", 'slist => getvariablemetatags("main.tw")'),
    ("shape_tags_tl", "l", 'slist => getvariablemetatags("main.tl")'),
    ("shape_ctags_many", "l", 'slist => getclassmetatags("tc_many")'),
    ("shape_ctags_many_t", "l", 'slist => getclassmetatags("tc_many", "t1")'),
    ("shape_ctags_dup", "l", 'slist => getclassmetatags("tc_dup")'),
    ("shape_ctags_none", "l", 'slist => getclassmetatags("tc_none")'),
]

# a call returning a data container given to another function: a collecting one gets
# a copy of the container (reals written anew, integers cut to 32 bits), one that does
# not collect gets nothing for it (format("%S", mergedata(...)) lacks its parameter);
# a container stored in a variable is a copy too, and a real expands as %.2f
SHAPE_SETUP += """\
    "nd" data => '[2.5, 1.125, 3, -0.0, 12345678901, 0.001, 2147483648, -2147483649]';
    "no" data => '{ "a": 2.5, "b": [ 0.5 ] }';
"""
_DATA_CALLS = {
    "arr_of_arr": "mergedata('[[1],\"a\",{\"k\":2}]')",
    "obj": "mergedata('{\"p\":[1,2],\"q\":\"s\",\"r\":{\"t\":1}}')",
    "nums": "parsejson('[1,2.5,true,null,12345678901]')",
    "empty": "mergedata('[]')",
    "mapjson": 'mapdata("json", "[\\"$(this.v)\\"]", l)',
}
_DATA_TAKERS = {
    "storejson": ("s", "storejson({})"),
    "join": ("s", 'join(",", {})'),
    "getvalues": ("l", "getvalues({})"),
    "getindices": ("l", "getindices({})"),
    "length": ("s", "length({})"),
    "sort": ("l", 'sort({}, "lex")'),
    "nth": ("s", 'nth({}, "1")'),
    "maparray": ("l", 'maparray("$(this.k)=$(this.v)", {})'),
    "maplist": ("l", 'maplist("<$(this)>", {})'),
    "mapdata": ("l", 'mapdata("none", "$(this.k):$(this.v)", {})'),
    "mergedata": ("l", "mergedata({}, '[\"x\"]')"),
    "format": ("s", 'format("%S", {})'),
    "format2": ("s", 'format("%s %S", "a", {})'),
    "concat": ("s", 'concat("a", {}, "b")'),
}
for _call, _arg in _DATA_CALLS.items():
    for _fn, (_kind, _pattern) in _DATA_TAKERS.items():
        _type = {"s": "string", "l": "data" if "data" in _pattern else "slist"}[_kind]
        if _fn == "length":
            _type = "int"
        SHAPE_CASES.append((f"dcall_{_fn}_{_call}", _kind, f"{_type} => {_pattern.format(_arg)}"))
SHAPE_CASES += [
    ("dnum_format", "s", 'string => format("%S", nd)'),
    ("dnum_refs", "s", 'string => "$(nd[0]) $(nd[1]) $(nd[3]) $(nd[4]) $(nd[5]) $(nd[6]) $(nd[7])"'),
    ("dnum_iter", "l", 'slist => { "$(nd)" }'),
    ("dnum_obj", "s", 'string => "$(no[a]) $(no[b][0])"'),
    ("dnum_getvalues", "l", "slist => getvalues(nd)"),
    ("dnum_join", "s", 'string => join(",", nd)'),
    ("dnum_mustache", "s", 'string => string_mustache("{{#-top-}}{{.}} {{/-top-}}", nd)'),
    ("dnum_greater", "s", 'string => ifelse(isgreaterthan("$(nd[5])", "0"), "y", "n")'),
    ("dnum_parsed", "s", "string => format(\"%S\", parsejson('[2.5, 12345678901]'))"),
]

FORM_CASES = _form_cases() + SHAPE_CASES


def form_policy() -> str:
    return render(FORM_SETUP + SHAPE_SETUP, FORM_CASES).replace(
        "\n  reports:\n", "\n  classes:\n" + SHAPE_CLASSES + "\n  reports:\n")


# ---------------------------------------------------------------------------
# iteration order (deliverable 5)

_KEY_SHAPES = ("k{n}", "{n}", "key_{n}_x", "é{n}", "{n}.{n}", "a b {n}", "ÿ{n}z", "K{n}")


def _keys(rng: random.Random, count: int) -> list[str]:
    shape = rng.choice(_KEY_SHAPES)
    keys: dict[str, None] = {}
    while len(keys) < count:
        keys[shape.format(n=rng.randint(0, 10 ** rng.randint(1, 6)))] = None
    return list(keys)


def order_policy(seed: int) -> tuple[str, list[str]]:
    """A policy of random maps walked by every order-giving function; the case names."""
    rng = random.Random(seed)
    setup: list[str] = []
    cases: list[tuple[str, str, str]] = []
    sizes = [1, 2, 5, 13, 14, 15, 16, 30, 47, 90, 97, 130, 200, 260]
    rng.shuffle(sizes)
    filler = rng.randint(0, 400)          # shifts where the variable table resizes
    for i in range(filler):
        setup.append(f'    "fill{i}" string => "{i}";\n')
    for n, size in enumerate(sizes[: rng.randint(5, 9)]):
        arr = f"a{n}"
        for key in _keys(rng, size):
            setup.append(f'    "{arr}[{key}]" string => "v{key}";\n')
        cases += [(f"gi_{arr}", "l", f'slist => getindices("{arr}")'),
                  (f"gv_{arr}", "l", f'slist => getvalues("{arr}")'),
                  (f"gvat_{arr}", "l", f"slist => getvalues(@({arr}))"),
                  (f"ma_{arr}", "l", f'slist => maparray("$(this.k)", {arr})'),
                  (f"md_{arr}", "l", f'data => mapdata("none", "$(this.v)", {arr})'),
                  (f"mg_{arr}", "l", f"data => mergedata({arr})"),
                  (f"vm_{arr}", "l", f'slist => variablesmatching("default:cases\\.{arr}\\[.*")')]
    for n in range(rng.randint(1, 3)):
        arr = f"t{n}"
        outer = _keys(rng, rng.choice([2, 3, 15, 40]))
        for key in outer:
            for key2 in _keys(rng, rng.choice([1, 2, 20])):
                setup.append(f'    "{arr}[{key}][{key2}]" string => "{key2}";\n')
        first = outer[0]
        cases += [(f"gi_{arr}", "l", f'slist => getindices("{arr}")'),
                  (f"gi1_{arr}", "l", f'slist => getindices("{arr}[{first}]")'),
                  (f"gv_{arr}", "l", f'slist => getvalues("{arr}")'),
                  (f"mg_{arr}", "l", f"data => mergedata({arr})"),
                  (f"ma_{arr}", "l", f'slist => maparray("$(this.k)/$(this.v)", {arr})')]
    for n in range(2):
        keys = _keys(rng, rng.choice([3, 14, 20, 120]))
        body = ", ".join(f'"{k}": "{k}"' for k in keys)
        setup.append(f"    \"d{n}\" data => '{{ {body} }}';\n")
        cases += [(f"gi_d{n}", "l", f'slist => getindices("d{n}")'),
                  (f"gv_d{n}", "l", f"slist => getvalues(d{n})"),
                  (f"ma_d{n}", "l", f'slist => maparray("$(this.k)", d{n})')]
    classes: list[str] = []
    for n, size in enumerate(rng.sample([1, 3, 13, 14, 15, 16, 40, 97, 150], 4)):
        for key in _keys(rng, size):
            classes.append(f'    "cl{n}_{re.sub(r"[^A-Za-z0-9]", "_", key)}" expression => "any";\n')
        cases.append((f"cm_cl{n}", "l", f'slist => classesmatching("cl{n}_.*")'))
    cases.append(("cm_cl_all", "l", 'slist => classesmatching("cl[0-9]_.*")'))
    # the hard classes and sys variables (names only: their values vary by the minute)
    cases += [("cm_hard", "l", 'slist => classesmatching("[a-z].*")'),
              ("vm_sys", "l", 'slist => variablesmatching("default:sys\\..*")'),
              ("vm_fill", "l", 'slist => variablesmatching("default:cases\\.fill.*")')]
    # "last iteration wins": a scalar defined once per index keeps the last one's value
    for n in range(min(3, len(sizes))):
        cases.append((f"last_a{n}", "s", f'string => "$(a{n}[$(idx_a{n})])"'))
        setup.append(f'    "idx_a{n}" slist => getindices("a{n}");\n')
    setup_text = "".join(setup)
    cases_sorted = cases
    extra = _local_bundle(rng)
    # main's cases report before the local calls change the table (when an agent
    # prints a report is not what this test is about)
    # (a methods call of "cases": cf-agent clears its arrays, defined when the policy
    # was loaded, and defines them again)
    text = render(setup_text, cases_sorted, bundle="cases").replace(
        "\n  reports:\n", "\n  classes:\n" + "".join(classes) + "\n  reports:\n") + \
        'bundle agent main\n{\n  methods:\n    "cases" usebundle => cases;\n' \
        '    "local1" usebundle => local("1");\n    "local2" usebundle => local("2");\n}\n' + \
        extra
    return text, [c[0] for c in cases] + [f"local_{k}_{n}" for k in LOCAL_CASES for n in "12"]


def _local_bundle(rng: random.Random) -> str:
    """Bundle-scoped classes (a bundle's own class table) and an array made anew at
    each call (cf-agent clears a methods-called bundle's arrays, as it walks its table:
    a removal may shrink the map), called twice with different keys."""
    lines = ["\nbundle agent local(n)\n{\n  classes:\n"]
    for key in _keys(rng, rng.choice([3, 14, 15, 30])):
        lines.append(f'    "lc_{re.sub(r"[^A-Za-z0-9]", "_", key)}" expression => "any", '
                     'scope => "bundle";\n')
    lines.append('    "lc_global_one" expression => "any";\n')
    lines.append("  vars:\n")
    for call in ("1", "2"):
        for key in _keys(rng, rng.choice([5, 16, 60, 150])):
            lines.append(f'    "la[{key}]" string => "{key}", if => strcmp("$(n)", "{call}");\n')
    # each value needs $(n), so that none is defined before the call (cf-agent resolves
    # the vars of every bundle when it loads the policy, cf-lite those without parameters)
    lines.append('    "cm" slist => classesmatching("lc_.*|never$(n)");\n')
    lines.append('    "cmall" slist => classesmatching("(lc|cl0)_.*|never$(n)");\n')
    lines.append('    "gi" slist => getindices(regex_replace("la$(n)", "[0-9]+$", "", ""));\n')
    lines.append('    "vm" slist => variablesmatching("default:local\\.la\\[.*|never$(n)");\n')
    lines.append("  reports:\n")
    for k in LOCAL_CASES:
        lines.append(f'    "@@local_{k}_$(n)@@$(with)@@" with => format("%S", {k});\n')
    lines.append("}\n")
    return "".join(lines)


LOCAL_CASES = ("cm", "cmall", "gi", "vm")


# ---------------------------------------------------------------------------
# undefined and unresolvable values (deliverable 6)

UNDEF_SETUP = """\
    "yes" string => "true";
    "l" slist => { "x", "y" };
    "el" slist => { };
    "n" string => "5";
"""


def _undef_cases() -> list[tuple[str, str, str]]:
    refs = {"undef": "$(nosuch)", "brace": "${nosuch}", "with": "$(with)",
            "this": "$(this.nosuch)", "idx": "$(nosuch[x])", "qual": "$(main.nosuch)",
            "def": "$(def.nosuch)"}
    cases: list[tuple[str, str, str]] = []
    for label, ref in refs.items():
        r = ref.replace("{x}", label)
        # plain strings keep the reference as written
        cases += [(f"str_{label}", "s", f'string => "{r}"'),
                  (f"strmid_{label}", "s", f'string => "a {r} b"'),
                  (f"list_{label}", "l", f'slist => {{ "a", "{r}" }}'),
                  (f"int_{label}", "s", f'int => "{r}"'),
                  (f"real_{label}", "s", f'real => "{r}"'),
                  # functions given it
                  (f"concat_{label}", "s", f'string => concat("x", "{r}")'),
                  (f"canon_{label}", "s", f'string => canonify("{r}")'),
                  (f"split_{label}", "l", f'slist => splitstring("{r}", ",", 9)'),
                  (f"strcmp_{label}", "s", f'string => ifelse(strcmp("{r}", "x"), "y", "n")'),
                  (f"ifelse_then_{label}", "s", f'string => ifelse("any", "{r}", "b")'),
                  (f"ifelse_else_{label}", "s", f'string => ifelse("!any", "a", "{r}")'),
                  (f"ifelse_isvar_{label}", "s",
                   f'string => ifelse(isvariable("nosuch"), "{r}", "dflt")'),
                  (f"ifelse_isvar2_{label}", "s",
                   f'string => ifelse(isvariable("yes"), "{r}", "dflt")'),
                  (f"nested_{label}", "s",
                   f'string => ifelse(strcmp(canonify("{r}"), "x"), "y", "n")'),
                  (f"nested2_{label}", "s", f'string => concat("a", string_upcase("{r}"))'),
                  (f"isvar_{label}", "s", f'string => ifelse(isvariable("{r}"), "y", "n")'),
                  # array keys from it
                  (f"key_{label}", "l", f'slist => getindices("k_{label}")')]
    # masterfiles' def.cf form: the variable's own old value
    cases += [("selfflag", "s", 'string => ifelse(strcmp("$(c_selfflag)", "true"), "on", "off")'),
              ("selfflag_isvar", "s",
               'string => ifelse(isvariable("c_selfflag_isvar"), "$(c_selfflag_isvar)", "dflt")'),
              ("and_nested", "s", 'string => ifelse(and(strcmp("$(nosuch)", "a")), "y", "n")'),
              ("or_nested", "s", 'string => ifelse(or(strcmp("$(nosuch)", "a"), "any"), "y", "n")'),
              ("not_nested", "s", 'string => ifelse(not(strcmp("$(nosuch)", "a")), "y", "n")'),
              ("ifelse5", "s", 'string => ifelse(strcmp("$(nosuch)", "a"), "1", "any", "2", "3")'),
              ("ifelse_first_undef", "s", 'string => ifelse("$(nosuch)", "y", "n")'),
              ("list_of_undef", "l", "slist => { @(nosuchlist) }"),
              ("list_el", "l", 'slist => { @(el), "a" }'),
              ("key_list_ok", "l", 'slist => getindices("k_ok")'),
              ("key_list_empty", "l", 'slist => getindices("k_empty")'),
              ("key_num", "l", 'slist => getindices("k_num")'),
              ("int_ok", "s", 'int => "$(n)"'),
              ("real_ok", "s", 'real => "$(n)"'),
              ("int_suffix", "s", 'int => "$(n)k"'),
              ("int_late", "s", 'int => "$(late)"'),
              ("str_late", "s", 'string => "$(late)"'),
              ("nested_late", "s", 'string => ifelse(strcmp("$(late)", "7"), "seven", "other")')]
    return cases


UNDEF_CASES = _undef_cases()


def undef_policy() -> str:
    keys = "".join(f'    "k_{label}[$(nosuch{i})]" string => "v";\n'
                   for i, label in enumerate(("undef", "brace", "with", "this", "idx", "qual",
                                              "def")))
    keys += ('    "k_ok[$(l)]" string => "v";\n    "k_empty[$(el)]" string => "v";\n'
             '    "k_num[$(nosuchnum)]" int => "$(nosuchnum)";\n')
    late = '    "late" string => "7";\n'
    classes = "".join(f'    "{name}" {promise};\n' for name, _probe, promise in UNDEF_CLASSES)
    probes = "".join(f'    "@@cls_{i}@@{probe}@@" if => "{probe}";\n'
                     for i, (_name, probe, _promise) in enumerate(UNDEF_CLASSES))
    return render(UNDEF_SETUP + keys, UNDEF_CASES).replace(
        "\n  reports:\n", "\n" + late + "\n  classes:\n" + classes + "\n  reports:\n" + probes)


# classes promises given unresolved references: (promiser, class to look for, body)
UNDEF_CLASSES = [
    ("uc_$(nosuch)", "uc___nosuch_", 'expression => "any"'),
    ("ud_$(nosuch)", "ud___nosuch_", 'and => { "any", "cfengine" }'),
    ("ue_${nosuch}", "ue___nosuch_", 'or => { "any" }'),
    ("uf_$(l)_$(nosuch)", "uf_x___nosuch_", 'expression => "any"'),
    ("ug", "ug", 'expression => "$(nosuch)"'),
    ("uh", "uh", 'expression => strcmp("$(nosuch)", "$(nosuch)")'),
    ("ui", "ui", 'not => "$(nosuch)"'),
    ("uj", "uj", 'and => { "any", "$(nosuch)" }'),
    ("uk", "uk", 'or => { "any", "$(nosuch)" }'),
    ("ul", "ul", 'expression => isvariable("$(nosuch)")'),
    ("um", "um", 'expression => not(isvariable("$(nosuch)"))'),
    ("un_$(el)", "un_", 'expression => "any"'),
    ("uo", "uo", 'expression => "!$(nosuch)"'),
    ("up", "up", 'expression => "any|$(nosuch)"'),
    ("uq", "uq", 'expression => "any.$(nosuch)"'),
    ("ur", "ur", 'not => "any.$(nosuch)"'),
    ("us", "us", 'not => strcmp("$(nosuch)", "a")'),
    ("ut", "ut", 'xor => { "any", "$(nosuch)" }'),
]
