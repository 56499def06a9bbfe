"""The parser's error count at run time, as cf-agent 3.21 keeps it (issue #26).

cf-agent checks a vars promise's value after its first expansion -- so also a value
read at run time: readfile(), execresult(), a file's lines -- with IsCf3VarString; a
reference it leaves open (``a ${x``, ``$(a ${b)``, not ``$(a) ${b``: the verdict of
:mod:`cfpromise.syntax.varstring`) goes to the parser's error function, which prints
``FILE:1:1: error: Broken variable syntax or bracket mismatch in string (VALUE)`` on
standard error, FILE being the policy file parsed last.  The parser counts its errors
for the whole process: the thirteenth is followed by ``Too many errors`` and the process
exits 1 there and then (no more promises, no --show-evaluated-* tables).  The value
itself is then expanded once more (:mod:`cfpromise.eval.expand`: the open reference
becomes ``${}``).

cf-agent checks each value more often than cf-lite evaluates it (its passes, its
validating cf-promises' own), so the count in cf-lite runs behind: a policy that
cf-agent stops at its thirteenth such error may run further here.
"""
from __future__ import annotations

import sys

from cfpromise.agent.abort import FatalError
from cfpromise.syntax.varstring import BROKEN, broken

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LIMIT = 12


class TooManyErrors(FatalError):
    """Past :data:`LIMIT` parser errors: exit 1, nothing more said (printed already)."""
    final = ""
    messages = ()


def check_value(agent: Any, value: Any) -> None:
    """Each string of a vars promise's value (a scalar, a list's items) that
    IsCf3VarString says is left open (:func:`cfpromise.syntax.varstring.broken`),
    said as the parser says it, and counted."""
    if isinstance(value, str):
        items: Any = (value,)
        joined = value
    elif isinstance(value, list):
        items = value
        try:
            joined = "\n".join(value)      # (one C pass over a list of strings)
        except TypeError:
            joined = "\n".join(item for item in value if isinstance(item, str))
    else:
        return
    if "(" not in joined and "{" not in joined:     # no reference, open or not: most values
        return
    for item in items:
        if isinstance(item, str) and broken(item):
            say(agent, BROKEN.format(item))


def say(agent: Any, message: str) -> None:
    agent.parse_errors = getattr(agent, "parse_errors", 0) + 1
    agent.out.flush()
    sys.stdout.flush()
    where = getattr(agent, "parsed_last", "") or agent.options.file
    print(f"{where}:1:1: error: {message}", file=sys.stderr)
    if agent.parse_errors > LIMIT:
        print("Too many errors", file=sys.stderr)
        sys.stderr.flush()
        raise TooManyErrors(message)
