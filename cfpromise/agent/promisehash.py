"""What makes cf-agent 3.21 take two promises for the same one (its in-run lock cache).

cf-agent actuates a promise once per run: before taking a promise's lock, AcquireLock
looks its digest up in the run's lock cache (locks.c, PromiseRuntimeHash) and skips it
when an earlier promise had the same digest, even with -K.  The digest is taken over the
*expanded* promise (promises.c, DeRefCopyPromise then ExpandDeRefPromise), as bytes
written one after the other with nothing between them:

* the promiser, the comment, the bundle's namespace and name, the lock's operand (for
  reports and services the promiser, for commands the command line, for methods
  ``method_<promiser>_<args>``; edit promises name their file);
* then, for each constraint in the order the expanded promise holds them: its name, then
  its value (a list: its items; a body or bundle call: its name then its arguments; a
  data container: its compact JSON).  The values of ``mtime``, ``atime``, ``ctime``,
  ``stime_range``, ``ttime_range``, ``log_string`` and ``template_data`` are left out.

The expanded promise holds ``ifvarclass`` (a quoted class guard becomes one; with an
``ifvarclass`` of its own the two are merged as ``(guard).(value)``), ``if``, ``unless``
and ``depends_on`` first, as their checks add them, then the other constraints in the
order written; a body reference becomes ``<lval>_name`` (the body's name), ``<lval>``
(``true``) and the body's own constraints (parents first, a later one replacing an earlier
one of the same name in place); a default body (``bodydefault:``) adds its constraints at
the end.  So the order of the attributes counts, the class guard (``any::``) does not,
a list ``{"a", "b"}`` is the same as ``{"ab"}``, and two bodies of the same content but
different names differ.  The promise type itself is not hashed: cf-lite adds it, except
for the types whose lock operand is their promiser, which cf-agent can confuse.
"""
from __future__ import annotations

from cfpromise.agent.bodies import body_reference, has_call
from cfpromise.agent.bundleargs import PendingArgument
from cfpromise.eval.rvals import UNRESOLVED, as_text
from cfpromise.promises.api import BundleCall
from cfpromise.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# values left out of the digest (they change from run to run)
NOT_HASHED = frozenset({"mtime", "atime", "ctime", "stime_range", "ttime_range", "log_string",
                        "template_data"})
# checked first, in this order: ExpandDeRefPromise appends them as it checks them
FIRST = ("ifvarclass", "if", "unless", "depends_on")
# promise types whose lock operand is the promiser itself (they share one name space)
_PROMISER_OPERAND = frozenset({"reports", "services"})


def _value_bytes(value: Any) -> str:
    if value is None or value is UNRESOLVED:
        return ""
    if isinstance(value, bool):     # a class function's answer, as cf-agent's returns it
        return "any" if value else "!any"
    if isinstance(value, str):
        return value
    if isinstance(value, BundleCall):
        return value.name + "".join(_arg(a) for a in value.args)
    if isinstance(value, (list, tuple)):
        return "".join(_arg(v) for v in value)
    if isinstance(value, dict):
        import json         # (rare: a data container as an attribute's value)
        return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return as_text(value) if not isinstance(value, (int, float)) else str(value)


def _arg(value: Any) -> str:
    # RvalDigestUpdate: a scalar item as it is, a function call its name (the reference's
    # arguments as ExpandBundleReference left them: cfpromise.agent.bundleargs)
    if isinstance(value, PendingArgument):
        return value.digest
    return value if isinstance(value, str) else _value_bytes(value)


def _operand(ptype: str, promiser: str, attributes: dict[str, Any], where: str) -> str:
    if ptype in _PROMISER_OPERAND:
        return promiser
    if ptype == "commands":
        line = promiser
        if attributes.get("args"):
            line += " " + _value_bytes(attributes["args"])
        for item in attributes.get("arglist") or ():
            if isinstance(item, str):
                line += " " + item
        return f"\0commands\0{line}"
    if ptype == "methods":
        call = attributes.get("usebundle")
        args = "".join(_arg(a) for a in call.args) if isinstance(call, BundleCall) else ""
        return f"\0methods\0method_{promiser}_{args}"
    return f"\0{ptype}\0{promiser}\0{where}"


def _guards(step: Any) -> list[tuple[str, str]]:
    """ifvarclass (with the quoted class guard), if, unless and depends_on, as the
    promise's checks left them in the expanded promise."""
    promise: ast.Promise = step.promise
    ev = step.ev
    out: list[tuple[str, str]] = []
    # the values the promise's if/ifvarclass/unless had when they were checked (a
    # function they call is not called again)
    checked = getattr(step.agent, "condition_values", None)
    known = dict(checked[1]) if checked is not None and checked[0] is ev else {}
    varclass = promise.varclass
    own = promise.get("ifvarclass")
    if varclass is not None or own is not None:
        text = ev.text(varclass) if varclass is not None else ""
        if own is not None:
            if "ifvarclass" in known:
                value = _value_bytes(known["ifvarclass"])
            else:
                value = _value_bytes(ev.value(own.rval)) if not has_call(own.rval) else ""
            text = f"({text}).({value})" if varclass is not None else value
        out.append(("ifvarclass", text))
    for lval in FIRST[1:]:
        c = promise.get(lval)
        if c is not None:
            value = known[lval] if lval in known else \
                ev.value(c.rval, want_list=lval == "depends_on")
            out.append((lval, _value_bytes(value)))
    return out


def identity(step: Any, attributes: dict[str, Any], where: str = "") -> str:
    """The text cf-agent's PromiseRuntimeHash digests for this promise (see the module),
    with the promise type added where cf-agent's operand tells types apart anyway."""
    run = step.run
    bundle = run.bundle
    comment = attributes.get("comment")
    parts = [step.promiser, comment if isinstance(comment, str) else "",
             bundle.namespace, bundle.name,
             _operand(step.ptype, step.promiser, attributes, where)]
    constraints: dict[str, str] = dict(_guards(step))
    written = {c.lval: c for c in step.promise.constraints}
    for lval, value in attributes.items():
        if lval in FIRST:
            continue
        c = written.get(lval)
        if isinstance(value, dict) and c is not None:
            ref = body_reference(c.rval, step.ev)
            name = ref[0].rpartition(":")[2] if ref is not None else ""
            constraints[f"{lval}_name"] = name
            constraints[lval] = "true"
            for key, item in value.items():
                constraints[key] = "" if key in NOT_HASHED else _value_bytes(item)
        elif isinstance(value, dict):       # a default body: its constraints only
            for key, item in value.items():
                constraints[key] = "" if key in NOT_HASHED else _value_bytes(item)
        else:
            constraints[lval] = "" if lval in NOT_HASHED else _value_bytes(value)
    parts.extend(lval + value for lval, value in constraints.items())
    return "".join(parts)
