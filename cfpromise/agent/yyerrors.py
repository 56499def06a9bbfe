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

The count is cf-agent's, check by check: cf-lite evaluates a vars promise fewer times
than cf-agent calls VerifyVarPromise on it, so each evaluation counts (and says) the
checks cf-agent makes at that point (:class:`phase`, :func:`expansions`), as found by
running cf-agent over many shapes (tests/differential/brokenrefs.py, the ``count_``
cases):

* in an agent pass, two (KeepAgentPromise's, then ExpandPromiseAndDo's second
  "sampling"); in an edit bundle's pass, one (in its first, one more: the files
  promise's BundleResolve); in BundleResolve (after a pass's classes section, before a
  methods call's bundle), one;
* while the policy loads (LoadPolicyFile's PolicyResolve), one for a bundle that is not
  common, two for a common one (vars, classes, vars: cf-lite's round counts both at
  its first evaluation, :meth:`cfpromise.agent.engine.Agent.load_round`);
* in the preliminary convergence, two for a bundle that is not common (the walk's, then
  PolicyResolve's); three for a common one (cf-lite evaluates those before the walk);
* each expansion of a vars promise checks its calls' expanded arguments with IsCf3Scalar
  too ("Broken scalar variable syntax or bracket mismatch in 'TEXT'": :func:`check_args`);
* a report's text, in each pass but the last (cfpromise.agent.evaluation).

The count starts again at nought with each file the parser reads (ParserStateReset).
The cf-promises that validates the policy keeps its own: its loading's checks, then
the same again in its last PolicyResolve (:func:`validated`); past twelve it stops, and
the policy fails validation.
"""
from __future__ import annotations

import sys

from cfpromise.agent.abort import Exits
from cfpromise.syntax.varstring import BROKEN, BROKEN_SCALAR, broken

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LIMIT = 12


class TooManyErrors(Exits):
    """Past :data:`LIMIT` parser errors: exit 1, nothing more said (printed already);
    while the policy loads, the validating cf-promises is what stops (the failsafe)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.messages = ()


def validated(agent: Any) -> bool:
    """Once the policy is loaded, the validating cf-promises' last PolicyResolve: it
    checks again what its loading checked (the agent's loading was its own: the same
    files, the same checks), its count going on from its last file's; False when it
    stops there ("Too many errors": the policy fails validation).  It enters each
    bundle twice more (:meth:`cfpromise.eval.context.EvalContext.expand_scope`)."""
    messages, agent.yy_loaded = getattr(agent, "yy_loaded", None) or [], None
    count = getattr(agent, "parse_errors", 0)
    if messages:
        agent.out.flush()
    where = getattr(agent, "parsed_last", "") or agent.options.file
    for message in messages:            # (at the file parsed last, as all of them now)
        count += 1
        print(f"{where}:1:1: error: {message}", file=sys.stderr)
        if count > LIMIT:
            print("Too many errors", file=sys.stderr)
            sys.stderr.flush()
            return False
    ctx = agent.ctx
    for ns, scope in list(ctx.broken_values):
        ctx.expand_scope(ns, scope, again=True)
    return True


# the checks of a vars promise's evaluation in an agent pass (no phase set)
PASS_CHECKS = 2


class phase:
    """While cf-lite evaluates vars promises for one of cf-agent's phases (``with
    phase(agent, times, budget)``): each evaluation counts ``times`` checks, and at most
    ``budget`` in all per promise (and promiser) in the phase (cf-lite evaluates some more
    often than cf-agent does there).  A phase with a budget keeps it through the phases
    inside it.  (A class: contextlib is not on the start path.)"""

    __slots__ = ("agent", "state", "outer")

    def __init__(self, agent: Any, times: int, budget: int | None = None) -> None:
        self.agent = agent
        self.state = (times, budget, {})
        self.outer: Any = None

    def __enter__(self) -> None:
        self.outer = outer = getattr(self.agent, "yy_phase", None)
        if outer is None or outer[1] is None:
            self.agent.yy_phase = self.state

    def __exit__(self, *exc: Any) -> None:
        self.agent.yy_phase = self.outer


def expansions(agent: Any, key: Any, pass_no: int = 0) -> tuple[int, int]:
    """How often cf-agent expands a vars promise where cf-lite evaluates it once now
    (each time its function calls' arguments are checked, :func:`check_args`), and how
    many checks of its value each expansion makes (``key``: the promise and its
    promiser, for a phase's budget)."""
    current = getattr(agent, "yy_phase", None)
    if current is None:     # a pass; an edit bundle's has no second "sampling", but its
        if getattr(agent.ctx.frame, "edit", None) is None:      # files promise resolved it
            return 1, PASS_CHECKS                               # (BundleResolve) first
        return (2 if pass_no == 1 else 1), 1
    times, budget, used = current
    if budget is None:
        return times, 1
    done = used.get(key, 0)
    times = max(0, min(times, budget - done))
    used[key] = done + times
    return times, 1


def check_args(agent: Any, texts: list[str]) -> None:
    """The expanded arguments of a call that IsCf3Scalar says are left open
    (RlistIsUnresolved, each time cf-agent evaluates the call), said and counted."""
    for text in texts:
        say(agent, BROKEN_SCALAR.format(text))


def cf_promises_converges(agent: Any) -> None:
    """cf-promises' last PolicyResolve (its common bundles' round, then vars and meta
    again, no walk), its checks
    those of its loading again (:func:`validated`); raises :class:`TooManyErrors` past
    the limit."""
    with phase(agent, 0, 0):         # (kept through the rounds' own phases)
        for bundle in list(agent.policy.bundles):
            if bundle.type == "common":     # its common bundles first (BundleResolve)
                agent.load_round(bundle)
        agent.preliminary_convergence(expand=False)
    if not validated(agent):
        raise TooManyErrors("")


def file_parsed(agent: Any) -> None:
    """The parser read a file: its count starts again (ParserStateReset); while the
    policy loads, what is said is kept (:func:`validated`)."""
    agent.parse_errors = 0
    if not hasattr(agent, "yy_loaded"):
        agent.yy_loaded = []


def check_value(agent: Any, value: Any, times: int = 1) -> None:
    """Each string of a vars promise's value (a scalar, a list's items) that
    IsCf3VarString says is left open (:func:`cfpromise.syntax.varstring.broken`),
    said as the parser says it, and counted, ``times`` over."""
    if times <= 0:
        return
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
    found = [item for item in items if isinstance(item, str) and broken(item)]
    for _ in range(times if found else 0):      # (check by check, each in the value's order)
        for item in found:
            say(agent, BROKEN.format(item))


def say(agent: Any, message: str, replayed: bool = True) -> None:
    """``message`` said and counted as the parser's error; ``replayed``: said again by the
    validating cf-promises' last round (:func:`validated`) -- not a policy check's."""
    agent.parse_errors = getattr(agent, "parse_errors", 0) + 1
    agent.out.flush()
    sys.stdout.flush()
    where = getattr(agent, "parsed_last", "") or agent.options.file
    print(f"{where}:1:1: error: {message}", file=sys.stderr)
    loaded = getattr(agent, "yy_loaded", None)
    if loaded is not None and replayed:
        loaded.append(message)
    if agent.parse_errors > LIMIT:
        print("Too many errors", file=sys.stderr)
        sys.stderr.flush()
        raise TooManyErrors(message)
