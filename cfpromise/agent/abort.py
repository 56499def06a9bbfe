"""What stops a run or a bundle: fatal errors, abortclasses and abortbundleclasses.

abortclasses and abortbundleclasses (body agent control) are checked after every promise.

A pattern is a regex matched in full against the defined classes, or -- written
with ``. & | ! ( )`` -- a class expression that holds.  The check runs after every
promise (4,000 times on masterfiles), so its cost follows what changed:

* the patterns are read once per value of the control attributes (which of them
  are expressions, their compiled regexes) and read again only when the
  attributes change;
* the regexes see every defined class once (the first check, or when the
  patterns change) and afterwards only the classes defined since the last check
  (``ctx.defined_log``): a class that did not match a pattern then cannot match
  it later;
* class expressions are evaluated each time (an undefinition can make them hold).
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Any


class FatalError(Exception):
    """An error that stops the run with exit code 1, as cf-agent's fatal errors do.
    (Here, beside the aborts, so that whatever raises it -- the engine, a promise type
    through :mod:`cfpromise.promises.api`, --only -- needs no more of the engine.)"""


class Exits(FatalError):
    """An error after which cf-agent says its messages and exits 1, with no "Fatal
    CFEngine error" line; found while the policy loads, the validating cf-promises is
    what exits, so the failsafe runs."""
    final = ""

    def __init__(self, *messages: str) -> None:
        super().__init__(messages[0])
        self.messages = messages


class SelfReference(Exits):
    """A vars promise whose value names the variable itself (cf-agent's Epimenides)."""


def mismatch(lval: str, place: str) -> None:
    """PromiseGetConstraintAsList's abort: ``lval`` of the promise at ``place`` (its
    PromiseRef line) is no list -- said, then "Fatal CFEngine error: Aborted", exit 1."""
    raise Exits(f"Type mismatch on rhs - expected type for list constraint '{lval}'",
                place, "Fatal CFEngine error: Aborted")


class ConversionExit(Exits):
    """A container copied (stored in a variable, handed on by a function) that holds an
    integer written with an exponent (``1e3``): libntech reads it as an integer and its
    JsonCopy converts the text with StringToLongExitOnError, which exits."""

    def __init__(self, text: str) -> None:
        super().__init__(f"Conversion error (-83 - Not terminated) on '{text}' "
                         "(StringToLongExitOnError)")


class AbortRun(Exception):
    """An abortclasses class was defined (cf-agent exits 6)."""


class AbortBundle(Exception):
    """An abortbundleclasses class was defined."""


# a pattern: (as written, whether it is a class expression, its regex or None)
_Pattern = tuple[str, bool, "re.Pattern[str] | None"]


class AbortWatch:
    """The check's state across a run (see the module docstring)."""

    __slots__ = ("abortclasses", "abortbundleclasses", "plan", "seen")

    def __init__(self) -> None:
        self.abortclasses: list[str] | None = None        # the patterns ``plan`` is for
        self.abortbundleclasses: list[str] | None = None
        self.plan: tuple[tuple[tuple[_Pattern, ...], type[Exception]], ...] = ()
        self.seen = 0                                     # defined_log entries checked

    def check(self, agent: Any) -> None:
        """Raise AbortRun / AbortBundle when a pattern of ``agent``'s control matches."""
        abortclasses, abortbundleclasses = agent.abortclasses, agent.abortbundleclasses
        if not abortclasses and not abortbundleclasses:
            return
        ctx = agent.ctx
        log = ctx.defined_log
        if abortclasses != self.abortclasses or abortbundleclasses != self.abortbundleclasses:
            self.abortclasses, self.abortbundleclasses = list(abortclasses), \
                list(abortbundleclasses)
            self.plan = ((_read(abortclasses), AbortRun),
                         (_read(abortbundleclasses), AbortBundle))
            names = [name for name, _ in ctx.classes_items()]
        elif self.seen == len(log):
            names = []
        else:
            names = [key for key in log[self.seen:] if ctx.has_class_key(key)]
        self.seen = len(log)
        for patterns, exc in self.plan:
            for pattern, expression, rx in patterns:
                # (a pattern that is no class expression, a regex, says nothing)
                if expression and ctx.holds_quietly(pattern):
                    if exc is AbortBundle:
                        agent.out.log("error", f"Setting abort for '{pattern}' when setting "
                                               f"class '{ctx.last_defined}'")
                    raise exc(ctx.last_defined or pattern)
                if rx is None:
                    continue
                for name in names:
                    if rx.fullmatch(name):
                        if exc is AbortBundle:
                            agent.out.log("error", f"Bundle '{ctx.frame.bundle}' aborted on "
                                                   f"defined class '{name}'")
                        raise exc(name)


def _read(patterns: list[str]) -> tuple[_Pattern, ...]:
    return tuple((p, any(op in p for op in ".&|!()"), _regex(p)) for p in patterns)


def _regex(pattern: str) -> re.Pattern[str] | None:
    import re
    try:
        return re.compile(pattern)
    except re.error:
        return None
