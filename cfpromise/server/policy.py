"""The server's view of the policy: ``body server control`` and the ``server`` bundles.

cf-serverd reads the policy as cf-agent does (the agent's loading: common
bundles first, so that inputs resolve), then evaluates every ``server`` bundle
in the order the policy has them: vars, classes, then ``access`` and ``roles``.
Those two promise types do not change the host: their handlers (registered for
the engine like any promise type) add rules to the :class:`ServerAccess` being
built, found through a context variable, so the engine's guards, iteration,
expansion and bodies apply to them unchanged.  ``$(connection.ip)`` & co. stay
written as they are (nothing defines them) and are substituted per request.
"""
from __future__ import annotations

import contextvars
import io
import os
from typing import Any

import attrs

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.api import PromiseRun, handler
from cfpromise.server.acl import Table, add_rules

DEFAULT_PORT = 5308
DEFAULT_MAXCONNECTIONS = 30
RESOURCE_TYPES = ("path", "literal", "context", "variable", "query", "bundle")

_BUILDING: contextvars.ContextVar["ServerAccess"] = contextvars.ContextVar("server_access")


@attrs.define(slots=True, eq=False)
class ServerAccess:
    """Everything the server decides with, built from one policy load."""
    paths: Table = attrs.Factory(Table)
    classes: Table = attrs.Factory(Table)
    variables: Table = attrs.Factory(Table)
    literals: Table = attrs.Factory(Table)
    queries: Table = attrs.Factory(Table)
    roles: Table = attrs.Factory(Table)
    bundles: Table = attrs.Factory(Table)
    literal_data: dict[str, str] = attrs.Factory(dict)
    variable_data: dict[str, str] = attrs.Factory(dict)
    shortcuts: dict[str, str] = attrs.Factory(dict)
    report_data_select: dict[str, Any] = attrs.Factory(dict)
    # body server control
    allowconnects: list[str] = attrs.Factory(list)
    denyconnects: list[str] = attrs.Factory(list)
    allowallconnects: list[str] = attrs.Factory(list)
    trustkeysfrom: list[str] = attrs.Factory(list)
    allowlegacyconnects: list[str] = attrs.Factory(list)
    allowusers: list[str] = attrs.Factory(list)
    maxconnections: int = DEFAULT_MAXCONNECTIONS
    port: int = DEFAULT_PORT
    bindtointerface: str = ""
    allowciphers: str | None = None
    allowtlsversion: str | None = None
    cfruncommand: str = ""
    denybadclocks: bool = True
    logallconnections: bool = False
    call_collect_interval: int = 0          # minutes; call the hub (cfpromise.hub.callcollect)
    collect_window: float = 10.0            # seconds a call serves the hub
    defined_classes: frozenset[str] = frozenset()
    files: tuple[str, ...] = ()
    errors: list[str] = attrs.Factory(list)

    def log_error(self, message: str) -> None:
        self.errors.append(message)


def canonical_rule_path(promiser: str) -> str | None:
    """An access promise's path as cf-serverd keys it: symlinks and '..' resolved,
    a directory with a trailing '/'; a path that does not exist is kept as written
    ("/." read as "/").  None for a relative path (ignored, as cf-serverd does)."""
    if not promiser.startswith("/"):
        return None
    try:
        real = os.path.realpath(promiser, strict=True)
    except OSError:
        if promiser.endswith("/.") and len(promiser) >= 2:
            return promiser[:-1]
        return promiser
    if os.path.isdir(real) and not real.endswith("/"):
        real += "/"
    return real


def _items(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str) and v]
    return []


