"""The checks cf-promises' parser makes as it reads, around a syntax error: generated cases.

cf-promises' parser checks each value once it has read it (a mode, an integer, a real,
a range, a menu's word, a class expression, a list for a scalar...), a body's attribute
against what its CheckSelection finds (a control body's own attributes under the name
``control``, any promise type's bodies' otherwise: "Constraint lvalue ... is not
allowed"), a constraint against its promise type -- the one its lexer read last, even
inside a call's arguments -- and it makes them between the errors of its recovery from
a syntax error too.  Each :data:`CHECKS` block (one such check) is put:

* ``alone``: no syntax error (the checks of a parsed policy);
* ``before``: after a bundle with a syntax error it recovers from;
* ``after``: before such a bundle;
* ``inside``: with a stray token after its checked value (the check, then the error);
* ``first``: with a syntax error in the block before the checked constraint.

:data:`GUARDS` and :data:`LEXER` add class guards written with blanks and lexer errors
(a character no token starts with, a string left open) followed by more policy.
"""
from __future__ import annotations

MAIN = "bundle agent main\n{\n  reports:\n      \"ok\";\n}\n"
BROKEN = "bundle agent z\n{\n  reports:\n      \"a\" \"b\";\n}\n"

# name -> (block, the checked line's text (the stray token goes after it), the text
# before which the 'first' error goes)
CHECKS: dict[str, tuple[str, str, str]] = {
    "mode": ('body perms p\n{\n      mode => "x";\n}\n', '"x"', "mode"),
    "mode_digits": ('body perms p\n{\n      mode => "0999";\n}\n', '"0999"', "mode"),
    "mode_big": ('body perms p\n{\n      mode => "77777777";\n}\n', '"77777777"', "mode"),
    "mode_var": ('body perms p(m)\n{\n      mode => "0$(m)";\n}\n', '"0$(m)"', "mode"),
    "search_mode": ('body file_select f\n{\n      search_mode => { "644", "9" };\n'
                    '      file_result => "mode";\n}\n', '}', "search_mode"),
    "int": ('body depth_search d\n{\n      depth => "x";\n}\n', '"x"', "depth"),
    "int_range": ('body process_select s\n{\n      priority => "1,99";\n'
                  '      process_result => "priority";\n}\n', '"1,99"', "priority"),
    "irange": ('body file_select f\n{\n      search_size => "[1,2]";\n'
               '      file_result => "size";\n}\n', '"[1,2]"', "search_size"),
    "real": ('body monitor control\n{\n      forgetrate => "2.5";\n}\n', '"2.5"',
             "forgetrate"),
    "menu": ('bundle agent m\n{\n  files:\n      "/tmp/x" create => "maybe";\n}\n',
             '"maybe"', "create"),
    "menu_body": ('body perms p\n{\n      rxdirs => "maybe";\n}\n', '"maybe"', "rxdirs"),
    "list_scalar": ('bundle agent m\n{\n  processes:\n      "p" signals => "hup";\n}\n',
                    '"hup"', "signals"),
    "scalar_list": ('bundle agent m\n{\n  files:\n      "/tmp/x" create => { "true" };\n}\n',
                    '}', "create"),
    "quoted_body": ('bundle agent m\n{\n  files:\n      "/tmp/x" perms => "p";\n}\n',
                    '"p"', "perms"),
    "context": ('bundle agent m\n{\n  reports:\n      "r" if => "a.(b";\n}\n', '"a.(b"',
                "if"),
    "call_type": ('bundle agent m\n{\n  files:\n      "/tmp/x" create => concat("a", '
                  'reports: "b");\n}\n', '"b")', "create"),
    "call_type_vars": ('bundle agent m\n{\n  classes:\n      "c" expression => '
                       'concat("a", vars: "b");\n}\n', '"b")', "expression"),
    "call_type_list": ('bundle agent m\n{\n  files:\n      "/tmp/x" create => '
                       '{ "a", methods: "b" };\n}\n', '"b"', "create"),
    "namespace_list": ('body file control\n{\n      namespace => { "ns" };\n}\n', '}',
                       "namespace"),
    "abspath": ('bundle agent m\n{\n  commands:\n      "x" contain => c;\n}\n'
                'body contain c\n{\n      chdir => "tmp";\n}\n', '"tmp"', "chdir"),
}

# a control body type and one of its attributes, with a value it takes
CONTROLS = {
    "common": ("bundlesequence", '{ "main" }'),
    "agent": ("ifelapsed", '"1"'),
    "agent_own": ("skipidentify", '"true"'),
    "server": ("allowconnects", '{ "127.0.0.1" }'),
    "executor": ("splaytime", '"1"'),
    "monitor": ("forgetrate", '"0.5"'),
    "runagent": ("hosts", '{ "h" }'),
    "hub": ("port", '"5308"'),
    "file": ("namespace", '"ns"'),
}
for _type, (_lval, _value) in CONTROLS.items():
    _body = _type.split("_")[0]
    CHECKS[f"control_{_type}"] = (f"body {_body} control\n{{\n      {_lval} => {_value};\n}}\n",
                                  _value.split()[-1], _lval)
    CHECKS[f"named_{_type}"] = (f"body {_body} c\n{{\n      {_lval} => {_value};\n}}\n",
                                _value.split()[-1], _lval)
    CHECKS[f"unnamed_{_type}"] = (f"body {_body} {{\ncontrol\n      {_lval} => {_value};\n}}\n",
                                  _value.split()[-1], _lval)


