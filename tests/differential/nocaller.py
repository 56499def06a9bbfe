"""Generated cases: built-in functions called with no calling promise, as cf-agent 3.21 runs them.

A call in a body's arguments (``perms => m(join(",", l))``, evaluated by DeRefCopyPromise
before the promise exists) or in a control body has no ``fp->caller``.  Then mapdata() and
maparray() fail ("must be called from a promise"), the read*array()/parse*array() family
fails ("can only be called from a promise"), a function given an unqualified variable name
has no bundle to qualify it with (ResolveAndQualifyVarName's warning, the call fails;
regextract()'s error, getfields()' warning), and a qualified name works as in a promise.
A failed argument does not hold the promise back, and ``$(param)`` stays as written in
the body.  Each function x place (a body's argument, nested deeper, beside another
argument, a body inheriting from another, a classes body, a control body) x a qualified or unqualified name of a list, a
data container or a classic array.  Distinct lines are compared (cf-agent repeats them at
each expansion; cf-lite says each once per run, cfpromise.eval.functions.messages).
Left out: shapes that crash cf-agent 3.21 (maplist() of a qualified name, getindices() of
an unqualified one, a call in inherit_from's arguments or in a control body's list).
"""
from __future__ import annotations

# call template -> the variable it names ({v}: l, d or a) and how its value becomes text
_CALLS = {
    "join": 'join(",", {v})', "join_at": 'join(",", @({v}))', "length": "length({v})",
    "storejson": "storejson({v})", "getvalues": 'join(",", getvalues({v}))',
    "nth": 'nth({v}, "0")', "sort": 'join(",", sort({v}))', "reverse": 'join(",", reverse({v}))',
    "unique": 'join(",", unique({v}))', "mergedata": "storejson(mergedata({v}))",
    "some": 'ifelse(some("a", {v}), "y", "n")', "sublist": 'join(",", sublist({v}, "head", 1))',
    "string_mustache": 'string_mustache("{{{{a}}}}", {v})',
    "maplist": 'join(",", maplist("m$(this)", {v}))',
    "maplist_at": 'join(",", maplist("m$(this)", @({v})))',
    "mapdata": 'storejson(mapdata("none", "$(this.k)", {v}))',
    "maparray": 'join(",", maparray("$(this.k)", {v}))',
    "readstringarray": 'readstringarray("{v}_arr", "/etc/hosts", "#", "", 9, 99)',
    "readintarray": 'readintarray("{v}_ia", "/etc/hosts", "#", "", 9, 99)',
    "parsestringarray": 'parsestringarray("{v}_arr", "a,b", ",", "", 9, 99)',
    "parserealarray": 'parserealarray("{v}_ra", "1,2", ",", "", 9, 99)',
    "data_readstringarray": 'storejson(data_readstringarray("/etc/hosts", "", '
                            '"#", 9, 99))',
    "regextract": 'ifelse(regextract("(b)", "abc", "{v}_rx"), "y", "n")',
    "getfields": 'getfields(".*", "/etc/hosts", " ", "{v}_gf")',
    "isvariable": 'ifelse(isvariable("{v}"), "y", "n")',
}
# the variables a call may name, by what it takes; maplist() of a qualified name and
# getindices() crash cf-agent 3.21
_NAMES = {"l": ("l", "main.l"), "d": ("d", "main.d"), "a": ("a", "main.a")}
_TAKES = {"getvalues": "da", "storejson": "d", "mergedata": "d", "string_mustache": "d",
          "mapdata": "lda", "maparray": "lda", "maplist": "l", "maplist_at": "l",
          "readstringarray": "l", "readintarray": "l", "parsestringarray": "l",
          "parserealarray": "l", "data_readstringarray": "l", "regextract": "l",
          "getfields": "l"}
_EVERYWHERE = {"join", "maplist", "mapdata", "maparray", "readstringarray", "regextract",
               "length"}
_CRASHES = {"maplist_main.l", "maplist_at_main.l"}

_PLACES = {
    # place -> the files promise around CALL, and the bodies it needs
    "body_arg": ('perms => m(CALL)', ""),
    "body_arg_nested": ('perms => m(concat("<", CALL, ">"))', ""),
    "body_arg_second": ('perms => m2("x", CALL)',
                        'body perms m2(a, b)\n{\n  mode => "600";\n  rxdirs => "false";\n}\n'),
    "body_arg_inherits": ('perms => m3(CALL)',
                          'body perms m3(x)\n{\n  inherit_from => m("y");\n  mode => "640";\n}\n'),
    "body_arg_classes": ('classes => c(CALL)',
                         'body classes c(x)\n{\n  promise_repaired => { "r_$(x)" };\n}\n'),
}
_HEAD = ('bundle agent main\n{\n  vars:\n    "l" slist => { "a", "b" };\n'
         '    "d" data => \'{"a": 1, "b": [2]}\';\n    "a[x]" string => "1";\n'
         '    "a[y]" string => "2";\n  files:\n    "$(sys.workdir)/nocaller" create => "true", ')
# (the class a classes body's failed argument makes, "r_$(x)" canonified, is reported)
_TAIL = (';\n  vars:\n    "r" slist => classesmatching("r_.*");\n  reports:\n    "end $(r)";\n}\n'
         'body perms m(x)\n{\n  mode => "600";\n}\n')

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []
for _fn, _template in _CALLS.items():
    for _kind in _TAKES.get(_fn, "lda"):
        for _name in _NAMES[_kind]:
            if f"{_fn}_{_name}" in _CRASHES:
                continue
            _call = _template.format(v=_name)
            for _place, (_text, _bodies) in _PLACES.items():
                if _place != "body_arg" and (_kind != "l" or _fn not in _EVERYWHERE):
                    continue
                CASES.append((f"nocaller_{_fn}_{_name.replace('.', '_')}_{_place}",
                              {"promises.cf": _HEAD + _text.replace("CALL", _call) + _TAIL
                               + _bodies}, ()))
            if _kind == "l" and "@" not in _template:
                # a control body's attribute (its bundle's variables, qualified by g)
                _ctl = _call.replace("main.", "g.")
                CASES.append((f"nocaller_{_fn}_{_name.replace('.', '_')}_control",
                              {"promises.cf": 'body common control\n{\n  bundlesequence => '
                               f'{{ "g", "main" }};\n  version => {_ctl};\n}}\n'
                               'bundle common g\n{\n  vars:\n    "l" slist => { "a", "b" };\n}\n'
                               'bundle agent main\n{\n  reports:\n    "v=$(control_common.'
                               'version)";\n}\n'}, ()))

NAMES = [c[0] for c in CASES]
# cf-agent says a call's message at each expansion, cf-lite once per run: distinct lines
DISTINCT_LINES = lambda name: True      # noqa: E731