@handler("access")
def keep_access(run: PromiseRun) -> Outcome:
    access = _BUILDING.get(None)
    if access is None:                  # only the server evaluates server bundles
        return Outcome.KEPT
    attrs_ = run.attributes
    kind = attrs_.get("resource_type") or "path"
    promiser = run.promiser
    if kind == "path":
        key = canonical_rule_path(promiser)
        if key is None:
            access.log_error(f"Failed to canonicalize path '{promiser}' in access_rules, ignoring!")
            return Outcome.KEPT
        table = access.paths
        shortcut = attrs_.get("shortcut")
        if isinstance(shortcut, str) and shortcut:
            if "/" in shortcut:
                access.log_error(f"slashes are forbidden in ACL shortcut: {shortcut}")
            else:
                access.shortcuts.setdefault(shortcut, promiser)
    elif kind == "literal":
        handle = run.handle
        if not handle:
            access.log_error("Access to literal server data requires you to define a "
                             "promise handle for reference")
            return Outcome.KEPT
        key, table = handle, access.literals
        access.literal_data[handle] = promiser
    elif kind == "variable":
        key, table = promiser, access.variables
    elif kind == "context":
        key, table = promiser, access.classes
    elif kind == "query":
        key, table = promiser, access.queries
        select = run.body("report_data_select")
        if select:
            access.report_data_select[promiser] = select
    else:                               # bundle
        key, table = promiser, access.bundles
    add_rules(table.entry(key), attrs_)
    return Outcome.KEPT


@handler("roles")
def keep_roles(run: PromiseRun) -> Outcome:
    access = _BUILDING.get(None)
    if access is None:
        return Outcome.KEPT
    entry = access.roles.entry(run.promiser)
    entry.admit.usernames += _items(run.attributes.get("authorize"))
    return Outcome.KEPT


def _int(value: Any, default: int) -> int:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return default


def apply_control(access: ServerAccess, control: dict[str, Any]) -> None:
    for name in ("allowconnects", "denyconnects", "allowallconnects", "trustkeysfrom",
                 "allowlegacyconnects", "allowusers"):
        setattr(access, name, _items(control.get(name)))
    access.maxconnections = _int(control.get("maxconnections"), DEFAULT_MAXCONNECTIONS)
    access.port = _int(control.get("port"), DEFAULT_PORT)
    access.call_collect_interval = max(0, _int(control.get("call_collect_interval"), 0))
    access.collect_window = float(max(1, _int(control.get("collect_window"), 10)))
    for name in ("bindtointerface", "cfruncommand"):
        value = control.get(name)
        setattr(access, name, value if isinstance(value, str) else "")
    for name in ("allowciphers", "allowtlsversion"):
        value = control.get(name)
        setattr(access, name, value if isinstance(value, str) and value else None)
    for name in ("denybadclocks", "logallconnections"):
        value = control.get(name)
        if isinstance(value, str):
            setattr(access, name, value in ("true", "yes", "on"))


def load_server_policy(path: str, workdir: str, out: Any = None,
                       define: Any = (), **options: Any) -> ServerAccess:
    """Load ``path`` and evaluate its server bundles into a ServerAccess.
    Raises the agent's LoadError/PolicyError when the policy is invalid.  ``options``:
    more of the command line's (AgentOptions: negate, ignore_preferred_augments)."""
    from cfpromise.agent.engine import Agent, AgentOptions
    from cfpromise.agent.loading import install_facts, load, prepare_workdir
    from cfpromise.agent.output import Output
    from cfpromise.eval.context import Frame
    prepare_workdir(workdir)
    agent = Agent(AgentOptions(file=path, workdir=workdir, define=list(define),
                               ignore_locks=True, **options),
                  out or Output("critical", stream=io.StringIO()))
    agent.parsing_as = "server"     # its parser keeps its own bundles (policyfile)
    install_facts(agent)
    access = ServerAccess()
    token = _BUILDING.set(access)
    try:
        load(agent)
        control: dict[str, Any] = {}
        if agent.bodies.get(("default", "control", "server")) is not None:
            agent.ctx.push(Frame("default", "control"))
            try:
                control = agent.resolver.resolve("server", "control", [], "default", {})
            finally:
                agent.ctx.pop()
        apply_control(access, control)
        for bundle in agent.policy.bundles:
            if bundle.type == "server" and not bundle.args:
                agent.run_bundle(bundle, [])
    finally:
        _BUILDING.reset(token)
    access.defined_classes = frozenset(_class_names(agent.ctx))
    files = {os.path.abspath(path)}
    for item in list(agent.policy.bundles) + list(agent.policy.bodies):
        name = getattr(getattr(item, "coord", None), "file", "")
        if name:
            files.add(os.path.abspath(name))
    access.files = tuple(sorted(files))
    return access


def _class_names(ctx: Any) -> list[str]:
    return [n for n in ctx.class_table if isinstance(n, str)]
