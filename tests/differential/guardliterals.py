"""Class guards (``expr::``) as cf-promises 3.21's parser checks them: generated cases.

cf-promises checks a guard's text as its grammar reduces the guard (ValidateClassLiteral:
its class-expression parser over the text as written) and says "Syntax error in context
string" once per guard, on the guard's own line, at the column where that parse gave up
(counted back from just past the ``::``), with the source line and caret; the error
counts towards "Too many errors".  Cases:

* ``lit_NN``: each of :data:`LITERALS` (good and bad: operators doubled or left
  dangling, ``!!``, parentheses open or closed too often, blanks, namespaces, colons,
  non-ASCII, long ones) as a bundle's guard over two promises and a body's guard;
* ``<shape>_<n>``: a few bad guards (:data:`BAD`) placed in each of :data:`SHAPES` --
  no promise after the guard, at a section's or block's end, in a promise block, quoted
  (never checked), namespaced, on one line, around a syntax error (bison's recovery),
  before a bundle's first promise type (a syntax error: not checked), after an unknown
  attribute, in ``@if`` blocks, with an ``if`` literal's error and a check of the
  parsed policy (not said: the parser failed);
* ``quoted_body_<shape>``: a quoted guard over a body's attributes (:data:`QUOTED_BODIES`);
* ``many_N``: N bad guards, and mixes with other parser errors, around the thirteenth
  error ("Too many errors", no verdict).

``CASES``: name -> policy text (joined to :data:`tests.differential.syntaxerrors.CASES`).
"""
from __future__ import annotations

LITERALS: tuple[str, ...] = (
    "a..b", "!!any", "any|", "(any", "a.(b", "a&&b", "a||b", "a|||b", "a.!b)", "!",
    "!(a)", "()", "a()", "(a)(b)", "a.", ".a", "&a", "a&", "a|.b", "ns:a..b", "ns:a",
    "a:b:c", "a b", "(a b", "a. b", "a | b", "a |b", "a.\tb", "!(!a)", "a..",
    "a." * 150 + ".", "a." * 150 + "b", "(" * 300 + "a" + ")" * 300, "(" * 300 + "a",
    "x)", "a)b", "1.2", "_a", "a.(b|c)", "a.(b|c", "((a)", "a.!.b", "a::b", "a:",
    "::a", ":a", "!a|!b", "a.b|", "a|b.", "a.!", "(!)", "a&!b&", "a...", "|", "&", "(",
    "!(", "a||", "a|&b", "ab)..", "a.)", "é..b", "aé.b", "!é", "a.é",
)

BAD: tuple[str, ...] = ("a..b", "!!any", "(a b", "any|")

# shape name -> policy with {g} for the bad guard (doubled braces are the policy's)
SHAPES: dict[str, str] = {
    "several": 'bundle agent main\n{{\n  reports:\n    {g}::\n      "1";\n      "2";\n'
               '      "3";\n    any::\n      "4";\n}}\n',
    "none": 'bundle agent main\n{{\n  reports:\n    {g}::\n    any::\n      "1";\n}}\n',
    "section_end": 'bundle agent main\n{{\n  reports:\n    {g}::\n  vars:\n    {g}::\n'
                   '      "v" string => "x";\n}}\n',
    "bundle_end": 'bundle agent main\n{{\n  reports:\n      "1";\n    {g}::\n}}\n',
    "body_end": 'body perms p\n{{\n      mode => "644";\n    {g}::\n}}\n',
    "body_twice": 'body perms p\n{{\n    {g}::\n      mode => "644";\n      owners => '
                  '{{ "root" }};\n    any::\n      groups => {{ "root" }};\n    {g}::\n}}\n',
    "promise_block": 'promise agent git\n{{\n    {g}::\n      path => "/tmp/g.py";\n}}\n'
                     'bundle agent main\n{{\n  git:\n    {g}::\n      "/tmp/r";\n}}\n',
    "quoted": 'bundle agent main\n{{\n  reports:\n    "{g}"::\n      "1";\n    \'{g}\'::\n'
              '      "2";\n}}\n',
    "namespace": 'body file control\n{{\n      namespace => "ns";\n}}\nbundle agent main\n'
                 '{{\n  reports:\n    default:{g}::\n      "1";\n    {g}::\n      "2";\n}}\n',
    "one_line": 'bundle agent main {{ reports: {g}:: "1"; any:: "2"; {g}:: }} '
                'body perms p {{ {g}:: mode => "1"; }}\n',
    "before_error": 'bundle agent main\n{{\n  reports:\n    {g}::\n      "1";\n'
                    '      "2" "3";\n    {g}::\n      "4";\n}}\n',
    "after_error": 'bundle agent main\n{{\n  reports:\n      "1" comment;\n    {g}::\n'
                   '      "2";\n}}\nbody perms p\n{{\n    {g}::\n      mode => "1"\n'
                   '    {g}::\n      owners => {{ "x" }};\n}}\n',
    "bundle_start": 'bundle agent main\n{{\n    {g}::\n  reports:\n    {g}::\n      "1";\n}}\n',
    "unknown_attribute": 'body perms p\n{{\n      nosuch => "1";\n    {g}::\n'
                         '      mode => "1";\n}}\nbundle agent main\n{{\n  reports:\n'
                         '      "1" nosuch => "1";\n    {g}::\n      "2";\n}}\n',
    "macros": 'bundle agent main\n{{\n  reports:\n@if minimum_version(3.0)\n    {g}::\n'
              '      "1";\n@endif\n@if minimum_version(99.0)\n    {g}::\n      "2";\n'
              '@endif\n    {g}::\n      "3";\n}}\n',
    "with_checks": 'bundle agent const\n{{\n  reports:\n    {g}::\n      "1" if => "x..y";\n'
                   '  files:\n    {g}::\n      "/tmp/x" create => "maybe";\n}}\n',
    "lexer_error": 'bundle agent main\n{{\n  reports:\n    {g}::\n      "1" comment => "c" ^;\n'
                   '    {g}::\n      "2";\n}}\n',
}


