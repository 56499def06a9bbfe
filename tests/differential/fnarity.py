"""Generated cases: a built-in called with another number of arguments than it takes.

cf-promises 3.21 does not check it while parsing: cf-agent's NewExpArgs does, when the
call is evaluated -- "Arguments to function 'f' do not tally. Expected N not M", then
PromiseRef (where the promise is, its comment, its promisees; nothing for a body's
argument, which has no promise), then the process exits 1.  So a call in a vars promise
stops the validating cf-promises (cf-agent goes to its failsafe), one elsewhere (a
classes promise, a report's ``with``, a body's argument) stops cf-agent at its
preliminary expansion, before any promise acts.  maplist() and mapdata() take their
arguments unexpanded: given too many, CallFunction says "Argument template mismatch"
and "Bad arguments" instead.  Each call x count x place, run under both programs.
"""
from __future__ import annotations

# name -> (function, the arguments it takes, a valid argument list for a given count)
_FUNCTIONS = {
    "canonify": 1, "join": 2, "strcmp": 2, "nth": 2, "string_head": 2, "hash": 2,
    "regcmp": 2, "splitstring": 3, "getindices": 1, "maplist": 2, "maparray": 2,
    "mapdata": 3, "isvariable": 1, "not": 1,
}
_ARG = {"maplist": ('"$(this)"', "l"), "maparray": ('"$(this.k)"', "l"),
        "mapdata": ('"none"', '"$(this.k)"', "l"), "getindices": ("l",),
        "nth": ("l", '"0"'), "join": ('","', "l")}
_RETURNS = {"canonify": "string", "join": "string", "strcmp": "class", "nth": "string",
            "string_head": "string", "hash": "string", "regcmp": "class",
            "splitstring": "slist", "getindices": "slist", "maplist": "slist",
            "maparray": "slist", "mapdata": "data", "isvariable": "class", "not": "class"}


def _call(fn: str, count: int) -> str:
    args = list(_ARG.get(fn, ()))
    while len(args) < count:
        args.append(f'"a{len(args)}"')
    return f"{fn}({', '.join(args[:count])})"


def _as_string(call: str, kind: str) -> str:
    return {"string": call, "class": f'ifelse({call}, "y", "n")',
            "slist": f'join(",", {call})', "data": f"storejson({call})"}[kind]


_PLACES = {
    # place -> the promise text around CALL (a string), in bundle main
    "vars": '  vars:\n    "x" string => CALL;\n',
    "vars_nested": '  vars:\n    "x" string => concat("<", CALL, ">");\n',
    "vars_list": '  vars:\n    "x" slist => { "a", CALL };\n',
    "vars_commented": '  vars:\n    "x" string => CALL,\n      comment => "why $(sys.cf_version_major)";\n',
    "vars_promisee": '  vars:\n    "x" -> { "ops", "dev" } string => CALL;\n',
    "classes": '  classes:\n    "k" expression => strcmp(CALL, "z");\n',
    "report_with": '  reports:\n    "with=$(with)" with => CALL;\n',
    "report_promisee": '  reports:\n    "with=$(with)" -> "ops" with => CALL;\n',
    "body_arg": '  files:\n    "$(sys.workdir)/arity" create => "true", perms => m(CALL);\n',
    "method_arg": '  methods:\n    "m" usebundle => other(CALL);\n',
}
_TAIL = ('  reports:\n    "end";\n}\nbundle agent other(a)\n{\n  reports:\n    "other $(a)";\n}\n'
         'body perms m(x)\n{\n  mode => "600";\n}\n')
_HEAD = 'bundle agent main\n{\n  vars:\n    "l" slist => { "p", "q" };\n'

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []
for _fn, _n in _FUNCTIONS.items():
    for _count in sorted({0, _n - 1, _n + 1} - {_n}):
        for _place, _text in _PLACES.items():
            if _place != "vars" and _fn not in ("canonify", "join", "maplist", "mapdata"):
                continue
            _value = _as_string(_call(_fn, _count), _RETURNS[_fn])
            CASES.append((f"{_fn}_{_count}_{_place}",
                          {"promises.cf": _HEAD + _text.replace("CALL", _value) + _TAIL}, ()))
# a common bundle's vars (evaluated by cf-promises), one in a bundle never run
CASES.append(("common_bundle", {"promises.cf": 'bundle common g\n{\n  vars:\n    "x" string '
                                "=> canonify(\"a\", \"b\");\n}\n" + _HEAD + _TAIL}, ()))
CASES.append(("unused_bundle", {"promises.cf": _HEAD + _TAIL + 'bundle agent unused\n{\n  vars:'
                                '\n    "x" string => join(",");\n}\n'}, ()))
CASES.append(("right_count", {"promises.cf": _HEAD + '  vars:\n    "x" string => canonify("a");'
                              '\n' + _TAIL}, ()))

NAMES = [c[0] for c in CASES]
# a call that fails without stopping the run (a body's argument: no calling promise) is said
# at each expansion by cf-agent, once by cf-lite: distinct lines
DISTINCT_LINES = lambda name: name.endswith("_body_arg")     # noqa: E731
# (mapdata() as a body's argument has no calling promise: "Function 'mapdata' must be
# called from a promise" before the arguments are counted, FnCallMapData; test_nocaller)
EXPECTED_DIFFERENCES = {
    name: "a bundle argument holding a reference not known yet ($(this) of maplist()/"
          "mapdata()): cf-lite waits for its value before calling the bundle (the deliberate "
          "difference of test_bundleargs_differential), so the bad call stops the run after "
          "pass 1's reports, cf-agent 3.21 at its first expansion"
    for name in ("maplist_1_method_arg", "maplist_3_method_arg", "mapdata_2_method_arg",
                 "mapdata_4_method_arg")}