def _placed(block: str, checked: str, first: str) -> dict[str, str]:
    at = block.index(checked, block.index("=>"))
    stray = block[:at + len(checked)] + ' "s"' + block[at + len(checked):]
    line = block.index(first)
    return {
        "alone": block + MAIN,
        "before": BROKEN + block + MAIN,
        "after": block + BROKEN + MAIN,
        "inside": stray + MAIN,
        "first": block[:line] + 'x => ;\n      ' + block[line:] + MAIN
        if block.startswith("body") else
        block[:line] + 'comment => "c" "d";\n      "y" ' + block[line:] + MAIN,
    }


CASES: dict[str, str] = {}
for _name, (_block, _checked, _first) in CHECKS.items():
    for _where, _text in _placed(_block, _checked, _first).items():
        CASES[f"check_{_name}_{_where}"] = _text

# class guards with blanks: cf-promises' lexer reads "w any::" as one guard (its
# whitespace check at the guard's end), "any ::" as a word and a guard of "::"
GUARDS = {
    "space_before": "    w any::\n",
    "space_colons": "    any ::\n",
    "space_both": "    a b ::\n",
    "space_op": "    a . b::\n",
    "tab": "    a\tb::\n",
    "varclass_space": '    "a" ::\n',
}
for _name, _guard in GUARDS.items():
    _policy = f"bundle agent main\n{{\n  reports:\n{_guard}      \"hello\";\n}}\n"
    CASES[f"guard_{_name}"] = _policy
    CASES[f"guard_{_name}_more"] = _policy + BROKEN + MAIN.replace("main", "b")
    CASES[f"guard_{_name}_body"] = ("body perms p\n{\n" + _guard + '      mode => "644";\n}\n'
                                    + MAIN)

# lexer errors in the middle of a file, more policy after them
LEXER = {
    "char": '      "hello" comment => "c" ^ ;\n',
    "char_promiser": '      ^ "hello";\n',
    "char_value": '      "hello" comment => ^;\n',
    "open_string": '      "hello" comment => "open;\n',
    "open_single": "      \"hello\" comment => 'open;\n",
    "open_backquote": '      "hello" comment => `open;\n',
    "open_promiser": '      "hello;\n',
}
for _name, _line in LEXER.items():
    _head = "bundle agent main\n{\n  reports:\n" + _line + '      "bye";\n}\n'
    CASES[f"lexer_{_name}"] = _head + "bundle agent b\n{\n  reports:\n      \"x\";\n}\n"
    CASES[f"lexer_{_name}_body"] = _head + 'body perms p\n{\n      mode => "x";\n}\n'
    CASES[f"lexer_{_name}_end"] = _head

# macros cf-promises' lexer refuses (an @endif or @else with no @if, an @if not at a
# line's start or inside another): it says so and gives its parser the end of the input,
# then reads on after the macro when asked -- in a bundle, in a body, between blocks
MACROS = {
    "endif": "@endif\n",
    "else": "@else\n",
    "if_indented": "  @if minimum_version(3.7)\n",
    "endif_indented": "  @endif\n",
    "nested": "@if minimum_version(3.7)\n@if minimum_version(3.8)\n",
}
for _name, _macro in MACROS.items():
    _close = "@endif\n" if _name == "nested" else ""
    CASES[f"macro_{_name}_bundle"] = ('bundle agent main\n{\n  reports:\n      "a";\n' + _macro
                                      + '      "b";\n' + _close + "}\n" + MAIN.replace("main", "b"))
    CASES[f"macro_{_name}_promise"] = ('bundle agent main\n{\n  reports:\n      "a" comment =>\n'
                                       + _macro + '"c";\n' + _close + "}\n")
    CASES[f"macro_{_name}_body"] = ('body perms p\n{\n      mode => "x";\n' + _macro
                                    + '      rxdirs => "maybe";\n' + _close + "}\n" + MAIN)
    CASES[f"macro_{_name}_between"] = MAIN + _macro + BROKEN + _close
MACROS_MORE = {
    # a nested @if feature(): its rule has cut the ')' off its text when it refuses it
    "nested_feature": "@if minimum_version(3.7)\n@if feature(xml)\n",
}
for _name, _macro in MACROS_MORE.items():
    CASES[f"macro_{_name}_bundle"] = ('bundle agent main\n{\n  reports:\n' + _macro
                                      + '      "b";\n@endif\n}\n' + MAIN.replace("main", "b"))
# a syntax error after an @if's ignored part: cf-promises counts none of its lines
CASES["macro_ignored_lines"] = ('bundle agent main\n{\n@if minimum_version(300.7)\n  nothing:\n'
                                '@else\n  reports:\n@endif\n      "a" "b";\n}\n'
                                + 'bundle agent b\n{\n@if minimum_version(3.7)\n  reports:\n'
                                '@else\n  vars:\n      "x" string => "y";\n@endif\n'
                                '      "c" comment => "d" "e";\n}\n')
