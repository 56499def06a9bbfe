"""Syntax errors as cf-promises 3.21 words and places them: generated cases.

A few small valid policies (:data:`BASES`: bundles with parameters, bodies, promise
types, class guards, lists, function calls nested, a promisee, a custom promise
block, values the parser checks), each written as lines of tokens, and from each the broken ones made
systematically:

* ``del``: each token deleted;
* ``ins``: a stray token (``;``, ``}``, ``,``, ``"x"``, ``)``, ``{``, ``=>``, a word,
  taken in turn) inserted after each token;
* ``swap``: each token swapped with the next.

cf-promises answers each with bison's "syntax error", its grammar's error rules'
words, its recovery's further errors (up to "Too many errors"), each at the column
where its lexer stands, with the source line and caret, then "There are syntax
errors in policy files" and exit 1.  A mutation that leaves a valid policy is kept:
both accept it.

``CASES``: name -> policy text.  ``EXPECTED_DIFFERENCES``: name -> why cf-lite still
differs (the test asserts it does).
"""
from __future__ import annotations

from tests.differential import guardliterals, syntaxchecks

# Each base: lines of tokens separated by single spaces (a token never holds one).
BASES: dict[str, str] = {
    "promisee": """\
bundle agent main
{
  reports:
    any::
      "hello" -> { "me", "you" } comment => "c";
}
""",
    "vars": """\
bundle agent main
{
  vars:
      "l" slist => { "a", "b", concat("c", "d") };
      "s" string => format("%s", nth(l, "0"));
  classes:
      "k" expression => "any";
}
""",
    "params": """\
bundle agent main
{
  methods:
      "m" usebundle => b("v", "w");
}
bundle agent b(x, y)
{
  reports:
    linux|!linux::
      "$(x).$(y)";
}
""",
    "body": """\
bundle agent main
{
  files:
      "/tmp/x" perms => p("600"), create => "false";
}
body perms p(m)
{
    any::
      mode => "$(m)";
}
""",
    "common": """\
body common control
{
      bundlesequence => { "main" };
}
bundle common main
{
  vars:
      "v" slist => { @(x), "y" };
}
""",
    # values cf-promises' parser checks as it reads them (a menu, a real list, an int,
    # a call's return type), around the mutations' syntax errors
    "values": """\
bundle agent main
{
  files:
      "/tmp/x" create => concat("a", nth(l, "0")), depth_search => d;
  classes:
      "a" scope => "wrong", dist => { "1", "y" };
}
body depth_search d
{
      depth => "x";
}
""",
    # bodies' attributes as CheckSelection finds them (a control body, one of a control
    # type under another name, a mode)
    "control": """\
body agent control
{
      ifelapsed => "x";
}
body perms p
{
      mode => "x";
}
body common c
{
      bundlesequence => { "main" };
}
""",
    # a custom promise type's block and its promises (the block's own attributes, a
    # data string, an if's class expression)
    "custom": """\
promise agent git
{
      path => "/tmp/g.py";
}
bundle agent main
{
  git:
      "/tmp/r" repo => "x", if => "a.(";
  vars:
      "d" data => "[1]", string => "x";
}
""",
}

STRAYS = (";", "}", ",", '"x"', ")", "{", "=>", "w")

CASES: dict[str, str] = {}


def _lines(text: str) -> list[tuple[str, list[str]]]:
    """Each line's indentation and tokens."""
    out = []
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        out.append((line[:len(line) - len(stripped)], stripped.split(" ") if stripped else []))
    return out


def _text(lines: list[tuple[str, list[str]]]) -> str:
    return "".join(indent + " ".join(tokens) + "\n" for indent, tokens in lines)


def _mutations(text: str) -> dict[str, str]:
    lines = _lines(text)
    places = [(i, j) for i, (_, toks) in enumerate(lines) for j in range(len(toks))]
    out: dict[str, str] = {}
    for n, (i, j) in enumerate(places):
        mutated = [(ind, list(toks)) for ind, toks in lines]
        del mutated[i][1][j]
        out[f"del{n:02d}"] = _text(mutated)
        mutated = [(ind, list(toks)) for ind, toks in lines]
        mutated[i][1].insert(j + 1, STRAYS[n % len(STRAYS)])
        out[f"ins{n:02d}"] = _text(mutated)
        if n + 1 < len(places):
            (i2, j2) = places[n + 1]
            mutated = [(ind, list(toks)) for ind, toks in lines]
            mutated[i][1][j], mutated[i2][1][j2] = mutated[i2][1][j2], mutated[i][1][j]
            out[f"swap{n:02d}"] = _text(mutated)
    return out


for _base, _policy in BASES.items():
    for _name, _broken in _mutations(_policy).items():
        if _broken != _policy:
            CASES[f"{_base}_{_name}"] = _broken

# a quoted string over lines: cf-promises' lexer counts its lines but not its columns,
# and shows the line it last started outside a string (none on the first)
CASES.update({
    "multiline_first_line": 'bundle agent m { vars: "x" string => "a\nb" "c"; }\n',
    "multiline_after": 'bundle agent m {\n vars: "x" string => "a\nb\nc" "c"; }\n',
    "multiline_next_promise": 'bundle agent m {\n vars: "x" string => "a\nb\nc";\n'
                              ' "y" string => "a" "b"; }\n',
})

# promise blocks of another component than the agent's, in a policy that parses
for _component in ("git", "server", "common", "monitor"):
    CASES[f"component_{_component}"] = (
        f'promise {_component} mytype\n{{\n  path => "/x.py";\n}}\nbundle agent main {{ '
        'reports: "x"; }\n')
    CASES[f"component_{_component}_one_line"] = (
        f'bundle agent main {{ reports: "x"; }}\npromise {_component} t {{ path => "/x.py"; }}\n')

# the parser's checks around a syntax error, class guards with blanks, lexer errors
# with more policy after them (generated: tests.differential.syntaxchecks)
CASES.update(syntaxchecks.CASES)

# class guards' literals as the parser checks them (generated: tests.differential.guardliterals)
CASES.update({f"guardlit_{name}": text for name, text in guardliterals.CASES.items()})

EXPECTED_DIFFERENCES: dict[str, str] = {}
