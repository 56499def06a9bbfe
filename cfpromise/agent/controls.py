"""The control bodies as cf-agent 3.21 reads them: ``body common control`` and ``body
agent control`` settle the run (domain, addclasses, abortclasses, inform/verbose), and
every control body's attributes become ``control_TYPE`` variables -- each file's ``body
file control`` as the file loads, the others once the policy is read.  Kept apart from
:mod:`cfpromise.agent.loading`, which calls them at those two moments."""
from __future__ import annotations

from cfpromise.agent.bodies import say_failed_calls
from cfpromise.eval.context import Frame

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cfpromise.syntax import ast


# the control bodies whose attributes cf-agent publishes as $(control_TYPE.attribute)
CONTROL_BODY_TYPES = ("common", "agent", "server", "monitor", "runagent", "executor", "hub")
# (and "file": one per file, see control_bodies)
_SCALAR_TYPES = frozenset({"string", "int", "real", "slist", "ilist", "rlist"})


def control_variables(agent: Any, body_type: str, values: dict[str, Any]) -> None:
    """ResolveControlBody: each attribute of ``body TYPE control`` whose class guard holds
    becomes the variable ``control_TYPE.attribute``, of the attribute's declared type
    (tagged source=promise), so that ``$(control_agent.ifelapsed)`` and
    ``@(control_common.bundlesequence)`` read what the control body says."""
    from cfpromise.schema import schema
    attrs = schema().body_types.get(body_type, {})
    scope = f"control_{body_type}"
    for lval, value in values.items():
        attr = attrs.get(lval)
        if attr is None or value is None or not isinstance(value, (str, list)):
            continue
        type_ = attr.type if attr.type in _SCALAR_TYPES else "string"
        if isinstance(value, list) != type_.endswith("list"):
            continue            # cf-agent: "Attribute ... is of wrong type, skipping"
        agent.ctx.set_var("default", scope, lval, type_, value, ("source=promise",))


def file_control(agent: Any, policy: ast.Policy) -> None:
    """The file's ``body file control`` as control_file variables, as cf-agent's
    PolicyResolve of each file it loads resolves that file's control bodies (after its
    bundles' variables, before its inputs are read): this is when $(control_file.inputs)
    enters cf-agent's variable table, whose order variablesmatching() returns."""
    bodies = [b for b in policy.bodies if b.name == "control" and b.type == "file"]
    if not bodies:
        return
    agent.ctx.push(Frame("default", "control"))
    try:
        for body in bodies:
            control_variables(agent, "file", agent.resolver.resolve_body(body, "file", [], {}))
    finally:
        agent.ctx.pop()


def control_bodies(agent: Any) -> None:
    """Read the control bodies: common and agent settle the run, and every one's
    attributes become control_TYPE variables."""
    frame = Frame("default", "control")
    agent.ctx.push(frame)
    saved, agent.ctx.no_caller = agent.ctx.no_caller, True     # (their calls have no promise)
    try:
        for body_type in CONTROL_BODY_TYPES:
            if agent.bodies.get(("default", "control", body_type)) is None:
                continue
            values = agent.resolver.resolve(body_type, "control", [], "default", {})
            say_failed_calls(agent, body_type, values)
            target = {"common": agent.control, "agent": agent.agent_control}.get(body_type)
            if target is not None:
                target.update(values)
            control_variables(agent, body_type, values)
        # every file's ``body file control``, in policy order: the last one's inputs and
        # namespace are $(control_file.inputs) and $(control_file.namespace)
        for body in agent.policy.bodies:
            if body.name == "control" and body.type == "file":
                control_variables(agent, "file",
                                  agent.resolver.resolve_body(body, "file", [], {}))
    finally:
        agent.ctx.no_caller = saved
        agent.ctx.pop()
    domain = agent.control.get("domain")
    if isinstance(domain, str) and domain:
        # body common control domain overrides the discovered one (sys.domain, fqhost)
        from cfpromise.eval.canon import canonify
        ctx = agent.ctx
        host = ctx.lookup("sys.host")
        ctx.set_var("default", "sys", "domain", "string", domain, ("source=agent",))
        if host is not None and isinstance(host.value, str):
            ctx.set_var("default", "sys", "fqhost", "string", f"{host.value}.{domain}",
                        ("inventory", "source=agent", "attribute_name=Host name"))
            ctx.define_class(canonify(f"{host.value}.{domain}"), ("source=agent", "hardclass"))
        ctx.define_class(canonify(domain), ("source=agent", "hardclass"))
    for name in _strings(agent.agent_control.get("addclasses")):
        agent.ctx.define_class(name, ("source=agent",))
    agent.abortclasses = _strings(agent.agent_control.get("abortclasses"))
    agent.abortbundleclasses = _strings(agent.agent_control.get("abortbundleclasses"))


def output_prefix(agent: Any) -> None:
    """body common control's ``output_prefix`` in front of the info and lower lines from
    now on: once the policy is read, as cf-agent and cf-promises set it when they resolve
    the policy (what loading logged has none)."""
    prefix = agent.control.get("output_prefix")
    if isinstance(prefix, str) and prefix:
        agent.out.set_prefix(prefix)


# body agent control inform/verbose, in the order given: true raises the level to info or
# verbose, false lowers it to notice or info (cf-agent 3.21); the *_mode classes, defined
# from the command line before the policy is read, stay as they are
_CONTROL_LEVELS = {"inform": ("info", "notice"), "verbose": ("verbose", "info")}


def control_log_level(agent: Any) -> None:
    from cfpromise.agent.output import LEVELS
    out = agent.out
    for lval, value in agent.agent_control.items():
        if lval not in _CONTROL_LEVELS or not isinstance(value, str):
            continue
        on = value.lower() in ("true", "yes", "on")
        if not on and value.lower() not in ("false", "no", "off"):
            continue
        raise_to, lower_to = _CONTROL_LEVELS[lval]
        if on and LEVELS[raise_to] < out.threshold:
            out.threshold = LEVELS[raise_to]
        elif not on and LEVELS[lower_to] > out.threshold:
            out.threshold = LEVELS[lower_to]
        else:
            continue
        name = raise_to if on else lower_to
        out.log("verbose", f"body agent control, {lval} => '{value}', sets new log level "
                           f"to '{name}'")
    inform = out.enabled("info")
    agent.ctx.inform = inform
    if agent._services is not None:
        agent._services.inform = inform


def _strings(value: Any) -> list[str]:
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return [value] if isinstance(value, str) else []
