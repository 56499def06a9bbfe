"""One-shot programs: no cyclic collection while the policy loads, the loaded objects frozen after.

cf-lite-agent, cf-lite-promises and cf-lite-runagent load a policy, run once and
exit.  What loading makes -- the AST, read back from the policy cache or parsed,
the common bundles' variables, the modules imported on the way -- lives until
the process ends and holds no garbage cycles, yet each collection of the
younger generations traverses it again: in a warm validation of masterfiles two
collections right after the cache was read took 2.5 and 10 ms, and 44 + 4
collections took 14-30 ms of the run in all.  So, in those programs only, the
collector is off from the program's start until :class:`loading` has run, and
everything alive at its end is moved to the permanent generation (``gc.freeze``)
before the collector is turned back on: later collections see only what the run
itself allocates.

Only the programs' console scripts (:func:`program`) call :func:`enable`.  A long-lived process --
a daemon reloading its policy, the test suite loading thousands -- keeps the
normal collector, because a frozen object that later becomes part of a garbage
cycle is never collected.  Under ``CF_LITE_PLAIN`` (:mod:`cfpromise.fast`) the
collector is on as usual.

The scripts themselves (``bin/cf-lite-agent``, ``-promises``, ``-runagent``) turn
the collector off as their first statement, before importing anything of
cf-lite: Python 3.13 made one automatic collection (0.6 M instructions, of the
young generation's 2000 objects) while the agent's modules were imported, which
3.11 did not (issue #29: 3.13 within 15% of 3.11).  :func:`enable` turns it back on
under ``CF_LITE_PLAIN``.
"""
from __future__ import annotations

import gc

from cfpromise import fast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_ONE_SHOT = [False]


def enable() -> None:
    """This process loads one policy and exits (the programs' entry points).  The
    collector is off from here on until the policy is loaded: importing the modules a
    run needs and discovering the host make tens of thousands of objects that live
    until exit too (about 4 ms of collections in a one-report run otherwise)."""
    if fast.PLAIN:
        gc.enable()          # (the scripts turned it off before importing cf-lite)
        return
    _ONE_SHOT[0] = True
    gc.disable()


class loading:
    """``with loading():`` around loading the policy: see the module docstring.  (A class,
    not a contextlib.contextmanager: a one-shot program's start does not import contextlib.)"""

    __slots__ = ("_one_shot",)

    def __enter__(self) -> None:
        self._one_shot = _ONE_SHOT[0]
        if self._one_shot:
            gc.disable()

    def __exit__(self, *exc_info: object) -> None:
        if self._one_shot:
            gc.freeze()
            gc.enable()


def program(main: Callable[[], int]) -> Callable[[], int]:
    """The console-script entry point of a one-shot program whose ``main`` is given."""
    def run() -> int:
        enable()
        return main()
    run.__doc__ = f"{main.__module__}.main as a one-shot process (cfpromise.fast.oneshot)."
    return run
