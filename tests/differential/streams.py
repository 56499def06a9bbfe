"""Generated cases for which stream each line goes to (issue #26: people redirect and diff
the two agents' output, and cron mails both streams).

cf-agent 3.21's logger writes every level on standard output; only the parser's
diagnostics (``FILE:LINE:COL: error: ...``, the source line and caret under them, and
``Formal = .., Actual = ..``) go to standard error, the validating cf-promises' passed
through.  The cases are the error shapes of the other generators -- files with errors
(:mod:`multifile`), values of the wrong type (:mod:`typeerrors`), unknown attributes,
removed language, fatal errors, def.json, bundlesequence verdicts (:mod:`agentmisc`) --
and a few of this module's own.  Wording is the other tests' business: here a line both
programs print must be on the same stream, and the lines both print come in the same
order when the two streams go to one file (:func:`streams`, :func:`merged_order`).
"""
from __future__ import annotations

import re

from tests.differential import agentmisc, deprecations, multifile, typeerrors, unknownattrs

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []

_AGENTMISC = re.compile(r"fatal|missing|two_|sequence|main_|defjson")


def _pooled() -> None:
    pools = ((multifile.CASES, 1), (typeerrors.CASES, 4), (unknownattrs.CASES, 1),
             (deprecations.CASES, 2),
             ([c for c in agentmisc.CASES if _AGENTMISC.search(c[0])], 1))
    for cases, step in pools:
        for name, files, args in cases[::step]:
            CASES.append((name, files, args))


_pooled()

_MAIN = "body common control {{ bundlesequence => {{ {seq} }}; }}\n"
_OWN = {
    # a runtime arity mismatch: two log lines around a line on standard error
    "arity_at_run_time": 'bundle agent main { vars: "n" string => "b"; '
                         'methods: "m" usebundle => $(n)("x", "y"); }\n'
                         'bundle agent b(a) { reports: "$(a)"; }\n',
    # a syntax error, then the failsafe's log lines
    "syntax_error": 'bundle agent main { vars: "x" string => "a" reports: "hi"; }\n',
    "unknown_body": 'bundle agent main { files: "/tmp/x" perms => nosuch; }\n',
    "bundle_not_defined": _MAIN.format(seq='"main", "nosuch"')
                          + 'bundle agent main { reports: "r"; }\n',
    "missing_input": 'body common control { inputs => { "nosuch.cf" }; }\n'
                     'bundle agent main { reports: "r"; }\n',
    "runtime_errors_and_reports": 'bundle agent main { vars: "x" string => '
                                  'readfile("/nonexistent/cflite", 10); reports: "r $(x)"; }\n',
    "broken_references": 'bundle agent main { vars: "a" string => "x$(b"; '
                         '"c" string => "y${d"; reports: "r"; }\n',
    "parse_integer": 'bundle agent main { vars: "i" int => "x"; reports: "r"; }\n',
}
for _name, _text in _OWN.items():
    CASES.append((f"own_{_name}", {"promises.cf": _text}, ()))

NAMES = [name for name, _, _ in CASES]
assert len(NAMES) == len(set(NAMES)), "case names repeat"


def lines(text: str, workdir: str) -> list[str]:
    """Non-empty lines, the work directory named WORKDIR and a diagnostic's column left
    out (positions are compared by the other tests)."""
    return [re.sub(r"^(\S+:\d+):\d+:", r"\1:", line.replace(workdir, "WORKDIR")).rstrip()
            for line in text.splitlines() if line.strip()]


def streams(stdout: str, stderr: str, other: tuple[list[str], list[str]], workdir: str
            ) -> dict[str, str]:
    """line -> "out", "err" or "outerr", for the lines of this run that ``other`` (the
    other program's (stdout, stderr) lines) prints too."""
    out, err = lines(stdout, workdir), lines(stderr, workdir)
    common = (set(out) | set(err)) & (set(other[0]) | set(other[1]))
    return {line: ("out" if line in out else "") + ("err" if line in err else "")
            for line in sorted(common)}


def merged_order(merged: str, other: set[str], workdir: str) -> list[str]:
    """The lines of a run with both streams in one file that ``other`` prints too, each
    at its first appearance (repetition counts are the other tests' business)."""
    return list(dict.fromkeys(line for line in lines(merged, workdir) if line in other))
