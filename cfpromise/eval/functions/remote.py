"""remotescalar() and remoteclassesmatching(): ask a cf-serverd (VAR / CONTEXT
requests of the 3.21 protocol, cfpromise/net/client.py).

CFEngine 3.21 community stubs these out (they answer "" and define nothing);
cf-lite speaks the requests as CFEngine Enterprise does, so that a server
that grants ``resource_type => "literal"`` / ``"context"`` access answers:
``remotescalar`` returns the value, or "" when the server refuses (``BAD:``),
falling back to the last value this host received (kept in
WORKDIR/state/cf_lite_remote_values.json, CacheUnreliableValue);
``remoteclassesmatching`` defines ``<prefix>_<class>`` for every class the
server reports.  "localhost" means 127.0.0.1, as in cf-agent.  A server that
cannot be reached makes the call fail (the promise is not evaluated).
"""
from __future__ import annotations

import json
import os

from cfpromise.eval.canon import canonify
from cfpromise.eval.functions.api import FunctionError, builtin
from cfpromise.eval.functions.common import argv

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Sequence

    from cfpromise.eval.functions.api import FunctionContext, Value

CACHE = "cf_lite_remote_values.json"


def _ask(ctx: FunctionContext, server: str, kind: str, what: str) -> str:
    from cfpromise.net import client
    if server == "localhost":
        server = "127.0.0.1"
    opts = client.ConnectOptions(workdir=ctx.workdir, timeout=30, log=ctx.log)
    try:
        with client.connect(server, opts) as conn:
            return conn.var(what) if kind == "VAR" else conn.context(what)
    except client.NetError as exc:
        raise FunctionError(f"Unable to reach server '{server}' for {kind} '{what}': "
                            f"{exc}") from None


def _cache_path(ctx: FunctionContext) -> str:
    return os.path.join(ctx.workdir, "state", CACHE)


def _cache_load(ctx: FunctionContext) -> dict[str, str]:
    try:
        with open(_cache_path(ctx), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _cache_store(ctx: FunctionContext, handle: str, value: str) -> None:
    from cfpromise.net.keys import write_private_file
    data = _cache_load(ctx)
    if data.get(handle) == value:
        return
    data[handle] = value
    try:
        write_private_file(_cache_path(ctx), json.dumps(data).encode())
    except OSError:
        pass


@builtin("remotescalar", cached=True)
def remotescalar(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    handle, server, _encrypt = argv("remotescalar", args, 3)
    value = _ask(ctx, server, "VAR", handle)
    if value.startswith("BAD:"):
        return str(_cache_load(ctx).get(handle, ""))
    _cache_store(ctx, handle, value)
    return value


@builtin("remoteclassesmatching")
def remoteclassesmatching(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    regex, server, _encrypt, prefix = argv("remoteclassesmatching", args, 4)
    reply = _ask(ctx, server, "CONTEXT", regex)
    if reply.startswith("BAD:"):
        raise FunctionError(f"remoteclassesmatching: server '{server}' refused '{regex}'")
    for name in (c for c in reply.split(",") if c):
        ctx.define_class(canonify(f"{prefix}_{name}"), scope="bundle")
    return True
