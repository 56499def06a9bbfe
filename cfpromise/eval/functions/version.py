"""cf_version_* built-ins: compare the emulated CFEngine version (3.21.0).

A version argument is one to three dot separated numbers; missing parts match
anything (``cf_version_at("3")`` is true for every 3.x.y), like libntech's
CompareVersion.  A malformed version is an error.
"""
from __future__ import annotations

import re

from cfpromise import CFENGINE_COMPAT_VERSION
from cfpromise.eval.functions.api import FunctionError, builtin
from cfpromise.eval.functions.common import argv

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence

    from cfpromise.eval.functions.api import FunctionContext, Value

_VERSION = re.compile(r"^(\d+)(?:\.(\d+))?(?:\.(\d+))?$")


def compare_version(fn: str, wanted: str, current: str = CFENGINE_COMPAT_VERSION,
                    which: str = "") -> int:
    """-1, 0 or 1 as the running version is before, at or after ``wanted``
    (only the components ``wanted`` gives are compared); ``which``: "lower " or
    "upper " for cf_version_between's message."""
    m = _VERSION.match(wanted)
    if not m:
        from cfpromise.eval.functions import messages
        raise messages.fail("version.format", fn=fn, which=which, version=wanted)
    mine = [int(p) for p in current.split(".")]
    for have, want in zip(mine, m.groups()):
        if want is None:
            break
        if have != int(want):
            return -1 if have < int(want) else 1
    return 0


@builtin("cf_version_minimum")
def cf_version_minimum(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (wanted,) = argv("cf_version_minimum", args, 1)
    return compare_version("cf_version_minimum", wanted) >= 0


@builtin("cf_version_maximum")
def cf_version_maximum(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (wanted,) = argv("cf_version_maximum", args, 1)
    return compare_version("cf_version_maximum", wanted) <= 0


@builtin("cf_version_after")
def cf_version_after(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (wanted,) = argv("cf_version_after", args, 1)
    return compare_version("cf_version_after", wanted) > 0


@builtin("cf_version_before")
def cf_version_before(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (wanted,) = argv("cf_version_before", args, 1)
    return compare_version("cf_version_before", wanted) < 0


@builtin("cf_version_at")
def cf_version_at(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (wanted,) = argv("cf_version_at", args, 1)
    return compare_version("cf_version_at", wanted) == 0


@builtin("cf_version_between")
def cf_version_between(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    low, high = argv("cf_version_between", args, 2)
    above = compare_version("cf_version_between", low, which="lower ") >= 0
    below = compare_version("cf_version_between", high, which="upper ") <= 0
    return above and below
