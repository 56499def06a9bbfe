"""Generated cases: functions whose return type is not the one their attribute wants
(issue #26): ``"x" slist => fileexists("/")``, ``"y" string => getindices(...)``,
``create => canonify("a")``.  cf-promises 3.21 says "Function does not return the
required type" just after the call's closing parenthesis (or its list's closing brace:
where its parser reduced the rval, as for an unknown function), and accepts only a
string function for a list of strings or a class, an int or real function for its list
or for a string, a class function for a string; a class or string function for an
option (``create``, ``action_policy``, ``useshell``) is refused.  A scalar function for
a list that cf-promises lets pass is the run-time error of :mod:`typeerrors`.

Each case is a policy (``POLICIES``) checked with ``cf-promises -c``; its exit code and
its distinct output lines, as a set, are compared (cf-promises evaluates an agent
bundle's vars twice, cf-lite-promises once; cf-promises writes its verdict on standard
output, cf-lite-promises on standard error).
"""
from __future__ import annotations

CALLS = {
    # class functions
    "fileexists": 'fileexists("/")', "isvariable": 'isvariable("a")',
    "regcmp": 'regcmp("a.*", "abc")', "classmatch": 'classmatch("any")', "isdir": 'isdir("/")',
    "strcmp": 'strcmp("a", "a")',
    # list functions
    "getindices": 'getindices("arr")', "splitstring": 'splitstring("a,b", ",", 9)',
    "getvalues": 'getvalues("arr")', "lsdir": 'lsdir("/", "x.*", "false")',
    # data functions
    "parsejson": "parsejson('[1]')", "mergedata": 'mergedata("arr")',
    # string, int and real functions
    "canonify": 'canonify("a b")', "length": 'length("l")', "ifelse": 'ifelse("any", "a", "b")',
    "sum": 'sum("l")',
}
TYPES = ("string", "int", "real", "slist", "ilist", "rlist", "data")

_BUNDLE = 'bundle agent main\n{{\nvars:\n  "arr[k]" string => "v";\n  "l" slist => {{ "1" }};\n{}\n}}\n{}\n'

POLICIES: dict[str, str] = {}
for fname, call in CALLS.items():
    for vtype in TYPES:
        POLICIES[f"{vtype}_{fname}"] = _BUNDLE.format(f'  "x" {vtype} => {call};', "")

# where the error is said: lists, lines, other attributes after it, nested calls
_SHAPES = {
    "list_item": '"x" slist => { "a", fileexists("/"), "b" };',
    "list_item_lines": '"x" ilist => {\n    "1",\n    canonify("a")\n  };',
    "nested_arg": '"x" string => concat(getindices("arr"), "b");',
    "spaces": '"x" string => getindices("arr")   ;',
    "then_attr": '"x" string => getindices("arr"), comment => "c";',
    "multiline_args": '"x" string => getindices(\n    "arr"\n  );',
    "paren_in_arg": '"x" string => getindices("a)r(r");',
    "quote_in_arg": '"x" int => canonify("a\\"b)");',
}
for name, text in _SHAPES.items():
    POLICIES[f"shape_{name}"] = _BUNDLE.format(f"  {text}", "")

# other attributes: classes, guards, options in promises, bodies and control bodies
_OTHERS = {
    "classes_expression": ('classes:\n  "c" expression => getindices("arr");', ""),
    "classes_and": ('classes:\n  "c" and => { getindices("arr") };', ""),
    "classes_not": ('classes:\n  "c" not => getindices("arr");', ""),
    "classes_select": ('classes:\n  "c" select_class => fileexists("/");', ""),
    "reports_if": ('reports:\n  "r" if => getindices("arr");', ""),
    "reports_ifvarclass": ('reports:\n  "r" ifvarclass => canonify("a");', ""),
    "comment_list": ('reports:\n  "x" comment => getindices("arr");', ""),
    "depends_class": ('reports:\n  "x" depends_on => fileexists("/");', ""),
    "meta_tags": ('meta:\n  "tags" slist => fileexists("/");', ""),
    "commands_args": ('commands:\n  "/bin/true" args => getindices("arr");', ""),
    "create_canonify": ('files:\n  "/tmp/cflite-x" create => canonify("a");', ""),
    "create_fileexists": ('files:\n  "/tmp/cflite-x" create => fileexists("/");', ""),
    "create_ifelse": ('files:\n  "/tmp/cflite-x" create => ifelse("any", "true", "false");', ""),
    "signals_canonify": ('processes:\n  "nosuch" signals => canonify("term");', ""),
    "body_action_policy": ('files:\n  "/tmp/cflite-x" create => "true", action => a;',
                           'body action a { action_policy => canonify("fix"); }'),
    "body_ifelapsed": ('files:\n  "/tmp/cflite-x" create => "true", action => a;',
                       'body action a { ifelapsed => canonify("1"); }'),
    "body_ifelapsed_int": ('files:\n  "/tmp/cflite-x" create => "true", action => a;',
                           'body action a { ifelapsed => length("arr"); }'),
    "body_background": ('files:\n  "/tmp/cflite-x" create => "true", action => a;',
                        'body action a { background => fileexists("/"); }'),
    "body_useshell": ('commands:\n  "/bin/true" contain => c;',
                      'body contain c { useshell => canonify("noshell"); }'),
    "body_mode_int": ('files:\n  "/tmp/cflite-x" perms => p;',
                      'body perms p { mode => length("arr"); }'),
    "control_bool": ('reports:\n  "x";', 'body agent control { skipidentify => canonify("true"); }'),
    "control_int": ('reports:\n  "x";', 'body agent control { ifelapsed => canonify("1"); }'),
}
for name, (text, bodies) in _OTHERS.items():
    POLICIES[f"attr_{name}"] = _BUNDLE.format(text, bodies)

NAMES = sorted(POLICIES)
