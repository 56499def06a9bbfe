"""Where a message's line breaks go in cf-agent 3.21's output (issue #26): cases.

Real-world policy reports text built with ``$(const.n)`` or mustache templates that end
in a newline (nickanderson/cfengine-training renders ``{{name}}={{rule}}$(const.n)``
per entry).  Run for real, ``R:`` prints the text as it is; as a log message (a dry run,
or ``action_policy => "warn"``: "Need to repair reports promise: TEXT") cf-agent's logger
ends the line with the message's own trailing newline rather than adding an empty line.
Under ``-l`` the timestamp goes on a log message's first line only, and never on ``R:``.

Each run reports every shape of text (trailing newline, two, CR LF, a space after the
newline, text after it, a leading newline, a literal newline in the promiser, a tab,
nothing) between markers; a case is one shape in one way of reporting, with or without
``-l``, and compares the raw lines between its markers (the timestamps replaced by
``TS``)."""
from __future__ import annotations

import re
from itertools import product

SHAPES = {
    "trailing_nl": "$(const.n)",
    "two_nl": "$(const.n)$(const.n)",
    "crlf": "$(const.r)$(const.n)",
    "nl_space": "$(const.n) ",
    "nl_text": "$(const.n)after",
    "leading_nl": "@$(const.n)body",
    "literal_nl": "\n",
    "literal_two_nl": "\n\n",
    "tab": "$(const.t)",
    "plain": "",
    "mustache_nl": "$(with)",
}

# how the text is reported -> (the promise's attributes, the agent's arguments)
WAYS = {
    "run": ("", ()),
    "dry_run": ("", ("-n",)),
    "warn": ('action => warn_only', ()),
    "info_run": ("", ("-I",)),
}
STAMPS = {"plain": (), "timestamps": ("-l",)}

_POLICY = """
body action warn_only {{ action_policy => "warn"; }}
bundle agent main
{{
  vars:
    "d" data => '[{{"n": "a", "r": "1"}}, {{"n": "b", "r": "2"}}]';
  reports:
{reports}
    "<<end>>";
}}
"""


def _reports(attributes: str) -> str:
    out = []
    for name, shape in SHAPES.items():
        extra = [attributes] if attributes else []
        if name == "mustache_nl":
            extra.append('with => string_mustache("{{#-top-}}{{n}}={{r}}$(const.n){{/-top-}}", d)')
        out.append(f'    "<<{name}>>text{shape}" {", ".join(extra)};')
    return "\n".join(out)


CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []
for way, stamp in product(WAYS, STAMPS):
    attributes, args = WAYS[way]
    CASES.append((f"{way}_{stamp}", {"promises.cf": _POLICY.format(reports=_reports(attributes))},
                  (*args, *STAMPS[stamp])))

NAMES = [f"{run}-{shape}" for run, _, _ in CASES for shape in SHAPES]

_STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} ", re.M)
_MARK = re.compile(r"<<(\w+)>>")


def segments(stdout: str) -> dict[str, list[str]]:
    """shape -> the raw output lines from its marker's line to the next marker's."""
    text = _STAMP.sub("TS ", stdout)
    found: dict[str, list[str]] = {}
    current = None
    for line in text.split("\n"):
        mark = _MARK.search(line)
        if mark:
            current = mark.group(1)
            found[current] = []
        if current is not None and current != "end":
            found[current].append(line)
    return found