def _literal_case(guard: str) -> str:
    return (f'bundle agent main\n{{\n  reports:\n    {guard}::\n      "x";\n      "y";\n'
            f'    any::\n      "z";\n}}\nbody perms p\n{{\n    {guard}::\n'
            f'      mode => "644";\n}}\n')


def _many(guards: list[str], extra: str = "") -> str:
    body = "".join(f'    {g}::\n      "{i}";\n' for i, g in enumerate(guards))
    return f"bundle agent main\n{{\n  reports:\n{body}{extra}}}\n"


# a quoted guard over a body's (or a promise block's) attributes: not checked as a class
# expression, but each attribute under it is an error once its value is checked (none
# after an unknown attribute; any attribute of a body type the syntax does not know)
QUOTED_BODIES: dict[str, str] = {
    "one": 'body perms p\n{\n    "a..b"::\n      mode => "644";\n}\n',
    "several": 'body perms p\n{\n    "$(x)"::\n      mode => "644";\n      owners => '
               '{ "root" };\n    any::\n      groups => { "root" };\n    \'y\'::\n'
               '      rxdirs => "true";\n}\nbundle agent main\n{\n  reports:\n      "x";\n}\n',
    "bad_values": 'body perms p\n{\n    "x"::\n      mode => "abc";\n      rxdirs => "maybe";\n}\n',
    "unknown": 'body perms p\n{\n    "x"::\n      nosuch => "1";\n      mode => "1";\n}\n',
    "if": 'body classes c\n{\n    "x"::\n      promise_kept => { "a" };\n}\nbody action a\n'
          '{\n    "y"::\n      ifelapsed => "1";\n      if => "a..b";\n}\n',
    "call": 'body perms p\n{\n    \'x\'::\n      mode => concat("6", "44");\n'
            '      owners => {\n  "root" };\n}\n',
    "control": 'body common control\n{\n    "x"::\n      bundlesequence => { "main" };\n}\n'
               'bundle agent main\n{\n  reports:\n      "x";\n}\n',
    "file_control": 'body file control\n{\n    "x"::\n      namespace => { "a" };\n}\n',
    "promise_block": 'promise agent git\n{\n    "x"::\n      path => { "a" };\n'
                     '      interpreter => "/bin/sh";\n    any::\n      meta => { "a" };\n}\n',
    "promise_block_unknown": 'promise agent git\n{\n    "x"::\n      nosuch => "1";\n'
                             '      path => "/tmp/a";\n}\n',
    "custom_body": 'body foo p\n{\n    "x"::\n      bar => "1";\n    a..b::\n'
                   '      baz => { "x" };\n    "y"::\n      qux => concat("a");\n}\n',
    "syntax_error": 'body perms p\n{\n    "x"::\n      mode => "1"\n      owners => { "a" };\n'
                    '    any::\n      groups => { "a" };\n}\n',
    "many": 'body action a\n{\n    "x"::\n' + "".join(
        f'      {lval} => "1";\n' for lval in (
            "ifelapsed", "expireafter", "log_string", "log_repaired", "log_kept",
            "log_failed", "log_priority", "action_policy", "background", "report_level",
            "audit", "measurement_class", "value_kept", "value_repaired")) + "}\n",
    # (a promise's quoted guard is no error)
    "bundle": 'bundle agent main\n{\n  reports:\n    "$(x)"::\n      "1";\n}\n',
}

CASES: dict[str, str] = {}
for _n, _guard in enumerate(LITERALS):
    CASES[f"lit_{_n:02d}"] = _literal_case(_guard)
for _shape, _template in SHAPES.items():
    for _n, _guard in enumerate(BAD):
        CASES[f"{_shape}_{_n}"] = _template.format(g=_guard)
for _count in (12, 13, 14):
    CASES[f"many_{_count}"] = _many([f"a{i}..b" for i in range(_count)])
# the thirteenth error another of the parser's (an if's literal, blanks in a guard)
CASES["many_then_if"] = _many([f"a{i}..b" for i in range(12)],
                              '      "last" if => "x..y";\n    any::\n      "z";\n')
CASES["many_blanks"] = _many(["(a b" for _ in range(7)])
CASES["many_bodies"] = "".join(f'body perms p{i}\n{{\n    a{i}..b::\n      mode => "1";\n}}\n'
                               for i in range(14))
for _name, _policy in QUOTED_BODIES.items():
    CASES[f"quoted_body_{_name}"] = _policy
