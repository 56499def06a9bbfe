"""string_mustache: render a Mustache template (see :mod:`.mustache`).

With one argument the data is ``datastate()`` (all classes and variables);
with two it is the collected second argument (a data container, a list, inline
JSON or a variable name).
"""
from __future__ import annotations

from cfpromise.eval.functions import mustache
from cfpromise.eval.functions.api import FunctionError, builtin
from cfpromise.eval.functions.classes import template_data
from cfpromise.eval.functions.common import argv, collect, describe

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence

    from cfpromise.eval.functions.api import FunctionContext, Value


@builtin("string_mustache")
def string_mustache(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    values = argv("string_mustache", args, 1, 2, raw=(1,))
    if len(values) > 1:
        data = collect(ctx, values[1])
        if data is None:
            raise FunctionError(f"Function 'string_mustache': argument "
                                f"'{describe(values[1])}' does not resolve to a container")
    else:
        data = template_data(ctx, None)
    try:
        return mustache.render(values[0], data)
    except mustache.MustacheError as exc:
        from cfpromise.eval.functions import messages
        raise messages.fail("mustache.render", message=str(exc)) from None
