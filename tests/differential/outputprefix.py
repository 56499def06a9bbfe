"""``output_prefix`` of body common control: which log lines carry it (cases).

cf-agent 3.21 copies the resolved ``output_prefix`` when it resolves the control bodies,
once the policy is read, and from then on writes it and a space in front of every info,
verbose and debug line: before the ``-l`` timestamp, after the ``--color`` code.  Notice
lines (the ``Q:`` lines of commands too), warnings, errors and ``R:`` reports never have
it, nor what was logged while the policy loaded; an empty prefix is none.  The cases vary
how the prefix is given (literal, from a common bundle's variable, under a class guard
true or false, empty, with spaces, unresolved, given twice, with ``%``), the policy's
shape (commands that inform, fail and only warn, a file made, reports of one and two
lines; function errors at load, whose repeats are compared as distinct lines) and the
command line (-I, -n, --color, -b, which informs that it replaces the bundlesequence).
Each is run once under both agents and compared with :func:`agentmisc.observe`, the
prefixed lines included: its sorted error lines are never prefixed, and the other lines
are compared in order.  -v and -l, whose other lines differ or change with the time, are
the test module's own checks (:func:`verbose_pairs`, :func:`untimed`).
"""
from __future__ import annotations

import re
from itertools import product

# how the prefix is written in body common control (the text between its braces)
PREFIXES = {
    "none": "",
    "literal": 'output_prefix => "XX>";',
    "variable": 'output_prefix => "$(g.p)";',
    "guard_true": 'pfx_yes:: output_prefix => "CC";',
    "guard_false": 'pfx_no:: output_prefix => "NN";',
    "guard_hard": 'any:: output_prefix => "AA";',
    "empty": 'output_prefix => "";',
    "spaces": 'output_prefix => " a b ";',
    "unresolved": 'output_prefix => "$(nosuch_bundle.v)";',
    "twice": 'output_prefix => "ONE"; output_prefix => "TWO";',
    "percent": 'output_prefix => "%s%d%%";',
}

_COMMON = """bundle common g
{
vars:
  "p" string => "VV";
classes:
  "pfx_yes" expression => "any";
}
"""

SHAPES = {
    # commands that inform (Executing, the Q: line, Completed), fail (an error) and only
    # warn; a file made (info); reports of one line and of two
    "actions": """bundle agent main
{
files:
  "$(sys.workdir)/made_here" create => "true";
commands:
  "/bin/echo hi";
  "/bin/false";
  "/bin/echo warned" action => warn_only;
reports:
  "one";
  "two
lines";
}
body action warn_only { action_policy => "warn"; }
""",
    # a function's error while loading (no prefix yet) and again while running
    "loaderr": """bundle agent main
{
vars:
  "bad" string => readfile("/nonexistent/outputprefix", "10");
commands:
  "/bin/true";
reports:
  "done";
}
""",
}

# the command lines each shape runs with
LINES = {
    "actions": {"plain": (), "inform": ("-I",), "dry": ("-n", "-I"),
                "color": ("-I", "--color=always"), "cmdseq": ("-b", "main", "-I")},
    "loaderr": {"plain": (), "inform": ("-I",)},
}


def policy_text(prefix: str, shape: str) -> str:
    control = f'body common control {{ bundlesequence => {{ "g", "main" }}; {PREFIXES[prefix]} }}'
    return f"{control}\n{_COMMON}{SHAPES[shape]}"


CASES: list[tuple[str, str, tuple[str, ...]]] = [
    (f"prefix_{prefix}_{shape}_{label}", policy_text(prefix, shape), args)
    for prefix, shape in product(PREFIXES, SHAPES)
    for label, args in LINES[shape].items()
]
NAMES = [name for name, _, _ in CASES]


def DISTINCT_LINES(name: str) -> bool:
    """A function's error repeats as each program evaluates (docs/language.md)."""
    return "_loaderr_" in name


# -v: the shapes whose verbose trace both agents share enough of to compare
VERBOSE_PREFIXES = ("literal", "guard_false", "spaces")

_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} ")


def untimed(output: str) -> list[str]:
    """-l's lines with the time left out (where it stands is kept)."""
    return [_STAMP.sub("TIME ", line) for line in output.splitlines()]


def verbose_pairs(output: str, prefix: str) -> dict[str, set[bool]]:
    """-v: each log line's text (its prefix taken off) -> whether it had the prefix,
    as many ways as it came; the two agents' verbose traces differ in what they say, so
    what is compared is the lines both say, and whether each has the prefix."""
    lead = prefix + " "
    seen: dict[str, set[bool]] = {}
    for line in output.splitlines():
        had = line.startswith(lead)
        seen.setdefault(line[len(lead):] if had else line, set()).add(had)
    return seen
